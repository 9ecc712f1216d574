// Filesystem checkpoints: one shared shadow git store in HERMES_HOME/checkpoints/store/, the layout
// of Python Hermes v2 (refs/hermes/<hash16>, indexes/<hash16>, projects/<hash16>.json, ledgers/),
// so its `/rollback` history and ours are the same history. The project's own .git is never
// touched: every git call runs with GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE pointing here and with the
// user's git config shut out (no signing prompts, hooks or credential helpers in the background).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { walkTree, writeFileAtomic } from './fsutil.ts';

export const DEFAULT_EXCLUDES = [
  'node_modules/', 'dist/', 'build/', 'target/', 'out/', '.next/', '.nuxt/',
  '__pycache__/', '*.pyc', '*.pyo', '.cache/', '.pytest_cache/', '.mypy_cache/', '.ruff_cache/', 'coverage/', '.coverage',
  '.venv/', 'venv/', 'env/', '.git', '.git/', '.hg/', '.svn/', '.worktrees/',
  '*.so', '*.dylib', '*.dll', '*.o', '*.a', '*.jar', '*.class', '*.exe', '*.obj',
  '*.mp4', '*.mov', '*.mkv', '*.webm', '*.zip', '*.tar', '*.tar.gz', '*.tgz', '*.7z', '*.rar', '*.iso',
  '.env', '.env.*', '.env.local', '.env.*.local', '.DS_Store', 'Thumbs.db', '*.log',
];

const MAX_FILES = 50_000;
const HASH_RE = /^[0-9a-fA-F]{4,64}$/;

export interface CheckpointSettings {
  maxSnapshots: number;
  maxTotalSizeMb: number;
  maxFileSizeMb: number;
}

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = { maxSnapshots: 20, maxTotalSizeMb: 500, maxFileSizeMb: 10 };

export interface Checkpoint {
  hash: string;
  shortHash: string;
  timestamp: string;
  reason: string;
  filesChanged: number;
  insertions: number;
  deletions: number;
}

export interface ProjectMeta {
  workdir: string;
  created_at: number;
  last_touch: number;
  hash: string;
}

export const checkpointBase = (home: string) => join(home, 'checkpoints');
const storeOf = (home: string) => join(checkpointBase(home), 'store');
export const projectHash = (dir: string) => createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 16);
const refOf = (h: string) => `refs/hermes/${h}`;

function hashFile(p: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(p)).digest('hex');
  } catch {
    return null;
  }
}

/** One checkpoint store (HERMES_HOME/checkpoints). */
export class CheckpointStore {
  readonly home: string;
  readonly settings: CheckpointSettings;

  constructor(home: string, settings: Partial<CheckpointSettings> = {}) {
    this.home = home;
    this.settings = { ...DEFAULT_CHECKPOINT_SETTINGS, ...settings };
  }

  get store(): string {
    return storeOf(this.home);
  }

  private git(args: string[], workdir: string, o: { index?: string; ok?: number[]; env?: Record<string, string>; raw?: boolean } = {}): { ok: boolean; out: string; err: string } {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: 'C',
      GIT_DIR: this.store,
      GIT_WORK_TREE: resolve(workdir),
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_SYSTEM: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Hermes Checkpoint',
      GIT_AUTHOR_EMAIL: 'hermes@checkpoint.local',
      GIT_COMMITTER_NAME: 'Hermes Checkpoint',
      GIT_COMMITTER_EMAIL: 'hermes@checkpoint.local',
      ...(o.index ? { GIT_INDEX_FILE: o.index } : {}),
      ...o.env,
    };
    const r = spawnSync('git', args, { cwd: resolve(workdir), env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    if (r.error) return { ok: false, out: '', err: r.error.message };
    return { ok: r.status === 0, out: o.raw ? (r.stdout ?? '') : (r.stdout ?? '').trim(), err: (r.stderr ?? '').trim() };
  }

  /** Whether git can be run at all (checkpoints are off without it). */
  static gitAvailable(): boolean {
    const r = spawnSync('git', ['--version'], { encoding: 'utf8' });
    return !r.error && r.status === 0;
  }

  private init(workdir: string): boolean {
    if (existsSync(join(this.store, 'HEAD'))) return true;
    mkdirSync(dirname(this.store), { recursive: true, mode: 0o700 });
    const r = spawnSync('git', ['init', '--bare', '--quiet', this.store], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    if (r.status !== 0) return false;
    mkdirSync(join(this.store, 'info'), { recursive: true });
    writeFileSync(join(this.store, 'info', 'exclude'), `${DEFAULT_EXCLUDES.join('\n')}\n`);
    this.git(['config', 'core.bare', 'false'], workdir);
    this.git(['config', 'gc.auto', '0'], workdir);
    return true;
  }

  private metaPath(h: string): string {
    return join(this.store, 'projects', `${h}.json`);
  }

  private touch(workdir: string): void {
    const h = projectHash(workdir);
    const p = this.metaPath(h);
    const now = Date.now() / 1000;
    let meta: Record<string, unknown> = {};
    try {
      meta = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
    } catch {
      /* new project */
    }
    mkdirSync(dirname(p), { recursive: true });
    writeFileAtomic(p, JSON.stringify({ ...meta, workdir: resolve(workdir), created_at: meta.created_at ?? now, last_touch: now }), 0o600);
  }

  projects(): ProjectMeta[] {
    const dir = join(this.store, 'projects');
    if (!existsSync(dir)) return [];
    const out: ProjectMeta[] = [];
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as ProjectMeta;
        if (m && typeof m.workdir === 'string') out.push({ ...m, hash: f.slice(0, -5) });
      } catch {
        /* unreadable: skipped */
      }
    }
    return out;
  }

