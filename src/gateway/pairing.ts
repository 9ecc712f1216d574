// DM pairing, as Hermes does it: a stranger who messages the bot gets a one-time code; the owner
// approves it with `hermes pairing approve <platform> <code>`. 8 characters from a 32-character
// alphabet without 0/O/1/I, 1 hour expiry, one request per user per 10 minutes, at most 3 pending
// per platform, 1 hour lockout after 5 failed approvals. Only a salted hash of each code is
// stored; files are 0600; codes are never logged.
//
// HERMES_HOME/pairing/{platform}-pending.json   entry id → {hash, salt, user_id, user_name, created_at}
// HERMES_HOME/pairing/{platform}-approved.json  user id → {user_name, approved_at}
// HERMES_HOME/pairing/_rate_limits.json         "{platform}:{user}" → ts, "_failures:{p}", "_lockout:{p}"
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonObject, readJsonObjectCached, writeJson } from './json-file.ts';

export const PAIRING_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;
export const CODE_TTL_S = 3600;
export const RATE_LIMIT_S = 600;
export const LOCKOUT_S = 3600;
export const MAX_PENDING_PER_PLATFORM = 3;
export const MAX_FAILED_ATTEMPTS = 5;

interface PendingEntry {
  hash: string;
  salt: string;
  user_id: string;
  user_name: string;
  created_at: number;
}

interface ApprovedEntry {
  user_name: string;
  approved_at: number;
}

const idLists = new WeakMap<object, string[]>();

export type CodeRefusal = 'rate_limited' | 'too_many_pending' | 'locked_out';

export class PairingStore {
  readonly dir: string;
  private readonly now: () => number;

  constructor(home: string, opts: { now?: () => number } = {}) {
    this.dir = join(home, 'pairing');
    this.now = opts.now ?? (() => Date.now() / 1000);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    try {
      chmodSync(this.dir, 0o700);
    } catch {
      /* not ours to fix */
    }
  }

  private pendingPath(p: string) {
    return join(this.dir, `${safe(p)}-pending.json`);
  }
  private approvedPath(p: string) {
    return join(this.dir, `${safe(p)}-approved.json`);
  }
  private get limitsPath() {
    return join(this.dir, '_rate_limits.json');
  }

  private pending(p: string): Record<string, PendingEntry> {
    const all = readJsonObject<Record<string, PendingEntry>>(this.pendingPath(p));
    const now = this.now();
    const live: Record<string, PendingEntry> = {};
    let dropped = false;
    for (const [k, v] of Object.entries(all)) {
      if (v && typeof v.created_at === 'number' && now - v.created_at <= CODE_TTL_S) live[k] = v;
      else dropped = true;
    }
    if (dropped) writeJson(this.pendingPath(p), live);
    return live;
  }

  private limits(): Record<string, number> {
    return readJsonObject<Record<string, number>>(this.limitsPath);
  }

  isApproved(platform: string, userId: string): boolean {
    if (!userId) return false;
    // (Asked for every message: the file is parsed again only when it changed.)
    return Object.hasOwn(readJsonObjectCached(this.approvedPath(platform)), String(userId));
  }

  /** The approved user ids of `platform` (the same array until the file changes). */
  approvedIds(platform: string): readonly string[] {
    const approved = readJsonObjectCached(this.approvedPath(platform));
    let ids = idLists.get(approved);
    if (!ids) {
      ids = Object.keys(approved);
      idLists.set(approved, ids);
    }
    return ids;
  }

  listApproved(platform?: string): { platform: string; user_id: string; user_name: string; approved_at: number }[] {
    return this.platforms(platform, 'approved').flatMap((p) =>
      Object.entries(readJsonObject<Record<string, ApprovedEntry>>(this.approvedPath(p))).map(([uid, v]) => ({ platform: p, user_id: uid, user_name: v?.user_name ?? '', approved_at: v?.approved_at ?? 0 })),
    );
  }

  listPending(platform?: string): { platform: string; request_id: string; user_id: string; user_name: string; age_minutes: number }[] {
    const now = this.now();
    return this.platforms(platform, 'pending').flatMap((p) =>
      Object.entries(this.pending(p)).map(([id, v]) => ({ platform: p, request_id: id, user_id: v.user_id, user_name: v.user_name, age_minutes: Math.floor((now - v.created_at) / 60) })),
    );
  }

