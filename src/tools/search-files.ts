// search_files: ripgrep-backed content search (regex, context lines, globs) and file-name search.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join, posix, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import type { FileOps } from './env/files.ts';
import { shq } from './env/types.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';

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

interface RgRun {
  lines: AsyncIterable<string>;
  done: Promise<{ code: number | null; stderr: string }>;
  stop(): void;
}

async function rg(args: string[], cwd: string, signal: AbortSignal): Promise<RgRun> {
  const bin = await ripgrepPath();
  const child = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
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
 * remote backend rg runs there, or — when that machine has no rg — `fallback` (grep/find producing
 * the same line format).
 */
async function search(ops: FileOps, args: string[], cwd: string, signal: AbortSignal, fallback: string): Promise<RgRun> {
  if (!ops.remote) return rg(args, cwd, signal);
  const r = await ops.run(['rg', ...args], cwd, signal, fallback);
  const lines = r.stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return {
    lines: (async function* () {
      yield* lines;
    })(),
    done: Promise.resolve({ code: r.code, stderr: r.stderr }),
    stop: () => {},
  };
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

export default defineTool({
  name: 'search_files',
  toolset: 'file',
  emoji: '🔎',
  parallelSafe: true,
  description:
    'Search files with ripgrep. target "content" (default): regex search of file contents, with output_mode "content" (matching lines ' +
    'with line numbers, optional context lines), "files_only" (paths of matching files) or "count" (matches per file). ' +
    'target "files": find files whose names match a glob pattern (e.g. "*.ts", "test_*.py"). file_glob narrows either search ' +
    '(e.g. "*.py"). Hidden files are searched; .git and .gitignored paths are skipped. Results are paginated with limit/offset.',
  schema: (z) =>
    z.object({
    pattern: z.string().min(1).describe('Regex for content search; glob for file-name search'),
    target: z.enum(['content', 'files']).optional().describe('content (default) or files'),
    path: z.string().optional().describe('Directory or file to search (default: the working directory)'),
    file_glob: z.string().optional().describe('Only search files matching this glob (e.g. "*.ts")'),
    limit: z.coerce.number().int().min(1).max(1000).optional().describe('Maximum results (default 50)'),
    offset: z.coerce.number().int().min(0).optional().describe('Results to skip, for paging (default 0)'),
    output_mode: z.enum(['content', 'files_only', 'count']).optional().describe('content (default), files_only or count'),
    context: z.coerce.number().int().min(0).max(20).optional().describe('Lines of context around each match (content mode)'),
  }),
  paths: (a, s) => ({ read: [resolvePath(a.path ?? '.', s.cwd)], write: [] }),
  async handler(a, ctx) {
    const s = ctx.services;
    const { fileOps } = await import('./env/index.ts');
    const ops = fileOps(s);
    const root = await ops.resolve(a.path ?? '.');
    const st = await ops.stat(root);
    if (!st) return fail(`Path not found: ${root}${ops.remote ? ` (on ${ops.label})` : ''}.`);
    const isFile = st.kind === 'file';
    const cwd = isFile ? posix.dirname(root) : root;
    const target = isFile ? posix.basename(root) : '.';
    const base0 = ops.remote ? await ops.resolve('.') : s.cwd;
    const limit = a.limit ?? 50;
    const offset = a.offset ?? 0;
    const show = (p: string) => {
      const abs = join(cwd, p.replace(/^\.\//, ''));
      const rel = relative(base0, abs);
      return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
    };
    const base = ['--hidden', '--glob', '!.git', '--no-messages', '--color', 'never'];
    if (a.file_glob) base.push('--glob', a.file_glob);

    if (a.target === 'files') {
      const run = await search(ops, [...base, '--files', '--glob', a.pattern, target], cwd, ctx.signal, grepFallback('files', a, target));
      const files: string[] = [];
      for await (const l of run.lines) if (l) files.push(l);
      const { code, stderr } = await run.done;
      if (code === 2 && !files.length) return fail(`search failed: ${stderr.trim().split('\n')[0]}`);
      files.sort();
      const page = files.slice(offset, offset + limit).map(show);
      const r: Record<string, unknown> = { total_count: files.length };
      if (page.length) r.files = page;
      if (offset + limit < files.length) {
        r.truncated = true;
        r.hint = `Showing ${page.length} of ${files.length}. Use offset=${offset + limit} for more, or a narrower pattern.`;
      }
      return ok(r);
    }

    const mode = a.output_mode ?? 'content';
    if (mode === 'files_only' || mode === 'count') {
      const run = await search(ops, [...base, ...(mode === 'count' ? ['--count-matches', '--null'] : ['--files-with-matches']), '-e', a.pattern, target], cwd, ctx.signal, grepFallback(mode, a, target));
      const rows: [string, number][] = [];
      for await (const l of run.lines) {
        if (!l) continue;
        const z0 = l.indexOf('\0');
        if (mode === 'count') {
          const n = Number(l.slice((z0 >= 0 ? z0 : l.lastIndexOf(':')) + 1));
          if (n > 0) rows.push([z0 >= 0 ? l.slice(0, z0) : l.slice(0, l.lastIndexOf(':')), n]);
        }
        else rows.push([z0 >= 0 ? l.slice(0, z0) : l, 0]);
      }
      const { code, stderr } = await run.done;
      if (code === 2 && !rows.length) return fail(`search failed: ${stderr.trim().split('\n').slice(0, 3).join(' ')}`);
      rows.sort((x, y) => (x[0] < y[0] ? -1 : 1));
      const page = rows.slice(offset, offset + limit);
      const r: Record<string, unknown> = { total_count: mode === 'count' ? rows.reduce((n, x) => n + x[1], 0) : rows.length };
      if (mode === 'count') r.counts = Object.fromEntries(page.map(([p, n]) => [show(p), n]));
      else if (page.length) r.files = page.map(([p]) => show(p));
      if (offset + limit < rows.length) {
        r.truncated = true;
        r.hint = `Showing ${page.length} of ${rows.length} files. Use offset=${offset + limit} for more.`;
      }
      return ok(r);
    }

    const args = [...base, '--line-number', '--with-filename', '--no-heading', '--null', '--max-columns', '2000', '--max-columns-preview'];
    if (a.context) args.push('--context', String(a.context));
    args.push('-e', a.pattern, target);
    const run = await search(ops, args, cwd, ctx.signal, grepFallback('content', a, target));
    const matches: Record<string, unknown>[] = [];
    let count = 0;
    let capped = false;
    let before: Record<string, unknown>[] = [];
    let last: { path: string; line: number } | null = null;
    const inPage = () => count > offset && count <= offset + limit;
    for await (const l of run.lines) {
      if (!l || l === '--') continue;
      const z0 = l.indexOf('\0');
      if (z0 < 0) continue;
      const m = /^(\d+)([:-])/.exec(l.slice(z0 + 1));
      if (!m) continue;
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
    const { code, stderr } = await run.done;
    if (code === 2 && !count && !capped) {
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
    return ok(r);
  },
});
