// A real Session over a scripted model: subagent usage adds up in the parent's totals (and /usage),
// and a background subagent's report becomes a follow-up turn (runFollowUps, as `hermes chat -q`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { runFollowUps } from '../../src/session/inbox.ts';
import { harness } from './helpers.ts';

const isChild = (req: { system: string }) => /focused subagent/.test(req.system);

test('what subagents spend is added to the parent session\'s totals', async () => {
  const h = harness({
    config: (c) => (c.toolsets = ['delegation', 'todo']),
    steps: [
      { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'count the files' } }] },
      (req) => (isChild(req) ? { text: 'There are 3 files.' } : { text: 'unexpected' }),
      { text: 'Your project has 3 files.' },
    ],
    session: { backgroundTasks: false },
  });
  const r = await h.session.prompt('how many files?');
  assert.equal(r.finalText, 'Your project has 3 files.');
  assert.equal(r.apiCalls, 2, 'the turn itself made two calls');
  const t = h.session.totals;
  assert.equal(t.apiCalls, 3, 'the child\'s call is in the totals');
  assert.equal(t.subagents.runs, 1);
  assert.equal(t.subagents.apiCalls, 1);
  assert.equal(t.usage.output_tokens, 15);
  assert.equal(t.subagents.usage.output_tokens, 5);
  const tool = h.events.find((e) => e.type === 'tool_end' && e.name === 'delegate_task');
  const res = JSON.parse((tool as { content: string }).content).results[0];
  assert.equal(res.tokens.output, 5);
  assert.equal(res.model, 'test/model');
  const out = await runCommand(createCommandRegistry({ home: h.home, externalDirs: [] }), '/usage', { session: h.session, surface: 'cli' } as never);
  assert.match(String((out as { output?: string }).output), /Subagents \(included above\): 1 run\(s\) · API calls: 1/);
  // The one token definition: total = input + cache read + cache write + output, each shown.
  const u = t.usage;
  const total = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens + u.output_tokens;
  assert.match(String((out as { output?: string }).output), new RegExp(`Tokens: ${total.toLocaleString('en-US')} total = input ${u.input_tokens.toLocaleString('en-US')} \\+ cache read ${u.cache_read_tokens} \\+ cache write ${u.cache_write_tokens} \\+ output ${u.output_tokens} `));
  await h.session.close();
});

test('a background subagent reports back and the report is answered in a follow-up turn', async () => {
  const parent = [
    { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'summarise the changelog', background: true } }] },
    { text: 'I started a subagent on it; I will tell you when it is done.' },
    { text: 'The subagent says: 3 fixes, 1 feature.' },
  ];
  const route = (req: { system: string }) => (isChild(req) ? { text: 'Changelog: 3 fixes, 1 feature.' } : (parent.shift() ?? { text: 'extra' }));
  const h = harness({ config: (c) => (c.toolsets = ['delegation', 'todo']), steps: new Array(10).fill(route), session: { backgroundTasks: false } });
  h.session.inbox.listening = true; // as the one-shot run, the REPL and the gateway do
  const first = await h.session.prompt('summarise the changelog in the background');
  assert.match(first.finalText, /I started a subagent/);
  const followUps: string[] = [];
  const answers: string[] = [];
  const rounds = await runFollowUps(h.session.inbox, {
    deadlineMs: Date.now() + 10_000,
    run: async (text) => {
      followUps.push(text);
      answers.push((await h.session.prompt(text)).finalText);
      return { stop: false };
    },
  });
  assert.equal(rounds, 1);
  assert.match(followUps[0], /^\[ASYNC DELEGATION COMPLETE — deleg_[0-9a-f]+\]/);
  assert.match(followUps[0], /Original goal: summarise the changelog[\s\S]*--- RESULT ---\nChangelog: 3 fixes, 1 feature\.$/);
  assert.deepEqual(answers, ['The subagent says: 3 fixes, 1 feature.']);
  const lastUser = h.requests.at(-1)!.messages.filter((m) => m.role === 'user').at(-1)!;
  assert.match(String(lastUser.content), /ASYNC DELEGATION COMPLETE/);
  assert.equal(h.session.totals.subagents.runs, 1, 'a background child\'s spend counts too');
  // Stored like any turn: the follow-up is in the session's transcript.
  assert.ok(h.db.getMessages(h.session.id).some((m) => m.role === 'user' && String(m.content).includes('ASYNC DELEGATION COMPLETE')));
  await h.session.close();
});
