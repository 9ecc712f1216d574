// Backends whose machine is a cloud sandbox reached through an API call per command (Daytona,
// Vercel Sandbox, Modal): no live shell to keep, so — as Hermes does — each command runs in a fresh
// `bash -c` that restores the exported variables saved by the previous one and starts in the
// directory it ended in. Background processes run under nohup with their output in a log file the
// backend polls. The sandbox is created on first use, stopped (snapshotted when persistent) after
// TERMINAL_LIFETIME_SECONDS idle or when the session ends, and recreated on the next command.
import { randomBytes } from 'node:crypto';
import type { ChildLike } from './child.ts';
import { shq, type BackendKind, type BackgroundChild, type ExecOptions, type ExecResult, type ExecutionBackend, type SpawnOptions } from './types.ts';

export interface DriverRun {
  output: string;
  exitCode: number | null;
}

/** What one cloud provider has to offer: create/resume, run a script, stop. */
export interface SandboxDriver {
  readonly kind: BackendKind;
  readonly label: string;
  /** Creates (or resumes / restores) the sandbox; resolves to the directory commands start in. */
  start(): Promise<{ workdir: string }>;
  /** Runs `bash -c script` in the sandbox to completion (stdout and stderr together). */
  run(script: string, o: { timeoutMs: number; signal: AbortSignal }): Promise<DriverRun>;
  /** Ends the sandbox: snapshot/stop when persistent, delete otherwise. */
  stop(): Promise<void>;
}

const CWD_MARK = '__HERMES_CWD__';

/** The wrapper around one command: restore exports and cwd, run, save exports and cwd. */
export function wrapCommand(command: string, o: { cwd: string; envFile: string; marker: string; stdin?: string }): string {
  const stdin = o.stdin !== undefined ? ` <<'__HERMES_IN_${o.marker}'\n${o.stdin.replace(/\n?$/, '\n')}__HERMES_IN_${o.marker}` : ' </dev/null';
  return [
    `exec 2>&1; __hermes_id=${o.marker}`,
    `[ -f ${shq(o.envFile)} ] && . ${shq(o.envFile)} >/dev/null 2>&1`,
    `cd -- ${shq(o.cwd)} 2>/dev/null || { printf 'hermes: workdir %s does not exist\\n' ${shq(o.cwd)}; exit 1; }`,
    `eval ${shq(command)}${stdin}`,
    `__hermes_ec=$?; export -p > ${shq(o.envFile)} 2>/dev/null; printf '\\n${CWD_MARK}%s\\n' "$PWD"; exit $__hermes_ec`,
  ].join('\n');
}

/** Splits the wrapper's cwd marker off the output. */
export function parseWrapped(output: string): { output: string; cwd: string | null } {
  const at = output.lastIndexOf(`\n${CWD_MARK}`);
  if (at < 0) return { output, cwd: null };
  const cwd = output.slice(at + CWD_MARK.length + 1).split('\n')[0].trim();
  return { output: output.slice(0, at).replace(/^\n/, ''), cwd: cwd || null };
}

export class SandboxBackend implements ExecutionBackend {
  readonly kind: BackendKind;
  readonly isContainer = true;
  readonly label: string;
  private readonly driver: SandboxDriver;
  private readonly lifetimeMs: number;
  private started: Promise<string> | null = null;
  private cwd = '';
  private readonly envFile = `/tmp/.hermes-env-${randomBytes(4).toString('hex')}`;
  private idle: NodeJS.Timeout | null = null;
  private readonly children = new Set<PolledChild>();
  private active = 0;

  constructor(driver: SandboxDriver, o: { lifetimeSeconds: number }) {
    this.driver = driver;
    this.kind = driver.kind;
    this.label = driver.label;
    this.lifetimeMs = Math.max(0, o.lifetimeSeconds) * 1000;
  }

  private ensure(): Promise<string> {
    this.started ??= this.driver.start().then(
      ({ workdir }) => {
        if (!this.cwd) this.cwd = workdir;
        return workdir;
      },
      (e) => {
        this.started = null;
        throw e;
      },
    );
    return this.started;
  }

