// The session picker (/resume without an id, or Ctrl+X): saved sessions newest first from state.db;
// typing searches titles, ids and first messages, and the messages themselves (full-text search,
// best hits first, with the matching words shown).

import type { SearchHit, SessionDB, SessionListItem } from '../../state/db.ts';
import { ListState, type PickItem } from './list.ts';

const when = (t: number) => {
  const d = new Date(t * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
};

function item(s: SessionListItem, currentId: string): PickItem {
  return {
    key: s.id,
    label: s.title ?? (s.preview ? `“${s.preview}”` : '(empty)'),
    hint: `${when(s.last_active)} · ${s.message_count} msg${s.message_count === 1 ? '' : 's'} · ${s.source} · ${s.id}`,
    detail: s.title && s.preview ? `“${s.preview}”` : undefined,
    current: s.id === currentId,
  };
}

function hitItem(h: SearchHit, currentId: string): PickItem {
  return {
    key: h.session_id,
    label: h.title ?? h.session_id,
    hint: `${when(h.timestamp)} · ${h.source} · ${h.session_id}`,
    detail: `${h.role}: ${h.snippet.replace(/\s+/g, ' ').replace(/>>>|<<</g, '')}`,
    current: h.session_id === currentId,
  };
}

export class SessionPicker {
  readonly kind = 'sessions';
  readonly title = 'Resume a session';
  readonly help = 'type to search titles and messages · ↑↓ move · Enter resume · Esc close';
  readonly list = new ListState();
  error = '';
  private readonly db: SessionDB;
  private readonly currentId: string;
  private all: SessionListItem[] = [];

  constructor(db: SessionDB, currentId: string) {
    this.db = db;
    this.currentId = currentId;
    try {
      this.all = db.listSessions({ limit: 500 });
    } catch (e) {
      this.error = `Could not read the sessions: ${(e as Error).message}`;
    }
    this.refresh();
  }

  /** Filters for the typed query: matching titles, ids and first messages, then message hits. */
  refresh(): void {
    const q = this.list.query.text.trim();
    if (!q) {
      this.list.setItems(this.all.map((s) => item(s, this.currentId)));
      return;
    }
    const lower = q.toLowerCase();
    const direct = this.all.filter((s) => s.id.toLowerCase().includes(lower) || (s.title ?? '').toLowerCase().includes(lower) || s.preview.toLowerCase().includes(lower));
    const seen = new Set(direct.map((s) => s.id));
    let hits: SearchHit[] = [];
    try {
      hits = this.db.searchMessages(q, { limit: 50, excludeSources: ['tool'] });
      this.error = '';
    } catch (e) {
      this.error = `Search failed: ${(e as Error).message}`;
    }
    const items = direct.map((s) => item(s, this.currentId));
    for (const h of hits) {
      if (seen.has(h.session_id)) continue;
      seen.add(h.session_id);
      items.push(hitItem(h, this.currentId));
    }
    this.list.setItems(items, items[0]?.key);
  }
}
