// patch's implementation (fuzzy replace, V4A), loaded on the first call.
import type { ToolOutcome } from '../../agent/types.ts';
import { unifiedDiff } from '../diff.ts';
import type { FileOps } from '../env/files.ts';
import { maskedSecretError, recordSeen, staleError, writeCheck, writeGuard } from '../file-state.ts';
import { WriteRefused } from '../env/safe-write.ts';
import type { WriteContext } from '../../policy/write-safety.ts';
import { fuzzyReplace } from '../fuzzy-match.ts';
import type { PatchArgs } from '../defs/patch.ts';
import { encodeText, type TextEncoding } from '../text-file.ts';
import { existingText } from '../defs/write-file.ts';
import { fail, ok } from '../result.ts';
import type { ToolContext, ToolSession } from '../types.ts';
import { applyHunks, parseV4A, PatchError } from '../v4a.ts';

const MAX_DIFF = 20_000;

/** Each file's encoding as read, so writes keep it (Latin-1 stays Latin-1). */
const encodings = new Map<string, TextEncoding>();

async function readText(ops: FileOps, path: string): Promise<string | { error: string }> {
  const st = await ops.stat(path);
  if (!st) return { error: `File not found: ${path}. Use write_file to create a new file.` };
  if (st.kind === 'dir') return { error: `${path} is a directory.` };
  const r = await existingText(ops, path, st);
  if ('error' in r) return r;
  encodings.set(path, r.encoding);
  return r.text;
}

async function writeText(ops: FileOps, guard: WriteContext, path: string, text: string, encodingFrom = path): Promise<void> {
  await ops.writeFile(path, encodeText(text, encodings.get(encodingFrom) ?? 'utf-8').bytes, guard);
  encodings.delete(path);
}

function clip(diff: string): string {
  return diff.length > MAX_DIFF ? diff.slice(0, MAX_DIFF) + `\n[… diff truncated, ${diff.length - MAX_DIFF} more characters …]\n` : diff;
}

async function replaceMode(s: ToolSession, ops: FileOps, a: { path?: string; old_string?: string; new_string?: string; replace_all?: boolean }) {
  if (!a.path) return fail('replace mode needs `path`, `old_string` and `new_string`.');
  if (a.old_string === undefined || a.new_string === undefined) return fail('replace mode needs `old_string` and `new_string`.');
  const path = await ops.resolve(a.path);
  const denied = await writeCheck(s, path, ops);
  if (denied) return fail(denied);
  const text = await readText(ops, path);
  if (typeof text !== 'string') return fail(text.error);
  const stale = await staleError(s, path, ops);
  if (stale) return fail(stale);
  const r = fuzzyReplace(text, a.old_string, a.new_string, !!a.replace_all);
  if (r.error) return fail(r.error, { success: false });
  const masked = r.content ? maskedSecretError(text, r.content, path) : null;
  if (masked) return fail(masked, { success: false });
  if (r.alreadyApplied) return ok({ success: true, no_change: true, note: 'new_string is already in the file and old_string is not: the edit looks applied already. Nothing was written.' });
  try {
    await writeText(ops, await writeGuard(s, ops), path, r.content!);
  } catch (e) {
    if (e instanceof WriteRefused) return fail(e.message, { success: false });
    throw e;
  }
  await recordSeen(s, path, ops);
  const diff = unifiedDiff(text.replace(/\r\n/g, '\n'), r.content!.replace(/\r\n/g, '\n'), path);
  const result: Record<string, unknown> = { success: true, diff: clip(diff), files_modified: [path], replacements: r.count };
  if (r.strategy !== 'exact') result.match_strategy = r.strategy;
  return { content: ok(result), display: { diff } };
}

