// `hermes sessions archive|unarchive|prune|optimize|repair|browse` on a seeded state.db.
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionDB } from '../../src/state/db.ts';
import { hermes, tempHome } from '../helpers/cli.ts';

/** A home with five sessions of different ages, sources and titles (ended unless noted). */
function seeded(): { home: string; ids: Record<string, string> } {
  const home = tempHome();
  const db = SessionDB.open(join(home, 'state.db'));
  const now = Date.now() / 1000;
  const ids: Record<string, string> = {};
  const mk = (key: string, daysAgo: number, source: string, title: string, messages: number, ended = true) => {
    const id = `2026010${Object.keys(ids).length + 1}_120000_${key.padEnd(6, '0').slice(0, 6)}`;
    db.createSession({ id, source, model: 'm', systemPrompt: 's', title, startedAt: now - daysAgo * 86400 });
    for (let i = 0; i < messages; i++) db.appendMessage(id, { role: i % 2 ? 'assistant' : 'user', content: `${title} message ${i}` });
    if (ended) db.endSession(id, 'cli_close');
    ids[key] = id;
  };
  mk('aaaaaa', 200, 'cli', 'Old planning', 4);
  mk('bbbbbb', 120, 'telegram', 'Old telegram chat', 2);
  mk('cccccc', 10, 'cli', 'Recent work', 6);
  mk('dddddd', 5, 'cli', 'Scratch', 1);
  mk('eeeeee', 300, 'cli', 'Still open', 2, false);
  db.close();
  return { home, ids };
}

describe('hermes sessions maintenance', () => {
  it('archive hides by id or by filters, unarchive shows again; nothing is deleted', async () => {
    const { home, ids } = seeded();
    const a = await hermes(['sessions', 'archive', 'Recent work'], { home });
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /Archived 1 session/);
    let list = await hermes(['sessions', 'list'], { home });
    assert.doesNotMatch(list.stdout, /Recent work/);
    assert.match(list.stdout, /1 archived session is hidden/);
    const none = await hermes(['sessions', 'archive'], { home });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Say which sessions to archive/);
    const dry = await hermes(['sessions', 'archive', '--source', 'telegram', '--dry-run'], { home });
    assert.match(dry.stdout, /Would archive 1 session\(s\):\n {2}\S+ .*telegram/);
    const bulk = await hermes(['sessions', 'archive', '--older-than', '100d', '--yes'], { home });
    assert.equal(bulk.code, 0, bulk.stderr);
    assert.match(bulk.stdout, /Archived 3 session\(s\)/, 'ended or not, older than 100 days');
    const u = await hermes(['sessions', 'unarchive', ids.cccccc], { home });
    assert.equal(u.code, 0, u.stderr);
    list = await hermes(['sessions', 'list'], { home });
    assert.match(list.stdout, /Recent work/);
    const db = SessionDB.open(join(home, 'state.db'));
    assert.equal(db.countSessions({ archived: 'include', includeTool: true }), 5);
    db.close();
  });

  it('prune: 90 days by default, filters narrow it, archived sessions stay unless asked', async () => {
    const { home, ids } = seeded();
    await hermes(['sessions', 'archive', ids.bbbbbb], { home });
    const dry = await hermes(['sessions', 'prune', '--dry-run'], { home });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Would delete 1 ended session\(s\) older than 90 days:/);
    assert.match(dry.stdout, new RegExp(ids.aaaaaa));
    assert.doesNotMatch(dry.stdout, new RegExp(`${ids.bbbbbb}|${ids.eeeeee}`), 'archived and still-open sessions are kept');
    const noYes = await hermes(['sessions', 'prune'], { home });
    assert.equal(noYes.code, 2);
    const withArchived = await hermes(['sessions', 'prune', '--include-archived', '--yes'], { home });
    assert.match(withArchived.stdout, /Deleted 2 session\(s\)/);
    const f = await hermes(['sessions', 'prune', '--title', 'scratch', '--max-messages', '1', '--yes'], { home });
    assert.match(f.stdout, /Deleted 1 session\(s\)/);
    const db = SessionDB.open(join(home, 'state.db'));
    assert.deepEqual(db.listSessions({ limit: 10 }).map((s) => s.title).sort(), ['Recent work', 'Still open']);
    db.close();
    const bad = await hermes(['sessions', 'prune', '--before', 'someday'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--before "someday" is not an age/);
  });

  it('optimize and repair keep the data; repair makes a backup copy first; browse needs a terminal', async () => {
    const { home } = seeded();
    const o = await hermes(['sessions', 'optimize'], { home });
    assert.equal(o.code, 0, o.stderr);
    assert.match(o.stdout, /Optimized .*state\.db: .* MB → .* MB/);
    const c = await hermes(['sessions', 'repair', '--check-only'], { home });
    assert.equal(c.code, 0);
    assert.match(c.stdout, /passes the integrity check/);
    // A search index that lost its rows: repair rebuilds it and search finds the messages again.
    const db = SessionDB.open(join(home, 'state.db'));
    db.raw.exec('DELETE FROM messages_fts');
    assert.equal(db.searchMessages('planning').length, 0);
    db.close();
    const r = await hermes(['sessions', 'repair'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Backup copy: .*state\.db\.bak-/);
    assert.match(r.stdout, /Rebuilt \d search index\(es\); 5 session\(s\) and 15 message\(s\)/);
    assert.ok(readdirSync(home).some((f) => f.startsWith('state.db.bak-')));
    const db2 = SessionDB.open(join(home, 'state.db'));
    assert.ok(db2.searchMessages('planning').length > 0);
    db2.close();
    const b = await hermes(['sessions', 'browse'], { home });
    assert.equal(b.code, 2);
    assert.match(b.stderr, /needs a terminal/);
    copyFileSync(join(home, 'state.db'), join(home, 'copy.db'));
  });
});
