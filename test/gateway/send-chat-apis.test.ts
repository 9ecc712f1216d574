// `hermes send` without a gateway to IRC (TLS with a private CA), BlueBubbles, Teams (a remembered
// conversation), Google Chat and LINE: the real binary against fake servers; the send-only IRC
// client connects, joins, sends and quits.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeBlueBubbles, type FakeBlueBubbles } from '../helpers/fake-bluebubbles.ts';
import { startFakeBotFramework, type FakeBotFramework } from '../helpers/fake-botframework.ts';
import { startFakeGoogleChat, type FakeGoogleChat } from '../helpers/fake-google-chat.ts';
import { startFakeIrc, type FakeIrc } from '../helpers/fake-irc.ts';
import { startFakeLine, type FakeLine } from '../helpers/fake-line.ts';

const openssl = existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : null;

describe('hermes send to IRC and BlueBubbles', () => {
  let irc: FakeIrc;
  let bb: FakeBlueBubbles;
  let bf: FakeBotFramework;
  let gc: FakeGoogleChat;
  let line: FakeLine;
  let home: string;
  let ca = '';

  before(async () => {
    home = tempHome();
    bb = await startFakeBlueBubbles();
    bf = await startFakeBotFramework();
    gc = await startFakeGoogleChat();
    line = await startFakeLine();
    if (openssl) {
      const key = join(home, 'irc.key');
      ca = join(home, 'irc.crt');
      execFileSync(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', ca, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
      irc = await startFakeIrc({ tls: { key: readFileSync(key), cert: readFileSync(ca) } });
    }
  });
  after(async () => {
    await irc?.close();
    await bb.close();
    await bf.close();
    await gc.close();
    await line.close();
  });

  test('teams: to a conversation that wrote to the bot before (remembered service URL); an unknown one is explained', async () => {
    const env = { TEAMS_CLIENT_ID: bf.clientId, TEAMS_CLIENT_SECRET: bf.clientSecret, TEAMS_TENANT_ID: bf.tenantId, TEAMS_TOKEN_URL: bf.tokenUrl, TEAMS_OPENID_METADATA_URL: bf.metadataUrl };
    mkdirSync(join(home, 'teams'), { recursive: true });
    writeFileSync(join(home, 'teams', 'conversations.json'), JSON.stringify({ 'a:1known': { serviceUrl: bf.url, type: 'personal' } }));
    const r = await hermes(['send', '--to', 'teams:a:1known', 'nightly build **green**'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bf.messages.map((m) => [m.conversation, m.text]), [['a:1known', 'nightly build **green**']]);
    const u = await hermes(['send', '--to', 'teams:a:1never', 'hi'], { home, env });
    assert.equal(u.code, 1);
    assert.match(u.stderr + u.stdout, /must message the bot first/);
    const bad = await hermes(['send', '--to', 'teams:a:1known', 'hi'], { home, env: { ...env, TEAMS_CLIENT_SECRET: 'wrong' } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr + bad.stdout, /Entra ID refused the bot credentials/);
    assert.doesNotMatch(bad.stderr + bad.stdout, /wrong/);
  });

  test('google_chat: to a space and a thread with the service account', async () => {
    const env = { GOOGLE_CHAT_SERVICE_ACCOUNT_JSON: gc.serviceAccountJson, GOOGLE_CHAT_API_BASE: gc.url };
    const r = await hermes(['send', '--to', 'google_chat:spaces/ops', 'deploy done'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    const t = await hermes(['send', '--to', 'google_chat:spaces/ops:spaces/ops/threads/t9', 'in the thread'], { home, env });
    assert.equal(t.code, 0, t.stderr);
    assert.deepEqual(gc.messages.map((m) => [m.space, m.thread, m.text]), [['spaces/ops', undefined, 'deploy done'], ['spaces/ops', 'spaces/ops/threads/t9', 'in the thread']]);
    const bad = await hermes(['send', '--to', 'google_chat:ops', 'x'], { home, env });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /"ops" is not a space name \(spaces\/AAAA…\)/);
  });

  test('line: pushed to a user id', async () => {
    const env = { LINE_CHANNEL_ACCESS_TOKEN: line.token, LINE_CHANNEL_SECRET: line.secret, LINE_API_BASE: line.url };
    const to = `U${'e'.repeat(32)}`;
    const r = await hermes(['send', '--to', `line:${to}`, 'your **order** shipped'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(line.sent.map((s) => [s.to, s.via, s.text]), [[to, 'push', 'your order shipped']]);
  });

  test('irc: over TLS trusting IRC_TLS_CA_CERT, to a channel (joined first)', { skip: !openssl && 'openssl is not installed' }, async () => {
    const env = { IRC_SERVER: '127.0.0.1', IRC_PORT: String(irc.port), IRC_USE_TLS: 'true', IRC_TLS_CA_CERT: ca, IRC_NICK: 'hermescron' };
    const r = await hermes(['send', '--to', 'irc:#ops', 'backup **done**\nall 3 volumes'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(irc.joined.has('#ops'));
    assert.deepEqual(irc.sent.map((m) => [m.target, m.text]), [['#ops', 'backup done'], ['#ops', 'all 3 volumes']]);
    const bad = await hermes(['send', '--to', 'irc:#ops', 'x'], { home, env: { ...env, IRC_TLS_CA_CERT: '' } });
    assert.equal(bad.code, 1, 'an untrusted certificate fails the delivery');
    assert.match(bad.stderr + bad.stdout, /certificate|self.signed/i);
  });

  test('bluebubbles: to a known chat by address; an unknown address without the Private API is explained', async () => {
    const env = { BLUEBUBBLES_SERVER_URL: bb.url, BLUEBUBBLES_PASSWORD: bb.password };
    await bb.inbound('+15550001111', 'hi').catch(() => undefined); // makes the chat exist (no webhook registered: nothing posted)
    const r = await hermes(['send', '--to', 'bluebubbles:+15550001111', 'your **package** arrived'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bb.sent.map((s) => [s.chatGuid, s.text]), [['iMessage;-;+15550001111', 'your package arrived']]);
    const u = await hermes(['send', '--to', 'bluebubbles:+15559999999', 'hello'], { home, env });
    assert.equal(u.code, 1);
    assert.match(u.stderr + u.stdout, /no iMessage chat with \+1555\*+|no iMessage chat/);
    assert.doesNotMatch(u.stderr + u.stdout, /bb-server-password/, 'the password never shows');
  });
});
