// An empty or unreadable config.yaml, as a person meets it through the real binary: one line naming
// the file and what to do, a non-zero exit, and never a provider guessed from whatever API key is set.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { emptyConfigFile, loadConfig } from '../../src/state/config.ts';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

/** A home whose .env holds an OpenAI key pointed at the fake LLM: the provider an emptied config would fall to. */
function homeWithKeys(config: string | null): string {
  const h = tempHome();
  writeFileSync(join(h, '.env'), `OPENAI_API_KEY=sk-test\nOPENAI_BASE_URL=${llm.openaiBaseUrl}\n`);
  if (config !== null) writeFileSync(join(h, 'config.yaml'), config);
  return h;
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim());

for (const [what, text] of [
  ['an empty config.yaml', ''],
  ['a config.yaml of only comments and blank lines', '# my settings\n\n   \n# (all gone)\n'],
] as const) {
  test(`${what} says so and does not switch the provider to the API key that is set`, async () => {
    const h = homeWithKeys(text);
    const file = join(h, 'config.yaml');
    const seen = llm.requests.length;
    const r = await hermes(['chat', '-q', 'hello'], { home: h });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(lines(r.stderr).length, 1, r.stderr);
    assert.ok(r.stderr.includes(`${file} is empty`), r.stderr);
    assert.match(r.stderr, /hermes setup/);
    assert.equal(llm.requests.length, seen, 'no request went to the provider the keys would pick');
    const st = await hermes(['status'], { home: h });
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /config\.yaml \(empty: no settings/);
    assert.match(st.stdout, /Provider\s+not ready: .*is empty/);
  });
}

test('with a provider named explicitly, an empty config.yaml runs on the defaults and says so', async () => {
  const h = homeWithKeys('');
  llm.setHandler(() => ({ text: 'fine, thanks' }));
  try {
    const r = await hermes(['chat', '--provider', 'custom', '--base-url', llm.openaiBaseUrl, '-m', 'fake-model', '-q', 'hello'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /fine, thanks/);
    assert.ok(r.stderr.includes(`${join(h, 'config.yaml')} is empty (no settings)`), r.stderr);
  } finally {
    llm.setHandler(null);
  }
  // The way out works on an empty file: setting the provider makes the next chat go through.
  const set = await hermes(['config', 'set', 'model.provider', 'custom'], { home: h });
  assert.equal(set.code, 0, set.stderr);
  assert.equal(emptyConfigFile(loadConfig(h, {}).config), undefined);
});

test('a missing config.yaml is still the first run (no settings, provider from the keys)', () => {
  const h = homeWithKeys(null);
  const c = loadConfig(h, {});
  assert.equal(c.exists, false);
  assert.equal(emptyConfigFile(c.config), undefined);
  assert.equal(loadConfig(homeWithKeys('{}'), {}).empty, undefined, 'an explicit empty mapping is a choice, not an emptied file');
});

test('a config.yaml that cannot be read is one line naming it, and a non-zero exit', async () => {
  const h = homeWithKeys(null);
  mkdirSync(join(h, 'config.yaml'));
  const r = await hermes(['chat', '-q', 'hello'], { home: h });
  assert.equal(r.code, 1);
  assert.equal(lines(r.stderr).length, 1, r.stderr);
  assert.ok(r.stderr.includes(`Cannot read ${join(h, 'config.yaml')} (it is a directory, not a file)`), r.stderr);
  assert.doesNotMatch(r.stderr, /EISDIR|at .*\.ts:\d+/);
});

test('a config.yaml without read permission is one line naming it', async () => {
  const h = homeWithKeys('model:\n  provider: anthropic\n');
  const file = join(h, 'config.yaml');
  chmodSync(file, 0o000);
  let r: { code: number | null; stderr: string };
  if (process.getuid?.() === 0) {
    // Root reads any file: run the binary as nobody (setpriv), the home handed to that user.
    if (spawnSync('setpriv', ['--version']).status !== 0) {
      console.log('# skipped the permission case: running as root without setpriv to drop to another user');
      return;
    }
    for (const f of [h, join(h, '.env'), file]) chownSync(f, 65534, 65534);
    const run = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, 'chat', '-q', 'hello'], { cwd: h, env: cleanEnv(h), encoding: 'utf8', timeout: 90_000 });
    r = { code: run.status, stderr: run.stderr };
  } else r = await hermes(['chat', '-q', 'hello'], { home: h });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(lines(r.stderr).length, 1, r.stderr);
  assert.ok(r.stderr.includes(`Cannot read ${file} (permission denied)`), r.stderr);
  assert.match(r.stderr, /chmod 600/);
});

test('`hermes gateway run` with an empty config.yaml says so in one line at start-up, and an unreadable one stops it', async () => {
  const h = homeWithKeys('');
  const env = cleanEnv(h, { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: 'k-test' });
  const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: h, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.on('exit', r));
  const said = () => out.includes(`${join(h, 'config.yaml')} is empty (no settings), so no provider is chosen`);
  for (let i = 0; i < 600 && !said() && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM');
  await exited;
  assert.ok(said(), out);
  assert.equal(out.split('\n').filter((l) => l.includes('is empty (no settings)')).length, 1, out);
  assert.match(out, /hermes setup/);

  const u = homeWithKeys(null);
  mkdirSync(join(u, 'config.yaml'));
  const r = await hermes(['gateway', 'run'], { home: u, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0' } });
  assert.notEqual(r.code, 0);
  assert.ok((r.stdout + r.stderr).includes(`Cannot read ${join(u, 'config.yaml')} (it is a directory, not a file)`), r.stdout + r.stderr);
});
