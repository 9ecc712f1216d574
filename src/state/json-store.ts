// Small JSON files in HERMES_HOME read as objects (absent or broken: empty) and written atomically,
// 0600: sandbox snapshot maps (vercel_sandbox_snapshots.json, …), memory-provider settings (mem0.json, …).
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from './fsutil.ts';

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
