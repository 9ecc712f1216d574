// HERMES_HOME/logs/*.log in Python Hermes's format and files, so `hermes logs`, the dashboard and
// anyone used to Hermes's logs read the same lines:
//
//   2026-04-05 22:35:00,123 INFO [20260405_223459_ab12cd] tools.terminal: terminal finished in 1.2s
//   <local time, ms after a comma> <LEVEL>[ [session]] <logger name>: <message>
//
// agent.log gets every record at `logging.level` (INFO) and above; errors.log WARNING and above;
// gateway.log the gateway's records (in the gateway process); gui.log the dashboard's (in the
// dashboard process). Each file rotates by size like Hermes's RotatingFileHandler (agent.log
// `logging.max_size_mb` × `logging.backup_count`, errors.log 2 MB × 2, gateway.log 5 MB × 3,
// gui.log 10 MB × 5). Messages are redacted (src/policy/redact.ts) before they reach the disk.
// Writing never throws: logging must not take a command down.
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../policy/redact.ts';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';
export const LEVEL_ORDER: Record<LogLevel, number> = { DEBUG: 0, INFO: 1, WARNING: 2, ERROR: 3, CRITICAL: 4 };

/** `hermes logs <name>` → file name. */
export const LOG_FILES: Record<string, string> = {
  agent: 'agent.log',
  errors: 'errors.log',
  gateway: 'gateway.log',
  gui: 'gui.log',
};

/** Logger-name prefixes of each component (`hermes logs --component`, the gateway.log filter). */
export const COMPONENT_PREFIXES: Record<string, string[]> = {
  gateway: ['gateway', 'hermes_plugins', 'plugins.platforms'],
  agent: ['agent', 'run_agent', 'model_tools', 'batch_runner'],
  tools: ['tools'],
  cli: ['hermes_cli', 'cli'],
  cron: ['cron'],
  gui: ['hermes_cli.web_server', 'hermes_cli.pty_bridge', 'tui_gateway', 'dashboard'],
};

export function isLogLevel(s: string): s is LogLevel {
  return s in LEVEL_ORDER;
}

/** `2026-04-05 22:35:00,123` in local time, as Python's logging asctime. */
export function asctime(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
}

/** One log line (with its newline), redacted. */
export function formatLogLine(level: LogLevel, name: string, message: string, session?: string | null, at = new Date()): string {
  return `${asctime(at)} ${level}${session ? ` [${session}]` : ''} ${name}: ${redactSecrets(message)}\n`;
}

/** The longest a log line waits for the lines after it (ms). */
const FLUSH_MS = 25;

/** Log files with queued lines. */
const dirty = new Set<RotatingFile>();
let exitHooked = false;

function flushAllLogs(): void {
  for (const f of [...dirty]) f.flush();
}

/** An append-only file that rotates by size (`path` → `path.1` → … → `path.N`). */
export class RotatingFile {
  readonly path: string;
  private readonly max: number;
  private readonly backups: number;
  private size: number;
  private pending: string[] = [];

  constructor(path: string, maxBytes: number, backups: number) {
    this.path = path;
    this.max = Math.max(10_000, maxBytes);
    this.backups = Math.max(0, backups);
    this.size = existsSync(path) ? statSync(path).size : 0;
  }

  /**
   * Queues a line; queued lines are appended together (one open-write-close instead of one per event
   * on the agent loop's hot path): on the next tick, or — while lines keep coming, as in a fast tool
   * loop — at most every FLUSH_MS. Pending lines are written before the process exits.
   */
  write(text: string): void {
    this.pending.push(text);
    if (this.pending.length > 1) return;
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', flushAllLogs);
    }
    dirty.add(this);
    const wait = this.flushedAt + FLUSH_MS - performance.now();
    if (wait <= 0) setImmediate(this.flushNow);
    else setTimeout(this.flushNow, wait).unref();
  }

  private flushedAt = -Infinity;
  private readonly flushNow = () => this.flush();

  /** Appends the queued lines now. */
  flush(): void {
    dirty.delete(this);
    if (!this.pending.length) return;
    this.flushedAt = performance.now();
    const text = this.pending.join('');
    this.pending = [];
    try {
      // Another process may have rotated the file meanwhile: take the size on disk when it shrank.
      if (this.size + text.length > this.max) {
        const onDisk = existsSync(this.path) ? statSync(this.path).size : 0;
        if (onDisk + text.length > this.max) this.rotate();
        else this.size = onDisk;
      }
      appendFileSync(this.path, text, { mode: 0o600 });
      this.size += Buffer.byteLength(text);
    } catch {
      /* logging must never take a command down */
    }
  }

  private rotate(): void {
    if (this.backups === 0) rmSync(this.path, { force: true });
    else {
      rmSync(`${this.path}.${this.backups}`, { force: true });
      for (let i = this.backups - 1; i >= 1; i--) if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
      if (existsSync(this.path)) renameSync(this.path, `${this.path}.1`);
    }
    this.size = 0;
  }
}

