// `hermes doctor --model`: the tool-calling self-test through the real binary, against a fake Ollama
// (its own API for the probe, the fake LLM for the chat) playing three models: one that returns tool
// calls in the API's field, one that writes them as text (Hermes/Qwen <tool_call> tags), and one that
// cannot call tools at all. Each is classified, the suggested settings printed, and --apply writes them.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startDashboardProcess } from '../helpers/dashboard.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import type { FakeReply, FakeToolCall, RecordedRequest } from '../helpers/fake-llm.ts';
import { startFakeLocalServer } from '../helpers/fake-local-servers.ts';

const server = await startFakeLocalServer('ollama', [{ name: 'qwen3:8b', maxWindow: 40960, window: 32768, tools: true, loaded: true }]);
after(() => server.close());

/** What a capable model calls for each of the self-test's prompts (read from the request, as a model would). */
function intended(req: RecordedRequest): FakeToolCall[] | string {
  const msgs = req.body.messages as { role: string; content: string }[];
  const last = msgs.at(-1)!;
  if (last.role === 'tool') return 'It is -7 °C with snow in Oslo.';
  const p = last.content;
  if (/capital of France/.test(p)) return 'Paris';
  if (/Paris and in Tokyo/.test(p)) return [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Tokyo' } }];
  if (/weather in Rome/.test(p)) return [{ name: 'get_weather', arguments: { city: 'Rome' } }, { name: 'add', arguments: { a: 2, b: 3 } }];
  if (/weather in Paris/.test(p)) return [{ name: 'get_weather', arguments: { city: 'Paris' } }];
  if (/add 17 and 25/.test(p)) return [{ name: 'add', arguments: { a: 17, b: 25 } }];
  if (/3 miles/.test(p)) return [{ name: 'convert_units', arguments: { value: 3, from: 'mi', to: 'km' } }];
  if (/Design review/.test(p)) {
    return [{ name: 'create_event', arguments: { title: 'Design review', when: { date: '2026-03-14', time: '15:30' }, attendees: [{ name: 'Ana', email: 'ana@example.com' }, { name: 'Bo', email: 'bo@example.com' }] } }];
  }
  if (/Tag note 42/.test(p)) return [{ name: 'tag_note', arguments: { note_id: 42, tags: ['urgent', 'work', 'q3'] } }];
  if (/thermostat/.test(p)) return [{ name: 'set_thermostat', arguments: { mode: 'cool', temperature: 21 } }];
  return 'I do not know.';
}

const models: Record<string, (req: RecordedRequest) => FakeReply> = {
  native: (req) => {
    const x = intended(req);
    return typeof x === 'string' ? { text: x } : { toolCalls: x };
  },
  text: (req) => {
    const x = intended(req);
    return { text: typeof x === 'string' ? x : x.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`).join('\n') };
  },
  broken: () => ({ text: 'Sure! I would check that for you, but I cannot do that.' }),
};

function home(): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${server.baseUrl}\n  default: qwen3:8b\n`);
  return h;
}

async function doctor(model: keyof typeof models, args: string[] = []) {
  server.llm.setHandler(models[model]);
  const h = home();
  try {
    return { h, ...(await hermes(['doctor', '--model', ...args], { home: h })) };
  } finally {
    server.llm.setHandler(null);
  }
}

const verdictIn = (h: string) => {
  const all = JSON.parse(readFileSync(join(h, 'local_models.json'), 'utf8')) as { endpoints: Record<string, { selftest?: { verdict: string } }> };
  return all.endpoints[`${server.baseUrl}|qwen3:8b`]?.selftest?.verdict;
};

describe('hermes doctor --model', () => {
  it('a model that returns native tool calls: verdict native, nothing to change', async () => {
    const r = await doctor('native');
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /Server: ollama; window 32,768 tokens \(model maximum 40,960\); tools/);
    assert.equal((r.stdout.match(/✓/g) ?? []).length, 10, r.stdout);
    assert.match(r.stdout, /Verdict: native/);
    assert.match(r.stdout, /Settings: nothing to change/);
    assert.equal(verdictIn(r.h), 'native');
  });

  it('a model that writes its calls as text: verdict text, the parser suggested, and written with --apply', async () => {
    const r = await doctor('text');
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /written as text \(hermes\)/);
    assert.match(r.stdout, /Verdict: text: .* \(hermes\)/);
    assert.match(r.stdout, /hermes config set model\.tool_call_parser hermes/);
    assert.doesNotMatch(readFileSync(join(r.h, 'config.yaml'), 'utf8'), /tool_call_parser/, 'nothing written without --apply');
    assert.equal(verdictIn(r.h), 'text');

    // hermes status and the dashboard show the endpoint: served window, capabilities, verdict.
    const st = await hermes(['status'], { home: r.h });
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /Local\s+ollama · qwen3:8b · window 32,768 \(max 40,960\) · tools · self-test: text \(hermes\), 10\/10 passed/);
    const js = JSON.parse((await hermes(['status', '--json'], { home: r.h })).stdout) as { local_models: { model: string; window: number; selftest: { verdict: string } }[] };
    assert.deepEqual(js.local_models.map((l) => [l.model, l.window, l.selftest.verdict]), [['qwen3:8b', 32768, 'text']]);
    const dash = await startDashboardProcess(r.h);
    try {
      const res = await fetch(`${dash.origin}/api/status`, { headers: { authorization: `Bearer ${dash.token}` } });
      const body = (await res.json()) as { localModels: { model: string; line: string }[] };
      assert.match(body.localModels[0].line, /window 32,768 .* self-test: text/);
    } finally {
      await dash.stop();
    }

    const applied = await doctor('text', ['--apply']);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.match(readFileSync(join(applied.h, 'config.yaml'), 'utf8'), /tool_call_parser: hermes/);
  });

  it('a model that cannot call tools: verdict failing, lean mode suggested, exit 1', async () => {
    const r = await doctor('broken');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /✗ +1\. one tool +answered without a call/);
    assert.match(r.stdout, /Verdict: failing/);
    assert.match(r.stdout, /hermes config set model\.lean true/);
    assert.equal(verdictIn(r.h), 'failing');
  });
});