  /** The project a file belongs to: a directory already checkpointed, else the nearest project root. */
  workdirFor(path: string): string {
    const p = resolve(path);
    const start = existsSync(p) && statSync(p).isDirectory() ? p : dirname(p);
    const owners = this.projects().map((m) => m.workdir).filter((w) => start === w || start.startsWith(`${w}/`));
    if (owners.length) return owners.sort((a, b) => b.length - a.length)[0];
    const home = resolve(homedir());
    const markers = ['.git', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod', 'Makefile', 'pom.xml', '.hg', 'Gemfile'];
    for (let d = start; d !== dirname(d) && d !== home && !home.startsWith(`${d}/`); d = dirname(d)) {
      if (markers.some((m) => existsSync(join(d, m)))) return d;
    }
    return start;
  }

  /** Takes a checkpoint of `workdir` (nothing when nothing changed). Returns the new commit, or null. */
  take(workdir: string, reason: string, o: { prune?: boolean } = {}): string | null {
    const dir = resolve(workdir);
    if (dir === '/' || dir === resolve(homedir())) return null;
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return null;
    // The store never snapshots itself (a project that holds HERMES_HOME, or a directory inside the store).
    const own = relative(dir, dirname(resolve(this.store)));
    if (own === '' || own.split(/[\\/]/).every((p) => p === '..')) return null;
    if (!this.init(dir)) return null;
    this.touch(dir);
    if (countFiles(dir, MAX_FILES) > MAX_FILES) return null;
    const h = projectHash(dir);
    const index = join(this.store, 'indexes', h);
    mkdirSync(dirname(index), { recursive: true });
    const tip = this.tipOf(h, dir);
    // The project's index is kept between checkpoints, so `add -A` only rehashes files whose stat
    // changed; it is rebuilt from the tip only when missing.
    if (!tip) rmSync(index, { force: true });
    else if (!existsSync(index)) this.git(['read-tree', tip], dir, { index });
    if (!this.git(['add', '-A'], dir, { index }).ok) return null;
    if (!own.startsWith('..') && !isAbsolute(own)) this.git(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', own], dir, { index });
    const names = (args: string[]) => this.git(args, dir, { index, raw: true }).out.split('\0').filter(Boolean);
    const changed = tip ? names(['diff-index', '--cached', '--name-only', '--no-renames', '-z', tip]) : names(['ls-files', '--cached', '-z']);
    if (!changed.length) return null;
    if (this.dropOversize(dir, index, changed) === changed.length) {
      if (!tip || this.git(['diff-index', '--cached', '--quiet', tip], dir, { index }).ok) return null;
    }
    const tree = this.git(['write-tree'], dir, { index }).out;
    if (!tree) return null;
    const commit = this.git(['commit-tree', tree, ...(tip ? ['-p', tip] : []), '-m', reason, '--no-gpg-sign'], dir).out;
    if (!commit) return null;
    if (!this.git(['update-ref', refOf(h), commit, ...(tip ? [tip] : [])], dir).ok) return null;
    if (o.prune !== false) this.trim(dir);
    return commit;
  }

  /** Unstages the files among `files` over the size cap; returns how many. */
  private dropOversize(dir: string, index: string, files: string[]): number {
    const cap = this.settings.maxFileSizeMb * 1024 * 1024;
    if (!(cap > 0)) return 0;
    const big = files.filter((f) => {
      try {
        return statSync(join(dir, f)).size > cap;
      } catch {
        return false;
      }
    });
    if (big.length) this.git(['rm', '--cached', '--quiet', '--', ...big], dir, { index });
    return big.length;
  }

  /** The project's newest checkpoint: the loose ref file, else packed-refs, else git. */
  private tipOf(h: string, dir: string): string {
    try {
      const loose = readFileSync(join(this.store, refOf(h)), 'utf8').trim();
      if (/^[0-9a-f]{40,64}$/.test(loose)) return loose;
    } catch {
      /* not loose */
    }
    return this.git(['rev-parse', '--verify', '--quiet', `${refOf(h)}^{commit}`], dir).out;
  }

  /** Checkpoints taken per project since the last trim check (the check walks the whole history). */
  private sinceTrim = new Map<string, number>();

  /** Keeps at most `maxSnapshots` commits per project (rewrites the ref's oldest end). */
  private trim(dir: string): void {
    const h = projectHash(dir);
    const max0 = Math.max(1, this.settings.maxSnapshots);
    const n = this.sinceTrim.get(h);
    // Checked on the first checkpoint in this process and then every max/4: at most max × 1.5 kept.
    if (n !== undefined && n + 1 < Math.max(2, Math.floor(max0 / 4))) {
      this.sinceTrim.set(h, n + 1);
      return;
    }
    this.sinceTrim.set(h, 0);
    const all = this.git(['rev-list', refOf(h)], dir).out.split('\n').filter(Boolean);
    const max = Math.max(1, this.settings.maxSnapshots);
    // Rewrite only when well past the limit, so a busy session does not rewrite every turn.
    if (all.length <= max + Math.max(2, Math.floor(max / 4))) return;
    const keep = all.slice(0, max).reverse();
    let parent = '';
    for (const c of keep) {
      const info = this.git(['log', '-1', '--format=%T%x00%aI%x00%cI%x00%B', c], dir, { raw: true }).out.split('\0');
      const [tree, ad, cd, msg] = info;
      const next = this.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', (msg ?? '').trim() || 'checkpoint', '--no-gpg-sign'], dir, {
        env: { GIT_AUTHOR_DATE: ad, GIT_COMMITTER_DATE: cd },
      }).out;
      if (!next) return;
      parent = next;
    }
    this.git(['update-ref', refOf(h), parent], dir);
  }

