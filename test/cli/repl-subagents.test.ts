// Watching and steering a live subagent from the REPL, in tmux: a background subagent works (a slow
// command); /agents lists it, /agents watch opens its transcript and follows it live, /agents steer
// sends it a message it reads after its command, and its result comes back as a turn.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import { until } from '../gateway/helpers.ts';

const skip = tmuxAvailable();
let fake: FakeLlm;
type Msg = { role: string; content: unknown };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const text = (m: Msg | undefined) => (typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''));
const isChild = (r: RecordedRequest) => /focused subagent/.test(text(msgs(r)[0]));
const isMain = (r: RecordedRequest) => !isChild(r) && Array.isArray(r.body.tools) && r.body.tools.length > 0;
const lastUser = (r: RecordedRequest) => text(msgs(r).filter((m) => m.role === 'user').at(-1));

before(async () => {
  fake = await startFakeLlm();
  fake.setHandler((r) => {
    if (isChild(r)) {
      const tool = msgs(r).find((m) => m.role === 'tool');
      if (!tool) return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 6; echo indexed 42 files' } }] };
      return { text: /only src\//.test(text(tool)) ? 'Indexed 42 files, src/ only as asked.' : 'Indexed 42 files.' };
    }
    if (!isMain(r)) return { text: 'A title' };
    if (lastUser(r).startsWith('[ASYNC DELEGATION COMPLETE')) return { text: 'The subagent is done: 42 files, src only.' };
    if (msgs(r).at(-1)?.role === 'tool') return { text: 'Indexing in the background.' };
    return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Index the repository', background: true } }] };
  });
});
after(async () => {
  await fake?.close();
});

it('/agents lists, watches and steers a running background subagent', { skip: skip ?? false }, async () => {
  const h = homeWithModel(fake.openaiBaseUrl);
  const t = startHermes([], { home: h });
  try {
    await t.waitFor(/❯/);
    t.type('index the repo');
    t.keys('Enter');
    await t.waitFor(/Indexing in the background\./);
    await until(() => fake.requests.some(isChild), 20_000, 'the subagent to start');
    t.type('/agents');
    t.keys('Enter');
    const listed = await t.waitFor(/subagent sa-0-[0-9a-f]{8} \(deleg_[0-9a-f]{8}, background\)\s+running/);
    const id = /subagent (sa-0-[0-9a-f]{8})/.exec(listed)![1];
    t.type(`/agents watch ${id}`);
    t.keys('Enter');
    await t.waitFor(/following live; \/agents unwatch stops/);
    const watched = await t.waitFor(/tool\s+\| -> terminal\(\{"command":"sleep 6; echo indexed 42 files"\}\)/);
    assert.match(watched, /user\s+\| kickoff: Index the repository/);
    t.type(`/agents steer ${id} only src/ please`);
    t.keys('Enter');
    await t.waitFor(/Steer queued for sa-0-/);
    // Followed live: the steer, the command's result and the end show without another command.
    const s = await t.waitFor(/The subagent is done: 42 files, src only\./, { timeoutMs: 30_000 });
    assert.match(s, /steer\s+\| only src\/ please/);
    assert.match(s, /end status=completed/);
    const second = fake.requests.filter(isChild).at(-1)!;
    assert.match(text(msgs(second).find((m) => m.role === 'tool')), /indexed 42 files[\s\S]*only src\/ please/);
  } finally {
    t.kill();
  }
});
