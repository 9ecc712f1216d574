import { closeSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, posix, resolve } from 'node:path';
import type { z } from 'zod';
import type { ToolOutcome } from '../../agent/types.ts';
import type { Zod } from '../zod.ts';
import { expandHome } from '../../state/paths.ts';
import { REMOTE_READ_MAX, type FileOps } from '../env/files.ts';
import { recordSeen } from '../file-state.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import { decodeText, encodingOf, isSecretProcPath, looksBinary, openedPath, openRegular, readHead, readLineWindow } from '../text-file.ts';
import type { ToolContext } from '../types.ts';

export { looksBinary } from '../text-file.ts';

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

function similarNames(path: string): string[] {
  try {
    const want = basename(path).toLowerCase();
    const stem = want.replace(/\.[^.]+$/, '');
    return readdirSync(dirname(path))
      .filter((n) => {
        const l = n.toLowerCase();
        return l.includes(stem) || stem.includes(l.replace(/\.[^.]+$/, ''));
      })
      .slice(0, 5)
      .map((n) => resolve(dirname(path), n));
  } catch {
    return [];
  }
}

/**
 * The read_file result for a window of lines: `LINE|content` lines, long lines cut, the size cap,
 * and a hint to read on. `total` is a lower bound when `complete` is false (a huge file).
 */
function formatWindow(w: { lines: { text: string; cut: boolean }[]; total: number; complete: boolean }, path: string, offset: number, maxChars: number, extra: Record<string, unknown> = {}): string | ToolOutcome {
  const { total } = w;
  if (offset > Math.max(total, 1) && w.complete) return fail(`offset ${offset} is past the end of the file (${total} lines).`, { total_lines: total });
  let truncatedLines = 0;
  const body = w.lines
    .map((l, i) => {
      if (l.cut) truncatedLines++;
      return `${offset + i}|${l.text}${l.cut ? ' [line truncated]' : ''}`;
    })
    .join('\n');
  if (body.length > maxChars)
    return fail(
      `That range is ${body.length.toLocaleString('en-US')} characters, more than the ${maxChars.toLocaleString('en-US')} a read may return. Read fewer lines with offset and limit.`,
      { total_lines: total },
    );
  const last = offset + w.lines.length - 1;
  const result: Record<string, unknown> = { content: body, path, total_lines: w.complete ? total : `more than ${total}`, lines_shown: w.lines.length ? `${offset}-${last}` : '0', ...extra };
  if (last < total || !w.complete) result.hint = w.complete ? `File continues: ${total - last} more lines. Use offset=${last + 1} to read on.` : `File continues (it is too large to count its lines). Use offset=${last + 1} to read on.`;
  if (truncatedLines) result.long_lines_truncated = truncatedLines;
  return ok(result);
}

/**
 * The read_file result for a range of a text (shared by the disk tool and editors' buffers).
 */
export function readRange(text: string, path: string, a: { offset?: number; limit?: number }, maxChars: number, extra: Record<string, unknown> = {}): string | ToolOutcome {
  const all = text.split(/\r?\n/);
  if (all.length && all[all.length - 1] === '') all.pop();
  const offset = a.offset ?? 1;
  const limit = Math.min(a.limit ?? DEFAULT_LIMIT, MAX_LINES);
  const lines = all.slice(offset - 1, offset - 1 + limit).map((l) => (l.length > MAX_LINE_CHARS ? { text: l.slice(0, MAX_LINE_CHARS), cut: true } : { text: l, cut: false }));
  return formatWindow({ lines, total: all.length, complete: true }, path, offset, maxChars, extra);
}

