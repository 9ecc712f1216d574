// `hermes plugins install` refuses a plugin whose files include a link leading outside its own
// folder (to ~/.hermes/.env, /etc…) or pointing nowhere — from a folder, a git checkout, an npm
// folder, and when `hermes plugins update` would bring one. Links that stay inside are fine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';

const MANIFEST = 'name: linky\nversion: 1.0.0\ndescription: links\nkind: standalone\n';
const ENTRY = 'export function register() {}\n';

function pluginFolder(links: Record<string, string | ((dir: string) => string)>): string {
  const dir = join(tempHome('hermes-linky-'), 'linky');
  mkdirSync(join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), MANIFEST);
  writeFileSync(join(dir, 'index.mjs'), ENTRY);
  writeFileSync(join(dir, 'README.md'), 'readme\n');
  for (const [name, target] of Object.entries(links)) symlinkSync(typeof target === 'function' ? target(dir) : target, join(dir, name));
  return dir;
}

function gitRepo(dir: string): (...args: string[]) => string {
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'v1');
  return git;
}

describe('plugin install and links', () => {
  it('a folder: a link inside is kept; links to ~/.hermes/.env (absolute or relative), /etc or nowhere are refused', async () => {
    const h = tempHome();
    writeFileSync(join(h, '.env'), 'OPENAI_API_KEY=sk-secret\n');
    const ok = await hermes(['plugins', 'install', pluginFolder({ 'docs/readme.md': '../README.md' }), '--no-enable'], { home: h });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(readlinkSync(join(h, 'plugins', 'linky', 'docs', 'readme.md')), '../README.md', 'kept as written');
    assert.equal(readFileSync(join(h, 'plugins', 'linky', 'docs', 'readme.md'), 'utf8'), 'readme\n');
    for (const kind of ['absolute', 'relative', '/etc', 'nowhere']) {
      const h2 = tempHome();
      writeFileSync(join(h2, '.env'), 'OPENAI_API_KEY=sk-secret\n');
      const target = (dir: string) => (kind === 'absolute' ? join(h2, '.env') : kind === 'relative' ? relative(join(dir, 'docs'), join(h2, '.env')) : kind === '/etc' ? '/etc/hostname' : 'does-not-exist');
      const dir = pluginFolder({ 'docs/keys.txt': target });
      const r = await hermes(['plugins', 'install', dir, '--no-enable'], { home: h2 });
      assert.equal(r.code, 1, `${kind}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /holds a link that leads outside the plugin's folder \(docs\/keys\.txt (→|\(points nowhere)/);
      assert.ok(!existsSync(join(h2, 'plugins', 'linky')), 'nothing installed');
    }
  });

  it('a git checkout with a committed link to outside is refused; an update that brings one is refused and rolled back', async () => {
    const h = tempHome();
    const bad = pluginFolder({ leak: '/etc/hostname' });
    gitRepo(bad);
    const r = await hermes(['plugins', 'install', `file://${bad}`, '--no-enable'], { home: h });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /holds a link that leads outside the plugin's folder \(leak → \/etc\/hostname\)/);
    assert.ok(!existsSync(join(h, 'plugins', 'linky')));

    const good = pluginFolder({});
    const git = gitRepo(good);
    const v1 = git('rev-parse', 'HEAD');
    const i = await hermes(['plugins', 'install', `file://${good}`, '--no-enable'], { home: h });
    assert.equal(i.code, 0, i.stderr);
    symlinkSync('../../../.env', join(good, 'env-link'));
    git('add', '-A');
    git('commit', '-qm', 'v2 brings a link');
    const u = await hermes(['plugins', 'update', 'linky'], { home: h });
    assert.match(u.stdout + u.stderr, /brings a link that leads outside the plugin's folder \(env-link (→ |\(points nowhere\)).*it stays at/);
    assert.ok(!existsSync(join(h, 'plugins', 'linky', 'env-link')), 'the link is gone again');
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: join(h, 'plugins', 'linky'), encoding: 'utf8' }).stdout.trim();
    assert.equal(head, v1);
  });

  it('an npm folder package with a link to outside is refused and uninstalled', async () => {
    const h = tempHome();
    const dir = pluginFolder({ leak: '/etc/hostname' });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'linky', version: '1.0.0', type: 'module', main: 'index.mjs' }));
    const env = { npm_config_cache: tempHome('hermes-npmcache-'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_offline: 'true' };
    const r = await hermes(['plugins', 'install', `npm:${dir}`], { home: h, env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /npm package linky holds a link that leads outside the plugin's folder \(leak → \/etc\/hostname\)/);
    assert.ok(!existsSync(join(h, 'plugins', 'node_modules', 'linky')), 'uninstalled again');
  });
});
