// Claude Pro/Max sign-in as a person does it: `hermes auth add anthropic --type oauth` prints the
// authorize link, the person approves in the browser (here: a GET on the fake's authorize endpoint,
// which answers with the `code#state` the console's callback page shows), pastes the code, and the
// grant lands in auth.json the way Python Hermes stores it. Then the grant is used, renewed on a 401
// and by `hermes auth refresh anthropic`; Python Hermes's own .anthropic_oauth.json is used too.
// The sign-in is opt-in: a warning quoting Anthropic's terms comes first, and it goes on only after a
// yes at a terminal or with --accept-risk; Hermes never presents itself as another client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

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

type Entry = Record<string, unknown>;
const pool = (home: string): Entry[] => !existsSync(join(home, 'auth.json')) ? [] : (JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as { credential_pool: Record<string, Entry[]> }).credential_pool.anthropic ?? [];

/** Runs the sign-in, approving in the "browser" and pasting what it shows (or `paste(shown)`). */
function signIn(home: string, env: Record<string, string>, paste: (shown: string) => string = (x) => x): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'auth', 'add', 'anthropic', '--type', 'oauth', '--no-browser', '--accept-risk'], { cwd: home, env: cleanEnv(home, env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let approved = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', async (d) => {
      stderr += d;
      const link = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(stderr)?.[1];
      if (!link || approved || !stderr.includes('Authorization code: ')) return;
      approved = true;
      try {
        const shown = ((await (await fetch(link)).json()) as { paste: string }).paste;
        child.stdin.end(`${paste(shown)}\n`);
      } catch (e) {
        reject(e);
      }
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('Claude Pro/Max: PKCE sign-in with a pasted code, saved as Hermes does; used with the OAuth headers, renewed on a 401 and by `auth refresh`', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: anthropic\n  default: claude-sonnet-4-5\ntoolsets: [todo]\n');
  const env = { HERMES_ANTHROPIC_OAUTH_URL: oauth.url, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl };
  const add = await signIn(h, env);
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stdout, 'Added anthropic OAuth credential #1: "anthropic-oauth-1"\n');
  assert.match(add.stderr, /Authorize Hermes with your Claude Pro\/Max subscription\./);
  assert.match(add.stderr, /Warning: signing in with a Claude Pro\/Max subscription breaks Anthropic's terms/, 'the warning comes first, even with --accept-risk');
  assert.ok(add.stderr.indexOf('Warning:') < add.stderr.indexOf('Authorize Hermes'));
  const link = new URL(/(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(add.stderr)![1]);
  assert.equal(link.searchParams.get('client_id'), '9d1c250a-e61b-44d9-88ed-5944d1962f5e');
  assert.equal(link.searchParams.get('redirect_uri'), 'https://console.anthropic.com/oauth/code/callback');
  assert.equal(link.searchParams.get('scope'), 'org:create_api_key user:profile user:inference');
  assert.notEqual(link.searchParams.get('state'), null);
  const exchange = oauth.requests.find((r) => r.path === '/v1/oauth/token')!;
  assert.equal(exchange.headers['content-type'], 'application/json');
  // Hermes's own user agent: never another client's (no axios, no claude-cli).
  assert.match(exchange.headers['user-agent'], /^hermes-agent-ts\/\d+\.\d+\.\d+ /);
  assert.doesNotMatch(exchange.headers['user-agent'], /axios|claude/i);
  assert.notEqual(exchange.body.code_verifier, link.searchParams.get('state'), 'the verifier never travels in the link');

  const [e] = pool(h);
  assert.deepEqual(
    { auth_type: e.auth_type, source: e.source, base_url: e.base_url, priority: e.priority },
    { auth_type: 'oauth', source: 'manual:hermes_pkce', base_url: 'https://api.anthropic.com', priority: 0 },
  );
  assert.match(String(e.access_token), /^sk-ant-oat01-/);
  assert.match(String(e.refresh_token), /^sk-ant-ort01-/);
  assert.ok(Number(e.expires_at_ms) > Date.now());
  assert.equal(statSync(join(h, 'auth.json')).mode & 0o777, 0o600);
  for (const t of oauth.issued) assert.ok(!add.stdout.includes(t) && !add.stderr.includes(t), 'tokens never printed');

  // In use: Bearer + the OAuth beta; a 401 renews the grant once and the turn goes on.
  const first = String(e.access_token);
  llm.setHandler((r) => (r.apiKey === first ? { status: 401, error: 'token expired' } : { text: 'claude answer' }));
  try {
    const n = llm.requests.length;
    const chat = await hermes(['chat', '-q', 'hello claude'], { home: h, env });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /claude answer/);
    const sent = llm.requests.slice(n);
    assert.equal(sent[0].headers.authorization, `Bearer ${first}`);
    assert.match(String(sent[0].headers['anthropic-beta']), /oauth-2025-04-20/);
    assert.doesNotMatch(String(sent[0].headers['anthropic-beta']), /claude-code/, 'no Claude Code beta flag');
    assert.doesNotMatch(JSON.stringify(sent[0].body.system ?? ''), /You are Claude Code/, 'no Claude Code identity prompt');
    const renewed = pool(h)[0];
    assert.notEqual(renewed.access_token, first);
    assert.notEqual(renewed.refresh_token, e.refresh_token, 'the single-use refresh token was rotated and saved');
    assert.equal(sent[1].apiKey, renewed.access_token);
  } finally {
    llm.setHandler(null);
  }

  // `hermes auth refresh anthropic` renews now.
  const before = pool(h)[0];
  const r = await hermes(['auth', 'refresh', 'anthropic'], { home: h, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Refreshed anthropic credential #1 \(anthropic-oauth-1\); valid until \d{4}-/);
  assert.notEqual(pool(h)[0].access_token, before.access_token);

  // A revoked grant: one line saying to sign in again.
  oauth.refuseRefresh = true;
  try {
    const dead = await hermes(['auth', 'refresh', 'anthropic'], { home: h, env });
    assert.equal(dead.code, 1);
    assert.match(dead.stderr, /invalid_grant.*hermes auth add anthropic --type oauth/);
  } finally {
    oauth.refuseRefresh = false;
  }
});

test('Claude sign-in: a code from another sign-in (state mismatch) or no code adds nothing', async () => {
  const h = tempHome();
  const env = { HERMES_ANTHROPIC_OAUTH_URL: oauth.url };
  const wrong = await signIn(h, env, (shown) => `${shown.split('#')[0]}#someone-elses-state`);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /hermes: The pasted code belongs to another sign-in \(state mismatch\); nothing was added\./);
  const empty = await signIn(h, env, () => '');
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /hermes: No code entered; nothing was added\./);
  assert.deepEqual(pool(h), []);
});

test('Python Hermes’s .anthropic_oauth.json grant is used, and kept current when it is renewed', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: anthropic\n  default: claude-sonnet-4-5\ntoolsets: [todo]\n');
  const env = { HERMES_ANTHROPIC_OAUTH_URL: oauth.url, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl };
  // A grant the fake issued, written where Python Hermes keeps it, already expired.
  const add = await signIn(h, env);
  assert.equal(add.code, 0, add.stderr);
  const e = pool(h)[0];
  writeFileSync(join(h, 'auth.json'), JSON.stringify({ version: 1, providers: {}, credential_pool: {} }));
  writeFileSync(join(h, '.anthropic_oauth.json'), JSON.stringify({ accessToken: e.access_token, refreshToken: e.refresh_token, expiresAt: Date.now() - 1000 }), { mode: 0o600 });
  llm.setHandler(() => ({ text: 'from the file grant' }));
  try {
    const n = llm.requests.length;
    const chat = await hermes(['chat', '-q', 'hi'], { home: h, env });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /from the file grant/);
    const file = JSON.parse(readFileSync(join(h, '.anthropic_oauth.json'), 'utf8')) as { accessToken: string; refreshToken: string; expiresAt: number };
    assert.notEqual(file.accessToken, e.access_token, 'the expired token was renewed before use');
    assert.notEqual(file.refreshToken, e.refresh_token);
    assert.ok(file.expiresAt > Date.now());
    assert.equal(llm.requests.slice(n)[0].apiKey, file.accessToken);
  } finally {
    llm.setHandler(null);
  }
});