  /** Checkpoints of a directory, newest first. */
  list(workdir: string, limit = this.settings.maxSnapshots): Checkpoint[] {
    const dir = resolve(workdir);
    if (!existsSync(join(this.store, 'HEAD')) || !existsSync(dir)) return [];
    const r = this.git(['log', refOf(projectHash(dir)), '--format=%H|%h|%aI|%s', '-n', String(limit)], dir);
    if (!r.ok || !r.out) return [];
    return r.out.split('\n').map((line) => {
      const [hash, shortHash, timestamp, ...rest] = line.split('|');
      const cp: Checkpoint = { hash, shortHash, timestamp, reason: rest.join('|'), filesChanged: 0, insertions: 0, deletions: 0 };
      const stat = this.git(['diff', '--shortstat', `${hash}~1`, hash], dir);
      if (stat.ok && stat.out) {
        cp.filesChanged = Number(/(\d+) file/.exec(stat.out)?.[1] ?? 0);
        cp.insertions = Number(/(\d+) insertion/.exec(stat.out)?.[1] ?? 0);
        cp.deletions = Number(/(\d+) deletion/.exec(stat.out)?.[1] ?? 0);
      }
      return cp;
    });
  }

  private validCommit(dir: string, hash: string): string | null {
    if (!HASH_RE.test(hash)) return `Invalid checkpoint id: ${JSON.stringify(hash)}.`;
    if (!existsSync(join(this.store, 'HEAD'))) return 'No checkpoints exist for this directory.';
    if (!this.git(['cat-file', '-t', hash], dir).ok) return `Checkpoint ${hash} not found.`;
    return null;
  }

  /** The diff between a checkpoint and the directory now. */
  diff(workdir: string, hash: string): { stat: string; diff: string } {
    const dir = resolve(workdir);
    const bad = this.validCommit(dir, hash);
    if (bad) throw new Error(bad);
    const h = projectHash(dir);
    const index = join(this.store, 'indexes', h);
    this.git(['add', '-A'], dir, { index });
    const stat = this.git(['diff', '--stat', hash, '--cached'], dir, { index }).out;
    const diff = this.git(['diff', hash, '--cached', '--no-color'], dir, { index, raw: true }).out;
    this.git(['read-tree', '-m', refOf(h)], dir, { index });
    return { stat, diff };
  }

