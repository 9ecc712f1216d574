// The session listing (sessions list, chat -c, the pickers) ranks by last activity without one
// MAX(timestamp) per session (src/state/recent-sessions.ts). Checked against the plain per-session
// query on a state.db big enough to need the window to grow and the fall-back: sessions without
// messages, ties, a message older than its session's start, filters, pages, archived sessions.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SessionDB } from '../../src/state/db.ts';
import { listWhere } from '../../src/state/db-rows.ts';
import { hermes } from '../helpers/cli.ts';

const home = mkdtempSync(join(tmpdir(), 'hermes-list-'));
let db: SessionDB;

/** The reference: every session's last activity computed, then sorted. */
function reference(opts: { source?: string; archived?: 'hide' | 'include' | 'only'; limit?: number; offset?: number }): { id: string; last_active: number }[] {
  const { where, args } = listWhere(opts, true);
  const sql = `SELECT s.id, COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id), s.started_at) AS last_active
    FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY last_active DESC, s.started_at DESC LIMIT ? OFFSET ?`;
  return (db.raw.prepare(sql).all(...args, opts.limit ?? 20, opts.offset ?? 0) as { id: string; last_active: number }[]).map((r) => ({ id: r.id, last_active: Number(r.last_active) }));
}

before(() => {
  db = SessionDB.open(join(home, 'state.db'));
  const raw = db.raw;
  const insS = raw.prepare('INSERT INTO sessions (id, source, started_at, archived) VALUES (?, ?, ?, ?)');
  const insM = raw.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  raw.exec('BEGIN');
  for (let s = 0; s < 3000; s++) {
    const id = `s${String(s).padStart(5, '0')}`;
    // Mostly cli; a rare source whose sessions are all old (the fall-back); every 7th archived.
    const source = s < 40 ? 'rare' : s % 5 === 0 ? 'telegram' : 'cli';
    const start = 1_700_000_000 + s * 100 + (s % 11 === 0 ? 50_000 : 0);
    insS.run(id, source, start, s % 7 === 0 ? 1 : 0);
    const n = s % 9 === 0 ? 0 : Math.floor(rnd() * 28) + 1;
    for (let m = 0; m < n; m++) {
      // Ties (whole seconds shared across sessions) and, for every 13th session, a message older than its start.
      const t = s % 13 === 0 ? start - 500 : source === 'rare' ? start + m : start + Math.floor((rnd() * 400_000) / 10) * 10;
      insM.run(id, m % 2 ? 'assistant' : 'user', `line one\nmessage ${m} of ${id}`, t);
    }
  }
  raw.exec('COMMIT');
});
after(() => db.close());

describe('session listing ranked by last activity, flat as sessions pile up', () => {
  const cases: { source?: string; archived?: 'hide' | 'include' | 'only'; limit?: number; offset?: number }[] = [
    {},
    { limit: 1 },
    { limit: 50, offset: 35 },
    { limit: 600 },
    { source: 'telegram', limit: 30 },
    { source: 'rare', limit: 10 },
    { source: 'rare', limit: 100 },
    { source: 'nobody' },
    { archived: 'only', limit: 25 },
    { archived: 'include', limit: 40, offset: 2990 },
    { limit: 5000 },
    { source: 'cli', limit: 1_000_000 },
  ];
  for (const c of cases)
    it(`matches the per-session ranking: ${JSON.stringify(c)}`, () => {
      const got = db.listSessions(c);
      const want = reference(c);
      assert.deepEqual(
        got.map((r) => [r.id, r.last_active]),
        want.map((r) => [r.id, r.last_active]),
      );
    });

  it('each row carries its columns and the first user message as a one-line preview', () => {
    const [r] = db.listSessions({ source: 'telegram', limit: 1 });
    const first = db.raw.prepare("SELECT content FROM messages WHERE session_id = ? AND role = 'user' ORDER BY timestamp, id LIMIT 1").get(r.id) as { content: string } | undefined;
    assert.equal(r.source, 'telegram');
    assert.equal(r.preview, first ? first.content.replace(/\n/g, ' ').slice(0, 63) : '');
    assert.ok(typeof r.message_count === 'number');
  });

  it('a new message moves its session to the top; mostRecentSession follows', () => {
    const oldest = reference({ source: 'cli', limit: 5000 }).at(-1)!;
    db.appendMessage(oldest.id, { role: 'user', content: 'back again' });
    assert.equal(db.listSessions({ source: 'cli', limit: 1 })[0].id, oldest.id);
    assert.equal(db.mostRecentSession('cli')?.id, oldest.id);
  });

  it('`hermes sessions list` shows the same first rows', async () => {
    const r = await hermes(['sessions', 'list', '--limit', '5'], { home });
    assert.equal(r.code, 0, r.stderr);
    const ids = r.stdout.split('\n').filter((l) => /^s\d{5}\s/.test(l)).map((l) => l.split(/\s+/)[0]);
    assert.deepEqual(ids, reference({ limit: 5 }).map((x) => x.id));
  });
});
