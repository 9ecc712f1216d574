// The projector on notifications captured from the real codex binary (test/fixtures/codex/*.jsonl,
// written by test/fixtures/codex/capture.ts): codex items → Hermes messages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Message } from '../../src/llm/types.ts';
import { CodexProjector, callIdFor, sortedJson } from '../../src/runners/codex/projector.ts';
import { ROOT } from '../helpers/cli.ts';

interface Line {
  kind: 'notification' | 'request';
  method: string;
  params: Record<string, unknown>;
}

function fixture(name: string): Line[] {
  return readFileSync(join(ROOT, 'test', 'fixtures', 'codex', `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

function project(name: string, submitted: string): { messages: Message[]; finalText: string; iterations: number } {
  const p = new CodexProjector({ submittedText: submitted });
  const messages: Message[] = [];
  let finalText = '';
  let iterations = 0;
  for (const l of fixture(name)) {
    if (l.kind !== 'notification') continue;
    const r = p.project(l.method, l.params);
    messages.push(...r.messages);
    if (r.finalText !== undefined) finalText = r.finalText;
    if (r.toolIteration) iterations++;
  }
  messages.push(...p.flush());
  return { messages, finalText, iterations };
}

/** Every tool result follows the assistant message that called it; no two tool calls share an id. */
function assertAlternation(messages: Message[]): void {
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return;
    const prev = messages[i - 1];
    assert.equal(prev?.role, 'assistant', `message ${i} (tool) must follow an assistant message`);
    assert.ok(prev.tool_calls?.some((c) => c.id === m.tool_call_id), `tool result ${m.tool_call_id} answers the call before it`);
    assert.ok(!seen.has(m.tool_call_id!), 'call ids are unique');
    seen.add(m.tool_call_id!);
  });
}

describe('codex projector (fixtures from the real binary)', () => {
  it('plain answer: the echoed user message is dropped, reasoning rides on the answer', () => {
    const r = project('plain', 'say hello');
    assert.deepEqual(
      r.messages.map((m) => ({ role: m.role, content: m.content, reasoning: m.reasoning })),
      [{ role: 'assistant', content: 'Hello from codex.', reasoning: 'The user wants a greeting.' }],
    );
    assert.equal(r.finalText, 'Hello from codex.');
    assert.equal(r.iterations, 0);
  });

  it('an approved command becomes exec_command + its result, with sorted JSON arguments', () => {
    const r = project('exec-approved', 'write proof.txt');
    assertAlternation(r.messages);
    assert.deepEqual(r.messages.map((m) => m.role), ['assistant', 'tool', 'assistant']);
    const [call, result, answer] = r.messages;
    const tc = call.tool_calls![0];
    assert.equal(tc.function.name, 'exec_command');
    const args = JSON.parse(tc.function.arguments);
    assert.match(args.command, /echo proof > proof\.txt/);
    assert.deepEqual(Object.keys(args), ['command', 'cwd']);
    assert.equal(tc.function.arguments, sortedJson(args));
    assert.equal(result.tool_call_id, tc.id);
    assert.equal(result.tool_name, 'exec_command');
    assert.deepEqual(JSON.parse(result.content as string), { exit_code: 0, output: 'proof\n' });
    assert.equal(answer.content, 'Wrote proof.txt.');
    assert.equal(r.iterations, 1);
  });

  it('a declined command says so, without output', () => {
    const r = project('exec-declined', 'write denied.txt');
    assertAlternation(r.messages);
    const result = JSON.parse(r.messages[1].content as string);
    assert.equal(result.status, 'declined');
    assert.match(result.error, /approval was declined/);
    assert.equal(r.finalText, 'The command was declined.');
  });

  it('a non-zero exit is annotated in the result', () => {
    const r = project('exec-failed', 'list a missing directory');
    assertAlternation(r.messages);
    const result = JSON.parse(r.messages[1].content as string);
    assert.equal(result.exit_code, 2);
    assert.equal(result.error, 'Command exited with code 2');
    assert.match(result.output, /No such file or directory/);
  });

  it('a file change becomes apply_patch with a summary (no file content), merged into the text before it', () => {
    const r = project('file-change', 'create hello.txt');
    assertAlternation(r.messages);
    assert.deepEqual(r.messages.map((m) => m.role), ['assistant', 'tool', 'assistant']);
    assert.equal(r.messages[0].content, 'Creating the file.');
    const tc = r.messages[0].tool_calls![0];
    assert.equal(tc.function.name, 'apply_patch');
    assert.deepEqual(JSON.parse(tc.function.arguments).changes.map((c: { kind: string }) => c.kind), ['add']);
    const result = JSON.parse(r.messages[1].content as string);
    assert.equal(result.status, 'completed');
    assert.match(result.summary, /^1 add: .*hello\.txt$/);
    assert.doesNotMatch(r.messages[1].content as string, /hello world/);
  });

  it('an MCP tool call is named mcp.<server>.<tool>, its text content is the result', () => {
    const r = project('mcp-hermes-tools', 'list the skills');
    assertAlternation(r.messages);
    const tc = r.messages[0].tool_calls![0];
    assert.equal(tc.function.name, 'mcp.hermes-tools.skills_list');
    assert.equal(tc.function.arguments, '{}');
    assert.equal(r.messages[1].tool_name, 'mcp.hermes-tools.skills_list');
    assert.equal(JSON.parse(r.messages[1].content as string).skills[0].name, 'demo');
  });

  it('replays project byte-identical messages; call ids come from item ids alone', () => {
    for (const name of ['exec-approved', 'file-change', 'mcp-hermes-tools']) {
      const a = project(name, 'x').messages;
      const b = project(name, 'x').messages;
      assert.equal(JSON.stringify(a), JSON.stringify(b));
    }
    assert.equal(callIdFor('call_0007'), callIdFor('call_0007'));
    assert.notEqual(callIdFor('call_0007'), callIdFor('call_0008'));
    assert.equal(sortedJson({ b: 1, a: { d: 2, c: [{ z: 1, y: 2 }] } }), '{"a":{"c":[{"y":2,"z":1}],"d":2},"b":1}');
  });

  it('deltas and frame events never materialise messages', () => {
    const p = new CodexProjector();
    const lines = fixture('exec-approved').filter((l) => l.kind === 'notification' && l.method !== 'item/completed');
    assert.ok(lines.some((l) => l.method === 'item/agentMessage/delta'));
    for (const l of lines) assert.deepEqual(p.project(l.method, l.params).messages, []);
    assert.deepEqual(p.flush(), []);
  });

  it('opaque items become notes without invented tool calls; a later user message (steer) is kept', () => {
    const p = new CodexProjector({ submittedText: 'go' });
    const done = (item: Record<string, unknown>) => p.project('item/completed', { item, threadId: 't', turnId: 'u' });
    assert.deepEqual(done({ type: 'userMessage', id: 'u1', clientId: null, content: [{ type: 'text', text: 'go', text_elements: [] }] }).messages, []);
    done({ type: 'plan', id: 'p1', text: '1. look\n2. fix' });
    const steer = done({ type: 'userMessage', id: 'u2', clientId: null, content: [{ type: 'text', text: 'also add tests', text_elements: [] }] });
    assert.deepEqual(steer.messages.map((m) => [m.role, m.content, m.tool_calls]), [
      ['assistant', '[codex plan]\n1. look\n2. fix', undefined],
      ['user', 'also add tests', undefined],
    ]);
    done({ type: 'contextCompaction', id: 'c1' });
    assert.deepEqual(p.flush().map((m) => m.content), ['[codex compacted the conversation context]']);
  });
});
