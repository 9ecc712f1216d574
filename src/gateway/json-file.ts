// Small JSON files in HERMES_HOME that the gateway and the CLI share: read tolerantly, written
// atomically (temp file + rename) with the mode the caller asks for.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readCachedByStamp, writeFileAtomic } from '../state/fsutil.ts';

/** A JSON object from `path`; {} when missing, unreadable, malformed or not an object. */
export function readJsonObject<T extends Record<string, unknown> = Record<string, unknown>>(path: string): T {
  if (!existsSync(path)) return {} as T;
  try {
    return jsonObject(readFileSync(path, 'utf8')) as T;
  } catch {
    return {} as T;
  }
}

/** The JSON object in `text` (a leading BOM allowed); {} when missing, malformed or not an object. */
function jsonObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const v = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    return (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * readJsonObject for a file read on every message (the pairing approvals): parsed again only when
 * it changed (another process, e.g. `hermes pairing approve`, replaces it). The object is shared:
 * read it, do not change it.
 */
export function readJsonObjectCached<T extends Record<string, unknown> = Record<string, unknown>>(path: string): Readonly<T> {
  return readCachedByStamp(path, jsonObject) as T;
}

export function writeJson(path: string, value: unknown, mode = 0o600): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', mode);
}

/**
 * writeJson off the event loop: the temp file is written and fsynced on libuv's threads (an fsync
 * can take long on a busy disk), then renamed in place here — unless `stale()` says a newer write
 * happened meanwhile, which then stands. False when the file was not replaced.
 */
export async function writeJsonInBackground(path: string, value: unknown, mode: number, stale: () => boolean): Promise<boolean> {
  const tmp = await writeTempInBackground(path, JSON.stringify(value, null, 2) + '\n', mode);
  // Synchronous, so no other write of this file can land between the check and the rename.
  if (stale()) {
    await rm(tmp, { force: true });
    return false;
  }
  renameSync(tmp, path);
  return true;
}

/**
 * Writes `data` to a temp file next to `path` and fsyncs it, on libuv's threads; resolves with the
 * temp file's path, for the caller to rename in place (or remove). Nothing is left behind on failure.
 */
export async function writeTempInBackground(path: string, data: string, mode: number): Promise<string> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'w', mode);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return tmp;
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}
