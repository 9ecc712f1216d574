// Issue 38 through the API server (unattended: approvals deny): a client asks, the fake model
// sends one command per class of programs that run another command (and the missing classes);
// nothing runs, nothing changes, the model is told why, and no secret reaches the reply.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { askCases, world } from '../policy/e2e-cases.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const KEY = 'sk-hermes-test-key-approvals';

describe('API server: commands handed to another program are classified', () => {
  let llm: FakeLlm;
  let t: TestHome;
  let gw: RunningGateway;
  let client: OpenAI;
  let w: ReturnType<typeof world>;

  before(async () => {
    llm = await startFakeLlm();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: KEY } });
    w = world(join(t.home, 'user-home'), t.home, readFileSync(join(t.home, 'config.yaml'), 'utf8'));
    gw = await runGateway({ home: t.home, config: t.config, env: { ...t.env, HOME: w.home }, cron: false, backgroundTasks: false });
    const port = (gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number }).port;
    client = new OpenAI({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  test('runs none of them, changes nothing, and tells the model why for each', async () => {
    const cases = askCases(w);
    const start = llm.requests.length;
    llm.enqueue({ toolCalls: cases.map((c, i) => ({ id: `call_${i}`, name: 'terminal', arguments: { command: c.command } })) }, { text: 'Nothing ran.' });
    const r = await client.chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'run these' }] });
    assert.equal(r.choices[0].message.content, 'Nothing ran.');
    assert.deepEqual(w.traces(), []);
    const sent = llm.requests[start + 1].body.messages as { role: string; tool_call_id?: string; content: unknown }[];
    const results = new Map(sent.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id!, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]));
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const text = results.get(`call_${i}`) ?? '(no result)';
      if (!/BLOCKED/.test(text) || !c.why.test(text) || !/nobody is here to approve it/.test(text)) wrong.push(`${c.cls}: ${text.slice(0, 300)}`);
    });
    assert.deepEqual(wrong, []);
    assert.match(results.get('call_0')!, /unattended_mode: approve/);
    assert.ok(![...results.values()].some((x) => x.includes(w.secret)));
    assert.ok(!JSON.stringify(r).includes(w.secret));
  });
});