async function patchMode(s: ToolSession, ops: FileOps, patchText: string | undefined) {
  if (!patchText) return fail('patch mode needs `patch`: a V4A patch starting with "*** Begin Patch".');
  let parsed;
  try {
    parsed = parseV4A(patchText);
  } catch (e) {
    return fail((e as Error).message, { success: false });
  }
  // Plan everything first; write only when every operation is known to apply.
  const writes = new Map<string, string>();
  const deletes = new Set<string>();
  const before = new Map<string, string>();
  const created: string[] = [];
  /** Where a moved file came from (it keeps its encoding). */
  const movedFrom = new Map<string, string>();
  const current = async (p: string): Promise<string | { error: string }> =>
    writes.has(p) ? writes.get(p)! : deletes.has(p) ? { error: `${p} was deleted earlier in this patch.` } : readText(ops, p);
  const exists = async (p: string) => (await ops.stat(p)) !== null;
  try {
    for (const op of parsed) {
      const path = await ops.resolve(op.path);
      const guard = async (p: string) => {
        const d = (await writeCheck(s, p, ops)) ?? (await staleError(s, p, ops));
        if (d) throw new PatchError(d);
      };
      await guard(path);
      if (op.kind === 'add') {
        if ((await exists(path)) && !deletes.has(path)) throw new PatchError(`Add File ${op.path}: the file already exists. Use Update File to change it.`);
        writes.set(path, op.content);
        deletes.delete(path);
        before.set(path, '');
        created.push(path);
      } else if (op.kind === 'delete') {
        const t = await current(path);
        if (typeof t !== 'string') throw new PatchError(`Delete File ${op.path}: ${t.error}`);
        if (!before.has(path)) before.set(path, t);
        writes.delete(path);
        deletes.add(path);
      } else {
        const t = await current(path);
        if (typeof t !== 'string') throw new PatchError(`${op.kind === 'move' ? 'Move' : 'Update'} File ${op.path}: ${t.error}`);
        if (!before.has(path)) before.set(path, t);
        const next = op.kind === 'update' ? applyHunks(t, op.hunks, op.path) : t;
        const masked = maskedSecretError(t, next, path);
        if (masked) throw new PatchError(masked);
        const dest = op.kind === 'move' ? await ops.resolve(op.to) : op.moveTo ? await ops.resolve(op.moveTo) : path;
        if (dest !== path) {
          await guard(dest);
          if ((await exists(dest)) && !deletes.has(dest)) throw new PatchError(`Cannot move ${op.path} to ${dest}: the destination exists.`);
          deletes.add(path);
          writes.delete(path);
            writes.set(dest, next);
          deletes.delete(dest);
          before.set(dest, '');
          created.push(dest);
          movedFrom.set(dest, path);
        } else {
          writes.set(path, next);
        }
      }
    }
  } catch (e) {
    if (e instanceof PatchError) return fail(`${e.message} Nothing was changed.`, { success: false });
    throw e;
  }
  const guard = await writeGuard(s, ops);
  const done: string[] = [];
  try {
    for (const p of deletes) {
      if (await exists(p)) await ops.remove(p, guard);
      done.push(`deleted ${p}`);
    }
    for (const [p, text] of writes) {
      await writeText(ops, guard, p, text, movedFrom.get(p) ?? p);
      await recordSeen(s, p, ops);
      done.push(`wrote ${p}`);
    }
  } catch (e) {
    if (e instanceof WriteRefused) return fail(`${e.message}${done.length ? ` Already applied before that: ${done.join(', ')}.` : ' Nothing was changed.'}`, { success: false });
    throw e;
  }
  const diff = [...new Set([...writes.keys(), ...deletes])]
    .map((p) => unifiedDiff((before.get(p) ?? '').replace(/\r\n/g, '\n'), (writes.get(p) ?? '').replace(/\r\n/g, '\n'), p))
    .join('');
  const createdSet = new Set(created.filter((p) => writes.has(p)));
  const result: Record<string, unknown> = { success: true, diff: clip(diff) };
  const modifiedList = [...writes.keys()].filter((p) => !createdSet.has(p));
  const deletedList = [...deletes].filter((p) => !writes.has(p) && before.get(p) !== '');
  if (modifiedList.length) result.files_modified = modifiedList;
  if (createdSet.size) result.files_created = [...createdSet];
  if (deletedList.length) result.files_deleted = deletedList;
  return { content: ok(result), display: { diff } };
}

export async function runPatch(a: PatchArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
  const s = ctx;
  const ops = await ctx.files();
  const mode = a.mode ?? (a.patch && !a.path ? 'patch' : 'replace');
  return mode === 'patch' ? patchMode(s, ops, a.patch) : replaceMode(s, ops, a);
}
