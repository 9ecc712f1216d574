// Small JSON maps in HERMES_HOME that remember cloud sandboxes between sessions (task → snapshot id),
// in Hermes's files: vercel_sandbox_snapshots.json, modal_snapshots.json, singularity_snapshots.json.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../state/fsutil.ts';

export function readJsonStore(path: string): Record<string, unknown> {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function writeJsonStore(path: string, data: Record<string, unknown>): void {
  writeFileAtomic(path, `${JSON.stringify(data, null, 2)}\n`, 0o600);
}
