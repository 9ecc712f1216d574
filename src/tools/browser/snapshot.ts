// Page snapshots for the model: Playwright's accessibility tree in "ai" mode (elements carry
// `[ref=eN]`, which browser_click/browser_type take as `@eN`), compacted by default, and cut at
// `browser.snapshot_threshold` characters with the full text saved where read_file can page it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../../policy/redact.ts';

/** Structural wrappers without a name or text of their own: dropped, their children lifted. */
const WRAPPER = /^- (?:generic|group|none|presentation)(?: \[ref=[\w-]+\])?:$/;
const MAX_STORED = 2_000_000;

/**
 * The compact view: unnamed wrappers collapsed, link URLs and pointer/active markers dropped. Refs,
 * names, roles, states and text stay.
 */
export function compactSnapshot(full: string): string {
  const out: string[] = [];
  // Indents of the wrappers being lifted; children deeper than one of them move up two spaces each.
  const lifted: number[] = [];
  for (const raw of full.split('\n')) {
    if (!raw.trim()) continue;
    const indent = raw.length - raw.trimStart().length;
    while (lifted.length && indent <= lifted[lifted.length - 1]) lifted.pop();
    const body = raw.trimStart().replace(/ \[cursor=pointer\]/g, '').replace(/ \[active\]/g, '');
    if (/^- \/url:/.test(body)) continue;
    if (WRAPPER.test(body)) {
      lifted.push(indent);
      continue;
    }
    const depth = Math.max(0, indent - 2 * lifted.length);
    out.push(`${' '.repeat(depth)}${body}`);
  }
  // A node whose children were all dropped loses its trailing colon.
  const ind = (l: string) => l.length - l.trimStart().length;
  return out.map((l, i) => (l.endsWith(':') && !(i + 1 < out.length && ind(out[i + 1]) > ind(l)) ? l.slice(0, -1) : l)).join('\n');
}

export function countRefs(snapshot: string): number {
  return (snapshot.match(/\[ref=[\w-]+\]/g) ?? []).length;
}

/** HERMES_HOME/<legacy> when it exists (older Hermes homes), else HERMES_HOME/<modern>. */
export function hermesDir(home: string, modern: string, legacy: string): string {
  const old = join(home, legacy);
  const dir = existsSync(old) ? old : join(home, modern);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Saves the full (redacted) snapshot under cache/web; returns its path, or null. */
export function storeSnapshot(home: string, text: string): string | null {
  try {
    let content = redactSecrets(text);
    if (content.length > MAX_STORED) content = `${content.slice(0, MAX_STORED)}\n\n[... stored copy truncated at ${MAX_STORED.toLocaleString('en-US')} chars ...]`;
    const dir = hermesDir(home, 'cache/web', 'web_cache');
    const path = join(dir, `browser-snapshot-${createHash('sha256').update(content).digest('hex').slice(0, 10)}.txt`);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  } catch {
    return null;
  }
}

/** Cuts at line boundaries below `max` characters, pointing at the stored full text. */
export function truncateSnapshot(text: string, max: number, home: string): string {
  if (text.length <= max) return text;
  const stored = storeSnapshot(home, text);
  const lines = text.split('\n');
  const kept: string[] = [];
  let chars = 0;
  const reserve = Math.min(110 + (stored?.length ?? 0), Math.floor(max / 2));
  for (const line of lines) {
    if (chars + line.length + 1 > max - reserve) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const rest = lines.length - kept.length;
  kept.push(
    stored
      ? `\n[... ${rest} more lines truncated — full snapshot: read_file path="${stored}" offset=${kept.length + 1} limit=200]`
      : `\n[... ${rest} more lines truncated, use browser_snapshot with full=true for the rest]`,
  );
  return kept.join('\n');
}
