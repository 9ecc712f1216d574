// The autocomplete menu for slash commands: command names (and aliases) by prefix, then a command's
// own argument completions. Whatever the registry holds shows up, skills and quick commands included.

import type { CommandContext, CommandRegistry, Surface } from '../../commands/registry.ts';
import type { Style } from './style.ts';
import { stringWidth, truncateAnsi } from './width.ts';

export interface CompletionItem {
  /** The text that replaces the input from `from` on. */
  value: string;
  label: string;
  hint: string;
}

export interface Completions {
  items: CompletionItem[];
  /** Offset in the input where the completed token starts. */
  from: number;
  /** Choices of a picker (a command's own `complete()`): Enter takes the highlighted one. */
  pick?: boolean;
}

export const MAX_MENU_ROWS = 8;

/**
 * Completions for the input `text` with the cursor at its end, or null when there are none. With a
 * command context, a command's own `complete()` (e.g. /model's served models) is asked too.
 */
export function slashCompletions(registry: CommandRegistry, surface: Surface, text: string, ctx?: CommandContext): Completions | null {
  if (!text.startsWith('/') || text.includes('\n')) return null;
  const space = text.indexOf(' ');
  if (space < 0) {
    const prefix = text.slice(1).toLowerCase();
    const defs = registry.complete(prefix, surface);
    if (!defs.length) return null;
    // Exact names first, then names by prefix, then alias matches.
    const score = (name: string) => (name === prefix ? 0 : name.startsWith(prefix) ? 1 : 2);
    const items = defs
      .map((d) => ({ d, s: score(d.name) }))
      .sort((a, b) => a.s - b.s)
      .map(({ d }) => {
        const alias = !d.name.startsWith(prefix) ? d.aliases?.find((a) => a.startsWith(prefix)) : undefined;
        return {
          value: `/${d.name}${d.args ? ' ' : ''}`,
          label: `/${d.name}${d.args ? ` ${d.args}` : ''}`,
          hint: alias ? `(/${alias}) ${d.description}` : d.description,
        };
      });
    if (items.length === 1 && items[0].value.trim() === text) return null;
    return { items, from: 0 };
  }
  const r = registry.resolve(text.slice(0, space), surface);
  if ('error' in r) return null;
  const rest = text.slice(space + 1);
  if (rest.includes(' ')) return null;
  const dynamic = ctx && r.def.complete ? r.def.complete(ctx, rest) : null;
  if (dynamic) {
    const items = dynamic.filter((c) => c.value !== rest).map((c) => ({ value: c.value, label: c.value, hint: c.hint ?? '' }));
    return items.length ? { items, from: space + 1, pick: true } : null;
  }
  if (!r.def.completions?.length) return null;
  const items = r.def.completions
    .filter((c) => c.startsWith(rest.toLowerCase()) && c !== rest)
    .map((c) => ({ value: c, label: c, hint: '' }));
  return items.length ? { items, from: space + 1 } : null;
}

/**
 * The menu as lines: at most `maxItems` items around the highlighted one (inverse), hints dim, and a
 * position line when there are more.
 */
export function menuLines(m: Completions & { selected: number }, s: Style, width: number, maxItems = MAX_MENU_ROWS): string[] {
  const n = m.items.length;
  const rows = Math.max(1, Math.min(maxItems, n));
  const start = Math.max(0, Math.min(m.selected - Math.floor(rows / 2), n - rows));
  const visible = m.items.slice(start, start + rows);
  const labelW = Math.min(32, Math.max(...visible.map((i) => stringWidth(i.label))));
  const out = visible.map((it, k) => {
    const label = it.label + ' '.repeat(Math.max(0, labelW - stringWidth(it.label)));
    const line = `  ${start + k === m.selected ? s.inverse(` ${label} `) : ` ${label} `}  ${s.dim(it.hint)}`;
    return truncateAnsi(line, width);
  });
  if (n > rows) out.push(s.dim(`   ${m.selected + 1}/${n} · ↑↓ move · Tab accept · Esc close`));
  return out;
}
