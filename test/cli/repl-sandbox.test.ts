// test-timeout: 150
// The OS sandbox in the interactive REPL (issue 29), driven through tmux as a person would: with
// --yolo on, a command the model asks to run with `unsandboxed: true` still shows the approval
// panel (--yolo does not answer it); the person's deny keeps the sandbox (nothing written outside
// the writable folders), the person's "once" runs it outside. Then /sandbox shows the session's
// sandbox and `/sandbox mode off` asks before it turns the sandbox off.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { bodyText, chatHarness } from '../helpers/chat-harness.ts';
import { ROOT } from '../helpers/cli.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--cap-drop', 'ALL', 'true'], { stdio: 'ignore' });
const noBwrap = process.platform !== 'linux' ? 'not Linux' : probe.error || probe.status !== 0 ? 'bubblewrap (bwrap) cannot create a sandbox here' : null;
const skip = tmuxAvailable() ?? noBwrap;
const { enqueue, main, requests, home } = chatHarness();
const { describe, it } = gatedSuite(skip);

mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const outside = mkdtempSync(join(ROOT, '.tmp', 'repl-sandbox-'));
after(() => rmSync(outside, { recursive: true, force: true }));

describe('the OS sandbox in the REPL', () => {
  it('unsandboxed needs the person even with --yolo: deny keeps it confined, once runs it outside; /sandbox mode off asks', async () => {
    const h = home();
    const work = join(h, 'work');
    mkdirSync(work);
    const t = startHermes(['--yolo'], { home: h, cwd: work });
    try {
      await t.waitFor(/❯/);
      const target = join(outside, 'escaped.txt');
      const write = { name: 'terminal', arguments: { command: `echo escaped > ${target}`, unsandboxed: true } };

      // Deny: the command does not run at all.
      let n = main().length;
      enqueue({ toolCalls: [write] }, { text: 'Stayed inside.' });
      t.type('write it outside');
      t.keys('Enter');
      let s = await t.waitFor(/\[d\]eny/);
      assert.match(s, /OUTSIDE the OS sandbox/);
      t.keys('d');
      await t.waitFor(/Stayed inside\./);
      assert.ok(!existsSync(target));
      assert.match(bodyText((await requests(n + 2))[n + 1]), /the user did not approve it/);

      // Once: it runs outside the sandbox.
      n = main().length;
      enqueue({ toolCalls: [write] }, { text: 'Written outside.' });
      t.type('now really');
      t.keys('Enter');
      const mark = t.mark();
      await t.waitFor(/\[d\]eny/, { after: mark });
      t.keys('o');
      await t.waitFor(/Written outside\./);
      assert.equal(readFileSync(target, 'utf8'), 'escaped\n');

      // /sandbox shows the session's sandbox; mode off asks first.
      t.type('/sandbox');
      t.keys('Enter');
      s = await t.waitFor(/Protected: \d+ paths/);
      assert.match(s, /Sandbox: mode workspace-write, network on/);
      assert.match(s, /Mechanism: bubblewrap/);
      t.type('/sandbox mode off');
      t.keys('Enter');
      s = await t.waitFor(/2\. Cancel/);
      assert.match(s, /Turning the OS sandbox off/);
      t.keys('1');
      await t.waitFor(/Off: commands run with your full permissions/);
      n = main().length;
      const plain = join(outside, 'plain.txt');
      enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `echo plain > ${plain}` } }] }, { text: 'Plain write done.' });
      t.type('write without asking');
      t.keys('Enter');
      await t.waitFor(/Plain write done\./);
      assert.equal(readFileSync(plain, 'utf8'), 'plain\n');
    } finally {
      t.kill();
    }
  });
});
