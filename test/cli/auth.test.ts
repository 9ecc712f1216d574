// `hermes auth` and the credential pools as a person uses them: the real binary, on a copy of the home
// Python Hermes 0.18.2 wrote (its auth.json holds pools made by `hermes auth add`), against fake LLM and
// fake OAuth servers. Nothing here reaches the internet.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.ts';
import { copyPythonHome, PY_HOME } from '../helpers/hermes-home.ts';

let llm: FakeLlm;
let oauth: FakeOAuth;
before(async () => {
  llm = await startFakeLlm();
  oauth = await startFakeOAuth();
});
after(async () => {
  await llm.close();
  await oauth.close();
});

type Pool = Record<string, Record<string, unknown>[]>;
const authJson = (home: string) => JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as Record<string, unknown> & { credential_pool: Pool; providers: Record<string, Record<string, unknown>> };
const PY_AUTH = JSON.parse(readFileSync(join(PY_HOME, 'auth.json'), 'utf8')) as { credential_pool: Pool };
const PY_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/;

test('hermes auth on the Python-made home: list, add, priority, reset, remove, status — in Hermes’s format, secrets never printed', async () => {
  const h = copyPythonHome();
  const list = await hermes(['auth', 'list'], { home: h });
  assert.equal(list.code, 0, list.stderr);
  assert.equal(
    list.stdout,
    'anthropic (1 credential):\n  #1  fixture-ant          api_key id=483cf8 priority=0 manual ←\n\n' +
      'openrouter (2 credentials):\n  #1  primary-or           api_key id=19359d priority=0 manual ←\n  #2  backup-or            api_key id=08e479 priority=1 manual\n\n',
  );

  const add = await hermes(['auth', 'add', 'openrouter', '--label', 'third', '--priority', '0'], { home: h, input: 'sk-or-fixture-3\n' });
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stdout, 'Added openrouter credential #3: "third"\nPlaced openrouter credential "third" at priority 0 (#1 in `hermes auth list openrouter`)\n');
  const a = authJson(h);
  assert.equal(a.version, 1);
  assert.match(String(a.updated_at), PY_TIME);
  assert.equal(statSync(join(h, 'auth.json')).mode & 0o777, 0o600);
  const or = a.credential_pool.openrouter;
  assert.deepEqual(or.map((e) => [e.label, e.priority]), [['third', 0], ['primary-or', 1], ['backup-or', 2]]);
  assert.deepEqual(Object.keys(or[0]), Object.keys(PY_AUTH.credential_pool.openrouter[0]), 'a new entry has the fields of a Python-made one, in order');
  assert.match(String(or[0].id), /^[0-9a-f]{6}$/);
  assert.equal(or[0].access_token, 'sk-or-fixture-3');
  assert.equal(or[0].base_url, 'https://openrouter.ai/api/v1');
  assert.deepEqual(a.credential_pool.anthropic, PY_AUTH.credential_pool.anthropic, 'other pools untouched');
  assert.deepEqual(Object.keys(a), ['version', 'providers', 'credential_pool', 'updated_at', 'active_provider']);

  // A bench another process recorded (Hermes's fields) shows, and `reset` clears it.
  const benched = authJson(h);
  Object.assign(benched.credential_pool.openrouter[1], { last_status: 'exhausted', last_status_at: Date.now() / 1000, last_error_code: 429, last_error_reason: 'rate_limit' });
  writeFileSync(join(h, 'auth.json'), JSON.stringify(benched, null, 2));
  const listed = await hermes(['auth', 'list', 'openrouter'], { home: h });
  assert.match(listed.stdout, /#2  primary-or\s+api_key id=19359d priority=1 manual rate-limited rate_limit \(429\) \((?:59m \d+s|1h 0m) left\)/);
  const all = (await hermes(['auth', 'list'], { home: h })).stdout + listed.stdout;
  for (const secret of ['sk-or-fixture-1', 'sk-or-fixture-2', 'sk-or-fixture-3', 'sk-ant-fixture-1']) assert.ok(!all.includes(secret), `${secret} never printed`);
  assert.equal((await hermes(['auth', 'reset', 'openrouter'], { home: h })).stdout, 'Reset status on 3 openrouter credentials\n');
  assert.equal(authJson(h).credential_pool.openrouter[1].last_status, null);

  assert.equal((await hermes(['auth', 'priority', 'openrouter', 'backup-or', '0'], { home: h })).stdout, 'Set openrouter credential "backup-or" to priority 0 (#1 in `hermes auth list openrouter`)\n');
  assert.equal((await hermes(['auth', 'remove', 'openrouter', '1'], { home: h })).stdout, 'Removed openrouter credential #1 (backup-or)\n');
  assert.deepEqual(authJson(h).credential_pool.openrouter.map((e) => [e.label, e.priority]), [['third', 0], ['primary-or', 1]]);

  const status = await hermes(['auth', 'status', 'openrouter'], { home: h });
  assert.equal(status.stdout, 'openrouter: logged in\n  auth_type: api_key\n  api_base_url: https://openrouter.ai/api/v1\n');
  assert.match((await hermes(['auth', 'status', 'nous'], { home: h })).stdout, /^nous: logged out \(no Nous Portal sign-in; run `hermes auth add nous`\)/);

  // Bad input: one clear line, non-zero exit, nothing changed.
  const before = readFileSync(join(h, 'auth.json'), 'utf8');
  const unknown = await hermes(['auth', 'add', 'frobnicator', '--api-key', 'x'], { home: h });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^hermes: Unknown provider: frobnicator\./);
  const missing = await hermes(['auth', 'remove', 'openrouter', 'nope'], { home: h });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^hermes: No credential matching "nope" \(there are 2 credentials\)\. Provider: openrouter\.\n$/);
  assert.equal(readFileSync(join(h, 'auth.json'), 'utf8'), before);
  writeFileSync(join(h, 'auth.json'), '{ not json');
  const broken = await hermes(['auth', 'list'], { home: h });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /auth\.json is not valid JSON .*nothing was changed/);
});

