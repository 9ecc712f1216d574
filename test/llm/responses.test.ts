import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildResponsesBody, createResponsesStream, responsesBodyBytes } from '../../src/llm/responses.ts';
import type { Message } from '../../src/llm/types.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { TOOL, collect, request, runtime } from './_util.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

/** Runs `fn` against a one-off server that answers every request with these SSE events (then ends). */
async function withEvents(events: [string, Record<string, unknown>][], fn: (baseUrl: string) => Promise<void>): Promise<void> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join(''));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const rt = (over: Record<string, unknown> = {}) =>
  runtime({ baseUrl: fake.openaiBaseUrl, provider: 'openai-codex', apiMode: 'codex_responses', model: 'gpt-5-codex', isCustom: false, ...over });

describe('responses adapter (real openai SDK responses.create → fake)', () => {
  test('streams reasoning summary, text and tool calls; keeps encrypted reasoning items; usage incl. cached', async () => {
    fake.enqueue({
      reasoning: 'Need to inspect the repo.',
      text: 'Looking.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'README.md' }, id: 'call_r1' },
        { name: 'read_file', arguments: { path: 'package.json' }, id: 'call_r2' },
      ],
      usage: { input: 50, cacheRead: 400, output: 60, reasoning: 25 },
    });
    const n = fake.requests.length;
    const events = await collect(createResponsesStream(rt())(request({ tools: [TOOL], sessionId: 'sess-1' })));
    const done = events.at(-1);
    assert.ok(done?.type === 'done');
    if (done?.type !== 'done') return;
    const r = done.result;
    assert.equal(r.stopReason, 'tool_calls');
    assert.equal(r.message.content, 'Looking.');
    assert.equal(r.message.reasoning, 'Need to inspect the repo.');
    assert.equal(r.message.codex_reasoning_items?.length, 1);
    const item = r.message.codex_reasoning_items?.[0] as Record<string, unknown>;
    assert.equal(item.type, 'reasoning');
    assert.match(String(item.encrypted_content), /^enc_/);
    assert.deepEqual(
      r.message.tool_calls?.map((t) => [t.id, t.function.name, JSON.parse(t.function.arguments)]),
      [
        ['call_r1', 'read_file', { path: 'README.md' }],
        ['call_r2', 'read_file', { path: 'package.json' }],
      ],
    );
    assert.deepEqual(r.usage, { input_tokens: 50, output_tokens: 60, cache_read_tokens: 400, cache_write_tokens: 0, reasoning_tokens: 25 });
    assert.ok(events.filter((e) => e.type === 'tool_call_delta' && e.index === 0).length >= 2);

    const body = fake.requests[n].body;
    assert.equal(fake.requests[n].wire, 'responses');
    assert.equal(body.instructions, 'You are a test.');
    assert.equal(body.store, false);
    assert.deepEqual(body.include, ['reasoning.encrypted_content']);
    assert.equal(body.stream, true);
    assert.equal(body.prompt_cache_key, 'sess-1');
    assert.deepEqual(body.tools, [{ type: 'function', name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters, strict: false }]);
    assert.deepEqual(body.input, [{ role: 'user', content: 'hi' }]);
  });

  test('reasoning items are replayed before their message; tool calls and outputs become items', async () => {
    fake.enqueue({ reasoning: 'thinking about it', toolCalls: [{ name: 'read_file', arguments: { path: 'a' }, id: 'call_x' }] });
    const s = createResponsesStream(rt());
    const first = await s(request({ tools: [TOOL], reasoningEffort: 'high' })).result();
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://img.example/x.png' } }] },
      first.message,
      { role: 'tool', tool_call_id: 'call_x', content: 'file a' },
    ];
    const n = fake.requests.length;
    await s(request({ tools: [TOOL], messages: history, reasoningEffort: 'high' })).result();
    const body = fake.requests[n].body;
    assert.deepEqual(body.reasoning, { effort: 'high', summary: 'auto' });
    assert.deepEqual(body.input[0], {
      role: 'user',
      content: [
        { type: 'input_text', text: 'look' },
        { type: 'input_image', image_url: 'https://img.example/x.png', detail: 'auto' },
      ],
    });
    assert.equal(body.input[1].type, 'reasoning');
    assert.deepEqual(body.input[1], first.message.codex_reasoning_items?.[0]);
    assert.deepEqual(body.input[2], { type: 'function_call', call_id: 'call_x', name: 'read_file', arguments: '{"path":"a"}' });
    assert.deepEqual(body.input[3], { type: 'function_call_output', call_id: 'call_x', output: 'file a' });
  });

  test('the Codex backend gets no sampling params; other Responses endpoints do', async () => {
    let n = fake.requests.length;
    await createResponsesStream(rt({ quirks: { noSamplingParams: true } }))(request({ maxTokens: 100, temperature: 0.3 })).result();
    assert.ok(!('max_output_tokens' in fake.requests[n].body) && !('temperature' in fake.requests[n].body));
    n = fake.requests.length;
    await createResponsesStream(rt())(request({ maxTokens: 100 })).result();
    assert.equal(fake.requests[n].body.max_output_tokens, 100);
  });

  test('429 with Retry-After → rate_limit with retryAfterMs and the provider message', async () => {
    fake.enqueue({ status: 429, error: 'You exceeded your current quota window', retryAfter: 3 });
    const r = await createResponsesStream(rt())(request()).result();
    assert.equal(r.error?.kind, 'rate_limit');
    assert.equal(r.error?.retryAfterMs, 3000);
    assert.equal(r.error?.message, 'You exceeded your current quota window');
  });

  test('response.failed mid-stream → the error the provider named (rate limit), partial text kept', async () => {
    await withEvents(
      [
        ['response.created', { response: { id: 'r1', status: 'in_progress', output: [] } }],
        ['response.output_text.delta', { item_id: 'm1', output_index: 0, content_index: 0, delta: 'Partial' }],
        ['response.failed', { response: { id: 'r1', status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Usage limit reached for this plan' } } }],
      ],
      async (base) => {
        const r = await createResponsesStream(runtime({ baseUrl: base, apiMode: 'codex_responses' }))(request()).result();
        assert.equal(r.stopReason, 'error');
        assert.equal(r.error?.kind, 'rate_limit');
        assert.equal(r.error?.message, 'Usage limit reached for this plan');
        assert.equal(r.message.content, 'Partial');
      },
    );
  });

  test('an error event mid-stream → the provider error with its message, partial text kept, nothing after it read', async () => {
    await withEvents(
      [
        ['response.created', { response: { id: 'r1', status: 'in_progress', output: [] } }],
        ['response.output_text.delta', { item_id: 'm1', output_index: 0, content_index: 0, delta: 'Half' }],
        ['error', { code: 'server_error', message: 'The server had an error processing your request' }],
        ['response.output_text.delta', { item_id: 'm1', output_index: 0, content_index: 0, delta: ' never' }],
        ['response.completed', { response: { id: 'r1', status: 'completed', output: [], usage: null } }],
      ],
      async (base) => {
        const r = await createResponsesStream(runtime({ baseUrl: base, apiMode: 'codex_responses' }))(request()).result();
        assert.equal(r.stopReason, 'error');
        assert.equal(r.error?.message, 'The server had an error processing your request');
        assert.equal(r.message.content, 'Half');
      },
    );
  });

  test('malformed event JSON → an error, not a silent end', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"ok"}\n\ndata: {not json\n\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const r = await createResponsesStream(runtime({ baseUrl: base, apiMode: 'codex_responses' }))(request()).result();
      assert.equal(r.stopReason, 'error');
      assert.match(r.error?.message ?? '', /malformed event/);
      assert.equal(r.error?.fault, 'malformed');
      assert.equal(r.message.content, 'ok');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('items only in output_item.done (no deltas): text, reasoning summary and arguments still land; incomplete → length', async () => {
    await withEvents(
      [
        ['response.output_item.done', { output_index: 0, item: { type: 'reasoning', id: 'rs1', summary: [{ type: 'summary_text', text: 'one' }, { type: 'summary_text', text: 'two' }], encrypted_content: 'enc_1' } }],
        ['response.output_item.done', { output_index: 1, item: { type: 'message', id: 'm1', role: 'assistant', content: [{ type: 'output_text', text: 'Whole ' }, { type: 'output_text', text: 'text' }] } }],
        ['response.output_item.done', { output_index: 2, item: { type: 'function_call', id: 'fc1', call_id: 'call_1', name: 'read_file', arguments: '{"path":"x"}' } }],
        ['response.incomplete', { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 10, output_tokens: 5 } } }],
      ],
      async (base) => {
        const r = await createResponsesStream(runtime({ baseUrl: base, apiMode: 'codex_responses' }))(request({ tools: [TOOL] })).result();
        assert.equal(r.stopReason, 'length');
        assert.equal(r.message.content, 'Whole text');
        assert.equal(r.message.reasoning, 'one\n\ntwo');
        assert.deepEqual(r.message.tool_calls?.map((t) => [t.id, t.function.name, t.function.arguments]), [['call_1', 'read_file', '{"path":"x"}']]);
        assert.equal(r.usage?.input_tokens, 10);
        assert.equal(r.usage?.output_tokens, 5);
      },
    );
  });

  test('abort while reasoning streams → stopReason aborted, the text after it never read; an already-aborted signal sends nothing', async () => {
    fake.enqueue({ reasoning: 'r'.repeat(400), text: 'never shown', chunkDelayMs: 5 });
    const ac = new AbortController();
    const seen: string[] = [];
    const s = createResponsesStream(rt())(request({ signal: ac.signal }));
    for await (const e of s) {
      seen.push(e.type);
      if (e.type === 'reasoning_delta' && seen.filter((t) => t === 'reasoning_delta').length === 2) ac.abort();
    }
    const r = await s.result();
    assert.deepEqual([r.stopReason, r.error?.kind], ['aborted', 'aborted']);
    assert.ok(!seen.includes('text_delta'), 'no text after the abort');
    assert.ok(seen.filter((t) => t === 'reasoning_delta').length < 50);
    const before = fake.requests.length;
    const again = await createResponsesStream(rt())(request({ signal: AbortSignal.abort() })).result();
    assert.equal(again.stopReason, 'aborted');
    assert.equal(fake.requests.length, before, 'no request sent');
  });

  test('a hung server is cut off by the stale-stream timeout (kind timeout)', async () => {
    fake.enqueue({ hang: true });
    const r = await createResponsesStream(rt(), { staleMs: 100 })(request()).result();
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'timeout');
  });

  test('a stream cut before response.completed → connection error', async () => {
    fake.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', cutAfterChunks: 6 });
    const r = await createResponsesStream(rt())(request()).result();
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'connection');
  });

  test('the body bytes are JSON.stringify(buildResponsesBody) exactly, memo or not, and follows a reassigned message field', () => {
    const r = rt({ quirks: {} });
    const tool = { ...TOOL, description: 'Read a file — any file' };
    const history: Message[] = [
      { role: 'system', content: 'extra rules' },
      { role: 'user', content: [{ type: 'text', text: 'look ✓' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } }] },
      { role: 'assistant', content: '', codex_reasoning_items: [{ type: 'reasoning', id: 'rs', encrypted_content: 'enc', summary: [] }, { type: 'other' }], tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '' } }] },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'line "1"\n' }] },
      { role: 'assistant', content: null },
      { role: 'assistant', content: 'done' },
    ];
    const memo = {};
    const reqs = [
      request({ messages: history, tools: [tool], sessionId: 's', reasoningEffort: 'max', maxTokens: 9, temperature: 0, serviceTier: 'priority' }),
      request({ messages: history, system: undefined }),
      request({ messages: [] }),
    ];
    for (const req of reqs) {
      const want = JSON.stringify(buildResponsesBody(r, req));
      assert.equal(responsesBodyBytes(r, req).toString(), want);
      assert.equal(responsesBodyBytes(r, req, memo).toString(), want);
      assert.equal(responsesBodyBytes(r, req, memo).toString(), want, 'from the memo');
    }
    history[5].content = 'changed';
    tool.description = 'Read one file';
    reqs[0].system = 'New instructions — changed';
    assert.equal(responsesBodyBytes(r, reqs[0], memo).toString(), JSON.stringify(buildResponsesBody(r, reqs[0])));
    assert.match(responsesBodyBytes(r, reqs[0], memo).toString(), /"New instructions — changed".*"changed".*"Read one file"/);
  });
});
