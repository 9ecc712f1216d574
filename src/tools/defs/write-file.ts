// write_file: create or overwrite a text file (parents created), guarded by the write denylist,
// HERMES_WRITE_SAFE_ROOT and the file-state guard. Keeps a file's CRLF endings and BOM.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { maskedSecretError, recordSeen, staleError, writeCheck, writeGuard } from '../file-state.ts';
import { resolvePath } from './read-file.ts';
import type { FileOps } from '../env/files.ts';
import { decodeText, encodeText, encodingOf, looksBinary, MAX_EDIT_BYTES, readTextFile, type TextEncoding } from '../text-file.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';

const BOM = '\uFEFF';

/** The text to write, in the existing file's conventions (CRLF endings, BOM). */
export function matchConventions(existing: string | null, content: string): string {
  if (existing === null) return content;
  let out = content;
  if (existing.slice(0, 4096).includes('\r\n') && !out.includes('\r\n')) out = out.replace(/\n/g, '\r\n');
  if (existing.startsWith(BOM) && !out.startsWith(BOM)) out = BOM + out;
  return out;
}

export default defineTool({
  name: 'write_file',
  toolset: 'file',
  emoji: '✍️',
  description:
    'Create or overwrite a whole text file (parent folders are made). Edit existing files with patch.',
  schema: (z) =>
    z.object({
    path: z.string().min(1),
    content: z.string(),
  }),
  paths: (a, s) => ({ read: [], write: [resolvePath(a.path, s.cwd)] }),
  async handler(a, ctx) {
    const s = ctx;
    const ops = await ctx.files();
    const path = await ops.resolve(a.path);
    const denied = await writeCheck(s, path, ops);
    if (denied) return fail(denied);
    const st = await ops.stat(path);
    if (st?.kind === 'dir') return fail(`${path} is a directory.`);
    const stale = await staleError(s, path, ops);
    if (stale) return fail(stale);
    let existing: string | null = null;
    let encoding: TextEncoding = 'utf-8';
    if (st) {
      const r = await existingText(ops, path, st);
      // Replacing a binary or huge file entirely is allowed; only text files keep their encoding.
      if (!('error' in r)) ({ text: existing, encoding } = r);
      else if (/not a regular file|device|pipe|socket|environment/.test(r.error)) return fail(r.error);
    }
    const masked = maskedSecretError(existing, a.content, path);
    if (masked) return fail(masked);
    const content = matchConventions(existing, a.content);
    const out = encodeText(content, encoding);
    const { WriteRefused } = await import('../env/safe-write.ts');
    let dirsCreated: boolean;
    try {
      ({ dirsCreated } = await ops.writeFile(path, out.bytes, await writeGuard(s, ops)));
    } catch (e) {
      if (e instanceof WriteRefused) return fail(e.message);
      throw e;
    }
    await recordSeen(s, path, ops);
    const { unifiedDiff } = await import('../diff.ts');
    const diff = unifiedDiff((existing ?? '').replace(/\r\n/g, '\n'), content.replace(/\r\n/g, '\n'), path);
    return {
      content: ok({ bytes_written: out.bytes.length, dirs_created: dirsCreated, path, ...(!st ? { created: true } : {}), ...(out.encoding !== 'utf-8' ? { encoding: out.encoding } : encoding !== out.encoding ? { encoding: 'utf-8 (was latin-1: the new text has characters Latin-1 cannot hold)' } : {}) }),
      display: { diff },
    };
  },
});

/** The current text of a file about to be replaced, in its encoding (locally with the bounded reader). */
export async function existingText(ops: FileOps, path: string, st: { kind: string; size: number }): Promise<{ text: string; encoding: TextEncoding } | { error: string }> {
  if (!ops.remote) return readTextFile(path);
  if (st.kind !== 'file') return { error: `${path} is not a regular file.` };
  if (st.size > MAX_EDIT_BYTES) return { error: `${path} is ${st.size.toLocaleString('en-US')} bytes, too large to edit as text (limit ${MAX_EDIT_BYTES / 1024 / 1024} MB).` };
  const buf = await ops.readFile(path);
  if (looksBinary(buf.subarray(0, 8192))) return { error: `${path} is a binary file; only text files can be edited.` };
  const encoding = encodingOf(buf);
  return { text: decodeText(buf, encoding), encoding };
}