test('an environment key joins the pool after the stored ones; removing it clears .env and keeps it out', async () => {
  const h = copyPythonHome();
  writeFileSync(join(h, '.env'), 'OPENROUTER_API_KEY=sk-or-from-env\n');
  const list = await hermes(['auth', 'list', 'openrouter'], { home: h });
  assert.match(list.stdout, /#3  OPENROUTER_API_KEY\s+api_key id=[0-9a-f]{6} priority=2 env:OPENROUTER_API_KEY\n/);
  const rm = await hermes(['auth', 'remove', 'openrouter', 'OPENROUTER_API_KEY'], { home: h });
  assert.equal(rm.code, 0, rm.stderr);
  assert.match(rm.stdout, /^Removed openrouter credential #3 \(OPENROUTER_API_KEY\)\nCleared OPENROUTER_API_KEY from .*\.env\n/);
  assert.ok(!readFileSync(join(h, '.env'), 'utf8').includes('sk-or-from-env'));
  assert.deepEqual(authJson(h).suppressed_sources, { openrouter: ['env:OPENROUTER_API_KEY'] });
  // A shell export of the same variable stays out until a credential is added again.
  const again = await hermes(['auth', 'list', 'openrouter'], { home: h, env: { OPENROUTER_API_KEY: 'sk-or-shell' } });
  assert.match(again.stdout, /openrouter \(2 credentials\)/);
  await hermes(['auth', 'add', 'openrouter', '--api-key', 'sk-or-4', '--label', 'fourth'], { home: h });
  assert.equal(authJson(h).suppressed_sources, undefined);
});

function anthropicHome(): string {
  const h = copyPythonHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: anthropic\n  default: claude-fixture\ntoolsets: [todo]\n');
  return h;
}

test('a one-shot uses the pool’s key, rotates on 429 and 401, and the bench it saves in auth.json holds for the next run', async () => {
  const h = anthropicHome();
  const env = { ANTHROPIC_BASE_URL: llm.anthropicBaseUrl };
  assert.equal((await hermes(['auth', 'add', 'anthropic', '--api-key', 'sk-ant-fixture-2', '--label', 'second'], { home: h })).code, 0);
  llm.setHandler((r) => (r.apiKey === 'sk-ant-fixture-1' ? { status: 429, error: 'rate limit reached for requests' } : r.apiKey === 'sk-ant-fixture-2' ? { text: 'from the second key' } : { status: 401, error: 'invalid x-api-key' }));
  try {
    let n = llm.requests.length;
    const r = await hermes(['chat', '-q', 'hello'], { home: h, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /from the second key/);
    assert.deepEqual(llm.requests.slice(n).map((x) => x.apiKey), ['sk-ant-fixture-1', 'sk-ant-fixture-2']);
    assert.ok(!r.stderr.includes('sk-ant-fixture'), 'the rotation notice never shows a key');
    const first = authJson(h).credential_pool.anthropic[0];
    assert.equal(first.last_status, 'exhausted');
    assert.equal(first.last_error_code, 429);
    assert.ok(Math.abs(Number(first.last_status_at) - Date.now() / 1000) < 120);
    assert.equal(authJson(h).credential_pool.anthropic[1].last_status, null);

    // Next process: the benched key is skipped from the start.
    n = llm.requests.length;
    assert.equal((await hermes(['chat', '-q', 'again'], { home: h, env })).code, 0);
    assert.deepEqual(llm.requests.slice(n).map((x) => x.apiKey), ['sk-ant-fixture-2']);
    assert.match((await hermes(['auth', 'list', 'anthropic'], { home: h })).stdout, /#1  fixture-ant .* rate-limited .*\(429\) \((?:59m \d+s|1h 0m) left\)\n  #2  second .*manual ←/);

    // 401 on the second: the third takes over, the second is benched as an auth failure.
    await hermes(['auth', 'add', 'anthropic', '--api-key', 'sk-ant-fixture-3', '--label', 'third'], { home: h });
    llm.setHandler((q) => (q.apiKey === 'sk-ant-fixture-3' ? { text: 'third key' } : { status: q.apiKey === 'sk-ant-fixture-1' ? 429 : 401, error: 'invalid x-api-key' }));
    n = llm.requests.length;
    const t = await hermes(['chat', '-q', 'third?'], { home: h, env });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /third key/);
    assert.deepEqual(llm.requests.slice(n).map((x) => x.apiKey), ['sk-ant-fixture-2', 'sk-ant-fixture-3']);
    assert.equal(authJson(h).credential_pool.anthropic[1].last_error_code, 401);
    assert.match((await hermes(['auth', 'list', 'anthropic'], { home: h })).stdout, /#2  second .* auth failed .*\(401\) \(re-auth may be required\)/);
  } finally {
    llm.setHandler(null);
  }
});

test('Nous Portal: device-code sign-in, the JWT used for inference, refreshed before it expires, status and logout', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: nous\n  default: Hermes-4-405B\ntoolsets: [todo]\n');
  const env = { HERMES_PORTAL_BASE_URL: oauth.url, NOUS_INFERENCE_BASE_URL: llm.openaiBaseUrl };
  oauth.nousInferenceUrl = llm.openaiBaseUrl;
  oauth.ttl = 90; // inside the two-minute refresh window: the first request refreshes
  try {
    const add = await hermes(['auth', 'add', 'nous', '--no-browser'], { home: h, env });
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stdout.split('\n')[0], 'Saved nous OAuth device-code credentials: "ana@nous.test"');
    assert.match(add.stderr, /To continue:\n {2}1\. Open: http:\/\/127\.0\.0\.1:\d+\/device\?code=NOUS-1234\n {2}2\. If prompted, enter code: NOUS-1234/);
    const login = oauth.requests.filter((r) => r.path.startsWith('/api/oauth/'));
    assert.equal(login[0].body.client_id, 'hermes-cli');
    assert.equal(login[0].body.scope, 'inference:invoke');
    assert.equal(login.at(-1)!.body.grant_type, 'urn:ietf:params:oauth:grant-type:device_code');
    const a = authJson(h);
    const nous = a.providers.nous;
    assert.equal(a.active_provider, 'nous');
    assert.equal(nous.client_id, 'hermes-cli');
    assert.equal(nous.portal_base_url, oauth.url);
    assert.equal(nous.agent_key, nous.access_token);
    assert.match(String(nous.expires_at), PY_TIME);
    for (const t of oauth.issued) assert.ok(!add.stdout.includes(t) && !add.stderr.includes(t), 'tokens never printed');

    oauth.ttl = 3600;
    const n = llm.requests.length;
    const chat = await hermes(['chat', '-q', 'hi nous'], { home: h, env });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(oauth.requests.at(-1)!.body.grant_type, 'refresh_token');
    const refreshed = authJson(h).providers.nous;
    assert.notEqual(refreshed.access_token, nous.access_token);
    assert.notEqual(refreshed.refresh_token, nous.refresh_token, 'the rotated refresh token is saved');
    assert.equal(llm.requests[n].apiKey, refreshed.access_token, 'inference uses the fresh JWT');
    assert.equal(llm.requests[n].body.model, 'Hermes-4-405B');

    const st = await hermes(['auth', 'status', 'nous'], { home: h, env });
    assert.match(st.stdout, /^nous: logged in\n {2}auth_type: oauth_device_code\n {2}client_id: hermes-cli\n {2}scope: inference:invoke\n {2}expires_at: .*\n {2}api_base_url: http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    const out = await hermes(['auth', 'logout'], { home: h, env });
    assert.equal(out.stdout, 'Logged out of Nous Portal.\n');
    assert.equal(authJson(h).providers.nous, undefined);
    assert.equal(authJson(h).active_provider, null);
    assert.equal((await hermes(['auth', 'logout'], { home: h, env })).stdout, 'No provider is currently logged in.\n');
  } finally {
    oauth.ttl = 3600;
  }
});

test('OpenAI Codex: device-code sign-in with PKCE exchange; a 401 refreshes the token once and the turn goes on', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: openai-codex\n  default: gpt-5-codex\ntoolsets: [todo]\n');
  const env = { HERMES_CODEX_AUTH_URL: oauth.url, HERMES_CODEX_BASE_URL: llm.openaiBaseUrl };
  const add = await hermes(['auth', 'add', 'openai-codex', '--no-browser'], { home: h, env });
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stdout, 'Added openai-codex OAuth credential #1: "ana@chatgpt.test"\n');
  assert.match(add.stderr, /Open this URL in your browser:\n {5}http:\/\/127\.0\.0\.1:\d+\/codex\/device\n\n {2}2\. Enter this code:\n {5}CODX-5678/);
  const exchange = oauth.requests.find((r) => r.path === '/oauth/token')!;
  assert.equal(exchange.body.client_id, 'app_EMoamEEZ73f0CkXaXp7hrann');
  assert.equal(exchange.body.grant_type, 'authorization_code');
  assert.match(exchange.body.redirect_uri, /\/deviceauth\/callback$/);
  const a = authJson(h);
  const codex = a.providers['openai-codex'] as { tokens: Record<string, string>; last_refresh: string; auth_mode: string };
  assert.equal(codex.auth_mode, 'chatgpt');
  assert.match(codex.last_refresh, /^\d{4}-.*Z$/);
  assert.equal(a.active_provider, 'openai-codex');

  const first = codex.tokens.access_token;
  llm.setHandler((r) => (r.apiKey === first ? { status: 401, error: 'token expired' } : { text: 'codex answer' }));
  try {
    const n = llm.requests.length;
    const chat = await hermes(['chat', '-q', 'hello codex'], { home: h, env });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /codex answer/);
    const sent = llm.requests.slice(n);
    assert.equal(sent[0].wire, 'responses');
    assert.equal(sent[0].apiKey, first);
    const now = (authJson(h).providers['openai-codex'] as { tokens: Record<string, string> }).tokens;
    assert.notEqual(now.access_token, first);
    assert.equal(sent[1].apiKey, now.access_token);
  } finally {
    llm.setHandler(null);
  }
});

