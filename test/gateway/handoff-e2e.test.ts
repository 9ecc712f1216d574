// /handoff as a person does it: `hermes` (the REPL, in tmux) and `hermes gateway run` (a real process
// polling the fake Telegram Bot API) on one HERMES_HOME. The REPL hands its conversation to Telegram's
// home channel, closes with the way back, and the Telegram chat continues the same conversation.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { BIN, cleanEnv } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import { gatewayHome, until } from './helpers.ts';

const OWNER = 4242;
const skip = tmuxAvailable();
const isText = (re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && re.test(String(c.params.text));

describe('/handoff from the REPL to a running gateway', { skip: skip ?? false }, () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let gw: ChildProcess | null = null;
  before(async () => {
    llm = await startFakeLlm();
    llm.setHandler((r) => {
      const first = r.body.messages?.[0]?.content;
      if (typeof first === 'string' && first.startsWith('You name conversations')) return { text: 'Code word chat' };
      const all = JSON.stringify(r.body.messages);
      const last = JSON.stringify(r.body.messages.at(-1));
      if (/\[Handoff\]/.test(last)) return { text: `Here on Telegram; the code word is ${/aubergine/.test(all) ? 'aubergine' : 'unknown'}.` };
      if (/which code word/.test(last)) return { text: /aubergine/.test(all) ? 'Still aubergine.' : 'No idea.' };
      return { text: 'Noted it.' };
    });
    tg = await startFakeTelegram();
  });
  after(async () => {
    if (gw && gw.exitCode === null) gw.kill('SIGKILL');
    await tg?.close();
    await llm?.close();
  });

  test('the REPL hands off, closes with /resume <title>; Telegram confirms and goes on with the same conversation', async () => {
    const env = { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), TELEGRAM_HOME_CHANNEL: String(OWNER), MESSAGING_CWD: '/tmp' };
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env });
    gw = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: t.home, env: cleanEnv(t.home, env), stdio: ['ignore', 'pipe', 'pipe'] });
    let gwOut = '';
    gw.stdout!.on('data', (d) => (gwOut += d));
    gw.stderr!.on('data', (d) => (gwOut += d));
    await until(() => tg.pollers() > 0, 20_000, 'the gateway to poll');
    const repl = startHermes([], { home: t.home, env });
    try {
      await repl.waitFor(/❯/);
      repl.type('remember: the code word is aubergine');
      repl.keys('Enter');
      await repl.waitFor(/Noted it\./);
      repl.type('/handoff telegram');
      repl.keys('Enter');
      await repl.waitFor(/Handed off to telegram: .*/, { timeoutMs: 30_000 });
      assert.equal(await repl.exitCode(), 0);
      assert.match(repl.screen(), /\/resume (Code word chat|[0-9a-z_]+)/);
      await tg.waitFor(isText(/Here on Telegram; the code word is aubergine\./), 15_000, 'the confirmation in the home channel');
      tg.userMessage({ chatId: OWNER, text: 'which code word did I give you?' });
      await tg.waitFor(isText(/Still aubergine\./), 15_000, 'the follow-up in the same conversation');
    } finally {
      repl.kill();
      gw.kill('SIGTERM');
    }
    assert.doesNotMatch(gwOut, /handoff .* failed/);
  });
});
