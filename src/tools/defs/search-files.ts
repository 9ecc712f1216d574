// search_files: ripgrep-backed content search (regex, context lines, globs) and file-name search.
// Bounded: ripgrep's output is streamed and stopped at a cap, and the whole search at a time limit
// (`file_search_timeout_seconds`, default 30), after which what was found comes back with a note.
// Hermes's credential files are not searched unless the person allows it (see secret-read.ts).
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, posix, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import type { FileOps } from '../env/files.ts';
import { shq } from '../env/types.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import { isSecretProcPath } from '../text-file.ts';
import type { ToolContext } from '../types.ts';

let rgPromise: Promise<string> | undefined;

/** The ripgrep binary: @vscode/ripgrep's, else `rg` on PATH. */
export function ripgrepPath(): Promise<string> {
  rgPromise ??= import('@vscode/ripgrep').then(
    (m) => (existsSync(m.rgPath) ? m.rgPath : 'rg'),
    () => 'rg',
  );
  return rgPromise;
}

const MAX_LINE = 500;
/** Counting stops here; the total is then a lower bound. */
const COUNT_CAP = 20_000;
/** File lists (names, files with matches, counts) keep at most this many entries. */
export const LIST_CAP = 20_000;
/** The default time limit of one search, in seconds (`file_search_timeout_seconds`). */
export const DEFAULT_SEARCH_TIMEOUT_S = 30;
const STDERR_CAP = 16 * 1024;

/** The search's time limit in ms: config `file_search_timeout_seconds` (0 or less: the default). */
export function searchTimeoutMs(config: { file_search_timeout_seconds?: unknown }): number {
  const v = Number(config.file_search_timeout_seconds);
  return (Number.isFinite(v) && v > 0 ? v : DEFAULT_SEARCH_TIMEOUT_S) * 1000;
}

/** A stream of output lines that can be stopped, and how it ended. */
export interface RgRun {
  lines: AsyncIterable<string>;
  done: Promise<{ code: number | null; stderr: string; timedOut?: boolean }>;
  stop(): void;
}

async function rg(args: string[], cwd: string, signal: AbortSignal): Promise<RgRun> {
  const bin = await ripgrepPath();
  const child = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    if (stderr.length < STDERR_CAP) stderr += d;
  });
  const onAbort = () => child.kill('SIGKILL');
  signal.addEventListener('abort', onAbort, { once: true });
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.on('error', (e) => resolve({ code: 127, stderr: e.message }));
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ code, stderr });
    });
  });
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  return { lines, done, stop: () => child.kill('SIGKILL') };
}

/**
 * ripgrep where the files are. Locally the output is streamed (and can be stopped early); on a
 * remote backend rg runs there under the same time limit and only the first lines come back, or —
 * when that machine has no rg — `fallback` (grep/find producing the same line format).
 */
async function search(ops: FileOps, args: string[], cwd: string, signal: AbortSignal, fallback: string, limitMs: number): Promise<RgRun> {
  if (!ops.remote) return rg(args, cwd, signal);
  const r = await ops.run(['rg', ...args], cwd, signal, fallback, { timeoutS: limitMs / 1000, maxLines: COUNT_CAP * 2 });
  const lines = r.stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return {
    lines: (async function* () {
      yield* lines;
    })(),
    done: Promise.resolve({ code: r.code, stderr: r.stderr, timedOut: r.timedOut }),
    stop: () => {},
  };
}

/** A search's time limit: once it runs out, the run is stopped and `expired` is set. */
export class SearchClock {
  private timer: NodeJS.Timeout | null = null;
  private readonly ms: number;
  expired = false;

  constructor(ms: number) {
    this.ms = ms;
  }

  start(onExpire: () => void): void {
    if (this.timer || this.expired) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.expired = true;
      onExpire();
    }, this.ms);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Runs `run` under `clock`: its lines, stopped when the clock runs out. */
export async function* timed(run: RgRun, clock: SearchClock): AsyncGenerator<string> {
  clock.start(() => run.stop());
  try {
    for await (const l of run.lines) {
      if (clock.expired) break;
      yield l;
    }
  } finally {
    clock.stop();
  }
}