test('GitHub Copilot: device flow saves COPILOT_GITHUB_TOKEN; requests carry the exchanged Copilot token', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: copilot\n  default: gpt-4.1\ntoolsets: [todo]\n');
  const env = { HERMES_COPILOT_GITHUB_URL: oauth.url, HERMES_COPILOT_TOKEN_URL: `${oauth.url}/copilot_internal/v2/token`, COPILOT_API_BASE_URL: llm.openaiBaseUrl };
  const add = await hermes(['auth', 'add', 'copilot', '--type', 'oauth', '--no-browser'], { home: h, env });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /^Added copilot OAuth credential #1: "COPILOT_GITHUB_TOKEN"/);
  assert.match(add.stderr, /enter code: GITH-9012/);
  assert.equal(oauth.requests.find((r) => r.path === '/login/device/code')!.body.client_id, 'Iv1.b507a08c87ecfe98');
  const token = /^COPILOT_GITHUB_TOKEN=(gho_\w+)$/m.exec(readFileSync(join(h, '.env'), 'utf8'))?.[1];
  assert.ok(token, 'saved in .env');
  assert.equal(statSync(join(h, '.env')).mode & 0o777, 0o600);
  const n = llm.requests.length;
  const chat = await hermes(['chat', '-q', 'hello copilot'], { home: h, env });
  assert.equal(chat.code, 0, chat.stderr);
  const ex = oauth.requests.filter((r) => r.path === '/copilot_internal/v2/token').at(-1)!;
  assert.equal(ex.headers.authorization, `token ${token}`);
  assert.match(llm.requests[n].apiKey, /^tid=copilot;/);
  assert.equal(llm.requests[n].headers['copilot-integration-id'], 'vscode-chat');
});

