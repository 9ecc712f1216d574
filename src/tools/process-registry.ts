// Background processes started by `terminal(background=true)`: output buffering, poll/log/wait,
// kill, stdin. Running processes are checkpointed to HERMES_HOME/processes.json; a Hermes that
// starts after a crash reports the processes the dead one left behind (orphans) instead of
// forgetting them, and can still kill those that run locally.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { paths } from '../state/paths.ts';
import { writeFileAtomic } from '../state/fsutil.ts';
import { isAlive, killGroup } from './env/child.ts';
import type { BackgroundChild, ExecutionBackend } from './env/types.ts';
import { completionNotice, Watcher } from './process-notify.ts';
import type { Notifier } from './types.ts';

export const MAX_OUTPUT_CHARS = 200_000;
const FINISHED_TTL_MS = 30 * 60_000;
const MAX_TRACKED = 64;

export type ProcStatus = 'running' | 'exited' | 'killed' | 'orphaned' | 'lost';

export interface ProcEntry {
  id: string;
  command: string;
  taskId: string;
  backend: string;
  backendKind: string;
  pid: number | null;
  cwd: string;
  startedAt: number;
  endedAt: number | null;
  status: ProcStatus;
  exitCode: number | null;
  pty: boolean;
  /** Rolling output (last MAX_OUTPUT_CHARS). */
  output: string;
  /** Characters dropped off the front of `output`. */
  dropped: number;
  /** Output offset (in total characters) the last poll reported up to. */
  polledTo: number;
  /** Recovered from a crashed Hermes: no output, not ours to wait on. */
  recovered: boolean;
  note?: string;
  bg?: BackgroundChild;
  waiters: (() => void)[];
  /** /proc start time of a local process, to tell a reused pid apart. */
  pidStart?: string;
  /** Report to the conversation once on exit (terminal's notify_on_complete). */
  notifyOnComplete: boolean;
  /** Output matching these reports to the conversation (terminal's watch_patterns). */
  watcher?: Watcher;
  /** Where reports go (the spawning session's inbox). */
  notifier?: Notifier;
  /** The model saw the exit itself (wait, poll or log after it ended): the exit notice is dropped. */
  consumed: boolean;
  /** Settles when the process ends. */
  ended: Promise<void>;
}

export interface SpawnOptions {
  cwd: string;
  pty: boolean;
  taskId: string;
  notifyOnComplete?: boolean;
  watchPatterns?: string[];
  notifier?: Notifier;
}

interface CheckpointEntry {
  session_id: string;
  command: string;
  pid: number | null;
  cwd: string;
  started_at: number;
  task_id: string;
  owner_pid: number;
  backend: string;
  backend_kind: string;
  pid_start?: string;
}

function procStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export class ProcessRegistry {
  readonly home: string;
  private readonly procs = new Map<string, ProcEntry>();

  private readonly now: () => number;

  constructor(home: string, o: { now?: () => number } = {}) {
    this.home = home;
    this.now = o.now ?? Date.now;
    this.recover();
  }

  private get file(): string {
    return paths.processes(this.home);
  }

  private readCheckpoint(): CheckpointEntry[] {
    try {
      if (!existsSync(this.file)) return [];
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return Array.isArray(v) ? (v as CheckpointEntry[]).filter((e) => e && typeof e.session_id === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Reads processes.json: processes whose Hermes is gone become orphans (alive) or lost (gone). */
  private recover(): void {
    for (const e of this.readCheckpoint()) {
      if (e.owner_pid === process.pid || (e.owner_pid && isAlive(e.owner_pid))) continue;
      const local = e.backend_kind === 'local';
      const alive = local && e.pid !== null && isAlive(e.pid) && (!e.pid_start || procStartTime(e.pid) === e.pid_start);
      const entry: ProcEntry = {
        id: e.session_id,
        command: e.command,
        taskId: e.task_id,
        backend: e.backend,
        backendKind: e.backend_kind,
        pid: e.pid,
        cwd: e.cwd,
        startedAt: e.started_at * 1000,
        endedAt: null,
        status: local ? (alive ? 'orphaned' : 'lost') : 'orphaned',
        exitCode: null,
        pty: false,
        output: '',
        dropped: 0,
        polledTo: 0,
        recovered: true,
        waiters: [],
        notifyOnComplete: false,
        consumed: false,
        ended: Promise.resolve(),
        pidStart: e.pid_start,
        note: local
          ? alive
            ? 'Left running by a Hermes process that exited unexpectedly. Its output before the restart is not available; it can still be killed.'
            : 'Was running when a previous Hermes process exited unexpectedly and has ended since; its exit code and output are unknown.'
          : `Was started on ${e.backend} by a Hermes process that exited unexpectedly; Hermes cannot reattach to it. Check it with the terminal tool.`,
      };
      this.procs.set(entry.id, entry);
    }
    this.checkpoint();
  }

  /** Writes the running processes (ours, recovered orphans still alive, and other live Hermes'). */
  private checkpoint(): void {
    const others = this.readCheckpoint().filter((e) => e.owner_pid !== process.pid && e.owner_pid && isAlive(e.owner_pid) && !this.procs.has(e.session_id));
    const mine: CheckpointEntry[] = [...this.procs.values()]
      .filter((p) => p.status === 'running' || p.status === 'orphaned')
      .map((p) => ({
        session_id: p.id,
        command: p.command,
        pid: p.pid,
        cwd: p.cwd,
        started_at: p.startedAt / 1000,
        task_id: p.taskId,
        owner_pid: process.pid,
        backend: p.backend,
        backend_kind: p.backendKind,
        ...(p.pidStart ? { pid_start: p.pidStart } : {}),
      }));
    const all = [...others, ...mine];
    try {
      if (!all.length && !existsSync(this.file)) return;
      writeFileAtomic(this.file, JSON.stringify(all, null, 2) + '\n', 0o600);
    } catch {
      /* a read-only home must not break the tool */
    }
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, p] of this.procs)
      if (p.status !== 'running' && p.status !== 'orphaned' && p.endedAt && now - p.endedAt > FINISHED_TTL_MS) this.procs.delete(id);
    if (this.procs.size <= MAX_TRACKED) return;
    const finished = [...this.procs.values()].filter((p) => p.status !== 'running').sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    for (const p of finished) {
      if (this.procs.size <= MAX_TRACKED) break;
      this.procs.delete(p.id);
    }
  }

  async spawn(backend: ExecutionBackend, command: string, o: SpawnOptions): Promise<ProcEntry> {
    this.prune();
    const running = [...this.procs.values()].filter((p) => p.status === 'running').length;
    if (running >= MAX_TRACKED) throw new Error(`Too many background processes (${running}). Kill some with the process tool first.`);
    const bg = await backend.spawn(command, { cwd: o.cwd, pty: o.pty });
    const p: ProcEntry = {
      id: `proc_${randomBytes(6).toString('hex')}`,
      command,
      taskId: o.taskId,
      backend: backend.label,
      backendKind: backend.kind,
      pid: bg.pid,
      cwd: o.cwd,
      startedAt: Date.now(),
      endedAt: null,
      status: 'running',
      exitCode: null,
      pty: o.pty,
      output: '',
      dropped: 0,
      polledTo: 0,
      recovered: false,
      waiters: [],
      bg,
      notifyOnComplete: !!o.notifyOnComplete && !!o.notifier,
      notifier: o.notifier,
      consumed: false,
      ended: Promise.resolve(),
    };
    let markEnded: () => void = () => {};
    p.ended = new Promise<void>((r) => (markEnded = r));
    const patterns = (o.watchPatterns ?? []).filter((x) => x.length > 0);
    if (patterns.length && o.notifier && !p.notifyOnComplete) p.watcher = new Watcher(patterns);
    if (p.notifyOnComplete) o.notifier!.expect(p.ended);
    if (backend.kind === 'local' && bg.pid) p.pidStart = procStartTime(bg.pid);
    bg.child.onData((t) => {
      // Trimmed back to the bound once it is twice over it: a flood costs time linear in its size
      // (cutting at every chunk copied the whole kept tail per chunk) and memory of the bound.
      p.output += t;
      if (p.output.length > 2 * MAX_OUTPUT_CHARS) {
        const cut = p.output.length - MAX_OUTPUT_CHARS;
        p.output = p.output.slice(cut);
        p.dropped += cut;
      }
      if (p.watcher && p.status === 'running') this.watch(p, t, false);
    });
    bg.child.onExit((code, signal) => {
      if (p.watcher) this.watch(p, '', true);
      if (p.status === 'running') p.status = 'exited';
      p.exitCode = code ?? (signal ? -1 : null);
      if (signal && p.status === 'exited') p.note = `terminated by ${signal}`;
      p.endedAt = Date.now();
      p.bg = undefined;
      this.checkpoint();
      if (p.notifyOnComplete && p.notifier) p.notifier.notify(completionNotice(p, () => p.consumed));
      for (const w of p.waiters.splice(0)) w();
      markEnded();
    });
    this.procs.set(p.id, p);
    this.checkpoint();
    return p;
  }

  /** Output for a watched process: matches go to the conversation; too many turn watching into one exit notice. */
  private watch(p: ProcEntry, chunk: string, final: boolean): void {
    const r = p.watcher!.feed(p, chunk, this.now(), final);
    for (const n of r.notices) p.notifier?.notify(n);
    if (r.promote && !p.notifyOnComplete && p.notifier) {
      p.notifyOnComplete = true;
      p.notifier.expect(p.ended);
    }
  }

  private announced = false;

  /**
   * Once per registry: a sentence about processes an earlier, crashed Hermes left behind, so the
   * model hears about them without asking.
   */
  orphanNotice(): string | null {
    if (this.announced) return null;
    this.announced = true;
    const left = [...this.procs.values()].filter((p) => p.recovered);
    if (!left.length) return null;
    const running = left.filter((p) => p.status === 'orphaned').length;
    return `${left.length} background process(es) from an earlier Hermes run that ended unexpectedly are tracked${running ? ` (${running} possibly still running)` : ''}: see process list; kill them if they are not needed.`;
  }

  get(id: string): ProcEntry | undefined {
    return this.procs.get(id.trim());
  }

  list(): ProcEntry[] {
    this.prune();
    this.refreshOrphans();
    return [...this.procs.values()].sort((a, b) => a.startedAt - b.startedAt);
  }

  /** A recovered local orphan that has since ended becomes `lost`. */
  private refreshOrphans(): void {
    let changed = false;
    for (const p of this.procs.values()) {
      if (p.status === 'orphaned' && p.backendKind === 'local' && p.pid && !isAlive(p.pid)) {
        p.status = 'lost';
        p.endedAt = Date.now();
        p.note = 'Left running by a Hermes process that exited unexpectedly; it has ended since (exit code unknown).';
        changed = true;
      }
    }
    if (changed) this.checkpoint();
  }

  /** Waits for exit, a timeout, or an abort. */
  wait(p: ProcEntry, timeoutMs: number, signal: AbortSignal): Promise<'exited' | 'timeout' | 'interrupted'> {
    if (p.status !== 'running') return Promise.resolve('exited');
    return new Promise((resolve) => {
      const done = (r: 'exited' | 'timeout' | 'interrupted') => {
        clearTimeout(t);
        signal.removeEventListener('abort', onAbort);
        const i = p.waiters.indexOf(w);
        if (i >= 0) p.waiters.splice(i, 1);
        resolve(r);
      };
      const w = () => done('exited');
      const onAbort = () => done('interrupted');
      const t = setTimeout(() => done('timeout'), timeoutMs);
      p.waiters.push(w);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async kill(p: ProcEntry): Promise<void> {
    if (p.status === 'running' && p.bg) {
      p.status = 'killed';
      await p.bg.stop();
      return;
    }
    if (p.status === 'orphaned' && p.backendKind === 'local' && p.pid) {
      killGroup(p.pid, 'SIGTERM');
      for (let i = 0; i < 30 && isAlive(p.pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (isAlive(p.pid)) killGroup(p.pid, 'SIGKILL');
      p.status = 'killed';
      p.endedAt = Date.now();
      this.checkpoint();
      return;
    }
    if (p.status === 'orphaned') throw new Error(`${p.id} runs on ${p.backend} and was started by an earlier Hermes process; kill it there (its pid was ${p.pid ?? 'unknown'}).`);
  }

  /** Kills every running process of a task (when its session closes). */
  async killTask(taskId: string): Promise<void> {
    await Promise.all([...this.procs.values()].filter((p) => p.taskId === taskId && p.status === 'running').map((p) => this.kill(p).catch(() => {})));
  }
}

const registries = new Map<string, ProcessRegistry>();

/** The process registry of a HERMES_HOME (one per home per process). */
export function processRegistry(home: string): ProcessRegistry {
  let r = registries.get(home);
  if (!r) {
    r = new ProcessRegistry(home);
    registries.set(home, r);
  }
  return r;
}
