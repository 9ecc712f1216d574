// `hermes profile alias|install|update|info` as a user runs them: the wrapper script in
// ~/.local/bin runs the profile; a distribution installs from a folder and from a git repository
// (file:// URL), its env requirements land in .env.EXAMPLE, update replaces what it owns and keeps
// the user's config, skills, memories and keys; bad manifests and version requirements are refused.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { until } from '../gateway/helpers.ts';

const profile = (h: string, n: string) => join(h, 'profiles', n);

function distribution(version: string, soul: string): string {
  const d = tempHome('hermes-distsrc-');
  writeFileSync(
    join(d, 'distribution.yaml'),
    `name: helper\nversion: ${version}\ndescription: A helpful profile\nauthor: Test Author\nhermes_requires: ">=0.12.0"\nenv_requires:\n  - name: HELPER_API_KEY\n    description: key for the helper service\n  - name: HELPER_URL\n    required: false\n    default: http://127.0.0.1:9\n`,
  );
  writeFileSync(join(d, 'SOUL.md'), soul);
  writeFileSync(join(d, 'config.yaml'), `model:\n  default: dist-model-${version}\n`);
  mkdirSync(join(d, 'skills', 'research', 'summarize'), { recursive: true });
  writeFileSync(join(d, 'skills', 'research', 'summarize', 'SKILL.md'), `---\nname: summarize\ndescription: v${version}\n---\nSummarize.\n`);
  mkdirSync(join(d, 'memories'), { recursive: true });
  writeFileSync(join(d, 'memories', 'MEMORY.md'), 'a distribution must not ship memories');
  return d;
}

