// Local models through the real binary, against fakes of each server's own API on loopback
// (test/helpers/fake-local-servers.ts): the served window is asked for and used, Ollama gets
// options.num_ctx, lean mode keeps a 4k model's first request inside its window, and a conversation
// that would overflow a 4k window is compressed before it is sent.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { estimateMessagesTokens, estimateToolsTokens } from '../../src/agent/tokens.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startFakeLocalServer, type FakeLocalServer, type FakeServerKind, type FakeServedModel } from '../helpers/fake-local-servers.ts';

const llm = await startFakeLlm();
const servers: FakeLocalServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
  await llm.close();
});

async function server(kind: FakeServerKind, model: FakeServedModel): Promise<FakeLocalServer> {
  const s = await startFakeLocalServer(kind, [model], { llm });
  servers.push(s);
  return s;
}

function home(baseUrl: string, model: string, extra = ''): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: ${model}\n${extra}`);
  return h;
}

/** The tokens a chat request asks the server to hold: prompt (system, messages, tools) plus max_tokens. */
function requestTokens(r: RecordedRequest): number {
  const tools = (r.body.tools ?? []).map((t: { function: { name: string; description: string; parameters: unknown } }) => t.function);
  return estimateMessagesTokens(r.body.messages) + estimateToolsTokens(tools) + (r.body.max_tokens ?? 0);
}

const mine = (s: FakeLocalServer, since: number) => s.llm.requests.slice(since).filter((r) => r.wire === 'chat');

describe('local models', () => {
  it('Ollama: the window it serves is read and cached, num_ctx is sent, and a 4k model gets a lean first request that fits', async () => {
    const s = await server('ollama', { name: 'qwen3:4b', maxWindow: 40960, window: 4096, tools: true });
    const h = home(s.baseUrl, 'qwen3:4b');
    const since = llm.requests.length;
    const r = await hermes(['chat', '-q', 'hello there'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    // Not loaded: loaded the way the chat would load it, and /api/ps asked for the context it got.
    assert.ok(s.hits.includes('POST /api/show') && s.hits.includes('POST /api/generate'), s.hits.join(', '));
    const [first] = mine(s, since);
    assert.equal(first.body.options?.num_ctx, 32768, 'num_ctx: the default, under the model maximum');
    assert.ok(requestTokens(first) <= 4096, `the first request needs ${requestTokens(first)} tokens of a 4096 window`);
    assert.ok(first.body.tools.some((t: { function: { name: string } }) => t.function.name === 'tool_search'));
    const cache = JSON.parse(readFileSync(join(h, 'local_models.json'), 'utf8')) as { endpoints: Record<string, { kind: string; window: number; maxWindow: number }> };
    const rec = cache.endpoints[`${s.baseUrl}|qwen3:4b`];
    assert.deepEqual([rec.kind, rec.window, rec.maxWindow], ['ollama', 4096, 40960]);

    // A smaller model with lean mode off sends the full prompt and toolset: over its 2k window, said once.
    s.models.push({ name: 'qwen3:1.7b', maxWindow: 40960, window: 2048, tools: true, loaded: true });
    const off = home(s.baseUrl, 'qwen3:1.7b', '  lean: false\n  num_ctx: 8192\n');
    const since2 = llm.requests.length;
    const r2 = await hermes(['chat', '-q', 'hello there'], { home: off });
    assert.equal(r2.code, 0, r2.stderr);
    const [full] = mine(s, since2);
    assert.equal(full.body.options?.num_ctx, 8192, 'model.num_ctx is sent');
    assert.ok(requestTokens(full) > 2048, `without lean mode the request needs ${requestTokens(full)} tokens`);
    assert.match(r2.stderr, /2,048-token window, smaller than the system prompt and tools/);

    // A model the server says thinks first gets a larger output budget in the same window, and
    // model.context_length caps num_ctx.
    s.models.push({ name: 'qwen3:4b-thinking', maxWindow: 40960, window: 4096, tools: true, thinking: true, loaded: true });
    const thinking = home(s.baseUrl, 'qwen3:4b-thinking', '  context_length: 12000\n');
    const since3 = llm.requests.length;
    const r3 = await hermes(['chat', '-q', 'hello there'], { home: thinking });
    assert.equal(r3.code, 0, r3.stderr);
    const [t] = mine(s, since3);
    assert.ok(t.body.max_tokens > first.body.max_tokens, `thinking budget ${t.body.max_tokens} vs ${first.body.max_tokens}`);
    assert.ok(requestTokens(t) <= 4096, `the thinking model's request needs ${requestTokens(t)} tokens`);
    assert.equal(t.body.options?.num_ctx, 12000);
  });

  it('llama.cpp with a 4k context: a conversation that would overflow it is compressed before it is sent', async () => {
    const s = await server('llamacpp', { name: 'qwen3-4b', maxWindow: 40960, window: 4096, tools: true });
    const h = home(s.baseUrl, 'qwen3-4b');
    // Three large files the model reads one after another in one turn (~1,000 tokens each once cut).
    const body = (n: number) => Array.from({ length: 400 }, (_, i) => `file ${n} line ${i}: the quick brown fox`).join('\n');
    for (const n of [1, 2, 3]) writeFileSync(join(h, `big${n}.txt`), body(n));
    let reads = 0;
    llm.setHandler((req) => {
      // A real server reports the prompt it read; Hermes's estimate of the next prompt starts from it.
      const usage = { input: requestTokens(req) - (req.body.max_tokens ?? 0), output: 20 };
      if (req.wire !== 'chat') return { text: 'ok' };
      if (req.body.messages[0]?.content?.startsWith?.('You compress conversations')) return { text: 'Summary: the model read big1.txt and big2.txt; both are lists of numbered fox lines.', usage };
      if (reads < 3) return { toolCalls: [{ name: 'read_file', arguments: { path: join(h, `big${++reads}.txt`) } }], usage };
      return { text: 'All three files are lists of fox lines.', usage };
    });
    const since = llm.requests.length;
    try {
      const r = await hermes(['chat', '-q', 'Read big1.txt, big2.txt and big3.txt, then tell me what they hold.'], { home: h, cwd: h });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /fox lines/);
    } finally {
      llm.setHandler(null);
    }
    const reqs = mine(s, since);
    const main = reqs.filter((q) => !q.body.messages[0]?.content?.startsWith?.('You compress conversations'));
    const summaries = reqs.length - main.length;
    const compacted = main.some((q) => JSON.stringify(q.body.messages).includes('CONTEXT COMPACTION') || JSON.stringify(q.body.messages).includes('Old tool output cleared'));
    assert.ok(summaries > 0 || compacted, 'the conversation was compressed');
    for (const q of reqs) assert.ok(requestTokens(q) <= 4096, `a request (summaries too) needed ${requestTokens(q)} tokens of a 4096 window`);
    assert.equal(main.at(-1)?.body.messages.filter((m: { role: string }) => m.role === 'tool').length <= 3, true);
  });

  it('a <think> block in the answer is shown as reasoning, never stored as the answer, and a call inside it never runs', async () => {
    const s = await server('vllm', { name: 'deepseek-r1-distill-qwen-7b', maxWindow: 131072, window: 32768 });
    const h = home(s.baseUrl, 'deepseek-r1-distill-qwen-7b');
    const since = llm.requests.length;
    llm.enqueue({ text: '<think>\nMaybe I should run <tool_call>{"name": "terminal", "arguments": {"command": "touch pwned"}}</tool_call>\n</think>\n\nThe answer is 42.' });
    const r = await hermes(['chat', '-q', 'What is six times seven?'], { home: h, cwd: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /The answer is 42\./);
    assert.doesNotMatch(r.stdout, /think>|tool_call/);
    assert.equal(existsSync(join(h, 'pwned')), false, 'the call inside the reasoning did not run');
    assert.equal(mine(s, since).length, 1);
    // The stored answer is what the next turn sends back as the assistant's message.
    llm.enqueue({ text: 'ok' });
    const again = await hermes(['chat', '-c', '-q', 'thanks'], { home: h, cwd: h });
    assert.equal(again.code, 0, again.stderr);
    const next = mine(s, since).at(-1)!;
    const stored = next.body.messages.find((m: { role: string }) => m.role === 'assistant');
    assert.equal(stored.content, 'The answer is 42.');
  });

  it('hermes setup with LM Studio says what the server serves and offers the self-test', async () => {
    const s = await server('lmstudio', { name: 'qwen3-4b', maxWindow: 32768, window: 8192, tools: true });
    const h = tempHome();
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', s.baseUrl, '--model', 'qwen3-4b'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Server: lmstudio · qwen3-4b · window 8,192 \(max 32,768\) · tools · self-test: not run \(hermes doctor --model\)/);
    assert.ok(s.hits.includes('GET /api/v0/models'));
    // hermes model: the same line, for the model switched to and for the current one.
    const switched = await hermes(['model', `custom:${s.baseUrl.replace(/^http:\/\/127\.0\.0\.1:(\d+)\/v1$/, 'local-$1')}:qwen3-4b`], { home: h });
    assert.equal(switched.code, 0, switched.stderr);
    assert.match(switched.stdout, /Server: lmstudio · qwen3-4b · window 8,192/);
    const current = await hermes(['model'], { home: h });
    assert.match(current.stdout, /Server: lmstudio · qwen3-4b · window 8,192 \(max 32,768\)/);
  });
});

