// `hermes plugins install npm:…` without the internet: a plugin package made with `npm pack`,
// installed from its tarball, then from a local npm registry by name; `hermes plugins update`
// takes the newer release the registry publishes; the plugin loads (doctor) and `remove` uninstalls.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../helpers/fake-npm-registry.ts';

const NAME = 'hermes-plugin-hello';

/** `npm pack` of a plugin package at this version; returns the tarball path. */
function pack(version: string): string {
  const dir = tempHome('hermes-npmpkg-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: NAME, version, description: 'says hello', keywords: ['hermes-plugin'], type: 'module', main: 'index.mjs' }));
  writeFileSync(join(dir, 'plugin.yaml'), `name: ${NAME}\nversion: ${version}\ndescription: says hello\nkind: standalone\n`);
  writeFileSync(join(dir, 'index.mjs'), `export function register(ctx) { ctx.register_command('hello', () => 'hello from npm ${version}', 'say hello'); }\n`);
  const out = tempHome('hermes-npmtgz-');
  const r = spawnSync('npm', ['pack', '--pack-destination', out, '--silent'], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_config_cache: join(out, '.cache') } });
  assert.equal(r.status, 0, r.stderr);
  return join(out, r.stdout.trim().split('\n').pop()!);
}

const installedVersion = (h: string) => JSON.parse(readFileSync(join(h, 'plugins', 'node_modules', NAME, 'package.json'), 'utf8')).version as string;

describe('npm plugins', () => {
  let registry: FakeNpmRegistry;
  let npmEnv: Record<string, string>;
  before(async () => {
    registry = await startFakeNpmRegistry();
    const cache = tempHome('hermes-npmcache-');
    // Every npm call goes to the local registry; nothing reaches the internet.
    npmEnv = { npm_config_registry: `${registry.url}/`, npm_config_cache: cache, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fetch_retries: '0' };
  });
  after(() => registry.close());

  it('installs from an npm pack tarball, enables, loads, and removes', async () => {
    const h = tempHome();
    const tgz = pack('1.0.0');
    const r = await hermes(['plugins', 'install', `npm:${tgz}`], { home: h, env: npmEnv });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`installed ${NAME} \\(npm\\)`));
    assert.equal(installedVersion(h), '1.0.0');
    const l = await hermes(['plugins', 'list'], { home: h, env: npmEnv });
    assert.match(l.stdout, new RegExp(`${NAME}\\s+· not enabled\\s+1\\.0\\.0`));
    assert.equal((await hermes(['plugins', 'enable', NAME], { home: h, env: npmEnv })).code, 0);
    const d = await hermes(['plugins', 'doctor'], { home: h, env: npmEnv });
    assert.match(d.stdout, new RegExp(`✓ ${NAME} v1\\.0\\.0 \\(npm\\)`), d.stdout + d.stderr);
    const rm = await hermes(['plugins', 'remove', NAME], { home: h, env: npmEnv });
    assert.equal(rm.code, 0, rm.stderr);
    assert.ok(!existsSync(join(h, 'plugins', 'node_modules', NAME)), 'uninstalled');
  });

  it('installs by name from a registry, and update takes the newer release', async () => {
    registry.publish(NAME, '1.0.0', pack('1.0.0'));
    const h = tempHome();
    mkdirSync(join(h, 'plugins'), { recursive: true });
    const r = await hermes(['plugins', 'install', `npm:${NAME}`, '--enable'], { home: h, env: npmEnv });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(installedVersion(h), '1.0.0');
    assert.ok(registry.requests.includes(`/${NAME}`), 'npm asked the local registry');
    registry.publish(NAME, '1.1.0', pack('1.1.0'));
    const u = await hermes(['plugins', 'update', NAME], { home: h, env: npmEnv });
    assert.equal(u.code, 0, u.stderr);
    assert.match(u.stdout, new RegExp(`${NAME}: updated from npm`));
    assert.equal(installedVersion(h), '1.1.0');
    const d = await hermes(['plugins', 'doctor'], { home: h, env: npmEnv });
    assert.match(d.stdout, new RegExp(`✓ ${NAME} v1\\.1\\.0 \\(npm\\)`), d.stdout + d.stderr);
  });
});