/** read_file on a remote backend: the same checks, the file pulled through the backend's shell. */
async function readRemote(ops: FileOps, a: { path: string; offset?: number; limit?: number }, maxChars: number, ctx: ToolContext): Promise<{ path: string; result: string | ToolOutcome }> {
  const path = await ops.resolve(a.path);
  const st = await ops.stat(path);
  if (!st) {
    const want = basename(path).toLowerCase().replace(/\.[^.]+$/, '');
    const dir = posix.dirname(path);
    const similar = (await ops.list(dir))
      .filter((n) => n.toLowerCase().includes(want) || want.includes(n.toLowerCase().replace(/\.[^.]+$/, '')))
      .slice(0, 5)
      .map((n) => posix.join(dir, n));
    return { path, result: fail(`File not found: ${path} (on ${ops.label})`, similar.length ? { similar_files: similar } : {}) };
  }
  if (st.kind === 'dir') return { path, result: fail(`${path} is a directory. Use search_files with target "files" to list it.`) };
  if (IMAGE_EXT.test(path)) return { path, result: fail(`${path} is an image. Use vision_analyze to look at it.`, { is_image: true }) };
  if (st.kind !== 'file') return { path, result: fail(`${path} is not a regular file (a pipe, device or socket); it cannot be read as text.`) };
  const real = await ops.realTarget(path);
  if (isSecretProcPath(real)) return { path, result: fail(`${path} holds a process's environment or memory (secrets); it is not read.`) };
  const gate = await secretGate(ctx, ops, real, null);
  if (gate) return { path, result: fail(gate) };
  if (st.size > REMOTE_READ_MAX) return { path, result: fail(`${path} is ${st.size.toLocaleString('en-US')} bytes, too large to read through ${ops.label}. Use the terminal (head, sed -n) for parts of it.`) };
  const buf = await ops.readFile(path);
  const head = buf.subarray(0, 8192);
  const doc = await readDocument(path, head, buf.length, () => buf, a, maxChars);
  if (doc !== null) return { path, result: doc };
  if (looksBinary(head)) return { path, result: fail(`${path} is a binary file (${binaryKind(head)}, ${st.size.toLocaleString('en-US')} bytes) and cannot be read as text.`, { is_binary: true }) };
  const enc = encodingOf(buf);
  return { path, result: readRange(decodeText(buf, enc), path, a, maxChars, enc === 'latin-1' ? { encoding: 'latin-1' } : {}) };
}

/** Why reading the file at `real` is refused (a Hermes credential file the person did not let through), or null. */
async function secretGate(ctx: ToolContext, ops: FileOps, real: string, st: { dev: number; ino: number; nlink: number } | null): Promise<string | null> {
  const { secretMatcher, approveSecretRead } = await import('../secret-read.ts');
  const which = (await secretMatcher(ctx, ops))(real, st);
  if (!which) return null;
  const v = await approveSecretRead(ctx, 'read_file', [which]);
  return v.allowed ? null : v.reason;
}

/** Largest PDF or Office file read_file extracts text from. */
const MAX_DOCUMENT_BYTES = 100 * 1024 * 1024;
const DOCUMENT_NAME = /\.(pdf|docx|docm|dotx|xlsx|xlsm|xltx|pptx|pptm|potx)$/i;

/** Whether the first bytes (or the name) say this may be a PDF or an Office document; decided in impl/documents.ts. */
const maybeDocument = (path: string, head: Uint8Array) => (head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46) || DOCUMENT_NAME.test(path);

/**
 * read_file on a PDF or Office document: its text with page/sheet/slide marker lines, paged by
 * offset/limit like any text; null when the file is not one (it is then treated as any other file).
 */
