import { basename, isAbsolute, posix, resolve } from 'node:path';
import type { z } from 'zod';
import type { ToolOutcome } from '../agent/types.ts';
import type { Zod } from './zod.ts';
import { expandHome } from '../state/paths.ts';
import type { FileOps } from './env/files.ts';
import { recordSeen } from './file-state.ts';
import { REMOTE_READ_MAX } from './env/files.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';

export const MAX_LINES = 2000;
export const DEFAULT_LIMIT = 500;
const MAX_LINE_CHARS = 2000;

export function resolvePath(p: string, cwd: string): string {
  const e = expandHome(p.trim());
  return isAbsolute(e) ? resolve(e) : resolve(cwd, e);
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|bmp|ico|tiff?|heic|avif)$/i;

const MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], 'PNG image'],
  [[0xff, 0xd8, 0xff], 'JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'GIF image'],
  [[0x25, 0x50, 0x44, 0x46], 'PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 'ZIP archive (or docx/xlsx/jar)'],
  [[0x1f, 0x8b], 'gzip data'],
  [[0x7f, 0x45, 0x4c, 0x46], 'ELF executable'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 'SQLite database'],
  [[0x42, 0x5a, 0x68], 'bzip2 data'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a], 'xz data'],
];

/** What kind of binary a file is, from its magic bytes. */
export function binaryKind(head: Uint8Array): string {
  for (const [sig, name] of MAGIC) if (sig.every((b, i) => head[i] === b)) return name;
  return 'binary data';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Binary: a NUL byte in the sample, mostly control characters, or invalid UTF-8 (a read → edit →
 * write round trip would corrupt it). A multibyte character cut at the sample's end is fine.
 */
export function looksBinary(buf: Uint8Array): boolean {
  if (buf.length === 0) return false;
  let odd = 0;
  for (const b of buf) {
    if (b === 0) return true;
    if (b < 7 || (b > 13 && b < 32)) odd++;
  }
  if (odd / buf.length > 0.3) return true;
  for (let cut = 0; cut <= 3 && cut < buf.length; cut++) {
    try {
      utf8.decode(buf.subarray(0, buf.length - cut));
      return false;
    } catch {
      /* try without a possibly cut character at the end */
    }
  }
  return true;
}

async function similarNames(path: string, ops: FileOps): Promise<string[]> {
  const want = basename(path).toLowerCase();
  const stem = want.replace(/\.[^.]+$/, '');
  const dir = posix.dirname(path);
  return (await ops.list(dir))
    .filter((n) => {
      const l = n.toLowerCase();
      return l.includes(stem) || stem.includes(l.replace(/\.[^.]+$/, ''));
    })
    .slice(0, 5)
    .map((n) => posix.join(dir, n));
}

/**
 * The read_file result for a range of a text: `LINE|content` lines, long lines cut, the size cap,
 * and a hint to read on. Shared by the disk tool and editors' buffers (ACP).
 */
export function readRange(text: string, path: string, a: { offset?: number; limit?: number }, maxChars: number): string | ToolOutcome {
  const lines = text.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const offset = a.offset ?? 1;
  const limit = Math.min(a.limit ?? DEFAULT_LIMIT, MAX_LINES);
  if (offset > Math.max(total, 1)) return fail(`offset ${offset} is past the end of the file (${total} lines).`, { total_lines: total });
  const slice = lines.slice(offset - 1, offset - 1 + limit);
  let truncatedLines = 0;
  const body = slice
    .map((l, i) => {
      let line = l;
      if (line.length > MAX_LINE_CHARS) {
        line = line.slice(0, MAX_LINE_CHARS) + ' [line truncated]';
        truncatedLines++;
      }
      return `${offset + i}|${line}`;
    })
    .join('\n');
  if (body.length > maxChars)
    return fail(
      `That range is ${body.length.toLocaleString('en-US')} characters, more than the ${maxChars.toLocaleString('en-US')} a read may return. Read fewer lines with offset and limit.`,
      { total_lines: total },
    );
  const last = offset + slice.length - 1;
  const result: Record<string, unknown> = { content: body, path, total_lines: total, lines_shown: slice.length ? `${offset}-${last}` : '0' };
  if (last < total) result.hint = `File continues: ${total - last} more lines. Use offset=${last + 1} to read on.`;
  if (truncatedLines) result.long_lines_truncated = truncatedLines;
  return ok(result);
}

export default defineTool({
  name: 'read_file',
  toolset: 'file',
  emoji: '📖',
  parallelSafe: true,
  maxResultChars: Number.POSITIVE_INFINITY,
  description:
    'Read a text file with line numbers (each line as `LINE_NUM|CONTENT`). Use offset and limit to page through large files ' +
    `(default ${DEFAULT_LIMIT} lines, at most ${MAX_LINES} per call). Prefer this over cat/head/tail in the terminal. ` +
    'Images and binary files cannot be read as text (use vision_analyze for images).',
  schema: (z) =>
    z.object({
    path: z.string().min(1).describe('File path: absolute, relative to the working directory, or starting with ~'),
    offset: z.coerce.number().int().min(1).optional().describe('Line number to start from (1-indexed, default 1)'),
    limit: z.coerce.number().int().min(1).optional().describe(`Number of lines to read (default ${DEFAULT_LIMIT}, max ${MAX_LINES})`),
  }),
  paths: (a, s) => ({ read: [resolvePath(a.path, s.cwd)], write: [] }),
  async handler(a, ctx) {
    const s = ctx.services;
    const { fileOps } = await import('./env/index.ts');
    const ops = fileOps(s);
    const path = await ops.resolve(a.path);
    const st = await ops.stat(path);
    if (!st) {
      const similar = await similarNames(path, ops);
      return fail(`File not found: ${path}${ops.remote ? ` (on ${ops.label})` : ''}`, similar.length ? { similar_files: similar } : {});
    }
    if (st.kind === 'dir') return fail(`${path} is a directory. Use search_files with target "files" to list it.`);
    if (IMAGE_EXT.test(path)) return fail(`${path} is an image. Use vision_analyze to look at it.`, { is_image: true });
    const maxChars = s.config.file_read_max_chars ?? 100_000;
    if (ops.remote && st.size > REMOTE_READ_MAX) return fail(`${path} is ${st.size.toLocaleString('en-US')} bytes, too large to read through ${ops.label}. Use the terminal (head, sed -n) for parts of it.`);
    const buf = await ops.readFile(path);
    const head = buf.subarray(0, 8192);
    if (looksBinary(head)) return fail(`${path} is a binary file (${binaryKind(head)}, ${st.size.toLocaleString('en-US')} bytes) and cannot be read as text.`, { is_binary: true });
    const r = readRange(buf.toString('utf8'), path, a, maxChars);
    if (typeof r === 'string') await recordSeen(s, path, ops); // a successful read (failures are outcomes)
    return r;
  },
});
