// `hermes gateway setup`'s connection test (each registry entry's `probe`) and its questions for
// IRC, BlueBubbles, Teams, Google Chat and LINE, against the fake servers: good credentials name the
// bot, bad ones give one clear reason without echoing the secret.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import '../../src/gateway/platforms/builtin.ts';
import { getPlatform } from '../../src/gateway/platforms/registry.ts';
import { startFakeBlueBubbles, type FakeBlueBubbles } from '../helpers/fake-bluebubbles.ts';
import { startFakeBotFramework, type FakeBotFramework } from '../helpers/fake-botframework.ts';
import { startFakeGoogleChat, type FakeGoogleChat } from '../helpers/fake-google-chat.ts';
import { startFakeIrc, type FakeIrc } from '../helpers/fake-irc.ts';
import { startFakeLine, type FakeLine } from '../helpers/fake-line.ts';

const probe = (name: string, env: Record<string, string>) => getPlatform(name)!.probe!(env, {});

describe('setup probes and questions', () => {
  let irc: FakeIrc;
  let bb: FakeBlueBubbles;
  let bf: FakeBotFramework;
  let gc: FakeGoogleChat;
  let line: FakeLine;
  before(async () => {
    [irc, bb, bf, gc, line] = await Promise.all([startFakeIrc({ sasl: { account: 'hermes', password: 'pw' } }), startFakeBlueBubbles({ privateApi: true }), startFakeBotFramework(), startFakeGoogleChat(), startFakeLine()]);
  });
  after(async () => {
    await Promise.all([irc.close(), bb.close(), bf.close(), gc.close(), line.close()]);
  });

  test('irc: registers with SASL and names the nick; a wrong SASL password is refused', async () => {
    const env = { IRC_SERVER: '127.0.0.1', IRC_PORT: String(irc.port), IRC_NICK: 'probebot', IRC_SASL_USERNAME: 'hermes', IRC_SASL_PASSWORD: 'pw' };
    assert.equal(await probe('irc', env), 'probebot on 127.0.0.1');
    await assert.rejects(probe('irc', { ...env, IRC_SASL_PASSWORD: 'nope' }), (e: Error) => !/nope/.test(e.message));
  });

  test('bluebubbles: server version and Private API; a wrong password is refused', async () => {
    assert.equal(await probe('bluebubbles', { BLUEBUBBLES_SERVER_URL: bb.url, BLUEBUBBLES_PASSWORD: bb.password }), 'BlueBubbles 1.9.9 (Private API)');
    await assert.rejects(probe('bluebubbles', { BLUEBUBBLES_SERVER_URL: bb.url, BLUEBUBBLES_PASSWORD: 'wrong' }), /BlueBubbles refused: Unauthorized/);
  });

  test('teams: a token for the app; a wrong secret is refused with Entra ID’s reason', async () => {
    const env = { TEAMS_CLIENT_ID: bf.clientId, TEAMS_CLIENT_SECRET: bf.clientSecret, TEAMS_TENANT_ID: bf.tenantId, TEAMS_TOKEN_URL: bf.tokenUrl };
    assert.equal(await probe('teams', env), `app ${bf.clientId}`);
    await assert.rejects(probe('teams', { ...env, TEAMS_CLIENT_SECRET: 'wrong-secret' }), (e: Error) => /Invalid client secret/.test(e.message) && !/wrong-secret/.test(e.message));
  });

  test('google_chat: the service account mints a token; a broken key file is explained', async () => {
    assert.equal(await probe('google_chat', { GOOGLE_CHAT_SERVICE_ACCOUNT_JSON: gc.serviceAccountJson, GOOGLE_CHAT_HTTP_EVENTS_URL: 'https://x.example/e' }), 'hermes-bot@fake-project.iam.gserviceaccount.com');
    await assert.rejects(probe('google_chat', { GOOGLE_CHAT_SERVICE_ACCOUNT_JSON: '{"client_email":"x"}', GOOGLE_CHAT_HTTP_EVENTS_URL: 'https://x.example/e' }), /lacks client_email or private_key/);
  });

  test('line: the bot’s name; a wrong token is refused', async () => {
    assert.equal(await probe('line', { LINE_CHANNEL_ACCESS_TOKEN: line.token, LINE_CHANNEL_SECRET: line.secret, LINE_API_BASE: line.url }), 'Hermes (@hermes)');
    await assert.rejects(probe('line', { LINE_CHANNEL_ACCESS_TOKEN: 'bad', LINE_CHANNEL_SECRET: line.secret, LINE_API_BASE: line.url }));
  });

  test('the questions: secrets are masked, bad values explained', () => {
    const field = (p: string, k: string) => getPlatform(p)!.setup!.fields.find((f) => f.key === k)!;
    assert.equal(field('teams', 'TEAMS_CLIENT_SECRET').secret, true);
    assert.equal(field('line', 'LINE_CHANNEL_SECRET').secret, true);
    assert.equal(field('bluebubbles', 'BLUEBUBBLES_PASSWORD').secret, true);
    assert.equal(field('irc', 'IRC_SASL_PASSWORD').secret, true);
    assert.match(field('irc', 'IRC_SERVER').validate!('irc://irc.libera.chat:6697') ?? '', /host name only/);
    assert.equal(field('irc', 'IRC_SERVER').validate!('irc.libera.chat'), undefined);
    assert.match(field('teams', 'TEAMS_CLIENT_ID').validate!('not-a-guid') ?? '', /GUID/);
    assert.match(field('line', 'LINE_CHANNEL_SECRET').validate!('short') ?? '', /32 hex/);
    assert.match(field('google_chat', 'GOOGLE_CHAT_HTTP_EVENTS_URL').validate!('http://plain.example') ?? '', /https/);
  });
});
