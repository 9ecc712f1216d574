// Built-in memory: HERMES_HOME/memories/MEMORY.md (the agent's notes) and USER.md (what it knows about
// its user). Entries are separated by a line holding only `§`; each store has a character limit.
// Writes land on disk at once (under a cross-process lock); the system prompt gets a snapshot frozen
// at session start, so the provider's prompt cache stays warm for the whole session.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from './filelock.ts';
import { writeFileAtomic } from './fsutil.ts';
import { firstThreatMessage, scanForThreats, MAX_SCAN_CHARS } from './threats.ts';

export const ENTRY_DELIMITER = '\n§\n';
export type MemoryTarget = 'memory' | 'user';

export const DEFAULT_LIMITS: Record<MemoryTarget, number> = { memory: 2200, user: 1375 };

export const FILES: Record<MemoryTarget, string> = { memory: 'MEMORY.md', user: 'USER.md' };

const HEADERS: Record<MemoryTarget, string> = {
  memory: 'MEMORY (your personal notes)',
  user: 'USER PROFILE (what you know about the user)',
};

export interface MemoryOp {
  action: 'add' | 'replace' | 'remove' | string;
  content?: string;
  old_text?: string;
}

export interface MemoryResult {
  success: boolean;
  [key: string]: unknown;
}

const n = (x: number) => x.toLocaleString('en-US');

/** Splits a memory file into entries: separated by lines holding only `§`. */
export function parseEntries(text: string): string[] {
  const out: string[] = [];
  for (const part of text.replace(/\r\n/g, '\n').split(/^[ \t]*\u00a7[ \t]*$/m)) {
    const e = part.trim();
    if (e && !out.includes(e)) out.push(e);
  }
  return out;
}

export function joinEntries(entries: string[]): string {
  return entries.join(ENTRY_DELIMITER);
}

export class MemoryStore {
  readonly dir: string;
  readonly limits: Record<MemoryTarget, number>;

