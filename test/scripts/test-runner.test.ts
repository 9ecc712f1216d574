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

  it('refuses a filter that matches nothing, in one line', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), '--root', dir, 'no-such-file'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim(), 'test: no test file matches no-such-file');
  });
});
