// Background work reporting back, as a user sees it: the real `hermes chat -q` against the fake LLM.
// A notify_on_complete process, a watch-pattern match and a background subagent each produce a
// follow-up turn before the one-shot run exits.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function setup(extra = ''): { home: string; work: string } {
  const home = homeWithModel(fake.openaiBaseUrl, extra);
  const work = join(home, 'work');
  mkdirSync(work);
  return { home, work };
}

const userTexts = (req: RecordedRequest): string[] =>
  (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
const lastUser = (req: RecordedRequest) => userTexts(req).at(-1) ?? '';
const lastIsTool = (req: RecordedRequest) => (req.body.messages as { role: string }[]).at(-1)?.role === 'tool';

describe('background notifications through hermes chat -q', () => {
  it('a notify_on_complete process that finishes after the answer gets a follow-up turn', async () => {
    const { home, work } = setup();
    fake.setHandler((req) => {
      const last = lastUser(req);
      if (last.startsWith('[IMPORTANT: Background process')) return { text: 'The build finished: it printed "build done".' };
      if (lastIsTool(req)) return { text: 'Started the build in the background; I will report when it ends.' };
      return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo build done', background: true, notify_on_complete: true } }] };
    });
    const n = fake.requests.length;
    const r = await hermes(['chat', '-q', 'run the build'], { home, cwd: work });
    fake.setHandler(null);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Started the build in the background[\s\S]*The build finished: it printed "build done"\./);
    assert.match(r.stderr, /🔔 Background process Finished: sleep 1; echo build done/);
    const follow = fake.requests.slice(n).find((q) => lastUser(q).startsWith('[IMPORTANT'))!;
    assert.match(lastUser(follow), /^\[IMPORTANT: Background process proc_[0-9a-f]+ completed normally \(exit code 0\)\.\nCommand: sleep 1; echo build done\nOutput:\nbuild done/);
  });

  it('-Q prints both answers and nothing else; oneshot_completion_wait_seconds: 0 does not wait', async () => {
    const { home, work } = setup();
    fake.setHandler((req) => {
      if (lastUser(req).startsWith('[IMPORTANT')) return { text: 'second answer' };
      if (lastIsTool(req)) return { text: 'first answer' };
      return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 0.5; echo ok', background: true, notify_on_complete: true } }] };
    });
    const quiet = await hermes(['chat', '-Q', '-q', 'go'], { home, cwd: work });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, 'first answer\nsecond answer\n');
    const { home: h2, work: w2 } = setup('terminal:\n  oneshot_completion_wait_seconds: 0\n');
    const nowait = await hermes(['chat', '-Q', '-q', 'go'], { home: h2, cwd: w2 });
    fake.setHandler(null);
    assert.equal(nowait.stdout, 'first answer\n');
  });

  it('a watch-pattern match during the turn is answered in a follow-up', async () => {
    const { home, work } = setup();
    let proc = '';
    fake.setHandler((req) => {
      const last = lastUser(req);
      if (last.includes('matched watch pattern')) return { text: 'The server is up; you can open http://localhost:8080.' };
      const msgs = req.body.messages as { role: string; content: string }[];
      const tools = msgs.filter((m) => m.role === 'tool');
      if (!tools.length) return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 0.3; echo "Listening on :8080"; sleep 60', background: true, watch_patterns: ['Listening on'] } }] };
      if (tools.length === 1) {
        proc = JSON.parse(tools[0].content).session_id;
        // Give the server a moment (the match arrives while this turn is still running).
        return { toolCalls: [{ name: 'process', arguments: { action: 'wait', session_id: proc, timeout: 2 } }] };
      }
      return { text: 'Started the server.' };
    });
    const n = fake.requests.length;
    const r = await hermes(['chat', '-q', 'start the dev server'], { home, cwd: work });
    fake.setHandler(null);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Started the server\.[\s\S]*The server is up/);
    const follow = fake.requests.slice(n).find((q) => lastUser(q).includes('matched watch pattern'))!;
    assert.match(lastUser(follow), new RegExp(`Background process ${proc} matched watch pattern "Listening on"[\\s\\S]*Matched output:\\nListening on :8080`));
  });

  it('delegate_task background returns at once and the subagent\'s result comes back as a new turn', async () => {
    const { home, work } = setup();
    fake.setHandler((req) => {
      const sys = JSON.stringify(req.body.messages[0]);
      if (/focused subagent/.test(sys)) return { text: 'The changelog lists 3 fixes.', usage: { input: 50, output: 7 } };
      const last = lastUser(req);
      if (last.startsWith('[ASYNC DELEGATION COMPLETE')) return { text: 'Your subagent reports 3 fixes in the changelog.' };
      if (lastIsTool(req)) return { text: 'A subagent is on it.' };
      return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Count the fixes in CHANGELOG.md', background: true } }] };
    });
    const n = fake.requests.length;
    const r = await hermes(['chat', '-q', 'how many fixes? take your time'], { home, cwd: work });
    fake.setHandler(null);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /A subagent is on it\.[\s\S]*Your subagent reports 3 fixes/);
    const reqs = fake.requests.slice(n);
    const dispatched = reqs.find((q) => lastIsTool(q) && !/focused subagent/.test(JSON.stringify(q.body.messages[0])))!;
    assert.match(JSON.stringify(dispatched.body.messages.at(-1)), /dispatched/);
    const follow = reqs.find((q) => lastUser(q).startsWith('[ASYNC DELEGATION COMPLETE'))!;
    assert.match(lastUser(follow), /Original goal: Count the fixes in CHANGELOG\.md[\s\S]*--- RESULT ---\nThe changelog lists 3 fixes\./);
  });
});