  /** A new code for `userId`, or why none is issued. The code is returned once and never stored. */
  generateCode(platform: string, userId: string, userName = ''): { code: string } | { refused: CodeRefusal } {
    if (this.isLockedOut(platform)) return { refused: 'locked_out' };
    const limits = this.limits();
    const now = this.now();
    if (now - (limits[`${platform}:${userId}`] ?? 0) < RATE_LIMIT_S) return { refused: 'rate_limited' };
    const pending = this.pending(platform);
    if (Object.keys(pending).length >= MAX_PENDING_PER_PLATFORM) return { refused: 'too_many_pending' };
    let code = '';
    for (let i = 0; i < CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
    const salt = randomBytes(16);
    pending[randomBytes(8).toString('hex')] = { hash: hashCode(code, salt), salt: salt.toString('hex'), user_id: String(userId), user_name: userName, created_at: now };
    writeJson(this.pendingPath(platform), pending);
    limits[`${platform}:${userId}`] = now;
    writeJson(this.limitsPath, limits);
    return { code };
  }

  /**
   * Approves the user behind `code`. A wrong code counts as a failed attempt; the fifth in a row
   * locks approvals for the platform for an hour (a valid code does not bypass the lockout).
   */
  approveCode(platform: string, code: string): { user_id: string; user_name: string } | { error: 'invalid' | 'locked_out' } {
    if (this.isLockedOut(platform)) return { error: 'locked_out' };
    const wanted = code.trim().toUpperCase();
    const pending = this.pending(platform);
    for (const [id, e] of Object.entries(pending)) {
      let salt: Buffer;
      try {
        salt = Buffer.from(e.salt, 'hex');
      } catch {
        continue;
      }
      const a = Buffer.from(hashCode(wanted, salt), 'hex');
      const b = Buffer.from(String(e.hash), 'hex');
      if (a.length === b.length && timingSafeEqual(a, b)) {
        delete pending[id];
        writeJson(this.pendingPath(platform), pending);
        const limits = this.limits();
        if (limits[`_failures:${platform}`]) {
          limits[`_failures:${platform}`] = 0;
          writeJson(this.limitsPath, limits);
        }
        this.approve(platform, e.user_id, e.user_name);
        return { user_id: e.user_id, user_name: e.user_name };
      }
    }
    const limits = this.limits();
    const fails = (limits[`_failures:${platform}`] ?? 0) + 1;
    limits[`_failures:${platform}`] = fails;
    if (fails >= MAX_FAILED_ATTEMPTS) {
      limits[`_lockout:${platform}`] = this.now() + LOCKOUT_S;
      limits[`_failures:${platform}`] = 0;
    }
    writeJson(this.limitsPath, limits);
    return { error: fails >= MAX_FAILED_ATTEMPTS ? 'locked_out' : 'invalid' };
  }

  approve(platform: string, userId: string, userName = ''): void {
    const approved = readJsonObject<Record<string, ApprovedEntry>>(this.approvedPath(platform));
    approved[String(userId)] = { user_name: userName, approved_at: this.now() };
    writeJson(this.approvedPath(platform), approved);
  }

  revoke(platform: string, userId: string): boolean {
    const approved = readJsonObject<Record<string, ApprovedEntry>>(this.approvedPath(platform));
    if (!Object.hasOwn(approved, userId)) return false;
    delete approved[userId];
    writeJson(this.approvedPath(platform), approved);
    return true;
  }

  clearPending(platform?: string): number {
    let n = 0;
    for (const p of this.platforms(platform, 'pending')) {
      n += Object.keys(readJsonObject(this.pendingPath(p))).length;
      writeJson(this.pendingPath(p), {});
    }
    return n;
  }

  isLockedOut(platform: string): boolean {
    return this.now() < (this.limits()[`_lockout:${platform}`] ?? 0);
  }

  private platforms(platform: string | undefined, suffix: 'pending' | 'approved'): string[] {
    if (platform) return [platform];
    if (!existsSync(this.dir)) return [];
    const tail = `-${suffix}.json`;
    return readdirSync(this.dir)
      .filter((f) => f.endsWith(tail) && !f.startsWith('_'))
      .map((f) => f.slice(0, -tail.length))
      .sort();
  }
}

function hashCode(code: string, salt: Buffer): string {
  return createHash('sha256').update(salt).update(code, 'utf8').digest('hex');
}

function safe(platform: string): string {
  const p = platform.toLowerCase().trim();
  if (!/^[a-z0-9_-]+$/.test(p)) throw new Error(`"${platform}" is not a platform name.`);
  return p;
}
