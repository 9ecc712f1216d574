// An editor (ACP) session on the codex runtime: codex's approval request becomes the editor's
// permission request; allowed once the command runs, rejected it does not.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatedSuite } from '../helpers/skip.ts';
import * as acp from '@agentclientprotocol/sdk/unstable';
import { agentText, initialize, startEditor, type Editor } from '../acp/harness.ts';
import { codexHermesConfig, codexMissing, makeCodexHome, type CodexHome } from '../helpers/codex.ts';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.ts';

const skip = codexMissing() ?? false;

const { describe, it, before, after } = gatedSuite(skip || null);
describe('ACP on the codex runtime', () => {
  let fake: FakeLlm;
  let codex: CodexHome;
  let e: Editor;
  const replies: FakeReply[] = [];

  before(async () => {
    fake = await startFakeLlm();
    fake.setHandler((r) => (r.wire === 'responses' ? (replies.shift() ?? { text: '(none queued)' }) : { text: 'A title' }));
    codex = makeCodexHome(fake.openaiBaseUrl);
    e = await startEditor(fake, { config: codexHermesConfig(fake.openaiBaseUrl), env: codex.env });
    await initialize(e);
  });
  after(async () => {
    await e?.close();
    codex?.cleanup();
    await fake?.close();
  });

  it('asks the editor before codex runs a command: allowed once it runs, rejected it does not', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    const call = (file: string) => ({ toolCalls: [{ name: 'exec_command', arguments: { cmd: `echo acp > ${file}`, sandbox_permissions: 'require_escalated', justification: `write ${file}` } }] });
    replies.push(call('allowed.txt'), { text: 'Wrote allowed.txt.' });
    const turn = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'write allowed.txt' }] });
    const p = await e.waitPermission();
    assert.match(String(p.params.toolCall.title), /echo acp > allowed\.txt/);
    assert.ok(p.params.options.some((o) => o.optionId === 'allow_once'));
    p.respond('allow_once');
    assert.equal((await turn).stopReason, 'end_turn');
    assert.equal(readFileSync(join(e.work, 'allowed.txt'), 'utf8'), 'acp\n');
    assert.match(agentText(e, s.sessionId), /Wrote allowed\.txt\./);

    replies.push(call('rejected.txt'), { text: 'Not written.' });
    const turn2 = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'write rejected.txt' }] });
    (await e.waitPermission()).respond('reject');
    assert.equal((await turn2).stopReason, 'end_turn');
    assert.equal(existsSync(join(e.work, 'rejected.txt')), false);
  });
});
