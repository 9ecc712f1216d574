// A compression lease left behind by a process that died (same host, pid gone) is taken over at once,
// through the real binary; a lease held by a live process is respected (nothing is compressed).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { holderIsDead } from '../../src/session/compaction-store.ts';
import { SessionDB } from '../../src/state/db.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
let aux: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
  aux = await startFakeLlm();
  llm.setHandler(() => ({ text: 'noted' }));
  aux.setHandler(() => ({ text: '## Goal\nTalk about the long essays.' }));
});
after(async () => {
  await llm.close();
  await aux.close();
});

/** A pid that existed on this host and is gone now. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** A home with one cli session too long for its context window, whose compression lease `holder` holds. */
function seeded(holder: string): { h: string; id: string } {
  const h = tempHome();
  writeFileSync(
    join(h, 'config.yaml'),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  context_length: 9000\ntoolsets: [todo]\ncompression:\n  protect_last_n: 4\n` +
      `auxiliary:\n  compression:\n    base_url: ${aux.openaiBaseUrl}\n    model: summary-model\n    api_key: aux-key\n`,
  );
  const db = SessionDB.open(join(h, 'state.db'));
  const id = '20260101_000000_aaaaaa';
  db.createSession({ id, source: 'cli', model: 'fake-model', systemPrompt: 'You are Hermes.' });
  for (let i = 0; i < 12; i++) db.appendMessage(id, { role: i % 2 ? 'assistant' : 'user', content: `essay${i} ${'lorem ipsum dolor '.repeat(120)}` });
  const t = Date.now() / 1000;
  db.raw.prepare('INSERT INTO compression_locks (session_id, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)').run(id, holder, t, t + 300);
  db.close();
  return { h, id };
}

function lockHolder(h: string): string | null {
  const db = SessionDB.open(join(h, 'state.db'));
  try {
    return db.getCompressionLockHolder('20260101_000000_aaaaaa');
  } finally {
    db.close();
  }
}

test('a lease held by a dead process of this host is taken over at once', async () => {
  const { h } = seeded(`host=${hostname()}:pid=${deadPid()}:token=deadbeef`);
  const r = await hermes(['chat', '--continue', '-q', 'and one more thing'], { home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Context compressed/);
  assert.equal(lockHolder(h), null, 'the lease is released after the compression');
});

test('a lease held by a live process is respected: nothing is compressed, the conversation goes on', async () => {
  const live = `host=${hostname()}:pid=${process.pid}:token=cafebabe`;
  const { h } = seeded(live);
  const r = await hermes(['chat', '--continue', '-q', 'and one more thing'], { home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Context compressed/);
  assert.match(r.stdout, /noted/);
  assert.equal(lockHolder(h), live);
});

test('only a holder of this host whose pid is gone is judged dead', () => {
  const dead = deadPid();
  assert.equal(holderIsDead(`host=${hostname()}:pid=${dead}:token=x`), true);
  assert.equal(holderIsDead(`host=${hostname()}:pid=${dead}`), true, "Hermes's own form, without a token");
  assert.equal(holderIsDead(`host=${hostname()}:pid=${process.pid}:token=x`), false, 'alive');
  assert.equal(holderIsDead(`host=another-machine:pid=${dead}:token=x`), false, 'another host: only expiry frees it');
  assert.equal(holderIsDead('external_holder'), false, 'no host/pid: only expiry frees it');
});