  /** What this directory gained since its oldest retained checkpoint (`/diff session`). */
  sessionDiff(workdir: string): { stat: string; diff: string; baseline?: string } {
    const all = this.list(workdir, 10_000);
    if (!all.length) return { stat: '', diff: '' };
    const base = all[all.length - 1].hash;
    return { ...this.diff(workdir, base), baseline: base };
  }

  /** Records what Hermes wrote, so a restore can leave the person's own later edits alone. */
  recordWrite(path: string): void {
    const p = resolve(path);
    const digest = hashFile(p);
    if (!digest) return;
    const dir = this.workdirFor(p);
    const file = join(this.store, 'ledgers', `${projectHash(dir)}.json`);
    let ledger: Record<string, { sha256: string; ts: number }> = {};
    try {
      ledger = JSON.parse(readFileSync(file, 'utf8')) as typeof ledger;
    } catch {
      /* new */
    }
    ledger[p] = { sha256: digest, ts: Date.now() / 1000 };
    const entries = Object.entries(ledger).sort((a, b) => b[1].ts - a[1].ts).slice(0, 2000);
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, JSON.stringify(Object.fromEntries(entries)), 0o600);
  }

  /**
   * Restores a checkpoint. Safe by default: files the person edited after Hermes last wrote them are
   * kept (`all` restores everything). A snapshot of the current state is taken first, so a rollback
   * can itself be rolled back.
   */
  restore(workdir: string, hash: string, o: { file?: string; all?: boolean } = {}): { restored: string[]; skipped: string[]; reason: string; full: boolean } {
    const dir = resolve(workdir);
    const bad = this.validCommit(dir, hash);
    if (bad) throw new Error(bad);
    if (o.file) {
      if (isAbsolute(o.file) || relative(dir, resolve(dir, o.file)).startsWith('..')) throw new Error(`${o.file} is outside ${dir}.`);
    }
    const h = projectHash(dir);
    const index = join(this.store, 'indexes', h);
    let targets: string[] | null = null;
    let deletes: string[] = [];
    const skipped: string[] = [];
    if (!o.file && !o.all) {
      let ledger: Record<string, { sha256: string }> = {};
      try {
        ledger = JSON.parse(readFileSync(join(this.store, 'ledgers', `${h}.json`), 'utf8')) as typeof ledger;
      } catch {
        /* no ledger: full restore */
      }
      if (Object.keys(ledger).length) {
        this.git(['add', '-A'], dir, { index });
        const changed = this.git(['diff', '--name-only', '-z', hash, '--cached'], dir, { index, raw: true }).out.split('\0').filter(Boolean);
        this.git(['read-tree', '-m', refOf(h)], dir, { index });
        targets = [];
        for (const rel of changed) {
          const abs = join(dir, rel);
          const rec = ledger[abs]?.sha256;
          const now = hashFile(abs);
          if (!rec || (now && now !== rec)) skipped.push(rel);
          else if (this.git(['cat-file', '-e', `${hash}:${rel}`], dir).ok) targets.push(rel);
          else deletes.push(rel);
        }
        if (!targets.length && !deletes.length)
          return { restored: [], skipped, reason: this.git(['log', '--format=%s', '-1', hash], dir).out, full: false };
      }
    }
    this.take(dir, `pre-rollback snapshot (restoring to ${hash.slice(0, 8)})`, { prune: false });
    for (const rel of deletes) {
      try {
        unlinkSync(join(dir, rel));
      } catch {
        /* already gone */
      }
    }
    const paths = o.file ? [o.file] : targets ?? ['.'];
    if (paths.length) {
      const r = this.git(['checkout', hash, '--', ...paths], dir, { index });
      if (!r.ok) throw new Error(`Restore failed: ${r.err}`);
    }
    this.git(['read-tree', '-m', refOf(h)], dir, { index });
    const reason = this.git(['log', '--format=%s', '-1', hash], dir).out;
    return { restored: o.file ? [o.file] : targets ? [...targets, ...deletes] : ['.'], skipped, reason, full: targets === null };
  }

  /** Sizes and projects, for `hermes checkpoints status`. */
  status(): { base: string; storeBytes: number; legacyBytes: number; projects: (ProjectMeta & { commits: number; orphan: boolean })[]; legacy: { name: string; bytes: number }[] } {
    const base = checkpointBase(this.home);
    const legacy = existsSync(base)
      ? readdirSync(base)
          .filter((n) => n.startsWith('legacy-'))
          .map((name) => ({ name, bytes: dirSize(join(base, name)) }))
      : [];
    const projects = this.projects().map((m) => ({
      ...m,
      commits: existsSync(m.workdir) ? Number(this.git(['rev-list', '--count', refOf(m.hash)], m.workdir).out) || 0 : Number(spawnSync('git', ['--git-dir', this.store, 'rev-list', '--count', refOf(m.hash)], { encoding: 'utf8' }).stdout?.trim()) || 0,
      orphan: !existsSync(m.workdir),
    }));
    projects.sort((a, b) => b.last_touch - a.last_touch);
    return { base, storeBytes: existsSync(this.store) ? dirSize(this.store) : 0, legacyBytes: legacy.reduce((a, l) => a + l.bytes, 0), projects, legacy };
  }

  /** Drops orphan and stale projects, then whole projects (oldest first) while over the size cap; gc. */
  prune(o: { retentionDays?: number; maxSizeMb?: number; keepOrphans?: boolean } = {}): { removed: string[]; beforeBytes: number; afterBytes: number } {
    const before = existsSync(this.store) ? dirSize(this.store) : 0;
    const removed: string[] = [];
    if (!existsSync(join(this.store, 'HEAD'))) return { removed, beforeBytes: before, afterBytes: before };
    const cutoff = Date.now() / 1000 - (o.retentionDays ?? 7) * 86400;
    const drop = (m: ProjectMeta) => {
      spawnSync('git', ['--git-dir', this.store, 'update-ref', '-d', refOf(m.hash)], { encoding: 'utf8' });
      for (const p of [join(this.store, 'indexes', m.hash), this.metaPath(m.hash), join(this.store, 'ledgers', `${m.hash}.json`)]) rmSync(p, { force: true });
      removed.push(m.workdir);
    };
    for (const m of this.projects()) {
      if ((!existsSync(m.workdir) && !o.keepOrphans) || m.last_touch < cutoff) drop(m);
    }
    const gc = () => spawnSync('git', ['--git-dir', this.store, '-c', 'gc.auto=0', 'gc', '--prune=now', '--quiet'], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    gc();
    const cap = (o.maxSizeMb ?? this.settings.maxTotalSizeMb) * 1024 * 1024;
    if (cap > 0) {
      const rest = this.projects().sort((a, b) => a.last_touch - b.last_touch);
      while (dirSize(this.store) > cap && rest.length > 1) {
        drop(rest.shift()!);
        gc();
      }
    }
    writeFileSync(join(checkpointBase(this.home), '.last_prune'), String(Date.now() / 1000));
    return { removed, beforeBytes: before, afterBytes: dirSize(this.store) };
  }

  clear(): number {
    const base = checkpointBase(this.home);
    const size = existsSync(base) ? dirSize(base) : 0;
    rmSync(base, { recursive: true, force: true });
    return size;
  }

  clearLegacy(): { removed: string[]; bytes: number } {
    const base = checkpointBase(this.home);
    const legacy = existsSync(base) ? readdirSync(base).filter((n) => n.startsWith('legacy-')) : [];
    let bytes = 0;
    for (const n of legacy) {
      bytes += dirSize(join(base, n));
      rmSync(join(base, n), { recursive: true, force: true });
    }
    return { removed: legacy, bytes };
  }
}

function countFiles(dir: string, stopAt: number): number {
  let n = 0;
  walkTree(dir, (_p, e) => (++n > stopAt ? 'stop' : e.isDirectory() && ['.git', 'node_modules', '.venv', '__pycache__'].includes(e.name) ? 'skip' : undefined));
  return n;
}

export function dirSize(dir: string): number {
  let total = 0;
  walkTree(dir, (p, e) => {
    if (!e.isFile()) return;
    try {
      total += statSync(p).size;
    } catch {
      /* vanished */
    }
  });
  return total;
}

/** Terminal commands that change files (Hermes: rm, mv, cp, sed -i, truncate, dd, shred, `>`, git reset/clean/checkout). */
export function isDestructiveCommand(cmd: string): boolean {
  return /(^|[;&|(\s])(rm|rmdir|cp|install|mv|truncate|dd|shred)\s|\bsed\s+(-[a-zA-Z]*i|--in-place)|(^|[^>&0-9])>{1,2}\s*[^&\s]|\bgit\s+(reset|clean|checkout|restore)\b/.test(cmd);
}
