// write_file: create or overwrite a text file (parents created), guarded by the write denylist,
// HERMES_WRITE_SAFE_ROOT and the file-state guard. Keeps a file's CRLF endings and BOM.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { maskedSecretError, recordSeen, staleError, writeCheck } from './file-state.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';

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
    'Write a text file, replacing it entirely (parent directories are created). Use patch for edits to existing files. ' +
    'Refused for credential files (.env, ~/.ssh, …) and for files changed since you last read them.',
  schema: (z) =>
    z.object({
    path: z.string().min(1).describe('File path: absolute, relative to the working directory, or starting with ~'),
    content: z.string().describe('The complete new content of the file'),
  }),
  paths: (a, s) => ({ read: [], write: [resolvePath(a.path, s.cwd)] }),
  async handler(a, ctx) {
    const s = ctx.services;
    const { fileOps } = await import('./env/index.ts');
    const ops = fileOps(s);
    const path = await ops.resolve(a.path);
    const denied = await writeCheck(s, path, ops);
    if (denied) return fail(denied);
    const st = await ops.stat(path);
    if (st?.kind === 'dir') return fail(`${path} is a directory.`);
    const stale = await staleError(s, path, ops);
    if (stale) return fail(stale);
    const existing = st ? (await ops.readFile(path)).toString('utf8') : null;
    const masked = maskedSecretError(existing, a.content, path);
    if (masked) return fail(masked);
    const content = matchConventions(existing, a.content);
    const { dirsCreated } = await ops.writeFile(path, content);
    await recordSeen(s, path, ops);
    const { unifiedDiff } = await import('./diff.ts');
    const diff = unifiedDiff((existing ?? '').replace(/\r\n/g, '\n'), content.replace(/\r\n/g, '\n'), path);
    return {
      content: ok({ bytes_written: Buffer.byteLength(content), dirs_created: dirsCreated, path, ...(existing === null ? { created: true } : {}) }),
      display: { diff },
    };
  },
});
