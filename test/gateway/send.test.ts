// `hermes send` as a person runs it: the real binary against fake platform APIs.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeSignal, type FakeSignal } from '../helpers/fake-signal.ts';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.ts';

describe('hermes send', () => {
  let tg: FakeTelegram;
  let sg: FakeSignal;
  let home: string;
  let env: Record<string, string>;

  before(async () => {
    tg = await startFakeTelegram();
    sg = await startFakeSignal();
    home = tempHome();
    env = { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_HOME_CHANNEL: '777', SIGNAL_HTTP_URL: sg.url, SIGNAL_ACCOUNT: sg.account };
  });
  after(async () => {
    await tg.close();
    await sg.close();
  });

  const sentTo = (chat: number) => tg.calls.filter((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat).map((c) => String(c.params.text));

  test('a message as an argument, from stdin, from a file with a subject; the home channel; JSON', async () => {
    const a = await hermes(['send', '--to', 'telegram:111', 'deploy **finished**'], { home, env });
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout.trim(), 'sent to telegram:111');
    assert.deepEqual(sentTo(111), ['deploy <b>finished</b>']);
    const b = await hermes(['send', '-t', 'telegram:111', '-q'], { home, env, input: 'RAM at 92%\n' });
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, '');
    assert.match(sentTo(111)[1], /RAM at 92%/);
    const file = join(home, 'report.md');
    writeFileSync(file, 'all green\n');
    const c = await hermes(['send', '--to', 'telegram', '--file', file, '--subject', '[CI]', '--json'], { home, env });
    assert.equal(c.code, 0, c.stderr);
    assert.deepEqual(JSON.parse(c.stdout), { success: true, platform: 'telegram', chat_id: '777' });
    assert.match(sentTo(777)[0], /^\[CI\]\n\nall green/);
    const s = await hermes(['send', '--to', 'signal:+15557654321', 'hello from a script'], { home, env });
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual(sg.rpcs.filter((r) => r.method === 'send').map((r) => [r.params.recipient?.[0], r.params.message]), [['+15557654321', 'hello from a script']]);
  });

  test('usage errors exit 2, delivery errors exit 1, each with one line', async () => {
    const noTo = await hermes(['send', 'hi'], { home, env });
    assert.equal(noTo.code, 2);
    assert.match(noTo.stderr, /^hermes: send: --to PLATFORM\[:chat\[:thread\]\] is required/);
    const noMsg = await hermes(['send', '--to', 'telegram:111'], { home, env });
    assert.equal(noMsg.code, 2);
    assert.match(noMsg.stderr, /no message/);
    const bin = join(home, 'pic.png');
    writeFileSync(bin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
    const binary = await hermes(['send', '--to', 'telegram:111', '--file', bin], { home, env });
    assert.equal(binary.code, 2);
    assert.match(binary.stderr, /not a text file.*MEDIA:/);
    const unknown = await hermes(['send', '--to', 'myspace:1', 'hi'], { home, env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown delivery platform "myspace"/);
    const unconfigured = await hermes(['send', '--to', 'matrix:!room:example.org', 'hi'], { home, env });
    assert.equal(unconfigured.code, 1);
    assert.match(unconfigured.stderr, /matrix is not configured/);
    const wa = await hermes(['send', '--to', 'whatsapp:15551234567', 'hi'], { home, env: { ...env, WHATSAPP_ENABLED: 'true' } });
    assert.equal(wa.code, 1);
    assert.match(wa.stderr, /whatsapp can only send through the running gateway .*hermes gateway start/);
    tg.failNext('sendMessage', 2, 403, 'Forbidden: bot was blocked by the user');
    const refused = await hermes(['send', '--to', 'telegram:111', 'hi', '--json'], { home, env });
    assert.equal(refused.code, 1);
    assert.match(JSON.parse(refused.stdout).error, /blocked by the user/);
    assert.equal(refused.stderr.includes(tg.token), false, 'the token never shows');
  });

  test('--list shows configured platforms with their home channels', async () => {
    const r = await hermes(['send', '--list'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^telegram {2}\(home: telegram:777\)/m);
    assert.match(r.stdout, /^signal$/m);
    const one = await hermes(['send', '--list', 'discord'], { home, env });
    assert.equal(one.code, 1);
    assert.match(one.stderr, /no targets for platform "discord"/);
  });
});