test('with a browser on the machine, approving there completes the sign-in by itself (loopback callback)', async () => {
  const h = tempHome();
  // The "browser": follows the authorize link and its redirect, as a real one does after approval.
  const bin = join(h, 'fake-bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -e "fetch(process.argv[1]).then((r) => r.text()).then((t) => require('fs').writeFileSync(process.argv[2], t))" "$1" ${JSON.stringify(join(h, 'browser.html'))}\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const env = { HERMES_ANTHROPIC_OAUTH_URL: oauth.url, DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` };
  const add = await hermes(['auth', 'add', 'anthropic', '--type', 'oauth', '--accept-risk'], { home: h, env });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr, /Opened your browser: approve there and this continues by itself/);
  assert.match(add.stderr, /Approved in the browser\./);
  assert.equal(add.stdout, 'Added anthropic OAuth credential #1: "anthropic-oauth-1"\n');
  const exchange = oauth.requests.filter((r) => r.path === '/v1/oauth/token').at(-1)!;
  assert.match(exchange.body.redirect_uri, /^http:\/\/localhost:\d+\/callback$/, 'the code is exchanged with the redirect it was issued for');
  // The browser shows the callback's page (written by the detached fake browser once it has it).
  for (let i = 0; i < 200 && !existsSync(join(h, 'browser.html')); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(readFileSync(join(h, 'browser.html'), 'utf8'), /Hermes is signed in to Claude/);
  assert.match(String(pool(h)[0].access_token), /^sk-ant-oat01-/);
});

test('without --accept-risk and without a terminal, the Claude sign-in is refused after the warning; nothing is asked of Anthropic', async () => {
  const h = tempHome();
  const env = { HERMES_ANTHROPIC_OAUTH_URL: oauth.url };
  const n = oauth.requests.length;
  const r = await hermes(['auth', 'add', 'anthropic', '--type', 'oauth', '--no-browser'], { home: h, env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /intended exclusively for Claude Code and\s+Claude\.ai/, 'the terms are quoted');
  assert.match(r.stderr, /opencode removed its Claude sign-in/);
  assert.match(r.stderr, /hermes: Not signing in to Claude without a yes: add --accept-risk/);
  assert.doesNotMatch(r.stderr, /oauth\/authorize/, 'no sign-in link was made');
  assert.equal(oauth.requests.length, n);
  assert.deepEqual(pool(h), []);
});

test('`hermes auth status anthropic` warns about a Claude subscription credential, not about an API key', async () => {
  const h = tempHome();
  const env = { HERMES_ANTHROPIC_OAUTH_URL: oauth.url };
  const key = await hermes(['auth', 'add', 'anthropic', '--api-key', 'sk-ant-api03-test-key'], { home: h, env });
  assert.equal(key.code, 0, key.stderr);
  const plain = await hermes(['auth', 'status', 'anthropic'], { home: h, env });
  assert.match(plain.stdout, /^anthropic: logged in/);
  assert.doesNotMatch(plain.stdout, /warning/);
  const add = await signIn(h, env);
  assert.equal(add.code, 0, add.stderr);
  const st = await hermes(['auth', 'status', 'anthropic'], { home: h, env });
  assert.match(st.stdout, /^ {2}warning: this is a Claude Pro\/Max sign-in; Anthropic's consumer terms allow those tokens only in Claude Code and claude\.ai/m);
  // A subscription token in the environment counts too.
  const h2 = tempHome();
  const viaEnv = await hermes(['auth', 'status', 'anthropic'], { home: h2, env: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-from-env' } });
  assert.match(viaEnv.stdout, /warning: this is a Claude Pro\/Max sign-in/);
});

test('at a terminal the Claude sign-in asks first; no (the default) adds nothing', { skip: tmuxAvailable() ?? undefined }, async () => {
  const h = tempHome();
  const n = oauth.requests.length;
  const term = startHermes(['auth', 'add', 'anthropic', '--type', 'oauth', '--no-browser'], { home: h, env: { HERMES_ANTHROPIC_OAUTH_URL: oauth.url } });
  try {
    await term.waitFor(/Sign in with your Claude subscription anyway\? \[y\/N\]/);
    assert.match(term.screen(), /Warning: signing in with a Claude Pro\/Max subscription/);
    term.keys('Enter');
    assert.equal(await term.exitCode(), 1);
    assert.match(term.screen(), /Not signed in; nothing was added\. An API key is the supported way/);
  } finally {
    term.kill();
  }
  assert.equal(oauth.requests.length, n);
  assert.deepEqual(pool(h), []);
  // A yes goes on to the sign-in link.
  const t2 = startHermes(['auth', 'add', 'anthropic', '--type', 'oauth', '--no-browser'], { home: h, env: { HERMES_ANTHROPIC_OAUTH_URL: oauth.url } });
  try {
    await t2.waitFor(/\[y\/N\]/);
    t2.type('y');
    t2.keys('Enter');
    await t2.waitFor(/Authorization code:/);
    t2.keys('C-c');
  } finally {
    t2.kill();
  }
});
