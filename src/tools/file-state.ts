// The file-state guard: the agent may not overwrite a file that changed since it read it (someone
// else edited it; writing would lose their change). Reads and writes record what the agent saw.
import { homedir } from 'node:os';
import { redactSecrets } from '../policy/redact.ts';
import { writeDenied, writeDeniedRemote, type WriteContext } from '../policy/write-safety.ts';
import { defineSlot } from '../state/slots.ts';
import type { FileOps } from './env/files.ts';
import type { ToolSession } from './types.ts';

interface Seen {
  mtimeMs: number;
  size: number;
}

/** What the agent saw of each file it read or wrote (path, or backend + path for remote files). */
const seenSlot = defineSlot('file_reads', () => new Map<string, Seen>());

const key = (ops: FileOps, path: string) => (ops.remote ? `${ops.label}\u0000${path}` : path);

/** Records the file as the agent now knows it (after a read or its own write). */
export async function recordSeen(services: ToolSession, path: string, ops: FileOps): Promise<void> {
  const st = await ops.stat(path).catch(() => null);
  if (st) services.slots.get(seenSlot).set(key(ops, path), { mtimeMs: st.mtimeMs, size: st.size });
  else services.slots.get(seenSlot).delete(key(ops, path));
}

/** An error message when `path` changed on disk since the agent last read or wrote it. */
export async function staleError(services: ToolSession, path: string, ops: FileOps): Promise<string | null> {
  if (['1', 'true', 'yes'].includes((services.env.HERMES_DISABLE_FILE_STATE_GUARD ?? '').toLowerCase())) return null;
  const seen = services.slots.get(seenSlot).get(key(ops, path));
  if (!seen) return null;
  const st = await ops.stat(path).catch(() => null);
  if (!st) return null; // deleted since: writing recreates it
  if (st.mtimeMs === seen.mtimeMs && st.size === seen.size) return null;
  return `${path} was modified since you last read it (by the user or another program). Read it again with read_file before writing, so their changes are not lost.`;
}

/**
 * The deny-list context for the agent's writes: this machine's home, HERMES_HOME and
 * HERMES_WRITE_SAFE_ROOT; on a remote backend that machine's home and its ~/.hermes.
 */
export async function writeGuard(services: ToolSession, ops?: FileOps): Promise<WriteContext> {
  const safeRoot = services.env.HERMES_WRITE_SAFE_ROOT?.trim() || undefined;
  if (ops?.remote) {
    const home = (await ops.home()).replace(/\/$/, '') || '/';
    return { userHome: home, hermesHome: `${home}/.hermes`, safeRoot };
  }
  return { userHome: services.env.HOME || homedir(), hermesHome: services.home, safeRoot };
}

/**
 * Write-safety for the session: the denylist and HERMES_WRITE_SAFE_ROOT. On a remote backend the
 * same rules apply to that machine's home (its ~/.ssh, ~/.hermes, …). This is the early check with
 * a clear message; the write itself (FileOps.writeFile with the guard) checks again at the open.
 */
export async function writeCheck(services: ToolSession, path: string, ops?: FileOps): Promise<string | null> {
  const guard = await writeGuard(services, ops);
  if (ops?.remote) {
    // The same deny-list on the remote machine, with its links followed there.
    const [target, st] = await Promise.all([ops.realTarget(path), ops.stat(path).catch(() => null)]);
    return writeDeniedRemote(path, target, guard, { hardLinks: st?.links });
  }
  return writeDenied(path, guard);
}

/**
 * The agent only ever sees secrets in redacted form. Writing a redacted mask back over the file that
 * held the real secret would destroy it: refuse when `next` contains a mask that stands for a secret
 * of `existing` (and that mask is not literally in the file).
 */
export function maskedSecretError(existing: string | null, next: string, path: string): string | null {
  // Every mask contains one of these; without them there is nothing to check (and no cost).
  if (!existing || !/\.\.\.|\*\*\*|\[REDACTED\]/.test(next)) return null;
  const redacted = redactSecrets(existing);
  if (redacted === existing) return null;
  // Lines whose redacted form differs from the original carry a secret; seeing one of those
  // redacted lines in the new content means a mask is about to replace the secret.
  const before = existing.split('\n');
  const after = redacted.split('\n');
  const nextLines = new Set(next.split('\n').map((l) => l.trim()));
  for (let i = 0; i < after.length; i++) {
    const line = after[i].trim();
    if (line && line !== before[i]?.trim() && nextLines.has(line))
      return `The new content of ${path} contains "${line.slice(0, 120)}", the redacted form of a secret in that file (you only see secrets masked). Writing it would destroy the real value: use patch to change only the other lines.`;
  }
  return null;
}