  constructor(dir: string, limits: Partial<Record<MemoryTarget, number>> = {}) {
    this.dir = dir;
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  path(target: MemoryTarget): string {
    return join(this.dir, FILES[target]);
  }

  /** Live entries, read from disk. */
  entries(target: MemoryTarget): string[] {
    const p = this.path(target);
    if (!existsSync(p)) return [];
    return parseEntries(readFileSync(p, 'utf8'));
  }

  chars(target: MemoryTarget, entries = this.entries(target)): number {
    return entries.length ? joinEntries(entries).length : 0;
  }

  usage(target: MemoryTarget, entries = this.entries(target)): { chars: number; limit: number; pct: number } {
    const chars = this.chars(target, entries);
    const limit = this.limits[target];
    return { chars, limit, pct: limit > 0 ? Math.min(100, Math.floor((chars / limit) * 100)) : 0 };
  }

  private mutate(target: MemoryTarget, fn: (entries: string[]) => MemoryResult | { entries: string[]; message: string }): MemoryResult {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return withFileLock(`${this.path(target)}.lock`, () => {
      const r = fn(this.entries(target));
      if ('success' in r) return r;
      writeFileAtomic(this.path(target), r.entries.length ? `${joinEntries(r.entries)}\n` : '', 0o600);
      return this.ok(target, r.entries, r.message);
    });
  }

  private ok(target: MemoryTarget, entries: string[], message: string): MemoryResult {
    const u = this.usage(target, entries);
    return {
      success: true,
      target,
      message,
      usage: `${u.pct}% — ${n(u.chars)}/${n(u.limit)} chars`,
      entry_count: entries.length,
      note: 'Saved. It will be in your memory from the next session on; do not repeat this write.',
    };
  }

  private overLimit(target: MemoryTarget, entries: string[], message: string): MemoryResult {
    const u = this.usage(target, entries);
    return {
      success: false,
      error: message,
      current_entries: this.displayEntries(entries),
      usage: `${n(u.chars)}/${n(u.limit)}`,
    };
  }

  /** The new entries (duplicates dropped) when they fit the limit, else the over-limit error. */
  private fit(target: MemoryTarget, entries: string[], next: string[], message: string, tooBig: (total: string) => string): MemoryResult | { entries: string[]; message: string } {
    const deduped = next.filter((e, i) => next.indexOf(e) === i);
    const total = this.chars(target, deduped);
    if (total > this.limits[target]) return this.overLimit(target, entries, tooBig(`${n(total)}/${n(this.limits[target])} characters`));
    return { entries: deduped, message };
  }

  /** Entries as shown back to the model: anything that fails the scan is replaced by a marker. */
  private displayEntries(entries: string[]): string[] {
    return sanitizeForPrompt(entries, 'entry');
  }

  add(target: MemoryTarget, content: string): MemoryResult {
    const text = content.trim();
    if (!text) return { success: false, error: 'Content is empty: give the fact to remember.' };
    const threat = firstThreatMessage(text, 'memory');
    if (threat) return { success: false, error: threat };
    return this.mutate(target, (entries) => {
      if (entries.includes(text)) return this.ok(target, entries, 'That entry already exists (nothing added).');
      const next = [...entries, text];
      const total = this.chars(target, next);
      const limit = this.limits[target];
      if (total > limit)
        return this.overLimit(
          target,
          entries,
          `${FILES[target]} is at ${n(this.chars(target, entries))}/${n(limit)} characters; adding this entry (${n(text.length)}) would exceed the limit. ` +
            'Make room first: merge related entries with `replace` or drop stale ones with `remove` (current_entries lists them), then add again.',
        );
      return { entries: next, message: 'Entry added.' };
    });
  }

  replace(target: MemoryTarget, oldText: string, content: string): MemoryResult {
    const old = oldText.trim();
    const text = content.trim();
    if (!old) return { success: false, error: '`old_text` is empty: give a unique piece of the entry to replace.' };
    if (!text) return { success: false, error: 'The new content is empty. To delete an entry use action "remove".' };
    const threat = firstThreatMessage(text, 'memory');
    if (threat) return { success: false, error: threat };
    return this.mutate(target, (entries) => {
      const idx = this.find(entries, old);
      if (typeof idx !== 'number') return idx;
      const next = [...entries];
      next[idx] = text;
      return this.fit(target, entries, next, 'Entry replaced.', (total) => `The replacement would put ${FILES[target]} at ${total}. Shorten it or remove other entries first.`);
    });
  }

  remove(target: MemoryTarget, oldText: string): MemoryResult {
    const old = oldText.trim();
    if (!old) return { success: false, error: '`old_text` is empty: give a unique piece of the entry to remove.' };
    return this.mutate(target, (entries) => {
      const idx = this.find(entries, old);
      if (typeof idx !== 'number') return idx;
      return { entries: entries.filter((_, i) => i !== idx), message: 'Entry removed.' };
    });
  }

  /**
   * Several add/replace/remove operations on one store, all or nothing: each is applied in order to
   * a working copy, and the limit is checked on the final result only (so one call can free room and
   * add). The first invalid operation aborts the batch and nothing is written.
   */
  applyBatch(target: MemoryTarget, ops: MemoryOp[]): MemoryResult {
    if (!ops.length) return { success: false, error: '`operations` is empty: give at least one {action, content?, old_text?}.' };
    for (const [i, op] of ops.entries()) {
      if ((op.action === 'add' || op.action === 'replace') && op.content?.trim()) {
        const threat = firstThreatMessage(op.content.trim(), 'memory');
        if (threat) return { success: false, error: `Operation ${i + 1}: ${threat}` };
      }
    }
    return this.mutate(target, (entries) => {
      const work = [...entries];
      const abort = (msg: string): MemoryResult => this.overLimit(target, entries, `${msg} Nothing was changed: a batch applies all of its operations or none.`);
      for (const [i, op] of ops.entries()) {
        const pos = `Operation ${i + 1} (${op.action})`;
        const content = (op.content ?? '').trim();
        const old = (op.old_text ?? '').trim();
        if (op.action === 'add') {
          if (!content) return abort(`${pos}: \`content\` is empty.`);
          if (!work.includes(content)) work.push(content);
          continue;
        }
        if (op.action !== 'replace' && op.action !== 'remove') return abort(`${pos}: unknown action; use add, replace or remove.`);
        if (!old) return abort(`${pos}: \`old_text\` is empty: give a unique piece of the entry.`);
        if (op.action === 'replace' && !content) return abort(`${pos}: \`content\` is empty (use remove to delete an entry).`);
        const idx = this.find(work, old);
        if (typeof idx !== 'number') return abort(`${pos}: ${String(idx.error)}`);
        if (op.action === 'replace') work[idx] = content;
        else work.splice(idx, 1);
      }
      return this.fit(
        target,
        entries,
        work,
        `Applied ${ops.length} operation(s).`,
        (total) => `After all ${ops.length} operations ${FILES[target]} would hold ${total}. Remove or shorten more entries in the same batch, then try again. Nothing was changed.`,
      );
    });
  }

  /** Index of the one entry containing `old` (an exact whole-entry match wins), or an error result. */
  private find(entries: string[], old: string): number | MemoryResult {
    const exact = entries.indexOf(old);
    if (exact >= 0) return exact;
    const matches = entries.map((e, i) => (e.includes(old) ? i : -1)).filter((i) => i >= 0);
    if (!matches.length)
      return { success: false, error: `No entry contains "${old}". Use a piece of text copied from one entry.`, current_entries: this.displayEntries(entries) };
    if (matches.length > 1)
      return {
        success: false,
        error: `"${old}" matches ${matches.length} entries; use a longer piece of text that only one of them contains.`,
        matches: matches.map((i) => entries[i].slice(0, 80) + (entries[i].length > 80 ? '…' : '')),
      };
    return matches[0];
  }

  /** The prompt block for a store (header with usage, entries), or '' when empty. */
  renderBlock(target: MemoryTarget, entries = this.entries(target)): string {
    if (!entries.length) return '';
    const safe = sanitizeForPrompt(entries, FILES[target]);
    const body = joinEntries(safe);
    const u = this.usage(target, entries);
    const rule = '═'.repeat(46);
    return `${rule}\n${HEADERS[target]} [${u.pct}% — ${n(u.chars)}/${n(u.limit)} chars]\n${rule}\n${body}`;
  }

  /** Both blocks, as frozen into a session's system prompt. */
  snapshot(enabled: { memory?: boolean; user?: boolean } = {}): { memory?: string; user?: string } {
    const out: { memory?: string; user?: string } = {};
    if (enabled.memory !== false) out.memory = this.renderBlock('memory') || undefined;
    if (enabled.user !== false) out.user = this.renderBlock('user') || undefined;
    return out;
  }
}

/** Entries that fail the scan are replaced by a [BLOCKED: …] marker (the file keeps the original). */
export function sanitizeForPrompt(entries: string[], label: string): string[] {
  return entries.map((e) => {
    if (e.startsWith('[BLOCKED:')) return e;
    if (e.length > MAX_SCAN_CHARS) return `[BLOCKED: ${label} entry too large to scan. Not shown; remove it with the memory tool.]`;
    const f = scanForThreats(e, 'memory');
    return f.length ? `[BLOCKED: ${label} entry matched ${f.map((x) => x.id).join(', ')}. Not shown; remove it with the memory tool.]` : e;
  });
}
