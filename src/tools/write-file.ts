// write_file: create or overwrite a text file (parents created), guarded by the write denylist,
// HERMES_WRITE_SAFE_ROOT and the file-state guard. Keeps a file's CRLF endings and BOM.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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
    const path = resolvePath(a.path, s.cwd);
    const denied = writeCheck(s, path);
    if (denied) return fail(denied);
    if (existsSync(path) && statSync(path).isDirectory()) return fail(`${path} is a directory.`);
    const stale = staleError(s, path);
    if (stale) return fail(stale);
    const existing = existsSync(path) ? readFileSync(path, 'utf8') : null;
    const masked = maskedSecretError(existing, a.content, path);
    if (masked) return fail(masked);
    const content = matchConventions(existing, a.content);
    const dir = dirname(path);
    const dirsCreated = !existsSync(dir);
    if (dirsCreated) mkdirSync(dir, { recursive: true });
    writeFileSync(path, content);
    recordSeen(s, path);
    const { unifiedDiff } = await import('./diff.ts');
    const diff = unifiedDiff((existing ?? '').replace(/\r\n/g, '\n'), content.replace(/\r\n/g, '\n'), path);
    return {
      content: ok({ bytes_written: Buffer.byteLength(content), dirs_created: dirsCreated, path, ...(existing === null ? { created: true } : {}) }),
      display: { diff },
    };
  },
});
