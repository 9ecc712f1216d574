// Shell hooks from config.yaml `hooks:` end to end: first-use consent (asked once in the REPL,
// --accept-hooks for scripts), the hook blocking a tool call, and `hermes hooks list|test|revoke|doctor`.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bodyText, chatHarness } from '../helpers/chat-harness.ts';
import { hermes } from '../helpers/cli.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const { enqueue, main, requests, home } = chatHarness();

/** A home with a pre_tool_call guard script (exit 2 on "forbidden") and a post_tool_call logger. */
function hookHome(): { h: string; guard: string; logger: string; log: string } {
  const h = home();
  const dir = join(h, 'hook-scripts');
  mkdirSync(dir);
  const guard = join(dir, 'guard.sh');
  const logger = join(dir, 'logger.sh');
  // Beside the scripts: the home's top level is sealed by the OS sandbox hooks run in (it holds protected files).
  const log = join(dir, 'hook.log');
  writeFileSync(guard, '#!/bin/sh\nin=$(cat)\ncase "$in" in *forbidden*) echo "guard says no" >&2; exit 2;; esac\nexit 0\n');
  writeFileSync(logger, `#!/bin/sh\ncat >> ${log}\necho >> ${log}\n`);
  chmodSync(guard, 0o755);
  chmodSync(logger, 0o755);
  writeFileSync(
    join(h, 'config.yaml'),
    readFileSync(join(h, 'config.yaml'), 'utf8') +
      `hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: ${guard}\n  post_tool_call:\n    - command: ${logger}\n      timeout: 10\n`,
  );
  return { h, guard, logger, log };
}

describe('shell hooks', () => {
  it('--accept-hooks before the subcommand (a global flag, as in Hermes) approves them too', async () => {
    const { h } = hookHome();
    const n = main().length;
    enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo forbidden-word' } }] }, { text: 'done' });
    const r = await hermes(['--accept-hooks', 'chat', '-q', 'go'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /not approved/);
    assert.match(bodyText((await requests(n + 2))[n + 1]), /guard says no/);
  });

  it('without consent a hook does not run and the one-shot says so; --accept-hooks approves it for good', async () => {
    const { h, guard, log } = hookHome();
    let n = main().length;
    enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo forbidden-word' } }] }, { text: 'done 1' });
    let r = await hermes(['chat', '-q', 'go'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`shell hook for pre_tool_call \\(${guard}\\) is not approved.*--accept-hooks`));
    assert.ok(!existsSync(log), 'unapproved post_tool_call hook did not run');
    assert.match(bodyText((await requests(n + 2))[n + 1]), /forbidden-word/);

    n = main().length;
    enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo forbidden-word' } }] }, { text: 'done 2' });
    r = await hermes(['chat', '-q', 'go', '--accept-hooks'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /not approved/);
    assert.match(bodyText((await requests(n + 2))[n + 1]), /guard says no/);
    const allow = JSON.parse(readFileSync(join(h, 'shell-hooks-allowlist.json'), 'utf8'));
    assert.deepEqual(allow.approvals.map((a: { event: string }) => a.event).sort(), ['post_tool_call', 'pre_tool_call']);
    const logged = readFileSync(log, 'utf8');
    assert.match(logged, /"hook_event_name":"post_tool_call","tool_name":"terminal"/);

    // Approved once: later runs need no flag.
    n = main().length;
    enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo fine' } }] }, { text: 'done 3' });
    r = await hermes(['chat', '-q', 'go'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /not approved/);

    const l = await hermes(['hooks', 'list'], { home: h });
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /\[pre_tool_call\]\n\s+- .*guard\.sh matcher="terminal" \(timeout=60s, ✓ allowed\)/);
    const t = await hermes(['hooks', 'test', 'pre_tool_call', '--arg', 'command=rm forbidden'], { home: h });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /exit=2/);
    assert.match(t.stdout, /parsed \(Hermes wire shape\): \{"action":"block","message":"guard says no"\}/);
    const d = await hermes(['hooks', 'doctor'], { home: h });
    assert.equal(d.code, 0, d.stdout);
    assert.match(d.stdout, /All hooks look healthy/);
    const rv = await hermes(['hooks', 'revoke', guard], { home: h });
    assert.match(rv.stdout, /Removed 1 allowlist entry/);
    const d2 = await hermes(['hooks', 'doctor'], { home: h });
    assert.equal(d2.code, 1);
    assert.match(d2.stdout, /✗ not allowlisted/);
    const bad = await hermes(['hooks', 'test', 'pre_tool_cal'], { home: h });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Unknown hook event "pre_tool_cal". Did you mean "pre_tool_call"\?/);
  });

  it('a gateway hook written for Python Hermes (handler.py) is reported with what to do', async () => {
    const h = home();
    const dir = join(h, 'hooks', 'notify');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'HOOK.yaml'), 'name: notify\nevents: [agent:end]\n');
    writeFileSync(join(dir, 'handler.py'), 'async def handle(event_type, context):\n    pass\n');
    const l = await hermes(['hooks', 'list'], { home: h });
    assert.match(l.stdout, /✗ notify\s+\[agent:end\]\n\s+handler\.py is a Python gateway hook.*NOT loaded.*handler\.mjs/);
    const d = await hermes(['hooks', 'doctor'], { home: h });
    assert.equal(d.code, 1);
    assert.match(d.stdout, /✗ gateway hook notify: handler\.py is a Python gateway hook/);
  });

  it('the REPL asks for consent once', { skip: tmuxAvailable() ?? false }, async () => {
    const { h, log } = hookHome();
    let t = startHermes([], { home: h });
    try {
      await t.waitFor(/Allow this hook to run\? \[y\/N\]/);
      assert.match(t.screen(), /Event:\s+pre_tool_call/);
      t.type('y');
      t.keys('Enter');
      await t.waitFor(/Event:\s+post_tool_call[\s\S]*Allow this hook to run\? \[y\/N\]/);
      t.type('y');
      t.keys('Enter');
      await t.waitFor(/❯/);
      enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo via-repl' } }] }, { text: 'repl done' });
      t.type('run it');
      t.keys('Enter');
      await t.waitFor(/repl done/);
    } finally {
      t.kill();
    }
    assert.match(readFileSync(log, 'utf8'), /via-repl/);
    t = startHermes([], { home: h });
    try {
      await t.waitFor(/❯/);
      assert.doesNotMatch(t.screen(), /Allow this hook/);
    } finally {
      t.kill();
    }
  });
});
