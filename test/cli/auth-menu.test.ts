// `hermes auth` with no subcommand, as a person uses it: in a terminal (tmux) the pool status is
// followed by Hermes's menu (add, remove, reset cooldowns, rotation strategy); piped, it says which
// commands to run instead.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hermes } from '../helpers/cli.ts';
import { copyPythonHome } from '../helpers/hermes-home.ts';
import { startHermes, tmuxAvailable, type TmuxTerm } from '../helpers/tmux.ts';

const skip = tmuxAvailable();
const terms: TmuxTerm[] = [];
after(() => {
  for (const t of terms) t.kill();
});
type Pool = Record<string, { label: string; access_token: string }[]>;
const pool = (home: string) => (JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as { credential_pool: Pool }).credential_pool;

test('not a terminal: the status, then the commands to run instead of the menu', async () => {
  const h = copyPythonHome();
  const r = await hermes(['auth'], { home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Credential Pool Status\n=+\nanthropic \(1 credential\):/);
  assert.match(r.stdout, /Not a terminal, so no menu\. Manage credentials with:\n {2}hermes auth add <provider>/);
  assert.match(r.stdout, /hermes config set credential_pool_strategies\.<provider> fill_first\|round_robin\|least_used\|random/);
});

test('the menu adds an API key, removes a credential and sets a rotation strategy', { skip: skip ?? undefined }, async () => {
  const h = copyPythonHome();
  // Add: provider by typing to filter, API key type, label, then the key (hidden).
  let t = startHermes(['auth'], { home: h });
  terms.push(t);
  await t.waitFor(/What would you like to do\?/);
  assert.match(t.screen(), /primary-or[\s\S]*Add a credential[\s\S]*Remove a credential[\s\S]*Reset cooldowns for a provider[\s\S]*Set rotation strategy for a provider[\s\S]*Exit/);
  t.keys('Enter');
  await t.waitFor(/Provider to add a credential for/);
  t.type('openrouter');
  await t.waitFor(/openrouter/);
  t.keys('Enter');
  await t.waitFor(/Label \/ account name/);
  t.type('menu-key');
  t.keys('Enter');
  await t.waitFor(/Paste your API key/);
  t.type('sk-or-menu-secret');
  t.keys('Enter');
  await t.waitFor(/Added openrouter credential #3: "menu-key"/);
  assert.equal(await t.exitCode(), 0);
  assert.ok(!t.screen().includes('sk-or-menu-secret'), 'the key is never shown');
  assert.deepEqual(pool(h).openrouter.map((e) => e.label), ['primary-or', 'backup-or', 'menu-key']);
  assert.equal(pool(h).openrouter[2].access_token, 'sk-or-menu-secret');

  // Remove: only providers with credentials are offered; the credential is picked from the list.
  t = startHermes(['auth'], { home: h });
  terms.push(t);
  await t.waitFor(/What would you like to do\?/);
  t.keys('Down', 'Enter');
  await t.waitFor(/Provider to remove a credential from/);
  t.type('openrouter');
  t.keys('Enter');
  await t.waitFor(/Credential to remove/);
  t.keys('Down', 'Enter');
  await t.waitFor(/Removed openrouter credential #2/);
  assert.equal(await t.exitCode(), 0);
  assert.deepEqual(pool(h).openrouter.map((e) => e.label), ['primary-or', 'menu-key']);

  // Strategy: written to config.yaml.
  t = startHermes(['auth'], { home: h });
  terms.push(t);
  await t.waitFor(/What would you like to do\?/);
  t.keys('Down', 'Down', 'Down', 'Enter');
  await t.waitFor(/Provider to set the rotation strategy for/);
  t.type('openrouter');
  t.keys('Enter');
  await t.waitFor(/Rotation strategy for openrouter \(now fill_first\)/);
  t.keys('Down', 'Enter');
  await t.waitFor(/Set openrouter strategy to: round_robin/);
  assert.equal(await t.exitCode(), 0);
  assert.match(readFileSync(join(h, 'config.yaml'), 'utf8'), /credential_pool_strategies:\n {2}openrouter: round_robin/);
});
