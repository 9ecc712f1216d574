// Background work started through the API server reports back in the same response: a
// notify_on_complete process the agent starts is waited for (bounded, as a one-shot run does) and
// its notice is answered in a follow-up turn whose text ends the reply — streamed or not.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const KEY = 'sk-hermes-test-key-456';
const lastUser = (body: { messages: { role: string; content: unknown }[] }) => String(body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

describe('API server background notices', () => {
  let llm: FakeLlm;
  let t: TestHome;
  let gw: RunningGateway;
  let client: OpenAI;

  before(async () => {
    llm = await startFakeLlm();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: KEY } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    const port = (gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number }).port;
    client = new OpenAI({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  test('chat completions: the process’s notice is answered before the response ends', async () => {
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 0.5; echo 3 passed', background: true, notify_on_complete: true } }] },
      { text: 'Started the tests.' },
      { text: 'The tests finished: 3 passed.' },
    );
    const n = llm.requests.length;
    const r = await client.chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'run the tests in the background' }] });
    assert.equal(r.choices[0].message.content, 'Started the tests.\n\nThe tests finished: 3 passed.');
    const sent = llm.requests.slice(n);
    assert.equal(sent.length, 3);
    assert.match(lastUser(sent[2].body), /Background process .* \(exit code 0\)[\s\S]*3 passed/);
  });

  test('responses, streaming: the follow-up turn streams in the same response', async () => {
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 0.5; echo deployed', background: true, notify_on_complete: true } }] },
      { text: 'Deploying.' },
      { text: 'Deployment finished.' },
    );
    const stream = await client.responses.create({ model: 'hermes-agent', input: 'deploy in the background', stream: true });
    let text = '';
    let completed = '';
    for await (const ev of stream) {
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') completed = JSON.stringify(ev.response.output);
    }
    assert.match(text, /Deploying\.[\s\S]*Deployment finished\./);
    assert.match(completed, /Deployment finished\./);
  });
});
