// The session picker (/resume without an id, or Ctrl+X): saved sessions newest first from the session
// store (state.db, or PostgreSQL); typing searches titles, ids and first messages, and the messages
// themselves (full-text search, best hits first, with the matching words shown). state.db answers at
// once; an async store's answers arrive later and redraw (a stale search's answer is dropped).

import type { SearchHit, SessionListItem } from '../../state/db.ts';
import type { SessionStore } from '../../state/store/index.ts';
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
  private readonly db: SessionStore;
  private readonly currentId: string;
  private readonly changed: () => void;
  private all: SessionListItem[] = [];
  private searchSeq = 0;

  constructor(db: SessionStore, currentId: string, changed: () => void = () => {}) {
    this.db = db;
    this.currentId = currentId;
    this.changed = changed;
    const fail = (e: unknown) => {
      this.error = `Could not read the sessions: ${(e as Error).message}`;
    };
    try {
      const rows = db.listSessions({ limit: 500 });
      if (rows instanceof Promise) {
        rows.then((r) => {
          this.all = r;
          this.refresh();
          this.changed();
        }, (e: unknown) => {
          fail(e);
          this.changed();
        });
      } else this.all = rows;
    } catch (e) {
      fail(e);
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
    const items = direct.map((s) => item(s, this.currentId));
    const show = (hits: SearchHit[]) => {
      for (const h of hits) {
        if (seen.has(h.session_id)) continue;
        seen.add(h.session_id);
        items.push(hitItem(h, this.currentId));
      }
      this.list.setItems(items, items[0]?.key);
    };
    const failed = (e: unknown) => {
      this.error = `Search failed: ${(e as Error).message}`;
    };
    const seq = ++this.searchSeq;
    try {
      const hits = this.db.searchMessages(q, { limit: 50, excludeSources: ['tool'] });
      if (hits instanceof Promise) {
        show([]); // the direct matches now, the message hits when they come
        hits.then((h) => {
          if (seq !== this.searchSeq) return;
          this.error = '';
          show(h);
          this.changed();
        }, (e: unknown) => {
          if (seq !== this.searchSeq) return;
          failed(e);
          this.changed();
        });
        return;
      }
      this.error = '';
      show(hits);
    } catch (e) {
      failed(e);
      show([]);
    }
  }
}