describe('profile distributions and aliases', () => {
  it('alias: the wrapper runs the profile; --name, --remove; a foreign file is never overwritten', async () => {
    const h = tempHome();
    assert.equal((await hermes(['profile', 'create', 'work'], { home: h })).code, 0);
    const wrapper = join(h, '.local', 'bin', 'work');
    assert.ok(existsSync(wrapper), 'create writes the alias (as Hermes does)');
    assert.ok(statSync(wrapper).mode & 0o100, 'executable');
    const run = spawnSync(wrapper, ['profile', 'show'], { env: { PATH: process.env.PATH, HOME: h, HERMES_HOME: h, HERMES_FROM_SOURCE: '1' }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Profile:\s+work/);
    const named = await hermes(['profile', 'alias', 'work', '--name', 'wk'], { home: h });
    assert.equal(named.code, 0, named.stderr);
    assert.ok(existsSync(join(h, '.local', 'bin', 'wk')));
    assert.equal((await hermes(['profile', 'alias', 'work', '--name', 'wk', '--remove'], { home: h })).code, 0);
    assert.ok(!existsSync(join(h, '.local', 'bin', 'wk')));
    writeFileSync(join(h, '.local', 'bin', 'mine'), '#!/bin/sh\necho mine\n');
    const refused = await hermes(['profile', 'alias', 'work', '--name', 'mine'], { home: h });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /exists and was not written by Hermes/);
    assert.equal(readFileSync(join(h, '.local', 'bin', 'mine'), 'utf8'), '#!/bin/sh\necho mine\n');
    const shadow = await hermes(['profile', 'alias', 'work', '--name', 'ls'], { home: h });
    assert.match(shadow.stderr, /would shadow \S+\/ls/);
    assert.equal((await hermes(['profile', 'create', 'quiet', '--no-alias'], { home: h })).code, 0);
    assert.ok(!existsSync(join(h, '.local', 'bin', 'quiet')));
    assert.equal((await hermes(['profile', 'delete', 'work', '--yes'], { home: h })).code, 0);
    assert.ok(!existsSync(wrapper), 'delete removes the alias');
  });

  it('rename moves the alias: the wrapper named after the profile follows it, a custom-named one runs the new name', async () => {
    const h = tempHome();
    assert.equal((await hermes(['profile', 'create', 'work'], { home: h })).code, 0);
    assert.equal((await hermes(['profile', 'alias', 'work', '--name', 'wk'], { home: h })).code, 0);
    const bin = join(h, '.local', 'bin');
    const r = await hermes(['profile', 'rename', 'work', 'job'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Alias moved: \S+\/job runs `hermes -p job`/);
    assert.match(r.stdout, /Alias \S+\/wk now runs `hermes -p job`/);
    assert.ok(!existsSync(join(bin, 'work')), 'the old wrapper is gone');
    for (const name of ['job', 'wk']) {
      const run = spawnSync(join(bin, name), ['profile', 'show'], { env: { PATH: process.env.PATH, HOME: h, HERMES_HOME: h, HERMES_FROM_SOURCE: '1' }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /Profile:\s+job/);
    }
  });

  it('install from a folder, info, then update from a git repository keeps the user’s data', async () => {
    const h = tempHome();
    const src = distribution('1.0.0', 'You are the helper, version one.');
    const noYes = await hermes(['profile', 'install', src], { home: h });
    assert.equal(noYes.code, 2, 'no terminal, no --yes: refused');
    assert.match(noYes.stderr, /add --yes to confirm \(nothing was installed\)/);
    const r = await hermes(['profile', 'install', src, '--yes', '--alias'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Distribution helper v1\.0\.0 by Test Author/);
    assert.match(r.stdout, /env HELPER_API_KEY — key for the helper service/);
    const dir = profile(h, 'helper');
    assert.equal(readFileSync(join(dir, 'SOUL.md'), 'utf8'), 'You are the helper, version one.');
    assert.match(readFileSync(join(dir, 'config.yaml'), 'utf8'), /dist-model-1\.0\.0/);
    assert.ok(existsSync(join(dir, 'skills', 'research', 'summarize', 'SKILL.md')));
    assert.ok(!existsSync(join(dir, 'memories', 'MEMORY.md')), 'memories are never part of a distribution');
    assert.match(readFileSync(join(dir, '.env.EXAMPLE'), 'utf8'), /^HELPER_API_KEY=$/m);
    assert.match(readFileSync(join(dir, '.env.EXAMPLE'), 'utf8'), /^# HELPER_URL=http:\/\/127\.0\.0\.1:9$/m);
    assert.ok(existsSync(join(h, '.local', 'bin', 'helper')), '--alias');
    const info = await hermes(['profile', 'info', 'helper'], { home: h });
    assert.match(info.stdout, /Distribution: helper v1\.0\.0/);
    assert.match(info.stdout, new RegExp(`Source:\\s+${src.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.match(info.stdout, /Installed:\s+\d{4}-\d\d-\d\dT/);
    const again = await hermes(['profile', 'install', src, '--yes'], { home: h });
    assert.match(again.stderr, /Profile 'helper' already exists\. `hermes profile update helper`/);

    // The user's own data meanwhile.
    writeFileSync(join(dir, '.env'), 'HELPER_API_KEY=mine\n');
    writeFileSync(join(dir, 'memories', 'MEMORY.md'), 'the user likes tea');
    writeFileSync(join(dir, 'config.yaml'), 'model:\n  default: my-own-model\n');
    mkdirSync(join(dir, 'skills', 'research', 'mine'), { recursive: true });
    writeFileSync(join(dir, 'skills', 'research', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: mine\n---\n');

    // Version two is published in a git repository; the profile is re-pointed at it.
    const repo = distribution('2.0.0', 'You are the helper, version two.');
    const git = (...a: string[]) => spawnSync('git', ['-C', repo, ...a], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'v2');
    const manifest = readFileSync(join(dir, 'distribution.yaml'), 'utf8').replace(/^source: .*$/m, `source: file://${repo}`);
    writeFileSync(join(dir, 'distribution.yaml'), manifest);
    const u = await hermes(['profile', 'update', 'helper', '--yes'], { home: h });
    assert.equal(u.code, 0, u.stderr);
    assert.match(u.stdout, /Updated 'helper' to helper v2\.0\.0/);
    assert.equal(readFileSync(join(dir, 'SOUL.md'), 'utf8'), 'You are the helper, version two.');
    assert.match(readFileSync(join(dir, 'skills', 'research', 'summarize', 'SKILL.md'), 'utf8'), /v2\.0\.0/);
    assert.ok(existsSync(join(dir, 'skills', 'research', 'mine', 'SKILL.md')), 'the user’s own skill stays');
    assert.equal(readFileSync(join(dir, 'config.yaml'), 'utf8'), 'model:\n  default: my-own-model\n', 'config.yaml kept');
    assert.equal(readFileSync(join(dir, 'memories', 'MEMORY.md'), 'utf8'), 'the user likes tea');
    assert.equal(readFileSync(join(dir, '.env'), 'utf8'), 'HELPER_API_KEY=mine\n');
    assert.match((await hermes(['profile', 'info', 'helper'], { home: h })).stdout, /helper v2\.0\.0[\s\S]*Source:\s+file:\/\//);
    const reset = await hermes(['profile', 'update', 'helper', '--yes', '--force-config'], { home: h });
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(readFileSync(join(dir, 'config.yaml'), 'utf8'), /dist-model-2\.0\.0/);
  });

  it('refuses what is not a distribution, a Hermes version it cannot meet, links, and info on a plain profile', async () => {
    const h = tempHome();
    const empty = tempHome('hermes-notdist-');
    const r1 = await hermes(['profile', 'install', empty, '--yes'], { home: h });
    assert.equal(r1.code, 1);
    assert.match(r1.stderr, /No distribution\.yaml in .*: a folder source needs one at its root/);
    const newer = distribution('1.0.0', 'x');
    writeFileSync(join(newer, 'distribution.yaml'), readFileSync(join(newer, 'distribution.yaml'), 'utf8').replace('>=0.12.0', '>=9.0.0'));
    const r2 = await hermes(['profile', 'install', newer, '--yes'], { home: h });
    assert.match(r2.stderr, /requires Hermes >=9\.0\.0; this build keeps Hermes 0\.18\.2's formats/);
    const linked = distribution('1.0.0', 'x');
    spawnSync('ln', ['-s', '/etc/passwd', join(linked, 'SOUL.md.link')]);
    const r3 = await hermes(['profile', 'install', linked, '--yes'], { home: h });
    assert.match(r3.stderr, /holds a symbolic link \(SOUL\.md\.link\); not installed/);
    assert.ok(!existsSync(profile(h, 'helper')), 'nothing was installed');
    // What changes trust is named before the yes: approvals off in its config.yaml, its plugins.
    const risky = distribution('1.0.0', 'x');
    writeFileSync(join(risky, 'config.yaml'), 'approvals:\n  mode: "off"\n');
    writeFileSync(join(risky, 'distribution.yaml'), `${readFileSync(join(risky, 'distribution.yaml'), 'utf8')}distribution_owned: [SOUL.md, config.yaml, plugins]\n`);
    mkdirSync(join(risky, 'plugins', 'p'), { recursive: true });
    writeFileSync(join(risky, 'plugins', 'p', 'plugin.yaml'), 'name: p\n');
    const r4 = await hermes(['profile', 'install', risky], { home: h });
    assert.equal(r4.code, 2, 'no terminal, no --yes: refused');
    assert.match(r4.stdout, /⚠ approvals\.mode: off: dangerous commands run without asking/);
    assert.match(r4.stdout, /⚠ plugins\/: plugins: code Hermes loads/);
    assert.ok(!existsSync(profile(h, 'helper')), 'nothing was installed');
    await hermes(['profile', 'create', 'plain', '--no-alias'], { home: h });
    const i = await hermes(['profile', 'info', 'plain'], { home: h });
    assert.equal(i.code, 1);
    assert.match(i.stderr, /was not installed from a distribution/);
  });

  it('gateway list shows every profile’s gateway: running or stopped, and its platforms', async () => {
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), 'model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n');
    await hermes(['profile', 'create', 'work', '--no-alias'], { home: h });
    await hermes(['profile', 'create', 'idle', '--no-alias'], { home: h });
    writeFileSync(join(profile(h, 'work'), '.env'), 'API_SERVER_ENABLED=true\nAPI_SERVER_PORT=0\nAPI_SERVER_KEY=k-123456789\n');
    writeFileSync(join(profile(h, 'work'), 'config.yaml'), 'model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n');
    writeFileSync(join(profile(h, 'idle'), '.env'), 'TELEGRAM_BOT_TOKEN=123:abc\n');
    const child = spawn(process.execPath, [BIN, '-p', 'work', 'gateway', 'run'], { cwd: h, env: cleanEnv(h), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      await until(() => existsSync(join(profile(h, 'work'), 'gateway.pid')), 60_000, `the work gateway (${out})`);
      const l = await hermes(['gateway', 'list'], { home: h });
      assert.equal(l.code, 0, l.stderr);
      assert.match(l.stdout, new RegExp(`^\\s+work\\s+running \\(pid ${child.pid}\\)\\s+api_server`, 'm'));
      assert.match(l.stdout, /^\s+idle\s+stopped\s+telegram$/m);
      assert.match(l.stdout, /^\* default\s+stopped\s+none configured$/m);
      assert.match(l.stdout, /1 of 3 gateway\(s\) running/);
      const j = JSON.parse((await hermes(['gateway', 'list', '--json'], { home: h })).stdout) as { profile: string; running: boolean; platforms: { name: string }[] }[];
      assert.deepEqual(j.map((r) => [r.profile, r.running]), [['default', false], ['idle', false], ['work', true]]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
