// The local backend: each command is a fresh `bash -c` in its own process group on this machine,
// with Hermes's own secrets filtered out of its environment. Under the OS sandbox, foreground
// commands on pipes are children of a sandboxed process server (sandbox-server.ts) started once
// per plan; PTY and background commands, and any command when that server cannot start, get a
// bwrap of their own.
import { existsSync, statSync } from 'node:fs';
import { runChild, spawnPipes, spawnPty, type ChildLike } from './child.ts';
import type { BackgroundChild, ExecOptions, ExecResult, ExecutionBackend, SpawnOptions } from './types.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { SandboxServerPool } from './sandbox-server.ts';

export class LocalBackend implements ExecutionBackend {
  readonly kind = 'local' as const;
  readonly isContainer = false;
  readonly label = 'local';
  private readonly cwd: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly shell: string;
  private readonly sandboxOf: () => Sandbox | undefined;
  private readonly servers = new SandboxServerPool();

  /** `sandbox`: the OS sandbox every command runs in (absent: none); a function when it can change (/sandbox). */
  constructor(o: { cwd: string; env: NodeJS.ProcessEnv; sandbox?: Sandbox | (() => Sandbox | undefined) }) {
    this.cwd = o.cwd;
    this.env = o.env;
    const sb = o.sandbox;
    this.sandboxOf = typeof sb === 'function' ? sb : () => sb;
    this.shell = existsSync('/bin/bash') ? '/bin/bash' : 'bash';
  }

  /** The OS sandbox commands run in now (absent: none). */
  get sandbox(): Sandbox | undefined {
    return this.sandboxOf();
  }

  async currentCwd(): Promise<string> {
    return this.cwd;
  }

  private async start(command: string, cwd: string, pty: boolean | undefined, stdin: boolean, background = false): Promise<ChildLike> {
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new Error(`workdir ${cwd} does not exist or is not a directory.`);
    // --norc: a socket on stdin (how Node wires a 'pipe') makes bash think rshd started it and
    // source ~/.bashrc, so background commands (stdin open) would run the user's rc file and
    // foreground ones (stdin /dev/null) would not. Every command gets the same environment.
    const args = ['--norc', '-c', command];
    const sb = this.sandbox;
    const plan = sb?.active ? sb.plan() : null;
    if (sb && plan && !pty && !background) {
      const server = await this.servers.get(sb, plan);
      const child = server?.run(this.shell, args, { cwd, env: this.env, stdin });
      if (child) return child;
    }
    const w = sb && plan ? sb.wrapPlan(plan, this.shell, args) : { file: this.shell, args };
    return pty ? spawnPty(w.file, w.args, { cwd, env: this.env }) : spawnPipes(w.file, w.args, { cwd, env: this.env, stdin });
  }

  async exec(command: string, o: ExecOptions): Promise<ExecResult> {
    const child = await this.start(command, o.cwd ?? this.cwd, o.pty, o.stdin !== undefined);
    return runChild(child, { timeoutMs: o.timeoutMs, signal: o.signal, stdin: o.stdin });
  }

  async spawn(command: string, o: SpawnOptions): Promise<BackgroundChild> {
    const child = await this.start(command, o.cwd ?? this.cwd, o.pty, true, true);
    return {
      child,
      pid: child.pid ?? null,
      stop: () => stopChild(child),
    };
  }

  async close(): Promise<void> {
    this.servers.close();
  }
}

/**
 * TERM the group, KILL after 3 s; resolves once the child has exited and `onKill` (which reaches
 * processes the child only fronts, e.g. the remote side of an ssh client) has finished.
 */
export function stopChild(child: ChildLike, onKill?: (sig: NodeJS.Signals) => Promise<void> | void): Promise<void> {
  if (child.exited) return Promise.resolve();
  const remote = (sig: NodeJS.Signals) => Promise.resolve(onKill?.(sig)).catch(() => {});
  return new Promise((resolve) => {
    const pending: Promise<void>[] = [];
    const t = setTimeout(() => {
      pending.push(remote('SIGKILL'));
      child.kill('SIGKILL');
    }, 3000);
    t.unref();
    child.onExit(() => {
      clearTimeout(t);
      void Promise.all(pending).then(() => resolve());
    });
    // Reach the far side first: killing the local client first can cut the channel the kill needs.
    const term = remote('SIGTERM');
    pending.push(term);
    void term.then(() => child.kill('SIGTERM'));
  });
}
