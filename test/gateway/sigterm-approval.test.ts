// SIGTERM while a turn waits for an approval: the real `hermes gateway run` ends within 10 s (not
// the approval timeout), the pending approval is answered as denied (the command never runs), the
// denial is recorded in the transcript, the approval message says so, and the turn's reply still
// goes out before the gateway exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.ts';
import { SessionDB } from '../../src/state/db.ts';
import { gatewayHome, until } from './helpers.ts';

const OWNER = 4242;
let llm: FakeLlm;
let tg: FakeTelegram;
before(async () => {
  llm = await startFakeLlm();
  tg = await startFakeTelegram();
});
after(async () => {
  await tg.close();
  await llm.close();
});

describe('gateway SIGTERM with an approval pending', () => {
  it('ends within 10 s, the approval answered as denied and recorded', { timeout: 120_000 }, async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: {} });
    const victim = join(t.home, 'victim');
    mkdirSync(victim);
    llm.setHandler((req) => {
      const msgs = req.body.messages as { role: string; content: unknown }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      if (msgs.at(-1)?.role === 'tool') return { text: `Not done: ${String(msgs.at(-1)?.content).slice(0, 80)}` };
      return { toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] };
    });
    const env = cleanEnv(t.home, { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), MESSAGING_CWD: '/tmp', HERMES_RESTART_DRAIN_TIMEOUT: '900' });
    const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: t.home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await until(() => tg.pollers() > 0, 60_000, 'the gateway to poll');
    tg.userMessage({ chatId: OWNER, text: 'delete the victim dir' });
    await tg.waitFor((c) => c.method === 'sendMessage' && /Approval needed/.test(String(c.params.text)), 30_000, 'the approval request');

    const t0 = Date.now();
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
    const took = Date.now() - t0;
    assert.notEqual(code, 'hung', `the gateway ended within 10 s of SIGTERM\n${out}`);
    assert.equal(code, 0);
    assert.ok(took < 10_000, `took ${took} ms`);
    assert.ok(existsSync(victim), 'the command that waited for approval never ran');
    assert.match(out, /1 pending approval request\(s\) answered as denied/);
    assert.ok(tg.calls.some((c) => c.method === 'editMessageText' && /Denied/.test(String(c.params.text))), 'the approval message says it was denied');
    assert.ok(tg.calls.some((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && /Not done/.test(String(c.params.text))), "the turn's reply went out before the exit");
    // Recorded: the tool result in the transcript is the denial.
    const db = SessionDB.open(join(t.home, 'state.db'));
    try {
      const sid = db.listSessions({ source: 'telegram' })[0].id;
      const tool = db.getMessages(sid).find((m) => m.role === 'tool');
      assert.ok(tool, 'the tool call has a recorded result');
      assert.match(String(tool!.content), /denied|not approved|blocked/i);
    } finally {
      db.close();
    }
  });
});
