import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { toShareGpt } from '../../src/agent/trajectory.ts';
import { sampleToolsets } from '../../src/cli/batch.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

test('ShareGPT conversion: think blocks, tool_call blocks, grouped tool_response, scratchpad reasoning', () => {
  const turns = toShareGpt(
    [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: 'Let me look.',
        reasoning: 'Use the terminal.',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } },
          { id: 'b', type: 'function', function: { name: 'read_file', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', tool_name: 'terminal', content: '{"output":"a.txt"}' },
      { role: 'tool', tool_call_id: 'b', tool_name: 'read_file', content: 'plain text result' },
      { role: 'assistant', content: '<REASONING_SCRATCHPAD>two files</REASONING_SCRATCHPAD>There is a.txt.' },
    ],
    [{ name: 'terminal', description: 'run', parameters: { type: 'object' } }],
  );
  assert.deepEqual(turns.map((t) => t.from), ['system', 'human', 'gpt', 'tool', 'gpt']);
  assert.match(turns[0].value, /<tools>\n\[\{"name":"terminal","description":"run","parameters":\{"type":"object"\},"required":null\}\]\n<\/tools>/);
  assert.equal(
    turns[2].value,
    '<think>\nUse the terminal.\n</think>\nLet me look.\n<tool_call>\n{"name":"terminal","arguments":{"command":"ls"}}\n</tool_call>\n<tool_call>\n{"name":"read_file","arguments":{}}\n</tool_call>',
  );
  assert.equal(
    turns[3].value,
    '<tool_response>\n{"tool_call_id":"a","name":"terminal","content":{"output":"a.txt"}}\n</tool_response>\n<tool_response>\n{"tool_call_id":"b","name":"read_file","content":"plain text result"}\n</tool_response>',
  );
  assert.equal(turns[4].value, '<think>\ntwo files\n</think>\nThere is a.txt.');
});

test('toolset sampling rolls each toolset and never returns nothing', () => {
  assert.deepEqual(sampleToolsets({ a: 100, b: 0 }, () => 0.5), ['a']);
  assert.deepEqual(sampleToolsets({ a: 10, b: 30 }, () => 0.99), ['b']);
});

test('hermes batch: parallel run, batch files, merged trajectories, statistics, resume by prompt text', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n`);
  const prompts = ['make a todo list', 'say hello', 'FAIL this one', 'count to three', 'last prompt'];
  writeFileSync(join(h, 'prompts.jsonl'), `${prompts.map((p) => JSON.stringify({ prompt: p })).join('\n')}\nnot json\n`);
  let failing = true;
  llm.setHandler((r) => {
    const msgs = r.body.messages as { role: string; content: string }[];
    const user = msgs.find((m) => m.role === 'user')!.content;
    if (user.includes('FAIL') && failing) return { status: 400, error: 'bad request for this prompt' };
    if (user.includes('todo') && msgs.at(-1)!.role === 'user') return { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'x' }] } }], reasoning: 'I will plan.' };
    return { text: `done: ${user}` };
  });
  try {
    const args = ['batch', '--dataset-file', 'prompts.jsonl', '--run-name', 'r1', '--batch-size', '2', '--num-workers', '2', '--toolsets', 'todo', '--max-samples', '4'];
    const a = await hermes(args, { home: h });
    assert.equal(a.code, 1, 'one prompt failed');
    assert.match(a.stdout, /Run r1: 3 completed, 1 failed/);
    assert.match(a.stderr, /bad request for this prompt/);
    const dir = join(h, 'data', 'r1');
    const traj = readFileSync(join(dir, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(traj.length, 3);
    const todo = traj.find((t) => t.prompt_index === 0);
    assert.deepEqual(todo.conversations.map((c: { from: string }) => c.from), ['system', 'human', 'gpt', 'tool', 'gpt']);
    assert.match(todo.conversations[2].value, /^<think>\nI will plan\.\n<\/think>\n<tool_call>/);
    assert.deepEqual(todo.tool_stats.todo, { count: 1, success: 1, failure: 0 });
    assert.ok('memory' in todo.tool_stats, 'every tool listed, with zeros');
    assert.equal(todo.metadata.batch_num, 0);
    assert.equal(traj.find((t) => t.prompt_index === 3).metadata.batch_num, 1);
    const stats = JSON.parse(readFileSync(join(dir, 'statistics.json'), 'utf8'));
    assert.equal(stats.completed_this_run, 3);
    assert.equal(stats.tool_stats.todo.count, 1);

    const again = await hermes(args, { home: h });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already holds a run.*--resume/);

    failing = false;
    const before = llm.requests.length;
    const r = await hermes([...args.slice(0, -2), '--resume'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /2 completed, 0 failed, 3 already done/);
    assert.match(r.stderr, /prompts\.jsonl line 6: .*skipped/);
    const asked = llm.requests.slice(before).map((q) => (q.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content).sort();
    assert.deepEqual(asked, ['FAIL this one', 'last prompt'], 'only the failed and the new prompt ran');
    assert.equal(readFileSync(join(dir, 'trajectories.jsonl'), 'utf8').trim().split('\n').length, 5);
    const list = await hermes(['batch', '--list-distributions'], { home: h });
    assert.match(list.stdout, /terminal_only\s+terminal and files\s+terminal 100%, file 100%/);
  } finally {
    llm.setHandler(null);
  }
});
