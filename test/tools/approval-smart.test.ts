// approvals.mode: smart — the reviewer model's verdict before a person is asked.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentRequest } from '../../src/agent/types.ts';
import { toolContext } from '../../src/tools/context.ts';
import { approveCommand } from '../../src/tools/approval.ts';
import { approvalMode } from '../../src/tools/approval-smart.ts';
import terminal from '../../src/tools/defs/terminal.ts';
import { scripted, type ScriptStep } from '../helpers/scripted-stream.ts';
import { call, closeServices, makeCtx, makeServices } from './helpers.ts';

function smartServices(steps: ScriptStep[], over: { canAsk?: boolean; policy?: string } = {}) {
  const reviewer = scripted(steps, { text: 'ESCALATE' });
  const s = makeServices({ auxiliary: (task) => (task === 'approval' ? { stream: reviewer.stream, model: 'reviewer-model', provider: 'fake' } : null), canAsk: () => over.canAsk ?? true });
  s.config.approvals.mode = 'smart';
  if (over.policy) s.config.approvals.smart_policy = over.policy;
  return { s, reviewer };
}

describe('smart approvals', () => {
  it('APPROVE runs the one command without asking, and approves nothing else', async () => {
    const { s, reviewer } = smartServices([{ text: 'APPROVE' }]);
    const asked: AgentRequest[] = [];
    const out = await approveCommand('python3 -c "print(1)"', toolContext(makeCtx({ asked }), s));
    assert.deepEqual(out, { allowed: true, via: 'smart' });
    assert.equal(asked.length, 0, 'nobody was asked');
    assert.equal(reviewer.requests.length, 1);
    const req = reviewer.requests[0];
    assert.equal(req.model, 'reviewer-model');
    assert.equal(req.temperature, 0);
    assert.match(req.system, /UNTRUSTED/);
    const user = String(req.messages[0].content);
    assert.match(user, /<command>\npython3 -c "print\(1\)"\n<\/command>/);
    assert.match(user, /<reason>\nrunning inline python code\n<\/reason>/);
    // The next command is reviewed again (APPROVE is per command, not per class).
    await approveCommand('python3 -c "print(2)"', toolContext(makeCtx({ asked }), s));
    assert.equal(reviewer.requests.length, 2);
  });

  it('DENY refuses; a person may still allow that one command once', async () => {
    const { s } = smartServices([{ text: 'DENY' }, { text: 'deny.' }]);
    const noOne = await approveCommand('rm -rf build', toolContext(makeCtx(), s));
    assert.equal(noOne.allowed, false);
    assert.match(noOne.allowed ? '' : noOne.reason, /BLOCKED by smart approval: recursive delete/);
    const asked: AgentRequest[] = [];
    const once = await approveCommand('rm -rf build', toolContext(makeCtx({ asked, answer: () => ({ answer: 'once' }) }), s));
    assert.deepEqual(once, { allowed: true, via: 'once' });
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].kind === 'approval' ? asked[0].choices : [], ['once', 'deny'], 'no session/always after a smart denial');
    assert.match(asked[0].kind === 'approval' ? asked[0].description : '', /judged it dangerous/);
  });

  it('ESCALATE, garbage or a failing reviewer ask the person as manual mode does', async () => {
    for (const step of [{ text: 'ESCALATE' }, { text: 'maybe?' }, { error: { message: 'rate limited' } }] as ScriptStep[]) {
      const { s } = smartServices([step]);
      const asked: AgentRequest[] = [];
      const out = await approveCommand('rm -rf build', toolContext(makeCtx({ asked, answer: () => ({ answer: 'session' }) }), s));
      assert.deepEqual(out, { allowed: true, via: 'session' });
      assert.deepEqual(asked[0].kind === 'approval' ? asked[0].choices : [], ['once', 'session', 'always', 'deny']);
    }
  });

  it('oversized or control-character commands are never sent, and unattended runs skip the reviewer', async () => {
    const { s, reviewer } = smartServices([{ text: 'APPROVE' }, { text: 'APPROVE' }]);
    const big = await approveCommand(`rm -rf build ${'x'.repeat(40_000)}`, toolContext(makeCtx(), s));
    assert.equal(big.allowed, false);
    const ctl = await approveCommand('rm -rf build \u0007', toolContext(makeCtx(), s));
    assert.equal(ctl.allowed, false);
    assert.equal(reviewer.requests.length, 0);
    const un = smartServices([{ text: 'APPROVE' }], { canAsk: false });
    const r = await approveCommand('rm -rf build', toolContext(makeCtx(), un.s));
    assert.equal(r.allowed, false, 'single_query_mode: deny decides, not the reviewer');
    assert.equal(un.reviewer.requests.length, 0);
  });

  it('hardline commands never reach the reviewer; operator rules go in the system prompt', async () => {
    const { s, reviewer } = smartServices([{ text: 'APPROVE' }], { policy: 'Never approve anything touching /srv.' });
    const r = await approveCommand('rm -rf /', toolContext(makeCtx(), s));
    assert.equal(r.allowed, false);
    assert.equal(reviewer.requests.length, 0);
    await approveCommand('rm -rf /srv/app/cache', toolContext(makeCtx(), s));
    assert.match(reviewer.requests[0].system, /Rules from the operator[\s\S]*Never approve anything touching \/srv\./);
    assert.doesNotMatch(String(reviewer.requests[0].messages[0].content), /Never approve/);
  });

  it('tells the model to stop after repeated denials', async () => {
    const { s } = smartServices([{ text: 'DENY' }, { text: 'DENY' }, { text: 'DENY' }]);
    const reasons: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await approveCommand(`rm -rf build${i}`, toolContext(makeCtx(), s));
      reasons.push(r.allowed ? '' : r.reason);
    }
    assert.doesNotMatch(reasons[1], /in a row/);
    assert.match(reasons[2], /3 commands in a row were refused/);
  });

  it('a smart-approved command really runs through the terminal tool', async () => {
    const { s } = smartServices([{ text: 'APPROVE' }]);
    mkdirSync(join(s.cwd, 'build'));
    writeFileSync(join(s.cwd, 'build', 'x'), 'x');
    const r = await call(terminal, { command: 'rm -r build' }, s);
    assert.equal(r.json.exit_code, 0);
    assert.equal(existsSync(join(s.cwd, 'build')), false);
    await closeServices(s);
  });

  it('reads approvals.mode as Hermes does', () => {
    assert.equal(approvalMode(false), 'off');
    assert.equal(approvalMode('  SMART '), 'smart');
    assert.equal(approvalMode(true), 'manual');
    assert.equal(approvalMode('auto'), 'manual');
    assert.equal(approvalMode(undefined), 'manual');
  });
});
