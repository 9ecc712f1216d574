// `hermes send` without a gateway to IRC (TLS with a private CA) and BlueBubbles: the real binary
// against fake servers; the send-only IRC client connects, joins, sends and quits.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeBlueBubbles, type FakeBlueBubbles } from '../helpers/fake-bluebubbles.ts';
import { startFakeIrc, type FakeIrc } from '../helpers/fake-irc.ts';

const openssl = existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : null;

describe('hermes send to IRC and BlueBubbles', () => {
  let irc: FakeIrc;
  let bb: FakeBlueBubbles;
  let home: string;
  let ca = '';

  before(async () => {
    home = tempHome();
    bb = await startFakeBlueBubbles();
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
