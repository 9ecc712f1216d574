// The API server under more requests than it runs at once: turns beyond
// API_SERVER_MAX_CONCURRENT wait in arrival order (no session is built, no model call is made for
// them), past API_SERVER_MAX_QUEUE a request gets 503 with Retry-After, and a client that leaves
// while it waits gives its place up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('API server admission', () => {
  let llm: FakeLlm;
  let t: TestHome;
  let gw: RunningGateway;
  let port = 0;
  let load: () => { running: number; waiting: number };

  before(async () => {
    llm = await startFakeLlm();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_MAX_CONCURRENT: '1', API_SERVER_MAX_QUEUE: '1' } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    const api = gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number; load(): { running: number; waiting: number } };
    port = api.port;
    load = () => api.load();
  });
  after(async () => {
    llm.setHandler(null);
    await gw?.shutdown();
    await llm?.close();
  });

  const ask = (content: string, o: { stream?: boolean; signal?: AbortSignal } = {}) =>
    fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'hermes-agent', stream: !!o.stream, messages: [{ role: 'user', content }] }),
      signal: o.signal,
    });
  const until = async (cond: () => boolean, what: string) => {
    for (let i = 0; i < 1500 && !cond(); i++) await sleep(20);
    assert.ok(cond(), what);
  };

  test('requests past the limit wait in order, a full queue gets 503, and each waiting one runs in turn', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const asked: string[] = [];
    llm.setHandler(async (req) => {
      const q = JSON.stringify(req.body.messages).match(/question (\w+)/)?.[1] ?? '?';
      asked.push(q);
      if (q === 'one') await gate;
      return { text: `answer ${q}` };
    });
    const first = ask('question one', { stream: true });
    await until(() => asked.length === 1, 'the first request reached the model');
    const second = ask('question two');
    await until(() => load().waiting === 1, 'the second request waits for a turn');
    assert.deepEqual(load(), { running: 1, waiting: 1 });
    const third = await ask('question three');
    assert.equal(third.status, 503);
    assert.equal(third.headers.get('retry-after'), '1');
    assert.equal(((await third.json()) as { error: { code: string } }).error.code, 'server_busy');
    assert.deepEqual(asked, ['one'], 'no model call is made for a waiting request');

    open();
    const r1 = await first;
    const streamed = (await r1.text())
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => (JSON.parse(l.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
      .join('');
    assert.equal(streamed, 'answer one');
    const r2 = await second;
    assert.equal(r2.status, 200);
    assert.equal(((await r2.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content, 'answer two');
    assert.deepEqual(asked, ['one', 'two']);
    await until(() => load().running === 0, 'every slot is given back');
  });

  test('a client that leaves while it waits gives its place up', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const asked: string[] = [];
    llm.setHandler(async (req) => {
      const q = JSON.stringify(req.body.messages).match(/question (\w+)/)?.[1] ?? '?';
      asked.push(q);
      if (q === 'four') await gate;
      return { text: `answer ${q}` };
    });
    const first = ask('question four');
    await until(() => asked.length === 1, 'the first request reached the model');
    const ac = new AbortController();
    const leaving = ask('question five', { signal: ac.signal }).catch((e: Error) => e);
    await until(() => load().waiting === 1, 'the second request waits');
    ac.abort();
    await leaving;
    await until(() => load().waiting === 0, 'its place is given up');
    const third = ask('question six');
    open();
    assert.equal((await first).status, 200);
    assert.equal((await third).status, 200);
    assert.deepEqual(asked, ['four', 'six'], 'the request that left never ran');
  });
});