test('Qwen: device flow with PKCE writes the Qwen CLI’s credential file; an expiring token is refreshed into it', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: qwen-oauth\n  default: qwen3-coder-plus\ntoolsets: [todo]\n');
  const env = { HERMES_QWEN_OAUTH_URL: oauth.url, HERMES_QWEN_BASE_URL: llm.openaiBaseUrl };
  oauth.ttl = 60;
  try {
    const add = await hermes(['auth', 'add', 'qwen-oauth', '--no-browser'], { home: h, env });
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stdout, 'Added qwen-oauth OAuth credential #1: "qwen-cli"\n');
    const dc = oauth.requests.find((r) => r.path === '/api/v1/oauth2/device/code')!;
    assert.equal(dc.body.code_challenge_method, 'S256');
    assert.equal(dc.body.scope, 'openid profile email model.completion');
    const file = join(h, '.qwen', 'oauth_creds.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(creds), ['access_token', 'expiry_date', 'refresh_token', 'resource_url', 'token_type']);
    assert.equal(authJson(h).active_provider, 'qwen-oauth');
    oauth.ttl = 3600;
    const n = llm.requests.length;
    const chat = await hermes(['chat', '-q', 'hello qwen'], { home: h, env });
    assert.equal(chat.code, 0, chat.stderr);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    assert.notEqual(after.access_token, creds.access_token);
    assert.equal(llm.requests[n].apiKey, after.access_token);
  } finally {
    oauth.ttl = 3600;
  }
});