  /** Idle cleanup: the sandbox stops after the lifetime with nothing running, and comes back on demand. */
  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    if (!this.lifetimeMs) return;
    this.idle = setTimeout(() => {
      if (this.active || this.children.size || !this.started) return this.touch();
      this.started = null;
      void this.driver.stop().catch(() => {});
    }, this.lifetimeMs);
    this.idle.unref();
  }

  async currentCwd(): Promise<string> {
    await this.ensure();
    return this.cwd;
  }

  /** A script run straight through the driver (kills, polls); never throws. */
  private async raw(script: string, timeoutMs = 30_000): Promise<DriverRun> {
    try {
      await this.ensure();
      return await this.driver.run(script, { timeoutMs, signal: AbortSignal.timeout(timeoutMs + 5000) });
    } catch (e) {
      return { output: (e as Error).message, exitCode: null };
    }
  }

  async exec(command: string, o: ExecOptions): Promise<ExecResult> {
    await this.ensure();
    this.active++;
    try {
      const marker = randomBytes(6).toString('hex');
      const script = wrapCommand(command, { cwd: o.cwd ?? this.cwd, envFile: this.envFile, marker, stdin: o.stdin });
      const ac = new AbortController();
      let timedOut = false;
      let interrupted = false;
      // The command's process tree, found by the marker in its script (this killer's own shell excluded).
      const kill = () =>
        void this.raw(
          `__d(){ for __c in $(pgrep -P "$1" 2>/dev/null); do __d "$__c"; echo "$__c"; done; }; ` +
            `for __p in $(pgrep -f '__hermes_id=${marker}' 2>/dev/null); do [ "$__p" = "$$" ] && continue; kill -KILL $(__d "$__p") "$__p" 2>/dev/null; done; true`,
        );
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
        setTimeout(() => ac.abort(), 3000).unref();
      }, o.timeoutMs);
      const onAbort = () => {
        interrupted = true;
        kill();
        setTimeout(() => ac.abort(), 3000).unref();
      };
      if (o.signal.aborted) onAbort();
      else o.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const r = await this.driver.run(script, { timeoutMs: o.timeoutMs + 10_000, signal: ac.signal });
        const parsed = parseWrapped(r.output);
        if (parsed.cwd) this.cwd = parsed.cwd;
        return { output: parsed.output, exitCode: timedOut || interrupted ? null : r.exitCode, timedOut, interrupted };
      } catch (e) {
        if (timedOut || interrupted) return { output: '', exitCode: null, timedOut, interrupted };
        throw e;
      } finally {
        clearTimeout(timer);
        o.signal.removeEventListener('abort', onAbort);
      }
    } finally {
      this.active--;
      this.touch();
    }
  }

  async spawn(command: string, o: SpawnOptions): Promise<BackgroundChild> {
    await this.ensure();
    const id = randomBytes(6).toString('hex');
    const log = `/tmp/.hermes-bg-${id}.log`;
    const exit = `/tmp/.hermes-bg-${id}.exit`;
    const inner = `[ -f ${shq(this.envFile)} ] && . ${shq(this.envFile)} >/dev/null 2>&1; cd -- ${shq(o.cwd ?? this.cwd)} || exit 1; eval ${shq(command)}`;
    // The subshell outlives the command to record its exit status (an `exit` in the command ends only the inner bash).
    const start = await this.raw(
      `: > ${shq(log)}; ( setsid bash -c ${shq(inner)} > ${shq(log)} 2>&1 < /dev/null; echo $? > ${shq(exit)} ) > /dev/null 2>&1 & echo "__HERMES_BGPID__$!"`,
    );
    const m = /__HERMES_BGPID__(\d+)/.exec(start.output);
    const pid = m ? Number(m[1]) : null;
    const child = new PolledChild({ poll: (script) => this.raw(script), log, exit, pid });
    this.children.add(child);
    child.onExit(() => {
      this.children.delete(child);
      this.touch();
    });
    return { child, pid, stop: () => child.stop() };
  }

  async close(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    await Promise.all([...this.children].map((c) => c.stop().catch(() => {})));
    if (this.started) {
      this.started = null;
      await this.driver.stop().catch(() => {});
    }
  }
}

