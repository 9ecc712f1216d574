// What a new user sees around `npm ci` and `npm test`: npm on an old Node warns EBADENGINE for the
// packages that need Node 22+, and the postinstall check says once that this is expected; a suite
// gated on something the machine lacks counts its tests as skipped in the summary.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');

function checkNode(env: Record<string, string>): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-node.mjs')], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

describe('npm ci on an old Node', () => {
  it('the postinstall says once that the EBADENGINE warnings are expected, only when npm runs on Node < 22', () => {
    const old = checkNode({ npm_lifecycle_event: 'postinstall', npm_config_user_agent: 'npm/10.8.2 node/v20.19.5 linux x64 workspaces/false' });
    assert.equal(old.code, 0);
    assert.equal(old.stderr.trim().split('\n').length, 1, old.stderr);
    assert.match(old.stderr, /^Note: npm runs on Node v20, so it warned "EBADENGINE" for packages that need Node 22\+\. That is expected and harmless: Hermes runs them on the Node \d+\.\d+\.\d+ installed into node_modules\/\.bin\/node/);
    const current = checkNode({ npm_lifecycle_event: 'postinstall', npm_config_user_agent: 'npm/11.6.0 node/v24.11.0 linux x64 workspaces/false' });
    assert.equal(current.code, 0);
    assert.equal(current.stderr, '');
    assert.equal(checkNode({}).stderr, '', 'run outside npm it says nothing');
  });
});

describe('gated suites', () => {
  it('a suite whose requirement is missing counts its tests as skipped, with the reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermes-gated-'));
    const skip = pathToFileURL(join(ROOT, 'test', 'helpers', 'skip.ts')).href;
    const file = join(dir, 'gated.test.ts');
    writeFileSync(
      file,
      `import { gatedSuite } from ${JSON.stringify(skip)};\n` +
        `const off = gatedSuite('sshd is not installed');\n` +
        `off.before(() => { throw new Error('hooks of a gated suite must not run'); });\n` +
        `off.describe('needs sshd', () => { off.it('one', () => { throw new Error('ran'); }); off.it('two', () => { throw new Error('ran'); }); });\n` +
        `const on = gatedSuite(null);\n` +
        `on.describe('runs', () => { on.it('three', () => {}); });\n`,
    );
    // A run of its own (NODE_TEST_CONTEXT would make it report to this run instead).
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', file], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /ℹ tests 3\n/);
    assert.match(r.stdout, /ℹ pass 1\n/);
    assert.match(r.stdout, /ℹ skipped 2\n/);
    assert.match(r.stdout, /one \([\d.]+ms\) # sshd is not installed/);
  });
});
