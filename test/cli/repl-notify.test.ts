// The REPL, in tmux: a background process started with notify_on_complete finishes while the REPL
// waits for input; the notice shows, and the agent answers it in a turn of its own.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const skip = tmuxAvailable();
let fake: FakeLlm;
const isMain = (r: RecordedRequest) => Array.isArray(r.body.tools) && r.body.tools.length > 0;
const lastUser = (r: RecordedRequest) => {
  const c = ((r.body.messages ?? []) as { role: string; content: unknown }[]).filter((m) => m.role === 'user').at(-1)?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
};

before(async () => {
  fake = await startFakeLlm();
  fake.setHandler((r) => {
    if (!isMain(r)) return { text: 'A title' };
    if (lastUser(r).startsWith('[IMPORTANT: Background process')) return { text: 'All 5 tests passed.' };
    if ((r.body.messages as { role: string }[]).at(-1)?.role === 'tool') return { text: 'Tests are running in the background.' };
    return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo 5 passed', background: true, notify_on_complete: true } }] };
  });
});
after(async () => {
  await fake?.close();
});

it('a finished background process becomes a turn when the REPL is idle', { skip: skip ?? false }, async () => {
  const h = homeWithModel(fake.openaiBaseUrl);
  const t = startHermes([], { home: h });
  try {
    await t.waitFor(/❯/);
    t.type('run the tests');
    t.keys('Enter');
    await t.waitFor(/Tests are running in the background\./);
    const s = await t.waitFor(/All 5 tests passed\./, { timeoutMs: 20_000 });
    assert.match(s, /🔔 Background process Finished: sleep 1; echo 5 passed/);
    assert.ok(s.indexOf('Tests are running') < s.indexOf('All 5 tests passed.'));
    const follow = fake.requests.filter(isMain).find((r) => lastUser(r).startsWith('[IMPORTANT'))!;
    assert.match(lastUser(follow), /completed normally \(exit code 0\)[\s\S]*5 passed/);
  } finally {
    t.kill();
  }
});

it('the full-screen TUI answers the notice the same way', { skip: skip ?? false }, async () => {
  const h = homeWithModel(fake.openaiBaseUrl);
  const t = startHermes(['--tui'], { home: h });
  try {
    await t.waitFor(/● ready/, { timeoutMs: 30_000 });
    t.type('run the tests');
    t.keys('Enter');
    await t.waitFor(/Tests are running in the background\./);
    const s = await t.waitFor(/All 5 tests passed\./, { timeoutMs: 20_000 });
    assert.match(s, /🔔 Background process Finished: sleep 1; echo 5 passed/);
  } finally {
    t.kill();
  }
});