/** A background process in a sandbox, seen through its log file (polled). */
class PolledChild implements ChildLike {
  private readonly o: { poll: (script: string) => Promise<DriverRun>; log: string; exit: string; pid: number | null };
  private readonly dataCbs: ((t: string) => void)[] = [];
  private readonly exitCbs: ((c: number | null, s: string | null) => void)[] = [];
  private offset = 0;
  private done: [number | null, string | null] | null = null;
  private timer: NodeJS.Timeout | null = null;
  private killedWith: string | null = null;

  constructor(o: { poll: (script: string) => Promise<DriverRun>; log: string; exit: string; pid: number | null }) {
    this.o = o;
    this.schedule(200);
  }

  get pid(): number | undefined {
    return this.o.pid ?? undefined;
  }

  get exited(): boolean {
    return this.done !== null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.done) return;
    const r = await this.o.poll(
      // Liveness first, exit file second: a process found gone has already written its exit status.
      `${this.o.pid ? `kill -0 ${this.o.pid} 2>/dev/null && __a=' alive'; ` : ''}tail -c +${this.offset + 1} ${shq(this.o.log)} 2>/dev/null | base64 | tr -d '\\n'; printf '\\n__HERMES_EXIT__'; cat ${shq(this.o.exit)} 2>/dev/null; printf '%s' "$__a"; true`,
    );
    const at = r.output.lastIndexOf('__HERMES_EXIT__');
    if (at >= 0) {
      const chunk = Buffer.from(r.output.slice(0, at).trim(), 'base64');
      if (chunk.length) {
        this.offset += chunk.length;
        const text = chunk.toString('utf8');
        for (const cb of this.dataCbs) cb(text);
      }
      const tail = r.output.slice(at + 15).trim();
      const code = /^(\d+)/.exec(tail);
      if (code || (this.o.pid && !tail.includes('alive') && r.exitCode !== null)) {
        // Output written between the read above and the exit: one last read.
        const last = await this.o.poll(`tail -c +${this.offset + 1} ${shq(this.o.log)} 2>/dev/null | base64 | tr -d '\\n'`);
        const rest = Buffer.from(last.output.trim(), 'base64');
        if (rest.length) {
          this.offset += rest.length;
          for (const cb of this.dataCbs) cb(rest.toString('utf8'));
        }
        return this.finish(code ? Number(code[1]) : null, code ? null : this.killedWith);
      }
    }
    this.schedule(500);
  }

  private finish(code: number | null, signal: string | null): void {
    if (this.done) return;
    this.done = [code, signal];
    if (this.timer) clearTimeout(this.timer);
    for (const cb of this.exitCbs) cb(code, signal);
  }

  onData(cb: (text: string) => void): void {
    this.dataCbs.push(cb);
  }

  onExit(cb: (code: number | null, signal: string | null) => void): void {
    if (this.done) cb(...this.done);
    else this.exitCbs.push(cb);
  }

  /** Sandbox APIs give no stdin to a detached process. */
  write(): boolean {
    return false;
  }

  end(): void {}

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.o.pid || this.done) return;
    this.killedWith = signal;
    const sig = signal.replace('SIG', '');
    // The command's tree first (deepest last found), the recording subshell after it.
    void this.o.poll(`__d(){ for __c in $(pgrep -P "$1" 2>/dev/null); do __d "$__c"; echo "$__c"; done; }; __t=$(__d ${this.o.pid}); [ -n "$__t" ] && kill -${sig} $__t 2>/dev/null; true`);
  }

  async stop(): Promise<void> {
    if (this.done) return;
    this.kill('SIGTERM');
    for (let i = 0; i < 20 && !this.done; i++) {
      await new Promise((r) => setTimeout(r, 250));
      if (i === 10) this.kill('SIGKILL');
      await this.tick();
    }
    this.finish(null, this.killedWith ?? 'SIGKILL');
  }
}
