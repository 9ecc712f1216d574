// Small JSON files in HERMES_HOME that the gateway and the CLI share: read tolerantly, written
// atomically (temp file + rename) with the mode the caller asks for.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../state/fsutil.ts';

/** A JSON object from `path`; {} when missing, unreadable, malformed or not an object. */
export function readJsonObject<T extends Record<string, unknown> = Record<string, unknown>>(path: string): T {
  if (!existsSync(path)) return {} as T;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as unknown;
    return (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as T;
  } catch {
    return {} as T;
  }
}

export function writeJson(path: string, value: unknown, mode = 0o600): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', mode);
}