const wizard = gatedSuite(tmuxAvailable());
wizard.describe('hermes setup (wizard) with a local server', () => {
  wizard.it('shows what the server serves, offers the self-test, and saves its suggestion only on a yes', async () => {
    server.llm.setHandler(models.text);
    const h = tempHome();
    const t = startHermes(['setup'], { home: h, cols: 120, rows: 45 });
    try {
      await t.waitFor(/Which inference provider\? \(\d+; type to filter\)/);
      t.type('custom');
      await t.waitFor(/\(1 match\)\n│  ● Custom endpoint/);
      t.keys('Enter');
      await t.waitFor(/Base URL of the OpenAI-compatible endpoint/);
      t.type(server.baseUrl);
      t.keys('Enter');
      await t.waitFor(/A name for this endpoint/);
      t.keys('Enter');
      await t.waitFor(/API key for/);
      t.keys('Enter');
      await t.waitFor(/1 model\(s\) available/);
      t.keys('Enter');
      await t.waitFor(/Server: ollama · qwen3:8b · window 32,768 \(max 40,960\) · tools/);
      await t.waitFor(/Run the tool-calling self-test now\?/);
      t.keys('Left');
      t.keys('Enter');
      await t.waitFor(/Self-test: text \(hermes\), 10\/10 passed/, { timeoutMs: 60_000 });
      await t.waitFor(/Save the suggested settings \(model\.tool_call_parser: hermes\) to config\.yaml\?/);
      t.keys('Enter');
      await t.waitFor(/Saved model\.tool_call_parser: hermes/);
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
      server.llm.setHandler(null);
    }
    assert.match(readFileSync(join(h, 'config.yaml'), 'utf8'), /tool_call_parser: hermes/);
  });
});
