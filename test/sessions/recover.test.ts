// `hermes sessions recover`: a damaged state.db is salvaged into a new database through the binary;
// the source and the active state.db stay untouched, and a JSON report says what was skipped.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SessionDB } from '../../src/state/db.ts';
import { hermes, tempHome } from '../helpers/cli.ts';

const marker = (i: number) => `ZQXJ${String(i).padStart(4, '0')}ZQXJ`;

/** A state.db with 2 sessions of 30 messages, each message about one page long. */
function seed(file: string): number {
  const db = SessionDB.open(file);
  for (const s of ['20260101_000000_aaaaaa', '20260102_000000_bbbbbb']) {
    db.createSession({ id: s, source: 'cli', model: 'm', title: `t-${s.slice(-6)}` });
    for (let i = 0; i < 30; i++) db.appendMessage(s, { role: i % 2 ? 'assistant' : 'user', content: `${marker(s === '20260101_000000_aaaaaa' ? i : 100 + i)} ${'word '.repeat(600)}` });
  }
  const pageSize = Number((db.raw.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
  db.raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return pageSize;
}

const digest = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

test('recover copies a sound database into a new one, with a report; the source is untouched', async () => {
  const h = tempHome();
  const src = join(h, 'old-state.db');
  seed(src);
  const before = digest(src);
  const outDb = join(h, 'recovered.db');
  const r = await hermes(['sessions', 'recover', '--source', src, '--output', outDb], { home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /sessions\s+readable\s+2 row\(s\) recovered of 2/);
  assert.match(r.stdout, /messages\s+readable\s+60 row\(s\) recovered of 60/);
  assert.match(r.stdout, /The active state\.db was not changed/);
  assert.equal(digest(src), before, 'the source file is byte-for-byte the same');
  const rep = JSON.parse(readFileSync(`${outDb}.recovery.json`, 'utf8'));
  assert.equal(rep.complete, true);
  assert.equal(rep.tables.messages.recovered, 60);
  // The recovered file is a working state.db: search (a rebuilt index) finds a message.
  const db = SessionDB.open(outDb);
  assert.equal(db.listSessions().length, 2);
  assert.equal(db.getMessages('20260102_000000_bbbbbb').length, 30);
  db.close();
  const again = await hermes(['sessions', 'recover', '--source', src, '--output', outDb], { home: h });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists/);
  const active = await hermes(['sessions', 'recover', '--source', src, '--output', join(h, 'state.db')], { home: h });
  assert.equal(active.code, 2);
  assert.match(active.stderr, /never replaces a database/);
  const none = await hermes(['sessions', 'recover', '--source', src], { home: h });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--output/);
});

test('a damaged page stops a strict recovery; --allow-partial salvages around it and records the gap', async () => {
  const h = tempHome();
  const src = join(h, 'broken.db');
  const pageSize = seed(src);
  // Break the table page that holds message 20 of the first session.
  const bytes = readFileSync(src);
  const at = bytes.indexOf(Buffer.from(marker(20)));
  assert.ok(at > 0);
  const page = Math.floor(at / pageSize);
  const fd = openSync(src, 'r+');
  writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, page * pageSize);
  closeSync(fd);

  const inspect = await hermes(['sessions', 'recover', '--source', src, '--inspect-only'], { home: h });
  assert.equal(inspect.code, 1);
  assert.match(inspect.stdout, /messages\s+damaged/);

  const strict = await hermes(['sessions', 'recover', '--source', src, '--output', join(h, 'strict.db')], { home: h });
  assert.equal(strict.code, 1);
  assert.match(strict.stderr, /messages cannot be read .*--allow-partial/);
  assert.equal(existsSync(join(h, 'strict.db')), false, 'no half-written output is left');
  assert.ok(existsSync(join(h, 'strict.db.recovery.json')));

  const outDb = join(h, 'partial.db');
  const p = await hermes(['sessions', 'recover', '--source', src, '--output', outDb, '--allow-partial', '--chunk-size', '7'], { home: h });
  assert.equal(p.code, 0, p.stderr);
  assert.match(p.stdout, /\(partial\)/);
  const rep = JSON.parse(readFileSync(`${outDb}.recovery.json`, 'utf8'));
  assert.equal(rep.complete, false);
  const skipped = (rep.tables.messages.skipped_ranges as [number, number][]).reduce((n, [a, b]) => n + b - a + 1, 0);
  assert.ok(skipped >= 1 && skipped < 60, `some rows skipped: ${JSON.stringify(rep.tables.messages)}`);
  assert.equal(rep.tables.messages.recovered + skipped, 60);
  const db = SessionDB.open(outDb);
  const all = [...db.getMessages('20260101_000000_aaaaaa'), ...db.getMessages('20260102_000000_bbbbbb')];
  assert.equal(all.length, rep.tables.messages.recovered);
  assert.ok(!all.some((m) => String(m.content).includes(marker(20))), 'the damaged row is not invented');
  assert.ok(all.some((m) => String(m.content).includes(marker(21))));
  db.close();
});
