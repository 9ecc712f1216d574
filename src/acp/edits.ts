// File edits in an editor session: every write_file / patch is proposed as a diff and approved under
// the session's edit-approval policy before it runs; with an editor that offers file access, reads
// and writes go through the editor (so unsaved buffers are seen and edits land in them).
import { closeSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import type { ToolOutcome } from '../agent/types.ts';
import { unifiedDiff } from '../tools/diff.ts';
import { LocalFileOps } from '../tools/env/files.ts';
import { maskedSecretError, recordSeen, writeCheck } from '../tools/file-state.ts';
import { fuzzyReplace } from '../tools/fuzzy-match.ts';
import { binaryKind, looksBinary, readRange, resolvePath } from '../tools/defs/read-file.ts';
import { openRegular, readHead, readTextFile } from '../tools/text-file.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { fail, ok } from '../tools/result.ts';
import type { ToolContext, ToolDefinition } from '../tools/types.ts';
import { applyHunks, parseV4A } from '../tools/v4a.ts';
import { matchConventions } from '../tools/defs/write-file.ts';

export type EditPolicy = 'ask' | 'workspace_session' | 'session';
export const EDIT_POLICIES: EditPolicy[] = ['ask', 'workspace_session', 'session'];

export interface FileEdit {
  path: string;
  oldText: string | null;
  newText: string;
}

/** How a session reads and writes files: the local disk, or the editor's buffers. */
export interface FileAccess {
  /** The file's text, or null when it does not exist. */
  read(path: string): Promise<string | null>;
  /** Writes through the editor; absent: tools write to disk themselves. */
  write?(path: string, content: string): Promise<void>;
  /** Whether reads come from the editor. */
  viaClient: boolean;
}

const MAX_SNAPSHOT = 1024 * 1024;

export function diskAccess(): FileAccess {
  return {
    viaClient: false,
    async read(path) {
      try {
        const st = statSync(path);
        if (!st.isFile() || st.size > MAX_SNAPSHOT) return null;
        const r = readTextFile(path);
        return 'error' in r ? null : r.text;
      } catch {
        return null;
      }
    },
  };
}

/** Paths whose edits always ask, whatever the policy: VCS internals, SSH, env files, keys. */
export function sensitivePath(path: string): boolean {
  const parts = resolve(path).split(sep).map((p) => p.toLowerCase());
  if (parts.includes('.git') || parts.includes('.ssh') || parts.includes('.gnupg') || parts.includes('.aws')) return true;
  const name = basename(path).toLowerCase();
  return /^\.env($|\.)/.test(name) || /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/.test(name) || /\.(pem|key|p12|pfx|keystore|jks)$/.test(name) || name === '.npmrc' || name === '.netrc';
}

const inside = (p: string, dir: string) => {
  const r = relative(dir, p);
  return r === '' || (!r.startsWith('..') && !r.startsWith(sep) && !/^[A-Za-z]:/.test(r));
};

/** Whether the edit may go ahead without asking under `policy` (sensitive paths always ask). */
export function autoApproved(paths: string[], policy: EditPolicy, cwd: string): boolean {
  if (policy === 'ask' || !paths.length || paths.some(sensitivePath)) return false;
  if (policy === 'session') return true;
  const tmp = resolve(tmpdir());
  return paths.every((p) => inside(resolve(p), resolve(cwd)) || inside(resolve(p), tmp));
}

/** The files a write_file / patch call would change, with their text before and after. */
export async function proposeEdit(tool: string, args: Record<string, unknown>, cwd: string, files: FileAccess): Promise<FileEdit[]> {
  if (tool === 'write_file') {
    const path = resolvePath(String(args.path ?? ''), cwd);
    return [{ path, oldText: await files.read(path), newText: String(args.content ?? '') }];
  }
  const mode = args.mode ?? (args.patch && !args.path ? 'patch' : 'replace');
  if (mode === 'replace') {
    const path = resolvePath(String(args.path ?? ''), cwd);
    const old = await files.read(path);
    if (old === null) throw new Error(`cannot read ${path}`);
    const r = fuzzyReplace(old, String(args.old_string ?? ''), String(args.new_string ?? ''), !!args.replace_all);
    if (r.error || r.content === undefined) throw new Error(r.error ?? 'no match');
    return [{ path, oldText: old, newText: r.content }];
  }
  const edits: FileEdit[] = [];
  const current = new Map<string, string | null>();
  const textOf = async (p: string) => (current.has(p) ? current.get(p)! : await files.read(p));
  for (const op of parseV4A(String(args.patch ?? ''))) {
    const path = resolvePath(op.path, cwd);
    if (op.kind === 'add') {
      edits.push({ path, oldText: null, newText: op.content });
      current.set(path, op.content);
    } else if (op.kind === 'delete') {
      edits.push({ path, oldText: await textOf(path), newText: '' });
      current.set(path, null);
    } else {
      const old = (await textOf(path)) ?? '';
      const next = op.kind === 'update' ? applyHunks(old, op.hunks, op.path) : old;
      const dest = op.kind === 'move' ? resolvePath(op.to, cwd) : op.moveTo ? resolvePath(op.moveTo, cwd) : path;
      if (dest !== path) {
        edits.push({ path, oldText: old, newText: '' }, { path: dest, oldText: null, newText: next });
        current.set(path, null);
        current.set(dest, next);
      } else {
        edits.push({ path, oldText: old, newText: next });
        current.set(path, next);
      }
    }
  }
  return edits;
}

/** The files a write_file / patch call names, without reading them. */
export function targetPaths(tool: string, args: Record<string, unknown>, cwd: string): string[] {
  if (tool === 'write_file' || (args.mode ?? (args.patch && !args.path ? 'patch' : 'replace')) === 'replace')
    return typeof args.path === 'string' && args.path.trim() ? [resolvePath(args.path, cwd)] : [];
  const text = String(args.patch ?? '');
  const out: string[] = [];
  for (const m of text.matchAll(/^\*\*\*\s+(?:Update|Add|Delete)\s+File:\s*(.+?)\s*$/gm)) out.push(resolvePath(m[1], cwd));
  for (const m of text.matchAll(/^\*\*\*\s+Move\s+(?:File:\s*)?(.+?)\s*->\s*(.+?)\s*$/gm)) out.push(resolvePath(m[1], cwd), resolvePath(m[2], cwd));
  for (const m of text.matchAll(/^\*\*\*\s+Move to:\s*(.+?)\s*$/gm)) out.push(resolvePath(m[1], cwd));
  return [...new Set(out)];
}

/** Per-session edit state the surface shares with its tools. */
export interface EditSession {
  cwd(): string;
  policy: EditPolicy;
  files: FileAccess;
  /** Diffs of finished edits by tool call, for the editor's tool-call cards. */
  done: Map<string, FileEdit[]>;
}

const denied = (why: string): ToolOutcome => fail(why);

/**
 * Wraps write_file and patch (and, with editor file access, read_file) in `registry` for an editor
 * session: approval first, then the write (through the editor when it offers it).
 */
export function installEditTools(registry: ToolRegistry, es: EditSession): void {
  for (const name of ['write_file', 'patch'] as const) {
    const original = registry.get(name);
    if (!original) continue;
    const wrapped: ToolDefinition = {
      ...original,
      async handler(args, ctx) {
        const a = args as Record<string, unknown>;
        let edits: FileEdit[] | null = null;
        try {
          edits = await proposeEdit(name, a, es.cwd(), es.files);
        } catch {
          edits = null; // the tool itself reports what is wrong (no match, missing file, bad patch)
        }
        // Without a diff (unreadable file, bad patch) the edit still needs approval for its paths.
        const paths = edits ? [...new Set(edits.map((e) => e.path))] : targetPaths(name, a, es.cwd());
        if (paths.length) {
          if (!autoApproved(paths, es.policy, es.cwd())) {
            const rel = paths.map((p) => (inside(p, es.cwd()) ? relative(es.cwd(), p) || p : p));
            const { answer, source } = await ctx.ask({
              kind: 'approval',
              command: `edit ${rel.join(', ')}`,
              description: paths.some(sensitivePath) ? 'edit of a sensitive file' : 'file edit',
              choices: ['once', 'session', 'deny'],
              edit: { callId: ctx.callId, files: edits ?? [] },
            });
            if (answer === 'session') es.policy = 'session';
            else if (answer !== 'once' && answer !== 'always')
              return denied(
                source === 'person'
                  ? `The user denied this edit in the editor; ${rel.join(', ')} ${paths.length > 1 ? 'were' : 'was'} not modified. Ask the user what they want instead.`
                  : `The edit was not approved (${source === 'timeout' ? 'the request timed out' : source === 'interrupted' ? 'the turn was interrupted' : 'nobody could approve it'}); nothing was modified.`,
              );
          }
        }
        const r = es.files.write && name === 'write_file' ? await clientWriteFile(a, ctx, es) : es.files.write && name === 'patch' && (a.mode ?? (a.patch && !a.path ? 'patch' : 'replace')) === 'replace' ? await clientPatch(a, ctx, es) : await original.handler(args, ctx);
        const outcome: ToolOutcome = typeof r === 'string' ? { content: r } : r;
        if (!outcome.isError && edits) es.done.set(ctx.callId, edits);
        return outcome;
      },
    };
    registry.register(wrapped, { override: true });
  }
  const read = registry.get('read_file');
  if (read && es.files.viaClient)
    registry.register({ ...read, handler: (args, ctx) => clientReadFile(args as { path: string; offset?: number; limit?: number }, ctx, es, read) }, { override: true });
}

async function clientWriteFile(a: Record<string, unknown>, ctx: ToolContext, es: EditSession): Promise<ToolOutcome> {
  const s = ctx;
  const path = resolvePath(String(a.path), s.cwd);
  const why = await writeCheck(s, path);
  if (why) return fail(why);
  if (existsSync(path) && statSync(path).isDirectory()) return fail(`${path} is a directory.`);
  const existing = existsSync(path) ? await es.files.read(path) : null;
  const masked = maskedSecretError(existing, String(a.content), path);
  if (masked) return fail(masked);
  const content = matchConventions(existing, String(a.content));
  const dir = dirname(path);
  const dirsCreated = !existsSync(dir);
  if (dirsCreated) mkdirSync(dir, { recursive: true });
  await es.files.write!(path, content);
  await recordSeen(s, path, new LocalFileOps(() => s.cwd));
  const diff = unifiedDiff((existing ?? '').replace(/\r\n/g, '\n'), content.replace(/\r\n/g, '\n'), path);
  return { content: ok({ bytes_written: Buffer.byteLength(content), dirs_created: dirsCreated, path, ...(existing === null ? { created: true } : {}) }), display: { diff } };
}

async function clientPatch(a: Record<string, unknown>, ctx: ToolContext, es: EditSession): Promise<ToolOutcome> {
  const s = ctx;
  if (!a.path || a.old_string === undefined || a.new_string === undefined) return fail('replace mode needs `path`, `old_string` and `new_string`.');
  const path = resolvePath(String(a.path), s.cwd);
  const why = await writeCheck(s, path);
  if (why) return fail(why);
  const text = existsSync(path) ? await es.files.read(path) : null;
  if (text === null) return fail(`File not found: ${path}. Use write_file to create a new file.`);
  const r = fuzzyReplace(text, String(a.old_string), String(a.new_string), !!a.replace_all);
  if (r.error) return fail(r.error, { success: false });
  if (r.alreadyApplied) return { content: ok({ success: true, no_change: true, note: 'new_string is already in the file and old_string is not: the edit looks applied already. Nothing was written.' }) };
  const masked = maskedSecretError(text, r.content!, path);
  if (masked) return fail(masked, { success: false });
  await es.files.write!(path, r.content!);
  await recordSeen(s, path, new LocalFileOps(() => s.cwd));
  const diff = unifiedDiff(text.replace(/\r\n/g, '\n'), r.content!.replace(/\r\n/g, '\n'), path);
  const result: Record<string, unknown> = { success: true, diff: diff.length > 20_000 ? diff.slice(0, 20_000) + '\n[… diff truncated …]\n' : diff, files_modified: [path], replacements: r.count };
  if (r.strategy !== 'exact') result.match_strategy = r.strategy;
  return { content: ok(result), display: { diff } };
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|bmp|ico|tiff?|heic|avif)$/i;

/** read_file through the editor (unsaved changes included); anything unusual goes to the disk tool. */
async function clientReadFile(a: { path: string; offset?: number; limit?: number }, ctx: ToolContext, es: EditSession, disk: ToolDefinition) {
  const s = ctx;
  const path = resolvePath(a.path, s.cwd);
  let st;
  try {
    st = statSync(path);
  } catch {
    return disk.handler(a, ctx);
  }
  if (!st.isFile() || IMAGE_EXT.test(path) || (await import('../tools/secret-read.ts')).isLocalSecretFile(s, path)) return disk.handler(a, ctx);
  const opened = openRegular(path);
  if ('error' in opened) return disk.handler(a, ctx);
  let head: Buffer;
  try {
    head = readHead(opened.fd, 8192);
  } finally {
    closeSync(opened.fd);
  }
  if (looksBinary(head)) return fail(`${path} is a binary file (${binaryKind(head)}, ${st.size.toLocaleString('en-US')} bytes) and cannot be read as text.`, { is_binary: true });
  let text: string | null;
  try {
    text = await es.files.read(path);
  } catch {
    return disk.handler(a, ctx);
  }
  if (text === null) return disk.handler(a, ctx);
  const r = readRange(text, path, a, s.config.file_read_max_chars ?? 100_000);
  if (typeof r === 'string') await recordSeen(s, path, new LocalFileOps(() => s.cwd));
  return r;
}
