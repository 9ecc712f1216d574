// Backends that reach their machine through a transport (ssh, docker exec): one persistent bash per
// session (cd and exports carry over between commands), plus one-shot transport calls for
// background processes, PTY commands and kills.
import { randomBytes } from 'node:crypto';
import { OutputKeeper, runChild, spawnPipes, spawnPty, type ChildLike } from './child.ts';
import { stopChild } from './local.ts';
import { shq, type BackendKind, type BackgroundChild, type ExecOptions, type ExecResult, type ExecutionBackend, type SpawnOptions } from './types.ts';

export interface Transport {
  /** The local program and arguments that run `script` (a shell string) on the target. */
  command(script: string, o: { tty: boolean }): { file: string; args: string[]; env?: NodeJS.ProcessEnv; cwd?: string };
  /** The shell the persistent session runs (default: a login bash). */
  readonly shell?: string;
  /** Called once before the first command (e.g. start the container). */
  prepare?(): Promise<void>;
  /** Releases what prepare() made (e.g. the ssh control master, the container). */
  dispose?(): Promise<void>;
  /** Explains a failure to connect, from the transport's own stderr. */
  describeFailure?(output: string): string;
  /** Something that changes when a running persistent shell must be replaced (the local OS sandbox's policy). */
  generation?(): unknown;
}

/** Shell snippet that signals every descendant of `pid` (children first are collected, then all). */
export function killTreeScript(pid: number, signal: 'TERM' | 'KILL', includeSelf = false): string {
  return (
    `__d(){ for __c in $(pgrep -P "$1" 2>/dev/null || ps -o pid= --ppid "$1" 2>/dev/null); do echo "$__c"; __d "$__c"; done; }; ` +
    `__p="$(__d ${pid})${includeSelf ? ` ${pid}` : ''}"; [ -n "$__p" ] && kill -${signal} $__p 2>/dev/null; ` +
    `${includeSelf ? `kill -${signal} -- -${pid} 2>/dev/null; ` : ''}true`
  );
}

const READY = '__HERMES_READY_';
/** What of a command's output stays in the shell's buffer for finding the end marker; the rest goes to an OutputKeeper. */
const WINDOW = 8192;
const PID_LINE = /__HERMES_PID__(\d+)\r?\n/;

/** One long-lived bash on the target, fed commands with unique end markers. */
class PersistentShell {
  private child: ChildLike | null = null;
  /** Output not yet consumed: bounded (see spill). */
  private buf = '';
  /** The running command's markers, and its output so far once the begin marker was seen. */
  private current: { begin: string; end: string; kept: OutputKeeper | null } | null = null;
  private readonly listeners = new Set<(buf: string) => void>();
  pid = 0;
  cwd = '';
  private readonly transport: Transport;
  dead = false;
  /** Until the ready marker: the buffer is kept whole (a failure to start is explained from it). */
  private starting = false;
  /** The transport's generation when the shell started. */
  generation: unknown;
  /** The shell's own exit status once it has exited. */
  exitStatus: number | null = null;

  constructor(transport: Transport) {
    this.transport = transport;
  }

  async start(): Promise<void> {
    const nonce = randomBytes(6).toString('hex');
    this.generation = this.transport.generation?.();
    const { file, args, env, cwd } = this.transport.command(`exec ${this.transport.shell ?? 'bash -l'} 2>&1`, { tty: false });
    const child = spawnPipes(file, args, { env, cwd, stdin: true });
    this.child = child;
    this.dead = false;
    this.buf = '';
    this.starting = true;
    child.onData((t) => {
      this.buf += t;
      this.spill();
      for (const l of [...this.listeners]) l(this.buf);
    });
    child.onExit((code) => {
      this.dead = true;
      this.exitStatus = code;
      for (const l of [...this.listeners]) l(this.buf);
    });
    child.write(`exec 2>&1; printf '\\n${READY}${nonce}_%s_%s\\n' "$$" "$PWD"\n`);
    const re = new RegExp(`${READY}${nonce}_(\\d+)_(.*)\\r?\\n`);
    const m = await this.waitFor(re, 30_000);
    if (!m) {
      const out = this.buf;
      this.kill();
      throw new Error(this.transport.describeFailure?.(out) ?? `could not start a shell on the target: ${out.trim().slice(-500) || 'no output'}`);
    }
    this.pid = Number(m[1]);
    this.cwd = m[2];
    this.buf = this.buf.slice(m.index! + m[0].length);
    this.starting = false;
  }

