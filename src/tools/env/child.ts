// One shape for a child process whether it runs on pipes or in a pseudo-terminal, plus the
// run-to-completion helper every backend uses (timeout, interrupt, output cap, process-group kill).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { releaseGroup, trackGroup } from './groups.ts';

export interface ChildLike {
  readonly pid: number | undefined;
  onData(cb: (text: string) => void): void;
  onExit(cb: (code: number | null, signal: string | null) => void): void;
  write(data: string): boolean;
  /** Closes stdin (pipes) or sends EOF (pty). */
  end(): void;
  /** Signals the child's whole process group. */
  kill(signal?: NodeJS.Signals): void;
  readonly exited: boolean;
}

/** Signals a process group, falling back to the process; never throws. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Whether `pid` is a live process (zombies waiting for a reaper count as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): trust kill(0)
  }
}

/** Spawns on pipes, in its own process group (so the group can be killed), stderr merged. */
export function spawnPipes(file: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: boolean }): ChildLike {
  const child = spawn(file, args, { cwd: o.cwd, env: o.env, detached: true, stdio: [o.stdin === false ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  trackGroup(child.pid);
  let exited = false;
  const dataCbs: ((t: string) => void)[] = [];
  const exitCbs: ((c: number | null, s: string | null) => void)[] = [];
  const pending: string[] = [];
  const emit = (t: string) => {
    if (dataCbs.length) for (const cb of dataCbs) cb(t);
    else pending.push(t);
  };
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => emit(d));
  child.stderr!.on('data', (d: string) => emit(d));
  child.stdin?.on('error', () => {});
  let exitInfo: [number | null, string | null] | null = null;
  child.on('error', (e) => {
    emit(`${e.message}\n`);
    if (!exited) {
      exited = true;
      exitInfo = [127, null];
      for (const cb of exitCbs) cb(127, null);
    }
  });
  const finish = (code: number | null, signal: string | null) => {
    if (exited) return;
    exited = true;
    releaseGroup(child.pid);
    exitInfo = [code, signal];
    for (const cb of exitCbs) cb(code, signal);
  };
  child.on('close', finish);
  // A command that backgrounds something (`server &`) leaves its stdout open in the grandchild:
  // once the shell itself has exited, wait briefly for the pipes, then stop reading them.
  child.on('exit', (code, signal) => {
    setTimeout(() => {
      if (exited) return;
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(code, signal);
    }, 300).unref();
  });
  return {
    get pid() {
      return child.pid;
    },
    get exited() {
      return exited;
    },
    onData(cb) {
      dataCbs.push(cb);
      for (const t of pending.splice(0)) cb(t);
    },
    onExit(cb) {
      if (exitInfo) cb(...exitInfo);
      else exitCbs.push(cb);
    },
    write(data) {
      if (!child.stdin || child.stdin.destroyed) return false;
      return child.stdin.write(data), true;
    },
    end() {
      child.stdin?.end();
    },
    kill(signal = 'SIGTERM') {
      killGroup(child.pid, signal);
    },
  };
}

type PtyModule = typeof import('@lydell/node-pty');
let ptyMod: Promise<PtyModule> | undefined;

/** Spawns in a pseudo-terminal (for interactive programs). node-pty is loaded on first use. */
export async function spawnPty(file: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; cols?: number; rows?: number }): Promise<ChildLike> {
  ptyMod ??= import('@lydell/node-pty');
  const pty = await ptyMod;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env ?? process.env)) if (v !== undefined) env[k] = v;
  env.TERM ??= 'xterm-256color';
  const p = pty.spawn(file, args, { name: env.TERM, cols: o.cols ?? 120, rows: o.rows ?? 30, cwd: o.cwd, env });
  trackGroup(p.pid);
  let exited = false;
  let exitInfo: [number | null, string | null] | null = null;
  const exitCbs: ((c: number | null, s: string | null) => void)[] = [];
  const dataCbs: ((t: string) => void)[] = [];
  const pending: string[] = [];
  p.onData((d) => {
    if (dataCbs.length) for (const cb of dataCbs) cb(d);
    else pending.push(d);
  });
  p.onExit(({ exitCode, signal }) => {
    exited = true;
    releaseGroup(p.pid);
    const sig = signal ? (Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] ?? String(signal)) : null;
    exitInfo = [signal ? null : exitCode, sig];
    // node-pty may deliver the last output after exit; give it a tick.
    setTimeout(() => {
      for (const cb of exitCbs) cb(...exitInfo!);
    }, 20);
  });
  return {
    get pid() {
      return p.pid;
    },
    get exited() {
      return exited;
    },
    onData(cb) {
      dataCbs.push(cb);
      for (const t of pending.splice(0)) cb(t);
    },
    onExit(cb) {
      if (exitInfo) setTimeout(() => cb(...exitInfo!), 20);
      else exitCbs.push(cb);
    },
    write(data) {
      if (exited) return false;
      p.write(data);
      return true;
    },
    end() {
      if (!exited) p.write('\x04');
    },
    kill(signal = 'SIGTERM') {
      killGroup(p.pid, signal);
    },
  };
}

