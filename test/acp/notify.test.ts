// Background work reporting back in an editor: `hermes acp` driven by the ACP SDK's client side. A
// notify_on_complete process started in one prompt ends after the prompt answered; its notice runs
// as a turn of its own, streamed to the editor with session/update (no prompt request needed).
// After /reset, what the old conversation's process reports never reaches the new one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as acp from '@agentclientprotocol/sdk/unstable';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { agentText, count, initialize, startEditor, type Editor } from './harness.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const userTexts = (r: RecordedRequest) => (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => String(m.content));

describe('hermes acp background notices', () => {
  let e: Editor;
  before(async () => {
    e = await startEditor(fake);
    await initialize(e);
  });
  after(async () => {
    await e.close();
  });

  it('a finished notify_on_complete process becomes a turn streamed as session/update', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    fake.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 0.5; echo 12 tests passed', background: true, notify_on_complete: true } }] },
      { text: 'Started the tests in the background.' },
      { text: 'The background tests finished: 12 passed.' },
    );
    const n = fake.requests.length;
    const r = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'run the tests in the background' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(agentText(e, s.sessionId), 'Started the tests in the background.');
    const from = count(e, s.sessionId);
    await e.waitUpdate(s.sessionId, () => agentText(e, s.sessionId, from).includes('finished: 12 passed.'));
    const shown = agentText(e, s.sessionId, from);
    assert.match(shown, /^🔔 .*\n\nThe background tests finished: 12 passed\.$/s);
    const noticeTurn = fake.requests.slice(n).at(-1)!;
    assert.match(userTexts(noticeTurn).at(-1)!, /Background process .* completed normally \(exit code 0\)[\s\S]*12 tests passed/);
  });

  it('after /reset the old conversation’s process does not report into the new one', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    fake.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo old work done', background: true, notify_on_complete: true } }] },
      { text: 'Started.' },
    );
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'start the old work' }] });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/reset' }] });
    // A process of the new conversation, which ends after the old one: its notice is the only one.
    fake.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 2; echo new work done', background: true, notify_on_complete: true } }] },
      { text: 'Started again.' },
      { text: 'New work reported.' },
    );
    const n = fake.requests.length;
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'start the new work' }] });
    const from = count(e, s.sessionId);
    await e.waitUpdate(s.sessionId, () => agentText(e, s.sessionId, from).includes('New work reported.'));
    const sent = fake.requests.slice(n);
    assert.equal(sent.length, 3, 'two requests for the prompt, one for the new process’s notice');
    assert.ok(sent.every((q) => !JSON.stringify(q.body.messages).includes('old work done')), 'the old conversation’s process never reported');
    assert.match(userTexts(sent[2]).at(-1)!, /new work done/);
  });
});
