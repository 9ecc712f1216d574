// The Nous sign-in across profiles (Hermes's shared/nous_auth.json) and the minting Portal flow
// (an access token with inference:mint_agent_key buys short-lived inference keys), as a person meets
// them: the real binary against the fake Portal and the fake LLM.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.ts';

let llm: FakeLlm;
let oauth: FakeOAuth;
before(async () => {
  llm = await startFakeLlm();
  oauth = await startFakeOAuth();
  oauth.nousInferenceUrl = llm.openaiBaseUrl;
});
after(async () => {
  await llm.close();
  await oauth.close();
});

type Json = Record<string, unknown>;
const nousOf = (home: string) => (JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as { providers: Record<string, Json> }).providers.nous;
const CONFIG = 'model:\n  provider: nous\n  default: Hermes-4-405B\ntoolsets: [todo]\n';

test('a Nous sign-in is shared with other profiles: imported without a new sign-in, and a rotated refresh token reaches the profile that did not rotate it', async () => {
  const root = tempHome();
  const profile = join(root, 'profiles', 'coder');
  mkdirSync(profile, { recursive: true });
  for (const h of [root, profile]) writeFileSync(join(h, 'config.yaml'), CONFIG);
  const env = { HERMES_PORTAL_BASE_URL: oauth.url, NOUS_INFERENCE_BASE_URL: llm.openaiBaseUrl };
  oauth.ttl = 90; // the root's token is inside the refresh window when it is next used
  const add = await hermes(['auth', 'add', 'nous', '--no-browser'], { home: root, env });
  oauth.ttl = 3600;
  assert.equal(add.code, 0, add.stderr);
  const sharedFile = join(root, 'shared', 'nous_auth.json');
  const shared = JSON.parse(readFileSync(sharedFile, 'utf8')) as Json;
  assert.deepEqual(Object.keys(shared), [...Object.keys(shared)].sort(), 'sorted keys, as Hermes writes it');
  assert.equal(shared._schema, 1);
  assert.equal(shared.refresh_token, nousOf(root).refresh_token);
  assert.equal(shared.client_id, 'hermes-cli');
  assert.ok(!('agent_key' in shared), 'only the OAuth core is shared');
  assert.equal(statSync(sharedFile).mode & 0o777, 0o600);

  // The profile (HERMES_HOME=<root>/profiles/coder) imports it: no device code, its own fresh pair.
  const n = oauth.requests.length;
  const imp = await hermes(['auth', 'add', 'nous', '--no-browser'], { home: profile, env: { ...env, HERMES_HOME: profile }, input: 'y\n' });
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stderr, new RegExp(`Found existing Nous OAuth credentials at ${sharedFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(imp.stderr, /Imported nous OAuth credentials/);
  assert.ok(!oauth.requests.slice(n).some((r) => r.path === '/api/oauth/device/code'), 'no new device-code sign-in');
  const mine = nousOf(profile);
  assert.notEqual(mine.refresh_token, shared.refresh_token, 'the import redeemed the shared refresh token');
  assert.equal((JSON.parse(readFileSync(sharedFile, 'utf8')) as Json).refresh_token, mine.refresh_token, 'the rotated pair is shared again');

  // The root's stored refresh token is spent now; its next turn takes the shared pair instead of redeeming it.
  const before = oauth.requests.length;
  const m = llm.requests.length;
  const chat = await hermes(['chat', '-q', 'hi from root'], { home: root, env });
  assert.equal(chat.code, 0, chat.stderr);
  assert.ok(!oauth.requests.slice(before).some((r) => r.body.refresh_token === shared.refresh_token), 'the spent refresh token is never sent');
  assert.equal(llm.requests[m].apiKey, mine.access_token);
  assert.equal(nousOf(root).refresh_token, mine.refresh_token);

  // Declining the import falls back to a device-code sign-in.
  const other = join(root, 'profiles', 'writer');
  mkdirSync(other, { recursive: true });
  const k = oauth.requests.length;
  const no = await hermes(['auth', 'add', 'nous', '--no-browser'], { home: other, env: { ...env, HERMES_HOME: other }, input: 'n\n' });
  assert.equal(no.code, 0, no.stderr);
  assert.ok(oauth.requests.slice(k).some((r) => r.path === '/api/oauth/device/code'));
});

test('a minting Portal grant: the access token mints the inference key, minted again when under 30 minutes remain', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), CONFIG);
  const env = { HERMES_PORTAL_BASE_URL: oauth.url, NOUS_INFERENCE_BASE_URL: llm.openaiBaseUrl };
  oauth.nousScope = 'inference:mint_agent_key';
  try {
    const add = await hermes(['auth', 'add', 'nous', '--no-browser', '--scope', 'inference:mint_agent_key'], { home: h, env });
    assert.equal(add.code, 0, add.stderr);
    const mint = oauth.requests.find((r) => r.path === '/api/oauth/agent-key')!;
    assert.equal(JSON.stringify(mint.body), JSON.stringify({ min_ttl_seconds: 1800 }));
    const st = nousOf(h);
    assert.match(String(mint.headers.authorization), new RegExp(`^Bearer ${String(st.access_token).replace(/\./g, '\\.')}$`));
    assert.equal(st.agent_key, oauth.agentKeys.at(-1));
    assert.notEqual(st.agent_key, st.access_token);
    assert.equal(st.agent_key_id, `key-${oauth.agentKeys.length}`);
    assert.equal(st.agent_key_reused, false);
    for (const t of [...oauth.issued, ...oauth.agentKeys]) assert.ok(!add.stdout.includes(t) && !add.stderr.includes(t), 'secrets never printed');

    const n = llm.requests.length;
    assert.equal((await hermes(['chat', '-q', 'one'], { home: h, env })).code, 0);
    assert.equal(llm.requests[n].apiKey, st.agent_key, 'inference uses the minted key');
    const minted = oauth.agentKeys.length;

    // Less than the minimum TTL left: the next turn mints a new key (no refresh: the access token is fresh).
    const stored = JSON.parse(readFileSync(join(h, 'auth.json'), 'utf8')) as { providers: Record<string, Json> };
    stored.providers.nous.agent_key_expires_at = new Date(Date.now() + 1000_000).toISOString().replace('Z', '+00:00');
    writeFileSync(join(h, 'auth.json'), JSON.stringify(stored, null, 2));
    const r0 = oauth.requests.length;
    const m = llm.requests.length;
    assert.equal((await hermes(['chat', '-q', 'two'], { home: h, env })).code, 0);
    assert.equal(oauth.agentKeys.length, minted + 1);
    assert.ok(!oauth.requests.slice(r0).some((r) => r.body.grant_type === 'refresh_token'));
    assert.equal(llm.requests[m].apiKey, oauth.agentKeys.at(-1));
    assert.equal(nousOf(h).agent_key, oauth.agentKeys.at(-1));
  } finally {
    oauth.nousScope = 'inference:invoke';
  }
});