/** grep/find equivalents of the rg calls below, for machines without ripgrep. */
function grepFallback(kind: 'files' | 'files_only' | 'count' | 'content', a: { pattern: string; file_glob?: string; context?: number }, target: string): string {
  const include = a.file_glob ? ` --include=${shq(a.file_glob)}` : '';
  const t = shq(target);
  if (kind === 'files') return `find ${t} -type f -not -path '*/.git/*' -name ${shq(a.pattern)}${a.file_glob ? ` -name ${shq(a.file_glob)}` : ''}`;
  const base = `grep -rIE --exclude-dir=.git${include}`;
  if (kind === 'files_only') return `${base} -lZ -e ${shq(a.pattern)} ${t} | tr '\\000' '\\n'`;
  if (kind === 'count') return `${base} -cZ -e ${shq(a.pattern)} ${t}`;
  return `${base} -nHZ${a.context ? ` -C ${Number(a.context)}` : ''} -e ${shq(a.pattern)} ${t}`;
}

const clipLine = (s: string) => (s.length > MAX_LINE ? s.slice(0, MAX_LINE) + '… [truncated]' : s);

/**
 * Which result paths may be shown: Hermes's credential files (and their hard links) are left out
 * unless the search was aimed at one and the person allowed it; a process's environment or memory
 * under /proc never. What is left out is decided by place, never by what matched, so leaving it out
 * says nothing about its content.
 */
interface ResultFilter {
  admit(path: string): boolean;
  /** Credential files under the search root that were not searched (for the note). */
  skipped: string[];
}