export interface RunOutcome {
  /** The head and tail of the output (see OutputKeeper). */
  output: string;
  /** Characters dropped from the middle of a flood. */
  dropped?: number;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
}

/** What runChild keeps of a command's output: this much of the head (characters) and of the tail (bytes). */
export const KEEP_HEAD = 2 * 1024 * 1024;
export const KEEP_TAIL = 2 * 1024 * 1024;

/**
 * Output kept as a bounded head and a fixed ring of tail bytes: a flood (gigabytes from `yes`) costs
 * memory of the bound only and time linear in its size. The tail is copied into one buffer made
 * once, so the chunks die young (keeping the chunks themselves promoted each to the old generation
 * and let garbage pile up there to hundreds of MB).
 */
export class OutputKeeper {
  private head = '';
  private ring: Buffer | null = null;
  private pos = 0;
  private wrapped = false;
  /** Characters (bytes, past the head) dropped between head and tail. */
  dropped = 0;
  private readonly headMax: number;
  private readonly tailMax: number;

  constructor(headMax = KEEP_HEAD, tailMax = KEEP_TAIL) {
    this.headMax = headMax;
    this.tailMax = tailMax;
  }

  push(t: string): void {
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      if (t.length <= room) return void (this.head += t);
      this.head += t.slice(0, room);
      t = t.slice(room);
    }
    this.ring ??= Buffer.allocUnsafe(this.tailMax);
    let b = Buffer.from(t, 'utf8');
    if (b.length >= this.tailMax) {
      this.dropped += this.wrapped ? this.tailMax : this.pos;
      this.dropped += b.length - this.tailMax;
      b = b.subarray(b.length - this.tailMax);
      b.copy(this.ring, 0);
      this.pos = 0;
      this.wrapped = true;
      return;
    }
    const first = Math.min(b.length, this.tailMax - this.pos);
    if (this.wrapped) this.dropped += b.length;
    else if (this.pos + b.length > this.tailMax) this.dropped += this.pos + b.length - this.tailMax;
    b.copy(this.ring, this.pos, 0, first);
    if (first < b.length) {
      b.copy(this.ring, 0, first);
      this.pos = b.length - first;
      this.wrapped = true;
    } else {
      this.pos += first;
      if (this.pos === this.tailMax) {
        this.pos = 0;
        this.wrapped = true;
      }
    }
  }

  /** The head and the tail, joined (`dropped` says how much was between them). */
  text(): string {
    if (!this.ring) return this.head;
    const tail = this.wrapped ? Buffer.concat([this.ring.subarray(this.pos), this.ring.subarray(0, this.pos)]) : this.ring.subarray(0, this.pos);
    // A cut through a multi-byte character at the start: skip its continuation bytes.
    let k = 0;
    while (this.dropped && k < 4 && k < tail.length && (tail[k] & 0xc0) === 0x80) k++;
    return this.head + tail.toString('utf8', k);
  }
}

/**
 * Runs a started child to completion: collects output (a bounded head and tail, see OutputKeeper),
 * kills the group on timeout or abort (TERM, then KILL after `graceMs`), resolves when it has exited.
 * `onKill` lets remote backends kill the remote side too.
 */
export function runChild(
  child: ChildLike,
  o: { timeoutMs: number; signal: AbortSignal; stdin?: string; onKill?: (signal: NodeJS.Signals) => void | Promise<void>; graceMs?: number; onOutput?: (t: string) => void },
): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const kept = new OutputKeeper();
    child.onData((t) => {
      o.onOutput?.(t);
      kept.push(t);
    });
    if (o.stdin !== undefined) {
      child.write(o.stdin);
      child.end();
    }
    let timedOut = false;
    let interrupted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = () => {
      void o.onKill?.('SIGTERM');
      child.kill('SIGTERM');
      killTimer = setTimeout(() => {
        void o.onKill?.('SIGKILL');
        child.kill('SIGKILL');
      }, o.graceMs ?? 2000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, o.timeoutMs);
    const onAbort = () => {
      interrupted = true;
      kill();
    };
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    child.onExit((code) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      o.signal.removeEventListener('abort', onAbort);
      const output = kept.text();
      resolve({ output, exitCode: code, timedOut, interrupted, ...(kept.dropped ? { dropped: kept.dropped } : {}) });
    });
  });
}

/** Runs a program to completion (stdout and stderr together), killed after `timeoutMs`; never throws. */
export function runProgram(bin: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    const t = setTimeout(() => c.kill('SIGKILL'), timeoutMs);
    c.on('error', (e) => {
      clearTimeout(t);
      resolve({ code: 127, out: e.message });
    });
    c.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}
