// `hermes chat -q` when the model's stream breaks after it began (cut, reset, malformed event,
// stall) or never begins (silent past the first-byte deadline): a fault proxy sits in front of the
// fake LLM as the primary provider, the backup provider is the fake itself. The answer on stdout
// is the one that completed (never the broken attempt in front of it), state.db holds no partial
// text, the exit code says whether the turn completed, and each failure is one line that says
// what happened.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, beforeEach, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
let proxy: FaultProxy;
before(async () => {
  fake = await startFakeLlm();
  proxy = await startFaultProxy(fake.url);
});
after(async () => {
  await proxy.close();
  await fake.close();
});
beforeEach(() => {
  fake.setHandler(null);
  proxy.setDefault(null);
});

const LONG = 'The answer is forty-two, because six times seven is forty-two. '.repeat(8);
const GOOD = 'Forty-two, in full.';
const BACKUP = 'Forty-two, from the backup.';
// Short deadlines for the test (seconds); long enough for a healthy answer on a loaded machine.
const ENV = { HERMES_STREAM_STALE_TIMEOUT: '2.5' };

function home(o: { fallback?: boolean; retries?: number; wire?: 'chat' | 'anthropic' } = {}): string {
  const h = tempHome();
  const anthropic = o.wire === 'anthropic';
  const primaryUrl = anthropic ? proxy.url : proxy.openaiBaseUrl;
  const mode = anthropic ? '\n    api_mode: anthropic_messages' : '';
  writeFileSync(
    join(h, 'config.yaml'),
    `model:\n  provider: primary\n  default: test-model\n` +
      `providers:\n  primary:\n    base_url: ${primaryUrl}\n    api_key: primary-key${mode}\n    first_byte_timeout_seconds: 1.5\n` +
      `  backup:\n    base_url: ${fake.openaiBaseUrl}\n    api_key: backup-key\n` +
      (o.fallback ? `fallback_providers:\n  - provider: backup\n    model: backup-model\n` : '') +
      `agent:\n  api_max_retries: ${o.retries ?? 2}\n`,
  );
  return h;
}

function stored(h: string): { role: string; content: string | null }[] {
  const db = new DatabaseSync(join(h, 'state.db'), { readOnly: true });
  try {
    return db.prepare('SELECT role, content FROM messages ORDER BY id').all() as { role: string; content: string | null }[];
  } finally {
    db.close();
  }
}

const noPartial = (h: string) => {
  const rows = stored(h);
  assert.ok(!JSON.stringify(rows).includes('six times seven'), `state.db keeps no partial answer: ${JSON.stringify(rows)}`);
  return rows;
};

describe('hermes chat -q through stream faults', () => {
  it('a cut mid-answer is retried: stdout is the retry’s answer alone, state.db has only it, one retry line', async () => {
    const h = home();
    fake.enqueue({ text: LONG }, { text: GOOD });
    proxy.enqueue({ cutAfter: 1500 });
    const r = await hermes(['chat', '-q', 'what is the answer?'], { home: h, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${GOOD}\n`);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('↻'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^↻ custom:primary: the stream was cut off mid-response .* — retrying in \d+\.\ds \(1\/2\)$/);
    assert.deepEqual(
      noPartial(h).map((m) => [m.role, m.content]),
      [
        ['user', 'what is the answer?'],
        ['assistant', GOOD],
      ],
    );
  });

  it('a malformed event, then a reset: both retried, on the Anthropic wire too', async () => {
    const h = home({ wire: 'anthropic' });
    fake.enqueue({ text: LONG }, { text: LONG }, { text: GOOD });
    proxy.enqueue({ malformedAfterEvents: 6 }, { resetAfter: 1500 });
    const r = await hermes(['chat', '-q', 'question'], { home: h, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${GOOD}\n`);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('↻'));
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0], /malformed event/);
    assert.match(lines[1], /cut off/);
    noPartial(h);
  });

  it('cuts past the retries: the fallback answers, with one line saying why', async () => {
    const h = home({ fallback: true, retries: 1 });
    fake.enqueue({ text: LONG }, { text: LONG }, { text: BACKUP });
    proxy.enqueue({ cutAfter: 1500 }, { cutAfter: 1500 });
    const r = await hermes(['chat', '-q', 'question'], { home: h, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${BACKUP}\n`);
    const fb = r.stderr.split('\n').filter((l) => l.startsWith('⇄'));
    assert.deepEqual(fb.length, 1, r.stderr);
    assert.match(fb[0], /^⇄ switching from custom:primary:test-model to fallback custom:backup:backup-model: the stream was cut off/);
    assert.equal(fake.requests.at(-1)?.body.model, 'backup-model');
    assert.deepEqual(
      noPartial(h).map((m) => m.content),
      ['question', BACKUP],
    );
  });

  it('a stall that persists moves to the fallback', async () => {
    const h = home({ fallback: true });
    fake.enqueue({ text: LONG }, { text: LONG }, { text: BACKUP });
    proxy.enqueue({ stallAfter: 1500 }, { stallAfter: 1500 });
    const r = await hermes(['chat', '-q', 'question'], { home: h, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${BACKUP}\n`);
    assert.match(r.stderr, /^↻ custom:primary: the stream stalled: no data from the provider for 2\.5s/m);
    assert.match(r.stderr, /^⇄ switching from custom:primary:test-model to fallback custom:backup:backup-model: the stream stalled/m);
    noPartial(h);
  });

  it('a primary silent before the first byte is left at the deadline for the fallback (no retries first)', async () => {
    const h = home({ fallback: true });
    fake.enqueue({ text: 'never delivered' }, { text: BACKUP });
    proxy.enqueue({ stallBeforeFirstByte: true });
    const r = await hermes(['chat', '-q', 'question'], { home: h, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${BACKUP}\n`);
    assert.doesNotMatch(r.stderr, /↻/);
    assert.match(r.stderr, /^⇄ switching from custom:primary:test-model to fallback custom:backup:backup-model: no response within 1\.5s of sending the request \(first-byte deadline\)$/m);
  });

  it('no fallback and every attempt cut: exit 1, nothing on stdout, one line naming the cut (not "unreachable"), no answer stored', async () => {
    const h = home({ retries: 1 });
    fake.enqueue({ text: LONG }, { text: LONG });
    proxy.enqueue({ cutAfter: 1500 }, { cutAfter: 1500 });
    const r = await hermes(['chat', '-q', 'question'], { home: h, env: ENV });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const last = r.stderr.trim().split('\n').at(-1)!;
    assert.match(last, /^hermes: primary \(custom endpoint\): the stream was cut off mid-response .* — the connection to http:\/\/127\.0\.0\.1:\d+\/v1 dropped after the answer had begun/);
    assert.doesNotMatch(r.stderr, /unreachable/);
    assert.deepEqual(
      noPartial(h).map((m) => m.role),
      ['user'],
    );
  });

  it('a stream cut after a tool call’s arguments but before its finish never runs the call', async () => {
    const h = home();
    const marker = join(h, 'partial-call-ran');
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `touch ${marker}` } }] }, { text: GOOD });
    // The whole call (name and every argument piece) is through; the finish and [DONE] are not.
    proxy.enqueue({ cutAfter: 1250 });
    const r = await hermes(['chat', '-q', 'question', '--yolo'], { home: h, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${GOOD}\n`);
    assert.equal(existsSync(marker), false, 'the broken attempt’s tool call did not run');
    assert.deepEqual(
      stored(h).map((m) => m.role),
      ['user', 'assistant'],
    );
  });
});