  /**
   * Keeps the buffer bounded (a flood costs the bound only, like a one-shot command): a command's
   * output past its begin marker moves to its OutputKeeper except the last WINDOW characters and
   * anything from the end marker on; with no command running (a background job writing between
   * commands) only the last WINDOW characters are kept.
   */
  private spill(): void {
    const c = this.current;
    if (!c) {
      if (this.starting || this.buf.length <= 2 * WINDOW) return;
      this.buf = this.buf.slice(-WINDOW);
      return;
    }
    if (!c.kept) {
      const at = this.buf.indexOf(c.begin);
      if (at < 0) {
        if (this.buf.length > 2 * WINDOW) this.buf = this.buf.slice(-WINDOW);
        return;
      }
      c.kept = new OutputKeeper();
      this.buf = this.buf.slice(at + c.begin.length + 1);
    }
    if (this.buf.length <= 2 * WINDOW) return;
    let cut = this.buf.length - WINDOW;
    const end = this.buf.indexOf(c.end);
    if (end >= 0 && end < cut) cut = end;
    if (cut <= 0) return;
    c.kept.push(this.buf.slice(0, cut));
    this.buf = this.buf.slice(cut);
  }

  /** Resolves with the match once `re` matches the buffer; null on timeout or shell death. */
  private waitFor(re: RegExp, ms: number): Promise<RegExpExecArray | null> {
    return new Promise((resolve) => {
      const listener = (buf: string) => {
        const m = re.exec(buf);
        if (m) done(m);
        else if (this.dead) done(null);
      };
      const done = (v: RegExpExecArray | null) => {
        clearTimeout(t);
        this.listeners.delete(listener);
        resolve(v);
      };
      const t = setTimeout(() => done(null), ms);
      this.listeners.add(listener);
      listener(this.buf);
    });
  }

  /** Runs one command; the promise settles when its end marker arrives (or the shell dies). */
  async run(command: string, o: ExecOptions, control: (script: string) => Promise<void>): Promise<ExecResult> {
    const nonce = randomBytes(6).toString('hex');
    const begin = `__HERMES_BEGIN_${nonce}__`;
    const endRe = new RegExp(`\\n__HERMES_END_${nonce}__(-?\\d+)__(.*)\\r?\\n`);
    const stdin = o.stdin !== undefined ? ` <<'__HERMES_IN_${nonce}'\n${o.stdin.replace(/\n?$/, '\n')}__HERMES_IN_${nonce}` : ' </dev/null';
    const body = o.cwd
      ? `if cd -- ${shq(o.cwd)} 2>/dev/null; then eval ${shq(command)}${stdin}\nelse printf 'hermes: workdir %s does not exist\\n' ${shq(o.cwd)}; (exit 1); fi`
      : `eval ${shq(command)}${stdin}`;
    this.buf = '';
    this.current = { begin, end: `\n__HERMES_END_${nonce}__`, kept: null };
    this.child!.write(`printf '\\n${begin}\\n'\n${body}\n__hermes_ec=$?; printf '\\n__HERMES_END_${nonce}__%s__%s\\n' "$__hermes_ec" "$PWD"\n`);

    let timedOut = false;
    let interrupted = false;
    const stopping = async () => {
      await control(killTreeScript(this.pid, 'TERM')).catch(() => {});
      const m = await this.waitFor(endRe, 2000);
      if (m) return;
      await control(killTreeScript(this.pid, 'KILL')).catch(() => {});
    };
    const onAbort = () => {
      interrupted = true;
      void stopping();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      void stopping();
    }, o.timeoutMs);
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    try {
      // Wait for the marker; after a kill, give the shell a few seconds before declaring it lost.
      let m: RegExpExecArray | null = null;
      for (;;) {
        m = await this.waitFor(endRe, 1000);
        if (m || this.dead) break;
        if ((timedOut || interrupted) && !m) {
          m = await this.waitFor(endRe, 5000);
          break;
        }
      }
      const raw = this.buf;
      const kept = this.current?.kept;
      const start = kept ? -1 : raw.indexOf(begin);
      const from = start >= 0 ? start + begin.length + 1 : 0;
      const dropped = kept?.dropped ? { dropped: kept.dropped } : {};
      if (m) {
        this.cwd = m[2];
        const output = ((kept?.text() ?? '') + raw.slice(from, m.index)).replace(/^\r?\n/, '');
        this.buf = raw.slice(m.index! + m[0].length);
        return { output, exitCode: Number(m[1]), timedOut, interrupted, ...dropped };
      }
      // No marker: the shell exited (`exit` in the command) or hung in a builtin.
      const output = (kept?.text() ?? '') + raw.slice(from);
      const wasDead = this.dead;
      this.kill();
      await control(killTreeScript(this.pid, 'KILL', true)).catch(() => {});
      return {
        output,
        ...dropped,
        exitCode: wasDead ? this.exitStatus : null,
        timedOut,
        interrupted,
        note: wasDead
          ? 'The persistent shell exited during this command; a fresh shell (back in the start directory, without earlier exports) starts with the next command.'
          : 'The command could not be stopped cleanly, so the persistent shell was restarted; cd and exports from earlier commands are lost.',
      };
    } finally {
      this.current = null;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
    }
  }

  kill(): void {
    this.dead = true;
    this.child?.kill('SIGKILL');
    this.child = null;
  }
}