async function resultFilter(ctx: ToolContext, ops: FileOps, root: string, cwd: string): Promise<ResultFilter | { error: string }> {
  const { secretMatcher, secretHomes, approveSecretRead } = await import('../secret-read.ts');
  const match = await secretMatcher(ctx, ops);
  const real = (p: string) => {
    if (ops.remote) return p;
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const realRoot = real(root);
  // Aimed at a credential file or folder: the person decides, before anything is read.
  const aimed = match(realRoot, ops.remote ? null : statOf(realRoot));
  if (aimed) {
    const v = await approveSecretRead(ctx, 'search_files', [aimed]);
    if (!v.allowed) return { error: v.reason };
    return { admit: (p) => !isSecretProcPath(p), skipped: [] };
  }
  const base = real(cwd);
  const join2 = ops.remote ? posix.join : join;
  let skipped: string[] = [];
  if (!ops.remote) {
    const { hermesSecretFiles } = await import('../../policy/write-safety.ts');
    const inRoot = (p: string) => p === realRoot || p.startsWith(realRoot.endsWith('/') ? realRoot : `${realRoot}/`);
    skipped = hermesSecretFiles(await secretHomes(ctx, ops)).filter(inRoot);
  }
  const seen = new Map<string, boolean>();
  return {
    skipped,
    admit(p) {
      let v = seen.get(p);
      if (v === undefined) {
        const abs = join2(base, p);
        v = !isSecretProcPath(abs) && !match(abs, ops.remote ? null : statOf(abs));
        if (seen.size < 100_000) seen.set(p, v);
      }
      return v;
    },
  };
}

function statOf(p: string): { dev: number; ino: number; nlink: number } | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** The note for results cut by the time limit or the cap, and for credential files left out. */
function notes(r: Record<string, unknown>, o: { timedOut: boolean; limitMs: number; capped?: boolean; filter: ResultFilter }) {
  if (o.timedOut) {
    r.timed_out = true;
    r.total_count_is_lower_bound = true;
    r.note = `The search was stopped after ${o.limitMs / 1000}s (file_search_timeout_seconds); these are the results found until then. Search a narrower path or use file_glob.`;
  } else if (o.capped) r.total_count_is_lower_bound = true;
  if (o.filter.skipped.length) {
    const names = o.filter.skipped.slice(0, 5).join(', ') + (o.filter.skipped.length > 5 ? `, and ${o.filter.skipped.length - 5} more` : '');
    r.not_searched = `Hermes credential files were not searched: ${names}. Searching one directly (path=<file>) asks the user.`;
  }
}

export default defineTool({
  name: 'search_files',
  toolset: 'file',
  emoji: '🔎',
  parallelSafe: true,
  description:
    'Search file contents by regex (ripgrep), or file names by glob with target "files". Use it instead of grep/find/ls. Paged with limit/offset.',
  schema: (z) =>
    z.object({
    pattern: z.string().min(1).describe('Regex; a glob for target files'),
    target: z.enum(['content', 'files']).optional(),
    path: z.string().optional(),
    file_glob: z.string().optional().describe('Only files matching this glob'),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    offset: z.coerce.number().int().min(0).optional(),
    output_mode: z.enum(['content', 'files_only', 'count']).optional(),
    context: z.coerce.number().int().min(0).max(20).optional().describe('Lines around each match'),
  }),
  paths: (a, s) => ({ read: [resolvePath(a.path ?? '.', s.cwd)], write: [] }),
  async handler(a, ctx) {
    const ops = await ctx.files();
    const root = await ops.resolve(a.path ?? '.');
    const st = await ops.stat(root);
    if (!st) return fail(`Path not found: ${root}${ops.remote ? ` (on ${ops.label})` : ''}.`);
    const isFile = st.kind === 'file';
    const cwd = isFile ? posix.dirname(root) : root;
    const target = isFile ? posix.basename(root) : '.';
    const base0 = ops.remote ? await ops.resolve('.') : ctx.cwd;
    const limit = a.limit ?? 50;
    const offset = a.offset ?? 0;
    const limitMs = searchTimeoutMs(ctx.config);
    const clock = new SearchClock(limitMs);
    const show = (p: string) => {
      const abs = join(cwd, p.replace(/^\.\//, ''));
      const rel = relative(base0, abs);
      return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
    };
    const base = ['--hidden', '--glob', '!.git', '--no-messages', '--color', 'never'];
    if (a.file_glob) base.push('--glob', a.file_glob);
    // Over the whole machine, not the kernel's pseudo-files (endless, and secrets under /proc).
    if (!isFile && root === '/') base.push('--glob', '!/proc', '--glob', '!/sys', '--glob', '!/dev');

    if (a.target === 'files') {
      const run = await search(ops, [...base, '--files', '--glob', a.pattern, target], cwd, ctx.signal, grepFallback('files', a, target), limitMs);
      const files: string[] = [];
      let capped = false;
      for await (const l of timed(run, clock)) {
        if (!l) continue;
        files.push(l);
        if (files.length >= LIST_CAP) {
          capped = true;
          run.stop();
          break;
        }
      }
      const { code, stderr, timedOut } = await run.done;
      if (code === 2 && !files.length && !clock.expired) return fail(`search failed: ${stderr.trim().split('\n')[0]}`);
      files.sort();
      const page = files.slice(offset, offset + limit).map(show);
      const r: Record<string, unknown> = { total_count: files.length };
      if (page.length) r.files = page;
      if (offset + limit < files.length || capped) {
        r.truncated = true;
        r.hint = `Showing ${page.length} of ${capped ? `at least ${files.length}` : files.length}. Use offset=${offset + limit} for more, or a narrower pattern.`;
      }
      notes(r, { timedOut: clock.expired || !!timedOut, limitMs, capped, filter: { admit: () => true, skipped: [] } });
      return ok(r);
    }

    const filter = await resultFilter(ctx, ops, root, cwd);
    if ('error' in filter) return fail(filter.error);
    const mode = a.output_mode ?? 'content';
    if (mode === 'files_only' || mode === 'count') {
      const run = await search(ops, [...base, ...(mode === 'count' ? ['--count-matches', '--null'] : ['--files-with-matches']), '-e', a.pattern, target], cwd, ctx.signal, grepFallback(mode, a, target), limitMs);
      const rows: [string, number][] = [];
      let capped = false;
      for await (const l of timed(run, clock)) {
        if (!l) continue;
        const z0 = l.indexOf('\0');
        const path = mode === 'count' ? (z0 >= 0 ? l.slice(0, z0) : l.slice(0, l.lastIndexOf(':'))) : z0 >= 0 ? l.slice(0, z0) : l;
        if (!filter.admit(path)) continue;
        if (mode === 'count') {
          const n = Number(l.slice((z0 >= 0 ? z0 : l.lastIndexOf(':')) + 1));
          if (n > 0) rows.push([path, n]);
        } else rows.push([path, 0]);
        if (rows.length >= LIST_CAP) {
          capped = true;
          run.stop();
          break;
        }
      }
      const { code, stderr, timedOut } = await run.done;
      if (code === 2 && !rows.length && !clock.expired) return fail(`search failed: ${stderr.trim().split('\n').slice(0, 3).join(' ')}`);
      rows.sort((x, y) => (x[0] < y[0] ? -1 : 1));
      const page = rows.slice(offset, offset + limit);
      const r: Record<string, unknown> = { total_count: mode === 'count' ? rows.reduce((n, x) => n + x[1], 0) : rows.length };
      if (mode === 'count') r.counts = Object.fromEntries(page.map(([p, n]) => [show(p), n]));
      else if (page.length) r.files = page.map(([p]) => show(p));
      if (offset + limit < rows.length || capped) {
        r.truncated = true;
        r.hint = `Showing ${page.length} of ${capped ? `at least ${rows.length}` : rows.length} files. Use offset=${offset + limit} for more.`;
      }
      notes(r, { timedOut: clock.expired || !!timedOut, limitMs, capped, filter });
      return ok(r);
    }

    const args = [...base, '--line-number', '--with-filename', '--no-heading', '--null', '--max-columns', '2000', '--max-columns-preview'];
    if (a.context) args.push('--context', String(a.context));
    args.push('-e', a.pattern, target);
    const run = await search(ops, args, cwd, ctx.signal, grepFallback('content', a, target), limitMs);
    const matches: Record<string, unknown>[] = [];
    let count = 0;
    let capped = false;
    let before: Record<string, unknown>[] = [];
    let last: { path: string; line: number } | null = null;
    const inPage = () => count > offset && count <= offset + limit;
    for await (const l of timed(run, clock)) {
      if (!l || l === '--') continue;
      const z0 = l.indexOf('\0');
      if (z0 < 0) continue;
      const m = /^(\d+)([:-])/.exec(l.slice(z0 + 1));
      if (!m) continue;
      if (!filter.admit(l.slice(0, z0))) continue;
      const entry: Record<string, unknown> = { path: show(l.slice(0, z0)), line: Number(m[1]), content: clipLine(l.slice(z0 + 1 + m[0].length)) };
      if (m[2] === '-') {
        entry.context = true;
        // After-context of a match on this page, or before-context of a later one.
        if (inPage() && last && last.path === entry.path && (entry.line as number) <= last.line + (a.context ?? 0)) matches.push(entry);
        else {
          before.push(entry);
          if (before.length > (a.context ?? 0)) before.shift();
        }
        continue;
      }
      count++;
      if (inPage()) matches.push(...before, entry);
      before = [];
      last = { path: entry.path as string, line: entry.line as number };
      if (count >= COUNT_CAP) {
        capped = true;
        run.stop();
        break;
      }
    }
    const { code, stderr, timedOut } = await run.done;
    if (code === 2 && !count && !capped && !clock.expired) {
      const msg = stderr.trim().split('\n').slice(0, 4).join(' ');
      return fail(`search failed: ${msg || 'ripgrep exited with an error'}${/regex/i.test(msg) ? ' (the pattern is a Rust regex; escape special characters like ( [ { . *)' : ''}`);
    }
    const r: Record<string, unknown> = { total_count: count };
    if (matches.length) r.matches = matches;
    if (capped || offset + limit < count) {
      r.truncated = true;
      if (capped) r.total_count_is_lower_bound = true;
      r.hint = `Showing matches ${offset + 1}-${Math.min(offset + limit, count)} of ${capped ? `at least ${count}` : count}. Use offset=${offset + limit} for more, or narrow the pattern / file_glob.`;
    }
    notes(r, { timedOut: clock.expired || !!timedOut, limitMs, capped, filter });
    return ok(r);
  },
});