async function readDocument(path: string, head: Uint8Array, size: number, load: () => Buffer | Promise<Buffer>, a: { offset?: number; limit?: number }, maxChars: number): Promise<string | ToolOutcome | null> {
  if (!maybeDocument(path, head)) return null;
  const { documentCandidate, documentText, DocumentError } = await import('../impl/documents.ts');
  if (!documentCandidate(path, head)) return null;
  if (size > MAX_DOCUMENT_BYTES) return fail(`${path} is ${size.toLocaleString('en-US')} bytes; documents over ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB are not read. Use the terminal (pdftotext, unzip -p) for parts of it.`);
  try {
    const d = await documentText(path, await load());
    if (!d.text.trim()) return fail(`${path} is a ${d.kind.toUpperCase()} document with no extractable text (${d.units} ${d.unitName}; a scanned PDF needs OCR: try vision_analyze on page images).`, { document: d.kind, [d.unitName]: d.units });
    return readRange(d.text, path, a, maxChars, { document: d.kind, [d.unitName]: d.units });
  } catch (e) {
    if (e instanceof DocumentError) return fail(`${path} could not be read: ${e.message}.`, { document_error: true });
    throw e;
  }
}

/** Bytes read past the wanted lines to count the rest; beyond it the total is a lower bound. */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

export default defineTool({
  name: 'read_file',
  toolset: 'file',
  emoji: '📖',
  parallelSafe: true,
  maxResultChars: Number.POSITIVE_INFINITY,
  description:
    'Read a text file as numbered lines (`N|text`), paged with offset/limit. Use it instead of cat/head/tail. Reads PDF, docx, xlsx and pptx as text (page/sheet/slide marker lines); images go to vision_analyze.',
  schema: (z) =>
    z.object({
    path: z.string().min(1),
    offset: z.coerce.number().int().min(1).optional().describe('First line, 1-based'),
    limit: z.coerce.number().int().min(1).optional().describe(`Lines to read (default ${DEFAULT_LIMIT}, max ${MAX_LINES})`),
  }),
  paths: (a, s) => ({ read: [resolvePath(a.path, s.cwd)], write: [] }),
  async handler(a, ctx) {
    const s = ctx;
    const ops = await ctx.files();
    if (ops.remote) {
      const { path, result } = await readRemote(ops, a, s.config.file_read_max_chars ?? 100_000, ctx);
      if (typeof result === 'string') await recordSeen(s, path, ops); // a successful read (failures are outcomes)
      return result;
    }
    const path = await ops.resolve(a.path);
    if (!existsSync(path)) {
      const similar = similarNames(path);
      return fail(`File not found: ${path}`, similar.length ? { similar_files: similar } : {});
    }
    if (statSync(path).isDirectory()) return fail(`${path} is a directory. Use search_files with target "files" to list it.`);
    if (IMAGE_EXT.test(path)) return fail(`${path} is an image. Use vision_analyze to look at it.`, { is_image: true });
    const opened = openRegular(path);
    if ('error' in opened) return fail(opened.error);
    const { fd, st } = opened;
    try {
      const gate = await secretGate(ctx, ops, openedPath(fd, path), st);
      if (gate) return fail(gate);
      const head = readHead(fd, 8192);
      const doc = await readDocument(path, head, st.size, () => readFileSync(fd), a, s.config.file_read_max_chars ?? 100_000);
      if (doc !== null) {
        if (typeof doc === 'string') await recordSeen(s, path, ops);
        return doc;
      }
      if (looksBinary(head)) return fail(`${path} is a binary file (${binaryKind(head)}, ${st.size.toLocaleString('en-US')} bytes) and cannot be read as text.`, { is_binary: true });
      const enc = encodingOf(head, st.size > head.length);
      const offset = a.offset ?? 1;
      const limit = Math.min(a.limit ?? DEFAULT_LIMIT, MAX_LINES);
      const w = readLineWindow(fd, enc, { offset, limit, maxLineChars: MAX_LINE_CHARS, maxScanBytes: MAX_SCAN_BYTES });
      const r = formatWindow(w, path, offset, s.config.file_read_max_chars ?? 100_000, enc === 'latin-1' ? { encoding: 'latin-1' } : {});
      if (typeof r === 'string') await recordSeen(s, path, ops); // a successful read (failures are outcomes)
      return r;
    } finally {
      closeSync(fd);
    }
  },
});
