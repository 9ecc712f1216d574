// Execution backends: where terminal commands, background processes and scripts run.
import type { ChildLike } from './child.ts';

export interface ExecOptions {
  /** Working directory on the backend; default: the backend's current directory. */
  cwd?: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Text written to the command's stdin (then closed). */
  stdin?: string;
  /** Run in a pseudo-terminal. */
  pty?: boolean;
}

export interface ExecResult {
  output: string;
  /** Characters dropped from the middle of a flood (output holds the head and the tail). */
  dropped?: number;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
  /** Something the model should know about the backend (e.g. the shell was restarted). */
  note?: string;
}

export interface SpawnOptions {
  cwd?: string;
  pty?: boolean;
}

/** A background process started on a backend. */
export interface BackgroundChild {
  child: ChildLike;
  /** The process id on the backend (the remote pid for ssh/docker). */
  pid: number | null;
  /** Stops it: TERM, then KILL after a grace period. Resolves when it has exited. */
  stop(): Promise<void>;
}

export type BackendKind = 'local' | 'ssh' | 'docker' | 'singularity' | 'modal' | 'daytona' | 'vercel_sandbox';

export interface ExecutionBackend {
  readonly kind: BackendKind;
  /** Containers skip dangerous-pattern approvals (hardline and deny rules still apply). */
  readonly isContainer: boolean;
  /** e.g. "local", "ssh deploy@host:22", "docker hermes-…". */
  readonly label: string;
  /** The directory commands run in when no workdir is given. */
  currentCwd(): Promise<string>;
  exec(command: string, opts: ExecOptions): Promise<ExecResult>;
  spawn(command: string, opts: SpawnOptions): Promise<BackgroundChild>;
  close(): Promise<void>;
}

/** Single-quotes a string for POSIX shells. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
