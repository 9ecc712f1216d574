// scripts/test.mjs (`npm test`): a line per file, failures shown with their output, and a file that
// never ends (a server left open) killed at its limit and counted as failed, so a run cannot hang.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

describe('npm test runner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-runner-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'test', 'a'), { recursive: true });
  const pidFile = join(dir, 'sleeper.pid');
  writeFileSync(join(dir, 'test', 'a', 'ok.test.ts'), "import { test } from 'node:test';\ntest('one', () => {});\ntest('two', () => {});\n");
  writeFileSync(
    join(dir, 'test', 'a', 'fails.test.ts'),
    "import { test } from 'node:test';\nimport assert from 'node:assert';\ntest('wrong sum', () => { assert.equal(1 + 1, 3); });\n",
  );
  // Never ends: a test waits for ever, with a child process started.
  writeFileSync(
    join(dir, 'test', 'a', 'hangs.test.ts'),
    `// test-timeout: 3
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
test('waits for ever', async () => {
  const c = spawn('sleep', ['600'], { stdio: 'ignore' });
  writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));
  await new Promise(() => setInterval(() => {}, 1000));
});
`,
  );
  // Passes, leaving a listening server behind: the file still ends with its tests, long before its limit.
  writeFileSync(
    join(dir, 'test', 'a', 'leaves.test.ts'),
    `// test-timeout: 60
import { test } from 'node:test';
import { createServer } from 'node:net';
test('leaves a server listening', () => {
  createServer().listen(0, '127.0.0.1');
});
`,
  );

  it('reports each file, shows failures, and kills a file past its limit with what it started', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), '--root', dir, '--jobs', '4'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /✔ test\/a\/ok\.test\.ts {2}2\/2 passed/);
    assert.match(r.stdout, /✖ test\/a\/fails\.test\.ts .* failed/);
    assert.match(r.stdout, /━━━━ ✖ test\/a\/fails\.test\.ts[\s\S]*wrong sum/);
    // (6 s: twice the limit, when the machine is busy at the time.)
    assert.match(r.stdout, /✖ test\/a\/hangs\.test\.ts .*timed out after [36] s/);
    assert.match(r.stdout, /✔ test\/a\/leaves\.test\.ts {2}1\/1 passed {2}\d+\.\d s\n/);
    assert.match(r.stdout, /test: 4 files, .* 2 file\(s\) failed/);
    // Killed with it: gone, or a zombie nobody has reaped yet (state Z).
    const pid = Number(readFileSync(pidFile, 'utf8'));
    let state = 'gone';
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    } catch {
      /* gone */
    }
    assert.ok(state === 'gone' || state === 'Z', `the sleep the hanging file started is still running (state ${state})`);
  });

  it('runs small files several to a process, reporting each; a group that fails runs its files again alone', () => {
    const g = mkdtempSync(join(tmpdir(), 'hermes-runner-group-'));
    try {
      mkdirSync(join(g, 'test', 'u'), { recursive: true });
      mkdirSync(join(g, '.tmp'), { recursive: true });
      // Each file writes its process id: files run together share one.
      const pidOf = (name: string) => `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(g, name))}, String(process.pid));\n`;
      writeFileSync(join(g, 'test', 'u', 'one.test.ts'), `${pidOf('one.pid')}import { test } from 'node:test';\ntest('a', () => {});\ntest('b', () => {});\n`);
      writeFileSync(join(g, 'test', 'u', 'two.test.ts'), `${pidOf('two.pid')}import { test } from 'node:test';\ntest('c', () => {});\ntest.skip('d', () => {});\n`);
      // Known to be small, but with a per-test hook at its top level: never grouped.
      writeFileSync(join(g, 'test', 'u', 'hooked.test.ts'), `${pidOf('hooked.pid')}import { beforeEach, test } from 'node:test';\nbeforeEach(() => {});\ntest('e', () => {});\n`);
      const durations = { 'test/u/one.test.ts': 0.5, 'test/u/two.test.ts': 0.5, 'test/u/hooked.test.ts': 0.5 };
      writeFileSync(join(g, '.tmp', 'test-durations.json'), JSON.stringify(durations));
      const run = () => spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), '--root', g, '--jobs', '1'], { encoding: 'utf8', timeout: 120_000 });
      let r = run();
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /✔ test\/u\/one\.test\.ts {2}2\/2 passed {2}/);
      assert.match(r.stdout, /✔ test\/u\/two\.test\.ts {2}1\/2 passed, 1 skipped {2}/);
      assert.match(r.stdout, /test: 3 files, 5 tests: 4 passed, 0 failed, 1 skipped/);
      const pid = (name: string) => readFileSync(join(g, name), 'utf8');
      assert.equal(pid('one.pid'), pid('two.pid'), 'the two small files ran in one process');
      assert.notEqual(pid('hooked.pid'), pid('one.pid'));

      // A failure in the group: each file runs again alone, and the failing one shows its output.
      writeFileSync(join(g, 'test', 'u', 'two.test.ts'), `${pidOf('two.pid')}import { test } from 'node:test';\nimport assert from 'node:assert';\ntest('c', () => { assert.equal(2 + 2, 5); });\n`);
      writeFileSync(join(g, '.tmp', 'test-durations.json'), JSON.stringify(durations));
      r = run();
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /2 small files run together did not all pass, or could not be told apart \(u\/one\.test\.ts, u\/two\.test\.ts\): each runs again alone/);
      assert.match(r.stdout, /✔ test\/u\/one\.test\.ts {2}2\/2 passed/);
      assert.match(r.stdout, /━━━━ ✖ test\/u\/two\.test\.ts[\s\S]*4 == 5/);
      assert.notEqual(pid('one.pid'), pid('two.pid'));

      // --alone: every file in its own process.
      writeFileSync(join(g, 'test', 'u', 'two.test.ts'), `${pidOf('two.pid')}import { test } from 'node:test';\ntest('c', () => {});\n`);
      writeFileSync(join(g, '.tmp', 'test-durations.json'), JSON.stringify(durations));
      r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), '--root', g, '--jobs', '1', '--alone'], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.notEqual(pid('one.pid'), pid('two.pid'));
    } finally {
      rmSync(g, { recursive: true, force: true });
    }
  });

  it('refuses a filter that matches nothing, in one line', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), '--root', dir, 'no-such-file'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim(), 'test: no test file matches no-such-file');
  });
});
