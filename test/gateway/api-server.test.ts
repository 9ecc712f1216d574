// The OpenAI-compatible API server, driven by the official `openai` client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const KEY = 'sk-hermes-test-key-123';

describe('API server', () => {
  let llm: FakeLlm;
  let t: TestHome;
  let gw: RunningGateway;
  let client: OpenAI;
  let base: string;

  before(async () => {
    llm = await startFakeLlm();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: KEY, API_SERVER_CORS_ORIGINS: 'http://localhost:3000' } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    const port = (gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number }).port;
    base = `http://127.0.0.1:${port}`;
    client = new OpenAI({ apiKey: KEY, baseURL: `${base}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  test('models lists the agent; a wrong key is refused', async () => {
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => m.id),
      ['hermes-agent'],
    );
    const bad = new OpenAI({ apiKey: 'wrong', baseURL: `${base}/v1`, maxRetries: 0 });
    await assert.rejects(bad.models.list(), (e: Error & { status?: number }) => e.status === 401);
  });

  test('chat completions, non-streaming, with the agent running a tool', async () => {
    llm.enqueue({ toolCalls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'check', status: 'in_progress' }] } }] }, { text: 'All planned.' });
    const r = await client.chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Plan it' }] });
    assert.equal(r.object, 'chat.completion');
    assert.equal(r.choices[0].message.content, 'All planned.');
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.ok(r.usage!.total_tokens > 0);
    const sent = llm.requests[llm.requests.length - 1].body;
    assert.match(sent.messages[0].content, /Be brief\./, 'the request system message reaches the prompt');
    assert.ok(sent.messages.some((m: { role: string }) => m.role === 'tool'), 'the tool ran server-side');
  });

  test('chat completions, streaming, with hermes.tool.progress events', async () => {
    llm.enqueue({ toolCalls: [{ name: 'todo', arguments: {} }] }, { text: 'Streaming answer here.' });
    const stream = await client.chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'stream please' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    const progress: string[] = [];
    let usage = 0;
    for await (const chunk of stream) {
      const c = chunk as typeof chunk & { tool?: string };
      if (c.tool) progress.push(c.tool);
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    assert.equal(text, 'Streaming answer here.');
    assert.deepEqual(progress, ['todo']);
    assert.ok(usage > 0);
  });

  test('responses with previous_response_id keep the conversation server-side', async () => {
    llm.enqueue({ text: 'Noted: your name is Ada.' });
    const r1 = await client.responses.create({ model: 'hermes-agent', input: 'My name is Ada.' });
    assert.equal(r1.status, 'completed');
    assert.equal(r1.output_text, 'Noted: your name is Ada.');
    llm.enqueue({ text: 'Your name is Ada.' });
    const r2 = await client.responses.create({ model: 'hermes-agent', input: 'What is my name?', previous_response_id: r1.id });
    assert.equal(r2.output_text, 'Your name is Ada.');
    const convo = llm.requests[llm.requests.length - 1].body.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`);
    assert.ok(convo.includes('user:My name is Ada.') && convo.includes('assistant:Noted: your name is Ada.'), convo.join(' | '));
    const got = await client.responses.retrieve(r2.id);
    assert.equal(got.id, r2.id);
    await assert.rejects(client.responses.create({ model: 'hermes-agent', input: 'x', previous_response_id: 'resp_missing' }), (e: Error & { status?: number }) => e.status === 404);
  });

  test('responses streaming with function_call items', async () => {
    llm.enqueue({ toolCalls: [{ name: 'todo', arguments: {} }] }, { text: 'Done streaming.' });
    const stream = client.responses.stream({ model: 'hermes-agent', input: 'go' });
    const types: string[] = [];
    let delta = '';
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') delta += ev.delta;
    }
    const final = await stream.finalResponse();
    assert.equal(delta, 'Done streaming.');
    assert.equal(final.output_text, 'Done streaming.');
    assert.ok(final.output.some((o) => o.type === 'function_call' && o.name === 'todo'));
    assert.equal(types[0], 'response.created');
    assert.equal(types[types.length - 1], 'response.completed');
    // The streamed response can be continued too.
    llm.enqueue({ text: 'continued' });
    const next = await client.responses.create({ model: 'hermes-agent', input: 'and then?', previous_response_id: final.id });
    assert.equal(next.output_text, 'continued');
  });

  test('CORS: allowed origin gets headers, others are refused; files are unsupported', async () => {
    const ok = await fetch(`${base}/v1/models`, { headers: { origin: 'http://localhost:3000', authorization: `Bearer ${KEY}` } });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    const pre = await fetch(`${base}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } });
    assert.equal(pre.status, 204);
    const evil = await fetch(`${base}/v1/models`, { headers: { origin: 'http://evil.example', authorization: `Bearer ${KEY}` } });
    assert.equal(evil.status, 403);
    assert.equal(evil.headers.get('access-control-allow-origin'), null);
    const file = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'x' } }] }] }),
    });
    assert.equal(file.status, 400);
    assert.equal(((await file.json()) as { error: { code: string } }).error.code, 'unsupported_content_type');
  });

  test('a non-loopback bind without API_SERVER_KEY refuses to start', async () => {
    const t2 = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_HOST: '0.0.0.0' } });
    // It is the only platform, so nothing can start: the gateway says why instead of running idle.
    await assert.rejects(
      runGateway({ home: t2.home, config: t2.config, env: t2.env, cron: false, backgroundTasks: false, backoff: () => 60_000 }),
      /No platform can start[\s\S]*refusing to bind 0\.0\.0\.0 without API_SERVER_KEY/,
    );
  });
});
