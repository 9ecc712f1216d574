// Microsoft Teams over the Bot Framework REST protocol against a fake Bot Framework (JWT-signed
// activities in, connector API out).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunningGateway } from '../../../src/gateway/daemon.ts';
import type { TeamsAdapter } from '../../../src/gateway/platforms/teams.ts';
import { startFakeBotFramework, type FakeBotFramework } from '../../helpers/fake-botframework.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let bf: FakeBotFramework;
let endpoint = '';
const OWNER = 'aaaaaaaa-0000-0000-0000-000000000001';
const STRANGER = 'bbbbbbbb-0000-0000-0000-000000000002';
const IMPOSTOR = 'cccccccc-0000-0000-0000-000000000003';
const dm = (user: string) => `a:1dm-${user}`;

runConformance({
  platform: 'teams',
  limit: 4000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: IMPOSTOR,
  noConnection: 'activities arrive as webhooks; there is no connection to drop',
  async start() {
    bf = await startFakeBotFramework();
    return { env: { TEAMS_CLIENT_ID: bf.clientId, TEAMS_CLIENT_SECRET: bf.clientSecret, TEAMS_TENANT_ID: bf.tenantId, TEAMS_HOST: '127.0.0.1', TEAMS_PORT: '0', TEAMS_OPENID_METADATA_URL: bf.metadataUrl, TEAMS_TOKEN_URL: bf.tokenUrl, TEAMS_REQUIRE_MENTION: 'true' } };
  },
  async ready(gw: RunningGateway) {
    endpoint = `http://127.0.0.1:${(gw.adapters.find((a) => a.name === 'teams') as TeamsAdapter).port}/api/messages`;
  },
  stop: () => bf.close(),
  dmChat: (user) => dm(user),
  async send(user, text, o) {
    let image: string | undefined;
    if (o?.image) {
      image = `img${Date.now()}`;
      bf.files.set(image, { bytes: o.image.bytes, type: o.image.mimeType });
    }
    assert.equal(await bf.post(endpoint, { from: user, name: o?.displayName, conversation: dm(user), text, image }), 200);
  },
  messages: (user) => bf.messages.filter((m) => m.conversation === dm(user)).map((m) => ({ id: m.id, text: m.text, edits: m.edits })),
  async drop() {},
  connections: () => 1,
  extra(ctx) {
    test('teams: forged, expired, foreign-key and redirected activities are refused', async () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: 'https://api.botframework.com', aud: bf.clientId, exp: now + 3600, serviceurl: bf.url };
      const msg = { from: OWNER, conversation: dm(OWNER), text: 'forged' };
      assert.equal(await bf.post(endpoint, msg, { token: 'not.a.jwt' }), 401);
      assert.equal(await bf.post(endpoint, msg, { token: bf.sign({ ...claims, exp: now - 3600 }) }), 401, 'expired');
      assert.equal(await bf.post(endpoint, msg, { token: bf.sign({ ...claims, aud: 'another-bot' }) }), 401, 'another audience');
      assert.equal(await bf.post(endpoint, msg, { token: bf.sign({ ...claims, iss: 'https://evil.example' }) }), 401, 'another issuer');
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      assert.equal(await bf.post(endpoint, msg, { token: bf.sign(claims, privateKey) }), 401, 'signed by another key');
      assert.equal(await bf.post(endpoint, msg, { serviceUrl: 'http://127.0.0.1:9/steal', claimServiceUrl: bf.url }), 401, 'serviceUrl not the signed one');
      assert.equal(bf.messages.filter((m) => /forged/.test(m.text)).length, 0);
    });

    test('teams: in a channel the bot answers only when @mentioned, with the mention stripped', async () => {
      const { llm } = ctx();
      const conv = '19:general@thread.tacv2;messageid=1700000000000';
      const before = llm.requests.length;
      assert.equal(await bf.post(endpoint, { from: OWNER, conversation: conv, type: 'channel', text: 'team chatter' }), 200);
      llm.enqueue({ text: 'Channel answer.' });
      assert.equal(await bf.post(endpoint, { from: OWNER, conversation: conv, type: 'channel', text: 'summarise the thread', mention: true }), 200);
      await until(() => bf.messages.some((m) => m.conversation === conv && /Channel answer\./.test(m.text)), 15_000, 'the channel answer');
      const asked = llm.requests.slice(before);
      assert.equal(asked.length, 1);
      const content = JSON.stringify(asked[0].body.messages.at(-1).content);
      assert.match(content, /summarise the thread/);
      assert.doesNotMatch(content, /<at>/);
    });

    test('teams: conversation references are kept (0600) for deliveries after a restart', () => {
      const { gw } = ctx();
      const file = join(gw.runner.home, 'teams', 'conversations.json');
      assert.ok(existsSync(file));
      assert.equal(statSync(file).mode & 0o777, 0o600);
    });
  },
});
