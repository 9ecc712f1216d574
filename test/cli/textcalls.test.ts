// `hermes chat -q` with a local model that writes its tool calls as text: the fake LLM answers in
// each format (streamed in small pieces, as a local server does), the tools run, their results go
// back as tool messages, and the raw call text never reaches stdout.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function homeWith(extra = ''): { home: string; work: string } {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: qwen2.5-7b-instruct\n${extra}`);
  const work = join(home, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4417\n');
  return { home, work };
}

/** The messages of a recorded chat request. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const messagesOf = (r: RecordedRequest): any[] => r.body.messages;

const RAW = /<tool_call>|<\/tool_call>|<\|python_tag\|>|\[TOOL_CALLS\]|tool▁call|"arguments"|"parameters"|read_file\(/;

const FORMATS: { name: string; call: string }[] = [
  {
    name: 'Hermes/Qwen <tool_call>',
    call:
      'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "terminal", "arguments": {"command": "echo $((4400+17))"}}\n</tool_call>',
  },
  {
    name: 'Llama 3.x <|python_tag|>',
    call: 'Let me look.<|python_tag|>{"name": "read_file", "parameters": {"path": "notes.txt"}}; {"name": "terminal", "parameters": {"command": "echo $((4400+17))"}}<|eom_id|>',
  },
  {
    name: 'Llama 3.2 pythonic',
    call: '[read_file(path="notes.txt"), terminal(command="echo $((4400+17))")]',
  },
  {
    name: 'Mistral [TOOL_CALLS]',
    call: 'Let me look.[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "a1b2c3d4e"}, {"name": "terminal", "arguments": {"command": "echo $((4400+17))"}, "id": "f5g6h7i8j"}]',
  },
  {
    name: 'DeepSeek V3/R1 tokens',
    call:
      'Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{"path": "notes.txt"}\n```<｜tool▁call▁end｜>\n' +
      '<｜tool▁call▁begin｜>function<｜tool▁sep｜>terminal\n```json\n{"command": "echo $((4400+17))"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  {
    name: 'bare JSON',
    call: '[{"name": "read_file", "arguments": {"path": "notes.txt"}}, {"name": "terminal", "arguments": {"command": "echo $((4400+17))"}}]',
  },
];

describe('hermes chat -q with tool calls written as text', () => {
  for (const f of FORMATS) {
    it(`runs ${f.name} calls like structured ones`, async () => {
      const { home, work } = homeWith();
      const start = fake.requests.length;
      fake.enqueue({ text: f.call }, { text: 'The code is 4417, and the shell agrees.' });
      const r = await hermes(['chat', '-q', 'what is the code?'], { home, cwd: work });
      assert.equal(r.code, 0, r.stderr);
      // Streamed stdout: the prose around the calls and the final answer, never the call text.
      assert.doesNotMatch(r.stdout, RAW);
      assert.match(r.stdout, /The code is 4417, and the shell agrees\.\n$/);
      if (f.call.startsWith('Let me look.')) assert.match(r.stdout, /^Let me look\.\n/);
      assert.match(r.stderr, /┊ 📖 read notes\.txt/);
      assert.match(r.stderr, /┊ 💻 \$ echo/);
      // The results went back as tool messages answering structured calls.
      const reqs = fake.requests.slice(start);
      assert.equal(reqs.length, 2);
      const msgs = messagesOf(reqs[1]);
      const assistant = msgs.find((m) => m.role === 'assistant');
      assert.deepEqual(
        assistant.tool_calls.map((c: { function: { name: string } }) => c.function.name),
        ['read_file', 'terminal'],
      );
      const results = msgs.filter((m) => m.role === 'tool');
      assert.deepEqual(
        results.map((m) => m.tool_call_id),
        assistant.tool_calls.map((c: { id: string }) => c.id),
      );
      assert.match(JSON.stringify(results), /the launch code is 4417/);
      assert.match(JSON.stringify(results), /4417\\\\n|4417\\n/);
      // state.db holds them as ordinary tool calls.
      const db = new DatabaseSync(join(home, 'state.db'), { readOnly: true });
      try {
        const rows = db.prepare('SELECT role, content, tool_calls, tool_call_id FROM messages ORDER BY id').all() as {
          role: string;
          content: string | null;
          tool_calls: string | null;
          tool_call_id: string | null;
        }[];
        assert.deepEqual(
          rows.map((x) => x.role),
          ['user', 'assistant', 'tool', 'tool', 'assistant'],
        );
        const stored = JSON.parse(rows[1].tool_calls!) as { id: string; function: { name: string; arguments: string } }[];
        assert.deepEqual(JSON.parse(stored[0].function.arguments), { path: 'notes.txt' });
        assert.doesNotMatch(rows[1].content ?? '', RAW);
        assert.equal(rows[2].tool_call_id, stored[0].id);
      } finally {
        db.close();
      }
    });
  }

  it('does not run a call shown as an example in a code fence', async () => {
    const { home, work } = homeWith();
    const answer = 'A Hermes model calls a tool like this:\n\n```\n<tool_call>\n{"name": "terminal", "arguments": {"command": "touch pwned"}}\n</tool_call>\n```\n\nThe runtime runs it.';
    const start = fake.requests.length;
    fake.enqueue({ text: answer });
    const r = await hermes(['chat', '-q', 'how do tool calls look?'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${answer}\n`);
    assert.equal(fake.requests.length - start, 1);
    assert.ok(!existsSync(join(work, 'pwned')));
  });

  it('reports an unknown tool to the model instead of running anything', async () => {
    const { home, work } = homeWith();
    const start = fake.requests.length;
    fake.enqueue({ text: '<tool_call>\n{"name": "launch_rockets", "arguments": {"count": 3}}\n</tool_call>' }, { text: 'I have no rocket tool.' });
    const r = await hermes(['chat', '-q', 'launch'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'I have no rocket tool.\n');
    const results = messagesOf(fake.requests[start + 1]).filter((m) => m.role === 'tool');
    assert.equal(results.length, 1);
    assert.match(results[0].content, /Unknown tool \\"launch_rockets\\"\. Available tools: .*terminal/);
  });

  it('still asks before a dangerous command (denied with no terminal to ask on)', async () => {
    const { home, work } = homeWith();
    const victim = join(home, 'victim');
    mkdirSync(join(victim, 'sub'), { recursive: true });
    writeFileSync(join(victim, 'sub', 'keep.txt'), 'precious');
    const start = fake.requests.length;
    fake.enqueue({ text: `<tool_call>\n{"name": "terminal", "arguments": {"command": "rm -rf ${victim}/sub"}}\n</tool_call>` }, { text: 'I was not allowed to delete it.' });
    const r = await hermes(['chat', '-q', 'clean up'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(victim, 'sub', 'keep.txt')), 'the file system is untouched');
    const result = JSON.stringify(messagesOf(fake.requests[start + 1]).filter((m) => m.role === 'tool'));
    assert.match(result, /needs approval/);
    assert.equal(r.stdout, 'I was not allowed to delete it.\n');
  });

  it('with model.tool_call_parser: none, prints the text and says how to turn parsing on', async () => {
    const { home, work } = homeWith('  tool_call_parser: none\n');
    const text = '<tool_call>\n{"name": "terminal", "arguments": {"command": "touch made"}}\n</tool_call>';
    const start = fake.requests.length;
    fake.enqueue({ text });
    const r = await hermes(['chat', '-q', 'make it'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${text}\n`);
    assert.match(r.stderr, /tool_call_parser is none/);
    assert.equal(fake.requests.length - start, 1);
    assert.ok(!existsSync(join(work, 'made')));
  });

  it('warns about an unknown parser name and falls back to auto', async () => {
    const { home, work } = homeWith('  tool_call_parser: qwen9\n');
    fake.enqueue({ text: '<tool_call>{"name": "terminal", "arguments": {"command": "echo hi"}}</tool_call>' }, { text: 'Said hi.' });
    const r = await hermes(['chat', '-q', 'hi'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /model\.tool_call_parser: unknown parser "qwen9" \(use auto, none, hermes, llama3, .*\); using auto\./);
    assert.equal(r.stdout, 'Said hi.\n');
  });
});

describe('hermes doctor and setup notice text calls', () => {
  const probeCall = '<tool_call>\n{"name": "get_current_time", "arguments": {"timezone": "UTC"}}\n</tool_call>';

  it('doctor says when the server returns calls in the API field', async () => {
    const { home } = homeWith();
    const start = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'get_current_time', arguments: { timezone: 'UTC' } }] });
    const r = await hermes(['doctor'], { home });
    assert.match(r.stdout, /✓ Tool calls\s+qwen2\.5-7b-instruct returns tool calls in the API's field/);
    const probe = fake.requests.slice(start).find((q) => q.wire === 'chat');
    assert.equal(probe?.body.tools?.[0]?.function?.name, 'get_current_time');
  });

  it('doctor notes text calls and suggests the setting', async () => {
    const { home } = homeWith();
    fake.enqueue({ text: probeCall });
    const r = await hermes(['doctor'], { home });
    assert.match(r.stdout, /! Tool calls\s+qwen2\.5-7b-instruct writes tool calls as text \(hermes format\)\n/);
    assert.match(
      r.stdout,
      /→ Hermes reads them \(model\.tool_call_parser: auto\); to pin the format: `hermes config set model\.tool_call_parser hermes`, or let the server parse them \(vLLM: --enable-auto-tool-choice --tool-call-parser hermes; llama\.cpp: --jinja\)\./,
    );
    // With parsing off, the advice is to turn it on.
    const off = homeWith('  tool_call_parser: none\n');
    fake.enqueue({ text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_current_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>' });
    const r2 = await hermes(['doctor'], { home: off.home });
    assert.match(r2.stdout, /! Tool calls\s+.* writes tool calls as text \(deepseek format\)\n\s+→ Hermes does not run them while model\.tool_call_parser is none: `hermes config set model\.tool_call_parser deepseek` \(or auto\)\./);
  });

  it('setup --non-interactive notes a local server that writes calls as text', async () => {
    const home = tempHome();
    fake.enqueue({ text: 'OK' }, { text: '[TOOL_CALLS]get_current_time[ARGS]{"timezone": "UTC"}' });
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', fake.openaiBaseUrl, '--model', 'mistral-small'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /✓ mistral-small via custom answered/);
    assert.match(r.stdout, /! mistral-small writes tool calls as text \(mistral format\)\. Hermes reads them \(model\.tool_call_parser: auto\); to pin the format: `hermes config set model\.tool_call_parser mistral`/);
  });
});