/** A backend over a transport. `kind` and `label` come from the concrete backend. */
export class RemoteShellBackend implements ExecutionBackend {
  readonly kind: BackendKind;
  readonly isContainer: boolean;
  readonly label: string;
  private readonly transport: Transport;
  private shell: PersistentShell | null = null;
  private starting: Promise<PersistentShell> | null = null;
  private prepared: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly persistent: boolean;
  private readonly defaultCwd?: string;
  private readonly children = new Set<BackgroundChild>();

  constructor(o: { kind: BackendKind; label: string; transport: Transport; isContainer: boolean; persistent?: boolean; defaultCwd?: string }) {
    this.kind = o.kind;
    this.label = o.label;
    this.transport = o.transport;
    this.isContainer = o.isContainer;
    this.persistent = o.persistent !== false;
    this.defaultCwd = o.defaultCwd;
  }

  private prepare(): Promise<void> {
    this.prepared ??= (this.transport.prepare?.() ?? Promise.resolve()).catch((e) => {
      this.prepared = null;
      throw e;
    });
    return this.prepared;
  }

  private async getShell(): Promise<PersistentShell> {
    await this.prepare();
    if (this.shell && !this.shell.dead && this.shell.generation !== this.transport.generation?.()) {
      // The sandbox changed: this shell runs under the old policy.
      this.shell.kill();
      this.shell = null;
    }
    if (this.shell && !this.shell.dead) return this.shell;
    this.starting ??= (async () => {
      const s = new PersistentShell(this.transport);
      const previousCwd = this.shell?.cwd;
      await s.start();
      if (this.defaultCwd && !previousCwd) s.cwd = this.defaultCwd;
      this.shell = s;
      return s;
    })().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  /** Runs a short control script through a fresh transport call. */
  private async control(script: string): Promise<void> {
    const { file, args, env, cwd } = this.transport.command(script, { tty: false });
    const c = spawnPipes(file, args, { env, cwd, stdin: false });
    await runChild(c, { timeoutMs: 15_000, signal: new AbortController().signal });
  }

  async currentCwd(): Promise<string> {
    if (!this.persistent) return this.defaultCwd ?? '.';
    const s = await this.getShell();
    return s.cwd || this.defaultCwd || '.';
  }

  async exec(command: string, o: ExecOptions): Promise<ExecResult> {
    if (o.pty || !this.persistent) return this.execOneShot(command, o);
    // One command at a time on the persistent shell.
    const run = this.queue.then(async () => {
      const shell = await this.getShell();
      const cwd = o.cwd ?? (this.defaultCwd && !shell.cwd ? this.defaultCwd : undefined);
      return shell.run(command, { ...o, cwd }, (s) => this.control(s));
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** A command in its own transport call (PTY commands, or when persistent_shell is off). */
  private async execOneShot(command: string, o: ExecOptions): Promise<ExecResult> {
    await this.prepare();
    const cwd = o.cwd ?? (this.persistent && this.shell ? this.shell.cwd : this.defaultCwd);
    const { child, pid } = await this.startRemote(command, cwd, !!o.pty);
    const r = await runChild(child, {
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      stdin: o.stdin,
      onKill: async (sig) => {
        const p = await pid;
        if (p) await this.control(killTreeScript(p, sig === 'SIGKILL' ? 'KILL' : 'TERM', true)).catch(() => {});
      },
    });
    return { ...r, output: r.output.replace(PID_LINE, '') };
  }

  /**
   * Starts `command` through the transport, reporting the remote pid from the first output line.
   * The inner bash gets --norc: sshd's `$SHELL -c` has already sourced ~/.bashrc (bash does that
   * for commands run by sshd), and a second top-level bash under sshd would source it again before
   * the command's first line, holding back its output for as long as the rc file takes (seconds
   * with pyenv/nvm/conda hooks). Exported variables from the first sourcing are inherited.
   */
  private async startRemote(command: string, cwd: string | undefined, tty: boolean): Promise<{ child: ChildLike; pid: Promise<number | null> }> {
    const script = `${cwd ? `cd -- ${shq(cwd)} || exit 1; ` : ''}exec 2>&1; printf '__HERMES_PID__%s\\n' "$$"; exec bash --norc -c ${shq(command)}`;
    const { file, args, env, cwd: localCwd } = this.transport.command(script, { tty });
    const raw = tty ? await spawnPty(file, args, { env, cwd: localCwd }) : spawnPipes(file, args, { env, cwd: localCwd, stdin: true });
    // Strip the pid line from what readers see.
    let seen = '';
    let pidResolved = false;
    let resolvePid!: (p: number | null) => void;
    const pid = new Promise<number | null>((r) => (resolvePid = r));
    const dataCbs: ((t: string) => void)[] = [];
    const pending: string[] = [];
    const deliver = (t: string) => {
      if (!t) return;
      if (dataCbs.length) for (const cb of dataCbs) cb(t);
      else pending.push(t);
    };
    raw.onData((t) => {
      if (pidResolved) return deliver(t);
      seen += t;
      const m = PID_LINE.exec(seen);
      if (m) {
        pidResolved = true;
        resolvePid(Number(m[1]));
        deliver(seen.slice(0, m.index) + seen.slice(m.index + m[0].length));
      } else if (seen.length > 4096) {
        pidResolved = true;
        resolvePid(null);
        deliver(seen);
      }
    });
    raw.onExit(() => {
      if (!pidResolved) {
        pidResolved = true;
        resolvePid(null);
        deliver(seen);
      }
    });
    const child: ChildLike = {
      get pid() {
        return raw.pid;
      },
      get exited() {
        return raw.exited;
      },
      onData(cb) {
        dataCbs.push(cb);
        for (const t of pending.splice(0)) cb(t);
      },
      onExit: (cb) => raw.onExit(cb),
      write: (d) => raw.write(d),
      end: () => raw.end(),
      kill: (sig) => raw.kill(sig),
    };
    return { child, pid };
  }

  async spawn(command: string, o: SpawnOptions): Promise<BackgroundChild> {
    await this.prepare();
    const cwd = o.cwd ?? (this.persistent ? await this.currentCwd() : this.defaultCwd);
    const { child, pid } = await this.startRemote(command, cwd, !!o.pty);
    const remotePid = await Promise.race([pid, new Promise<null>((r) => setTimeout(() => r(null), 15_000).unref())]);
    const bg: BackgroundChild = {
      child,
      pid: remotePid,
      stop: () =>
        stopChild(child, async (sig) => {
          if (remotePid) await this.control(killTreeScript(remotePid, sig === 'SIGKILL' ? 'KILL' : 'TERM', true)).catch(() => {});
        }),
    };
    this.children.add(bg);
    child.onExit(() => this.children.delete(bg));
    return bg;
  }

  async close(): Promise<void> {
    await Promise.all([...this.children].map((c) => c.stop().catch(() => {})));
    if (this.shell && !this.shell.dead) {
      const pid = this.shell.pid;
      this.shell.kill();
      await this.control(killTreeScript(pid, 'KILL', true)).catch(() => {});
    }
    this.shell = null;
    await this.transport.dispose?.().catch(() => {});
    this.prepared = null;
  }
}
