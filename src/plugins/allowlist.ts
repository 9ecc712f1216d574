// The shell-hook consent file, HERMES_HOME/shell-hooks-allowlist.json, in Hermes's format:
// {"approvals": [{"event", "command", "approved_at", "script_mtime_at_approval"}]}. An entry approves
// one exact (event, command) pair; editing the script does not revoke it (`hermes hooks doctor`
// reports the mtime drift). Read-modify-write goes under a lock file beside it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from '../state/filelock.ts';
import { writeFileAtomic } from '../state/fsutil.ts';
import { expandHome } from '../state/paths.ts';
import { splitArgs } from '../policy/split-args.ts';

export const ALLOWLIST_FILE = 'shell-hooks-allowlist.json';

export interface Approval {
  event: string;
  command: string;
  approved_at?: string;
  script_mtime_at_approval?: string | null;
  [k: string]: unknown;
}

export interface Allowlist {
  approvals: Approval[];
  [k: string]: unknown;
}

export const allowlistPath = (home: string) => join(home, ALLOWLIST_FILE);

/** The parsed file, or an empty one when it is missing or unreadable. */
export function loadAllowlist(home: string): Allowlist {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(allowlistPath(home), 'utf8').replace(/^\uFEFF/, ''));
  } catch {
    raw = null;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { approvals: [] };
  const a = raw as Allowlist;
  if (!Array.isArray(a.approvals)) a.approvals = [];
  return a;
}

const matches = (e: unknown, event: string | null, command: string) =>
  !!e && typeof e === 'object' && (event === null || (e as Approval).event === event) && (e as Approval).command === command;

export function allowlistEntry(home: string, event: string, command: string): Approval | undefined {
  return loadAllowlist(home).approvals.find((e) => matches(e, event, command));
}

function update(home: string, fn: (a: Allowlist) => void): void {
  const path = allowlistPath(home);
  withFileLock(`${path}.lock`, () => {
    const data = loadAllowlist(home);
    fn(data);
    writeFileAtomic(path, `${JSON.stringify(sortKeys(data), null, 2)}\n`, 0o600);
  });
}

/** Records consent for (event, command), replacing an older entry for the same pair. */
export function recordApproval(home: string, event: string, command: string, now = new Date()): void {
  const entry: Approval = { event, command, approved_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), script_mtime_at_approval: scriptMtimeIso(command) };
  update(home, (a) => {
    a.approvals = [...a.approvals.filter((e) => !matches(e, event, command)), entry];
  });
}

/** Removes every entry for `command` (any event). Returns how many went. */
export function revokeCommand(home: string, command: string): number {
  if (!existsSync(allowlistPath(home))) return 0;
  let removed = 0;
  update(home, (a) => {
    const before = a.approvals.length;
    a.approvals = a.approvals.filter((e) => !matches(e, null, command));
    removed = before - a.approvals.length;
  });
  return removed;
}

const SCRIPT_EXT = ['.sh', '.bash', '.zsh', '.fish', '.py', '.pyw', '.rb', '.pl', '.lua', '.js', '.mjs', '.cjs', '.ts'];

/** The script a command runs: the first word with a script extension, else the first path-like word. */
export function commandScript(command: string): string {
  const words = splitArgs(command);
  if (!words.length) return command;
  return words.find((w) => SCRIPT_EXT.some((x) => w.toLowerCase().endsWith(x))) ?? words.find((w) => w.includes('/') || w.startsWith('~')) ?? words[0];
}

/** The script's modification time (ISO 8601, UTC), or null when it is not a file here. */
export function scriptMtimeIso(command: string): string | null {
  try {
    return statSync(expandHome(commandScript(command))).mtime.toISOString().replace(/\.\d{3}Z$/, 'Z');
  } catch {
    return null;
  }
}

function sortKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortKeys) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])])) as T;
  return v;
}
