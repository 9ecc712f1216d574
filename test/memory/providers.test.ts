// Each external memory provider against a local fake of its API, through `hermes memory setup`
// (with its connection test), a real one-shot turn and `hermes memory status`: the recall shows up
// in the model request's user message (never in the system prompt, never stored), the turn is synced
// to the provider, and a provider that is down never breaks a turn.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SessionDB } from '../../src/state/db.ts';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startFakeMemory, type FakeMemory } from '../helpers/fake-memory.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

let llm: FakeLlm;
let mem: FakeMemory;
before(async () => {
  llm = await startFakeLlm({ defaultReply: { text: 'Noted.' } });
  mem = await startFakeMemory();
});
after(async () => {
  await llm.close();
  await mem.close();
});

const lastUser = (r: RecordedRequest) => {
  const users = (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user');
  return JSON.stringify(users.at(-1)?.content ?? '');
};
const systemOf = (r: RecordedRequest) => JSON.stringify((r.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'system')?.content ?? '');

interface Case {
  name: string;
  set: (url: string) => string[];
  env?: (url: string) => Record<string, string>;
  /** A request that shows the turn was synced. */
  synced: (path: string, body: any) => boolean;
}

const CASES: Case[] = [
  { name: 'mem0', set: (u) => ['api_key=mem0-key', `host=${u}`], synced: (p, b) => p === '/memories' && JSON.stringify(b).includes('remember my tea') },
  { name: 'supermemory', set: (u) => ['api_key=sm-key', `base_url=${u}`], synced: (p, b) => p === '/v3/documents' && JSON.stringify(b).includes('remember my tea') },
  { name: 'retaindb', set: (u) => ['api_key=rdb-key', `base_url=${u}`], synced: (p, b) => p === '/v1/memory/ingest/session' && JSON.stringify(b).includes('remember my tea') },
  { name: 'hindsight', set: (u) => ['api_key=hs-key', `api_url=${u}`], synced: (p, b) => /banks\/hermes\/memories$/.test(p) && JSON.stringify(b).includes('remember my tea') },
  { name: 'openviking', set: (u) => [`url=${u}`], synced: (p, b) => p === '/api/v1/sessions/ov-1/messages' && JSON.stringify(b).includes('remember my tea') },
  { name: 'honcho', set: (u) => ['apiKey=honcho-key', `baseUrl=${u}`, 'peerName=sam'], synced: (p, b) => /\/sessions\/[^/]+\/messages$/.test(p) && JSON.stringify(b).includes('remember my tea') },
];

describe('memory providers against local fakes of their APIs', () => {
  for (const c of CASES) {
    it(`${c.name}: setup tests the connection, recall reaches the next request, the turn is synced, status reports it`, async () => {
      const home = homeWithModel(llm.openaiBaseUrl, 'toolsets: [memory]\n');
      const setup = await hermes(['memory', 'setup', c.name, ...c.set(mem.url).flatMap((kv) => ['--set', kv])], { home });
      assert.equal(setup.code, 0, setup.stdout + setup.stderr);
      assert.match(setup.stdout, /✓ Connection test passed/);
      assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), new RegExp(`provider: ${c.name}`));
      const env = readFileSync(join(home, '.env'), 'utf8');
      for (const kv of c.set(mem.url)) if (/key/i.test(kv.split('=')[0])) assert.ok(env.includes(kv.split('=')[1]), 'the key is in .env');

      const before = llm.requests.length;
      const r = await hermes(['chat', '-q', 'please remember my tea order'], { home });
      assert.equal(r.code, 0, r.stderr);
      const req = llm.requests[before];
      assert.match(lastUser(req), new RegExp(`<memory-context>[\\s\\S]*RECALL-${c.name}`), 'recall rides on the user message');
      assert.doesNotMatch(systemOf(req), /RECALL-/, 'the system prompt stays byte-stable');
      assert.match(systemOf(req), new RegExp(c.name === 'openviking' ? 'OpenViking' : c.name, 'i'), 'the provider block is in the system prompt');
      assert.ok(mem.requests.some((q) => c.synced(q.path, q.body)), `the turn was synced to ${c.name}: ${mem.requests.map((q) => `${q.method} ${q.path}`).join(', ')}`);
      if (c.name === 'supermemory') assert.ok(mem.requests.some((q) => q.path === '/v4/conversations' && q.body.messages.length === 2), 'the session end ingests the conversation');
      if (c.name === 'openviking') assert.ok(mem.requests.some((q) => q.path === '/api/v1/sessions/ov-1/commit'), 'the session end commits');
      const db = SessionDB.open(join(home, 'state.db'));
      const stored = JSON.stringify(db.listSessions({ limit: 5 }).flatMap((s) => db.getMessages(s.id)));
      db.close();
      assert.doesNotMatch(stored, /RECALL-|memory-context/, 'recall is never stored');

      const st = await hermes(['memory', 'status'], { home });
      assert.equal(st.code, 0, st.stdout + st.stderr);
      assert.match(st.stdout, new RegExp(`External provider: ${c.name}`));
      assert.match(st.stdout, /✓/);
    });
  }

  it('byterover: the brv CLI is driven for recall and curation', async () => {
    const home = homeWithModel(llm.openaiBaseUrl, 'memory:\n  provider: byterover\n');
    const bin = join(home, 'brv');
    writeFileSync(bin, `#!/bin/sh\ncase "$1" in\n  query) echo "RECALL-byterover: deploys go through staging" ;;\n  curate) printf '%s\\n' "$2" >> "${home}/curated.txt" ;;\n  status) echo "brv 1.0.0 (fake)" ;;\nesac\n`);
    chmodSync(bin, 0o755);
    const before = llm.requests.length;
    const r = await hermes(['chat', '-q', 'please remember my tea order, it is sencha'], { home, env: { BRV_BINARY: bin } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(lastUser(llm.requests[before]), /RECALL-byterover/);
    assert.match(readFileSync(join(home, 'curated.txt'), 'utf8'), /remember my tea order/);
    const st = await hermes(['memory', 'status'], { home, env: { BRV_BINARY: bin } });
    assert.match(st.stdout, /✓ brv works \(brv 1\.0\.0/);
  });

  it('a provider that is down never breaks a turn (reported once) and status says what is wrong', async () => {
    const home = homeWithModel(llm.openaiBaseUrl, 'memory:\n  provider: mem0\n');
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ host: 'http://127.0.0.1:9' }));
    writeFileSync(join(home, '.env'), 'MEM0_API_KEY=k\n');
    const r = await hermes(['chat', '-q', 'hello there'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Noted\./);
    assert.match(r.stderr, /memory provider mem0: prefetch failed: Mem0: cannot reach/);
    assert.equal(r.stderr.match(/prefetch failed/g)?.length, 1);
    const st = await hermes(['memory', 'status'], { home });
    assert.equal(st.code, 1);
    assert.match(st.stdout, /✗ Mem0: cannot reach http:\/\/127\.0\.0\.1:9/);
    const setup = await hermes(['memory', 'setup', 'mem0', '--set', 'nope=1'], { home });
    assert.notEqual(setup.code, 0);
    assert.match(setup.stderr, /mem0 has no setting "nope"/);
  });

  it('hermes memory off turns the provider off and keeps its settings', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), 'memory:\n  provider: supermemory\n');
    const r = await hermes(['memory', 'off'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /supermemory turned off/);
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /provider: ""/);
    const st = await hermes(['memory', 'status'], { home });
    assert.match(st.stdout, /External provider: none/);
  });
});

describe('hermes memory setup on a terminal', { skip: tmuxAvailable() ?? false }, () => {
  it('picks a provider from the list, asks its settings and the key (hidden), tests the connection', async () => {
    const home = tempHome();
    const t = startHermes(['memory', 'setup'], { home, cols: 120, rows: 40 });
    try {
      await t.waitFor(/8\. supermemory[\s\S]*Choose \[1-8\]:/);
      t.type('8');
      t.keys('Enter');
      await t.waitFor(/API endpoint \(blank for https:\/\/api\.supermemory\.ai\):/);
      t.type(mem.url);
      t.keys('Enter');
      await t.waitFor(/Container tag \[hermes\]:/);
      t.keys('Enter');
      await t.waitFor(/Supermemory API key/);
      t.type('sm-secret-typed');
      t.keys('Enter');
      const screen = await t.waitFor(/✓ Connection test passed: connected to/);
      assert.doesNotMatch(screen, /sm-secret-typed/, 'the key is not echoed');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /SUPERMEMORY_API_KEY=sm-secret-typed/);
    assert.equal(JSON.parse(readFileSync(join(home, 'supermemory.json'), 'utf8')).base_url, mem.url);
  });
});
