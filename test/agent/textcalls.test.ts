// Tool calls written as text: each format on outputs as local models write them, the `auto` rules,
// the streaming scanner's hold-back, and the loop running such calls like structured ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IterationBudget } from '../../src/agent/budget.ts';
import { runTurn, type TurnInput } from '../../src/agent/loop.ts';
import { textCalls } from '../../src/agent/textcalls/hook.ts';
import { RequestBroker } from '../../src/agent/requests.ts';
import { extractTextCalls, formatsFor, TextCallScanner, textCallScanner, type FoundCalls } from '../../src/agent/textcalls/index.ts';
import type { AgentEvent, AgentTool } from '../../src/agent/types.ts';
import { EventStream } from '../../src/llm/event-stream.ts';
import { emptyUsage, type Message, type ToolSchema } from '../../src/llm/types.ts';
import { scripted, type ScriptStep } from '../helpers/scripted-stream.ts';

const TOOLS: ToolSchema[] = [
  {
    name: 'terminal',
    description: 'Run a shell command',
    parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' }, background: { type: 'boolean' } }, required: ['command'] },
  },
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer' } }, required: ['path'] } },
  {
    name: 'write_file',
    description: 'Write a file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  { name: 'web_search', description: 'Search the web', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
];

const parse = (text: string, setting = 'auto') => extractTextCalls(text, setting, TOOLS);
const calls = (f: FoundCalls | null) => f?.calls.map((c) => ({ name: c.name, args: c.error ? `ERROR: ${c.error}` : JSON.parse(c.arguments) }));

describe('text calls: Hermes / Qwen <tool_call>', () => {
  it('reads a Hermes 3 call (arguments before name)', () => {
    const f = parse('<tool_call>\n{"arguments": {"command": "ls -la ~/projects"}, "name": "terminal"}\n</tool_call>');
    assert.equal(f?.format, 'hermes');
    assert.deepEqual(calls(f), [{ name: 'terminal', args: { command: 'ls -la ~/projects' } }]);
    assert.equal(f?.prose, '');
  });

  it('reads parallel calls from Qwen 2.5 after a sentence of prose', () => {
    const text =
      "I'll read the notes and count their lines.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>\n" +
      '<tool_call>\n{"name": "terminal", "arguments": {"command": "wc -l notes.txt"}}\n</tool_call>';
    const f = parse(text);
    assert.deepEqual(calls(f), [
      { name: 'read_file', args: { path: 'notes.txt' } },
      { name: 'terminal', args: { command: 'wc -l notes.txt' } },
    ]);
    assert.equal(f?.prose, "I'll read the notes and count their lines.");
  });

  it('ignores a call Qwen3 only thinks about, takes the one after </think>', () => {
    const text =
      '<think>\nThe user wants the date. I could emit <tool_call>{"name": "terminal", "arguments": {"command": "rm -rf /"}}</tool_call> but no.\n</think>\n\n' +
      '<tool_call>\n{"name": "terminal", "arguments": {"command": "date -u"}}\n</tool_call>';
    assert.deepEqual(calls(parse(text)), [{ name: 'terminal', args: { command: 'date -u' } }]);
  });

  it('reads Qwen3-Coder XML parameters, typed by the schema', () => {
    const text =
      'Creating the script.\n<tool_call>\n<function=write_file>\n<parameter=path>\nhello.py\n</parameter>\n<parameter=content>\nprint("hi")\n# 42\n</parameter>\n</function>\n</tool_call>\n' +
      '<tool_call>\n<function=terminal>\n<parameter=command>\npython3 hello.py\n</parameter>\n<parameter=timeout>\n30\n</parameter>\n</function>\n</tool_call>';
    assert.deepEqual(calls(parse(text)), [
      { name: 'write_file', args: { path: 'hello.py', content: 'print("hi")\n# 42' } },
      { name: 'terminal', args: { command: 'python3 hello.py', timeout: 30 } },
    ]);
  });

  it('reads a block whose closing tag was eaten by the stop token, and a fenced body', () => {
    assert.deepEqual(calls(parse('<tool_call>\n{"name": "terminal", "arguments": {"command": "date"}}')), [{ name: 'terminal', args: { command: 'date' } }]);
    assert.deepEqual(calls(parse('<tool_call>\n```json\n{"name": "read_file", "arguments": {"path": "a.md"}}\n```\n</tool_call>')), [{ name: 'read_file', args: { path: 'a.md' } }]);
  });

  it('turns broken JSON into a call the loop reports, keeping the name it can see', () => {
    const f = parse('<tool_call>\n{"name": "terminal", "arguments": {"command": "echo "hi""}}\n</tool_call>');
    assert.equal(f?.calls.length, 1);
    assert.equal(f?.calls[0].name, 'terminal');
    assert.match(f!.calls[0].error!, /not valid/);
  });

  it('drops a tool response the model goes on to imagine', () => {
    const f = parse('<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>\n<tool_response>\n{"output": "a b c"}\n</tool_response>\nThe folder holds a, b and c.');
    assert.equal(f?.calls.length, 1);
    assert.equal(f?.prose, '');
  });

  it('never reads examples in code fences, inline code, or a mention in prose', () => {
    const fenced = 'To call a tool, a Hermes model writes:\n\n```xml\n<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>\n```\n\nand the runtime executes it.';
    assert.equal(parse(fenced), null);
    assert.equal(parse('~~~\n<tool_call>{"name": "terminal", "arguments": {"command": "ls"}}</tool_call>\n~~~'), null);
    assert.equal(parse('Hermes models emit `<tool_call>{"name": "terminal", "arguments": {"command": "ls"}}</tool_call>` blocks.'), null);
    assert.equal(parse('I can wrap calls in <tool_call> tags if you prefer.'), null);
    // After the fence closes, a real call is read.
    assert.deepEqual(calls(parse(`${fenced}\n<tool_call>{"name": "terminal", "arguments": {"command": "pwd"}}</tool_call>`)), [{ name: 'terminal', args: { command: 'pwd' } }]);
  });
});

describe('text calls: Llama 3.x', () => {
  it('reads <|python_tag|> JSON, several joined by ";"', () => {
    assert.deepEqual(calls(parse('<|python_tag|>{"name": "web_search", "parameters": {"query": "weather in Paris"}}<|eom_id|>')), [
      { name: 'web_search', args: { query: 'weather in Paris' } },
    ]);
    const two = parse('<|python_tag|>{"name": "read_file", "parameters": {"path": "a.txt"}}; {"name": "read_file", "parameters": {"path": "b.txt"}}');
    assert.equal(two?.calls.length, 2);
  });

  it('reads a built-in tool call after <|python_tag|> (reported as unknown when not offered)', () => {
    assert.deepEqual(calls(parse('<|python_tag|>brave_search.call(query="Menlo Park weather")<|eom_id|>')), [{ name: 'brave_search', args: { query: 'Menlo Park weather' } }]);
  });

  it('reads the untagged JSON-function style and <function=…> tags', () => {
    assert.deepEqual(calls(parse('{"name": "terminal", "parameters": {"command": "uname -a"}}')), [{ name: 'terminal', args: { command: 'uname -a' } }]);
    assert.deepEqual(calls(parse('{"type": "function", "name": "read_file", "parameters": {"path": "/etc/hostname"}}<|eot_id|>')), [{ name: 'read_file', args: { path: '/etc/hostname' } }]);
    assert.deepEqual(calls(parse('<function=terminal>{"command": "ls /tmp"}</function>')), [{ name: 'terminal', args: { command: 'ls /tmp' } }]);
  });

  it('reads Llama 3.2 pythonic calls', () => {
    assert.deepEqual(calls(parse('[read_file(path="notes.txt"), terminal(command="date", timeout=10)]')), [
      { name: 'read_file', args: { path: 'notes.txt' } },
      { name: 'terminal', args: { command: 'date', timeout: 10 } },
    ]);
    assert.equal(parse('[Docs](https://example.com) explain it.'), null);
    assert.equal(parse('[see below] for details'), null);
  });
});

describe('text calls: Mistral [TOOL_CALLS]', () => {
  it('reads the JSON list (tokenizer v3–v7)', () => {
    const f = parse('[TOOL_CALLS] [{"name": "terminal", "arguments": {"command": "ls"}, "id": "a1b2c3d4e"}, {"name": "read_file", "arguments": {"path": "x"}, "id": "f5g6h7i8j"}]</s>');
    assert.deepEqual(calls(f), [
      { name: 'terminal', args: { command: 'ls' } },
      { name: 'read_file', args: { path: 'x' } },
    ]);
  });

  it('reads name[ARGS]{…} (v11+), with [CALL_ID] (v13) and with the special tokens stripped', () => {
    assert.deepEqual(calls(parse('[TOOL_CALLS]read_file[ARGS]{"path": "notes.txt"}[TOOL_CALLS]terminal[ARGS]{"command": "date"}')), [
      { name: 'read_file', args: { path: 'notes.txt' } },
      { name: 'terminal', args: { command: 'date' } },
    ]);
    assert.deepEqual(calls(parse('[TOOL_CALLS]terminal[CALL_ID]a1b2c3d4e[ARGS]{"command": "date"}')), [{ name: 'terminal', args: { command: 'date' } }]);
    assert.deepEqual(calls(parse('Sure.[TOOL_CALLS]terminal{"command": "date"}')), [{ name: 'terminal', args: { command: 'date' } }]);
  });
});

describe('text calls: DeepSeek tool-call tokens', () => {
  it('reads V3 / R1 calls (type, name line, fenced JSON)', () => {
    const text =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>terminal\n```json\n{"command": "ls"}\n```<｜tool▁call▁end｜>\n' +
      '<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{"path": "a.txt"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>';
    const f = parse(text);
    assert.equal(f?.format, 'deepseek');
    assert.deepEqual(calls(f), [
      { name: 'terminal', args: { command: 'ls' } },
      { name: 'read_file', args: { path: 'a.txt' } },
    ]);
    assert.equal(f?.prose, '');
  });

  it('reads V3.1 calls (name, separator, raw JSON) after R1-style thinking', () => {
    const text = '<think>\nI should list the folder.\n</think>\n\nLet me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>terminal<｜tool▁sep｜>{"command": "ls -1"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    const f = parse(text);
    assert.deepEqual(calls(f), [{ name: 'terminal', args: { command: 'ls -1' } }]);
    assert.match(f!.prose, /Let me look\.$/);
  });
});

describe('text calls: bare JSON and the auto rules', () => {
  it('reads the call shapes models write', () => {
    assert.deepEqual(calls(parse('{"name": "terminal", "arguments": {"command": "ls"}}')), [{ name: 'terminal', args: { command: 'ls' } }]);
    assert.deepEqual(calls(parse('{"type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"ls\\"}"}}')), [{ name: 'terminal', args: { command: 'ls' } }]);
    assert.deepEqual(calls(parse('{"tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}]}')), [{ name: 'read_file', args: { path: 'a' } }]);
    assert.deepEqual(calls(parse('{"terminal": {"command": "ls"}}')), [{ name: 'terminal', args: { command: 'ls' } }]);
    assert.deepEqual(calls(parse('\n[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}}]\n')), [
      { name: 'read_file', args: { path: 'a' } },
      { name: 'read_file', args: { path: 'b' } },
    ]);
    assert.deepEqual(calls(parse('{"name": "functions.terminal", "arguments": {"command": "ls"}}')), [{ name: 'functions.terminal', args: { command: 'ls' } }]);
  });

  it('leaves JSON answers alone unless they are exactly a valid call of an offered tool', () => {
    assert.equal(parse('{"name": "Alice", "age": 30}'), null);
    assert.equal(parse('{"title": "Report", "items": []}'), null);
    assert.equal(parse('[1, 2, 3]'), null);
    assert.equal(parse('{"name": "launch_rockets", "arguments": {}}'), null, 'not an offered tool');
    assert.equal(parse('{"name": "terminal", "arguments": {"cmd": "ls"}}'), null, 'unknown parameter');
    assert.equal(parse('{"name": "read_file", "arguments": {}}'), null, 'required parameter missing');
    assert.equal(parse('{"name": "terminal", "arguments": {"command": "ls"}}\n\nThat command lists the folder.'), null, 'prose after it');
    assert.equal(parse('Run this: {"name": "terminal", "arguments": {"command": "ls"}}'), null, 'prose before it');
  });

  it('a named parser reads only its format and takes what it finds', () => {
    assert.equal(parse('<tool_call>{"name": "terminal", "arguments": {"command": "ls"}}</tool_call>', 'mistral'), null);
    assert.equal(parse('[TOOL_CALLS][{"name": "terminal", "arguments": {"command": "ls"}}]', 'hermes'), null);
    assert.equal(parse('{"name": "terminal", "arguments": {"cmd": "ls"}}', 'json')?.calls[0].name, 'terminal');
    assert.equal(parse('<tool_call>{"name": "terminal", "arguments": {"command": "ls"}}</tool_call>', 'none'), null);
    assert.equal(parse('{"name": "terminal", "parameters": {"command": "ls"}}', 'llama3_json')?.format, 'json');
    assert.equal(formatsFor('qwen3_coder')?.[0].name, 'hermes');
    assert.equal(formatsFor('deepseek_v31')?.[0].name, 'deepseek');
    assert.equal(formatsFor('no-such'), null);
  });
});

// -------------------------------------------------------------------------------------------------

/** Streams `text` in the given chunk sizes; returns what was shown during the stream, per push. */
function stream(text: string, sizes: number[], setting = 'auto') {
  const sc = textCallScanner(setting, TOOLS)!;
  const shown: string[] = [];
  let i = 0;
  let k = 0;
  while (i < text.length) {
    const n = sizes[k++ % sizes.length];
    shown.push(sc.push(text.slice(i, i + n)));
    i += n;
  }
  const found = extractTextCalls(text, setting, TOOLS, sc);
  const tail = sc.finish(found ? { start: found.start, end: found.end } : null);
  return { shown, during: shown.join(''), tail, all: shown.join('') + tail, found };
}

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('text calls: the streaming hold-back', () => {
  const prose =
    'Here is a summary of the changes.\n\n- The parser now handles `<b>` tags and a < b comparisons.\n- Links like [the docs](https://example.com) work.\n\n' +
    '```ts\nconst x = a < b ? [1, 2] : { k: 1 };\n```\n\nDone.';

  it('shows an ordinary answer as it arrives: nothing is held past the next delta', () => {
    const r = stream(prose, [7]);
    assert.equal(r.all, prose);
    // Each push shows all of its own text except, at most, a short tail that might open a marker.
    let given = 0;
    r.shown.forEach((s, idx) => {
      given += 7;
      const held = Math.min(given, prose.length) - r.shown.slice(0, idx + 1).join('').length;
      assert.ok(held <= 20, `held ${held} chars after push ${idx}`);
    });
    assert.equal(r.found, null);
  });

  it('never shows a call, splits or no splits, and shows the prose around it', () => {
    const text = 'Let me check the date.\n<tool_call>\n{"name": "terminal", "arguments": {"command": "date"}}\n</tool_call>';
    for (const sizes of [[1], [3], [5, 1, 9], [1000]]) {
      const r = stream(text, sizes);
      assert.equal(r.all, 'Let me check the date.\n', `sizes ${sizes}`);
      assert.equal(r.found?.calls.length, 1);
    }
    const ds = stream('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>terminal<｜tool▁sep｜>{"command": "ls"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', [2]);
    assert.equal(ds.all, '');
    const bare = stream('  {"name": "terminal", "arguments": {"command": "ls"}}', [4]);
    assert.equal(bare.all, '');
  });

  it('releases JSON and link answers as soon as their first key or token settles', () => {
    const json = '{"title": "Quarterly report", "sections": ["intro", "numbers"], "pages": 12}';
    const r = stream(json, [3]);
    assert.equal(r.all, json);
    assert.ok(r.shown.slice(0, 5).join('').startsWith('{"title"'), 'shown once the key is complete');
    const link = stream('[the docs](https://example.com) say so.', [2]);
    assert.ok(link.shown.slice(0, 3).join('').startsWith('[the'), 'a link goes out at once');
    assert.equal(link.all, '[the docs](https://example.com) say so.');
  });

  it('holds a JSON answer that looks like a call until the end, then shows all of it', () => {
    const text = '{"name": "Alice", "age": 30}';
    const r = stream(text, [4]);
    assert.equal(r.during, '');
    assert.equal(r.tail, text);
  });

  it('shows code-fenced and thought-about calls as text', () => {
    const text = 'Example:\n```\n<tool_call>{"name": "terminal", "arguments": {"command": "ls"}}</tool_call>\n```\n';
    const r = stream(text, [2]);
    assert.equal(r.during, text);
    const think = '<think>maybe <tool_call>{"name": "x"}</tool_call></think>The answer is 4.';
    assert.equal(stream(think, [3]).during, think);
  });

  it('gives the same result for any chunking (random splits of realistic outputs)', () => {
    const samples = [
      prose,
      'Checking.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>',
      '[TOOL_CALLS]read_file[ARGS]{"path": "notes.txt"}',
      '[read_file(path="a")]',
      '<|python_tag|>{"name": "web_search", "parameters": {"query": "q"}}',
      '```\n<tool_call>{"name": "terminal"}</tool_call>\n```\nthen <tool_call>{"name": "terminal", "arguments": {"command": "pwd"}}</tool_call>',
      'Use `[TOOL_CALLS]` and ``<tool_call>`` literally.',
      '{"name": "Alice"}',
      '   \n\nHello',
    ];
    const rand = rng(42);
    for (const text of samples) {
      const whole = stream(text, [text.length]);
      for (let n = 0; n < 25; n++) {
        const sizes = Array.from({ length: 6 }, () => 1 + Math.floor(rand() * 12));
        const r = stream(text, sizes);
        assert.equal(r.all, whole.all, `${JSON.stringify(text)} split ${sizes}`);
        assert.deepEqual(r.found?.calls, whole.found?.calls);
      }
    }
  });

  it('never loses text and never depends on chunking (generated mixes of markers, fences, think tags)', () => {
    const toks = ['<', '[', '{', '`', '```', '\n', '\n\n', ' ', 'a', 'hello world', '<tool_call>', '</tool_call>', '<think>', '</think>', '{"name": "terminal", "arguments": {"command": "ls"}}', '[TOOL_CALLS]', '~~~', '<|python_tag|>', '<｜tool▁call▁begin｜>', '"name"', '[terminal(command="x")]', '<b'];
    const rand = rng(7);
    for (let n = 0; n < 400; n++) {
      let text = '';
      for (let j = 1 + Math.floor(rand() * 12); j > 0; j--) text += toks[Math.floor(rand() * toks.length)];
      const whole = stream(text, [text.length]);
      if (!whole.found) assert.equal(whole.all, text);
      assert.deepEqual(whole.found, extractTextCalls(text, 'auto', TOOLS));
      const r = stream(text, Array.from({ length: 4 }, () => 1 + Math.floor(rand() * 6)));
      assert.equal(r.all, whole.all, JSON.stringify(text));
      assert.deepEqual(r.found, whole.found);
    }
  });

  it('is off with none and when no tools are offered', () => {
    assert.equal(textCallScanner('none', TOOLS), null);
    assert.equal(textCallScanner('auto', []), null);
    assert.ok(new TextCallScanner(formatsFor('hermes')!, []).push('{"name": "x"}'), 'hermes alone does not hold JSON');
  });
});

// -------------------------------------------------------------------------------------------------

function loopSetup(steps: ScriptStep[], parser?: string) {
  const s = scripted(steps);
  const events: AgentEvent[] = [];
  const ran: { name: string; args: Record<string, unknown> }[] = [];
  const mk = (schema: ToolSchema): AgentTool => ({
    name: schema.name,
    toolset: 'test',
    schema,
    execute: async (args) => {
      ran.push({ name: schema.name, args });
      return { content: JSON.stringify({ output: `${schema.name} ok` }) };
    },
  });
  const history: Message[] = [];
  const sunk: Message[] = [];
  const opts: TurnInput = {
    history,
    system: 'S',
    tools: TOOLS.map(mk),
    stream: s.stream,
    model: () => 'local-model',
    broker: new RequestBroker(() => {}, { interactive: false, timeoutMs: 1000 }),
    budget: new IterationBudget(10),
    emit: (e) => events.push(e),
    sink: { append: (m) => sunk.push(structuredClone(m)) },
    hooks: [textCalls(parser)],
  };
  const shown = () => events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join('');
  return { s, events, ran, history, sunk, opts, shown };
}

describe('text calls in the agent loop', () => {
  it('runs parallel text calls as tool calls and stores them as ordinary ones', async () => {
    const t = loopSetup([
      { text: 'Checking both.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>' },
      { text: 'Both worked.' },
    ]);
    const r = await runTurn({ role: 'user', content: 'go' }, t.opts);
    assert.equal(r.completed, true);
    assert.equal(r.finalText, 'Both worked.');
    assert.deepEqual(t.ran.map((x) => x.name).sort(), ['read_file', 'terminal']);
    const a = t.sunk[1];
    assert.equal(a.role, 'assistant');
    assert.equal(a.content, 'Checking both.');
    assert.equal(a.finish_reason, 'tool_calls');
    assert.deepEqual(
      a.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
      [
        ['read_file', { path: 'a' }],
        ['terminal', { command: 'ls' }],
      ],
    );
    assert.deepEqual(
      t.sunk.slice(2, 4).map((m) => [m.role, m.tool_call_id]),
      a.tool_calls!.map((c) => ['tool', c.id]),
    );
    // The next request replays them as structured calls with their results.
    const replay = t.s.requests[1].messages;
    assert.equal(replay.find((m) => m.role === 'assistant')?.tool_calls?.length, 2);
    assert.equal(replay.filter((m) => m.role === 'tool').length, 2);
    assert.equal(t.shown(), 'Checking both.\nBoth worked.');
  });

  it('reports an unknown tool and an unreadable call to the model instead of running them', async () => {
    const t = loopSetup([
      { text: '<tool_call>\n{"name": "launch_rockets", "arguments": {"count": 3}}\n</tool_call>' },
      { text: '<tool_call>\n{"name": "terminal", "arguments": {"command": "echo "x""}}\n</tool_call>' },
      { text: 'I cannot do that.' },
    ]);
    const r = await runTurn({ role: 'user', content: 'go' }, t.opts);
    assert.equal(r.finalText, 'I cannot do that.');
    assert.deepEqual(t.ran, []);
    const results = t.history.filter((m) => m.role === 'tool').map((m) => String(m.content));
    assert.match(results[0], /Unknown tool \\"launch_rockets\\"/);
    assert.match(results[1], /could not be read: the JSON is not valid.*<tool_call>/);
    assert.equal(t.shown(), 'I cannot do that.');
  });

  it('prefers the API field when a response has both, and ignores text in toolless calls', async () => {
    const t = loopSetup([{ text: '<tool_call>{"name": "terminal", "arguments": {"command": "rm -rf x"}}</tool_call>', toolCalls: [{ name: 'read_file', arguments: { path: 'b' } }] }, { text: 'ok' }]);
    await runTurn({ role: 'user', content: 'go' }, t.opts);
    assert.deepEqual(t.ran, [{ name: 'read_file', args: { path: 'b' } }]);
  });

  it('with none, runs nothing, shows the text, and says once how to turn it on', async () => {
    const text = '<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>';
    const t = loopSetup([{ text }], 'none');
    const r = await runTurn({ role: 'user', content: 'go' }, t.opts);
    assert.equal(r.finalText, text);
    assert.deepEqual(t.ran, []);
    assert.equal(t.shown(), text);
    assert.ok(t.events.some((e) => e.type === 'notice' && /tool_call_parser is none/.test(e.message)));
  });

  it('a stream that breaks mid-call shows the prose, not the held call text', async () => {
    const t = loopSetup([]);
    t.opts.stream = (req) => {
      const out = new EventStream();
      queueMicrotask(() => {
        out.push({ type: 'text_delta', text: 'Working.\n<tool_call>{"name": "terminal", "arg' });
        const error = { kind: 'connection' as const, message: 'socket closed', provider: 'fake', retryable: false };
        out.end({ message: { role: 'assistant', content: null }, stopReason: 'error', usage: emptyUsage(), model: req.model, provider: 'fake', error });
      });
      return out;
    };
    const r = await runTurn({ role: 'user', content: 'go' }, t.opts);
    assert.equal(r.failed, true);
    assert.equal(t.shown(), 'Working.\n');
  });
});