export interface LogSettings {
  /** Level for agent.log (config `logging.level`, default INFO). */
  level?: string;
  /** agent.log size before rotation (config `logging.max_size_mb`, default 5). */
  maxSizeMb?: number;
  /** agent.log backups kept (config `logging.backup_count`, default 3). */
  backupCount?: number;
}

export type LogMode = 'gateway' | 'gui';

/** The log files of one HERMES_HOME in this process. */
export class HermesLog {
  readonly dir: string;
  private readonly level: number;
  private readonly agent: RotatingFile;
  private readonly errors: RotatingFile;
  private readonly modes = new Map<LogMode, RotatingFile>();

  constructor(home: string, s: LogSettings = {}) {
    this.dir = join(home, 'logs');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lvl = String(s.level ?? 'INFO').toUpperCase();
    this.level = isLogLevel(lvl) ? LEVEL_ORDER[lvl] : LEVEL_ORDER.INFO;
    const mb = Number(s.maxSizeMb) > 0 ? Number(s.maxSizeMb) : 5;
    const n = Number.isInteger(Number(s.backupCount)) && Number(s.backupCount) >= 0 ? Number(s.backupCount) : 3;
    this.agent = new RotatingFile(join(this.dir, 'agent.log'), mb * 1024 * 1024, n);
    this.errors = new RotatingFile(join(this.dir, 'errors.log'), 2 * 1024 * 1024, 2);
  }

  /** This process also writes gateway.log (the gateway) or gui.log (the dashboard). */
  /** Writes the queued lines of every file now. */
  flush(): void {
    for (const f of [this.agent, this.errors, ...this.modes.values()]) f.flush();
  }

  enable(mode: LogMode): this {
    if (!this.modes.has(mode)) {
      const [mb, n] = mode === 'gateway' ? [5, 3] : [10, 5];
      this.modes.set(mode, new RotatingFile(join(this.dir, LOG_FILES[mode]), mb * 1024 * 1024, n));
    }
    return this;
  }

  write(level: LogLevel, name: string, message: string, session?: string | null): void {
    const order = LEVEL_ORDER[level];
    // A line no file takes (DEBUG at the default INFO level) is not formatted (nor redacted) at all.
    if (order < this.level && order < LEVEL_ORDER.INFO) return;
    let line: string | undefined;
    const text = () => (line ??= formatLogLine(level, name, message, session));
    if (order >= this.level) this.agent.write(text());
    if (order >= LEVEL_ORDER.WARNING) this.errors.write(text());
    for (const [mode, file] of this.modes) if (order >= LEVEL_ORDER.INFO && COMPONENT_PREFIXES[mode].some((p) => name.startsWith(p))) file.write(text());
  }
}

const open = new Map<string, HermesLog>();

/** The process-wide log of a HERMES_HOME (null when that folder does not exist). */
export function hermesLog(home: string, s: LogSettings = {}): HermesLog | null {
  let log = open.get(home);
  if (!log) {
    if (!existsSync(home)) return null;
    try {
      log = new HermesLog(home, s);
    } catch {
      return null;
    }
    open.set(home, log);
  }
  return log;
}

/** Settings from a loaded config's `logging` section. */
export function logSettingsFrom(config: { logging?: { level?: unknown; max_size_mb?: unknown; backup_count?: unknown } }): LogSettings {
  const l = config.logging ?? {};
  return { level: typeof l.level === 'string' ? l.level : undefined, maxSizeMb: Number(l.max_size_mb) || undefined, backupCount: l.backup_count === undefined ? undefined : Number(l.backup_count) };
}
