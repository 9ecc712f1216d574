// Plugins end to end: a plugin folder in a temp HERMES_HOME adds a tool, a slash command and a
// pre_tool_call hook that blocks one command; the real `hermes` binary runs it against the fake LLM.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bodyText, chatHarness } from '../helpers/chat-harness.ts';
import { hermes } from '../helpers/cli.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const { enqueue, main, requests, home } = chatHarness();

const MANIFEST = `name: guard
version: 1.2.0
description: a dice tool, /greet, and a guard against rm -rf
kind: standalone
provides_tools: [dice_roll]
hooks: [pre_tool_call]
`;

const ENTRY = `
export function register(ctx) {
  ctx.register_tool({
    name: 'dice_roll',
    toolset: 'guard',
    schema: { name: 'dice_roll', description: 'Roll a die', parameters: { type: 'object', properties: { sides: { type: 'integer' } }, required: ['sides'] } },
    handler: (args) => JSON.stringify({ rolled: args.sides - 1, by: 'guard-plugin' }),
  });
  ctx.register_command('greet', (args) => 'Hello, ' + (args || 'stranger') + ' from the guard plugin!', 'greet someone');
  ctx.register_hook('pre_tool_call', ({ tool_name, args }) => {
    if (tool_name === 'terminal' && String(args?.command ?? '').includes('rm -rf')) return { action: 'block', message: 'guard plugin: rm -rf is not allowed here' };
    return null;
  });
  ctx.register_system_prompt_section('guard.rules', 'Always roll dice with dice_roll.');
}
`;

function pluginHome(enabled: boolean): string {
  const h = home(enabled ? 'plugins:\n  enabled: [guard]\n' : '');
  const dir = join(h, 'plugins', 'guard');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), MANIFEST);
  writeFileSync(join(dir, 'index.mjs'), ENTRY);
  return h;
}

describe('plugins', () => {
  it('a plugin that is not enabled never runs, and `hermes plugins list` says how to enable it', async () => {
    const h = pluginHome(false);
    const n = main().length;
    enqueue({ text: 'plain answer' });
    const r = await hermes(['chat', '-q', 'hi'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    const [req] = (await requests(n + 1)).slice(n);
    assert.doesNotMatch(bodyText(req), /dice_roll/);
    const l = await hermes(['plugins', 'list'], { home: h });
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /guard\s+· not enabled\s+1\.2\.0/);
    assert.match(l.stdout, /hermes plugins enable/);
    const e = await hermes(['plugins', 'enable', 'guard'], { home: h });
    assert.equal(e.code, 0, e.stderr);
    assert.match(readFileSync(join(h, 'config.yaml'), 'utf8'), /enabled:\s*\n\s*- guard/);
    const d = await hermes(['plugins', 'doctor'], { home: h });
    assert.equal(d.code, 0, d.stdout + d.stderr);
    assert.match(d.stdout, /✓ guard v1\.2\.0 \(user\)/);
  });

  it('an enabled plugin adds a tool and a prompt section, and its pre_tool_call hook blocks rm -rf', async () => {
    const h = pluginHome(true);
    const victim = join(h, 'victim');
    mkdirSync(victim);
    const n = main().length;
    enqueue(
      { toolCalls: [{ name: 'dice_roll', arguments: { sides: 6 } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] },
      { text: 'Rolled a 5; the delete was refused.' },
    );
    const r = await hermes(['chat', '-q', 'roll and clean', '--yolo'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Rolled a 5; the delete was refused\./);
    const reqs = (await requests(n + 3)).slice(n);
    const first = reqs[0].body;
    // Plugin toolsets stay behind tool_search (listed there by name) and load when called (issue 22's budget).
    assert.ok(JSON.stringify(first.tools).includes('dice_roll'), 'dice_roll offered to the model');
    assert.match(JSON.stringify(first.messages[0]), /Always roll dice with dice_roll/);
    assert.match(bodyText(reqs[1]), /\\"rolled\\":5,\\"by\\":\\"guard-plugin\\"/);
    assert.match(bodyText(reqs[2]), /guard plugin: rm -rf is not allowed here/);
    assert.ok(existsSync(victim), 'the blocked command did not run (even with --yolo)');
  });

  it('a plugin whose register() throws is reported, and the chat still runs', async () => {
    const h = pluginHome(true);
    writeFileSync(join(h, 'plugins', 'guard', 'index.mjs'), 'export function register(ctx) { ctx.register_hook("pre_tool_cal", () => null); }\n');
    enqueue({ text: 'still here' });
    const r = await hermes(['chat', '-q', 'hi'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /still here/);
    assert.match(r.stderr, /plugin guard: register\(\) failed: unknown hook "pre_tool_cal" \(did you mean "pre_tool_call"\?\)/);
    const d = await hermes(['plugins', 'doctor'], { home: h });
    assert.equal(d.code, 1);
    assert.match(d.stdout, /✗ guard v1\.2\.0 \(user\): register\(\) failed/);
  });

  it('a Python plugin is reported as needing a port, never silently skipped', async () => {
    const h = home('plugins:\n  enabled: [pyplug]\n');
    const dir = join(h, 'plugins', 'pyplug');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plugin.yaml'), 'name: pyplug\nversion: 0.1.0\n');
    writeFileSync(join(dir, '__init__.py'), 'def register(ctx):\n    pass\n');
    const d = await hermes(['plugins', 'doctor'], { home: h });
    assert.equal(d.code, 1);
    assert.match(d.stdout, /pyplug.*Python plugin \(__init__\.py\).*index\.mjs/);
  });

  it('install from a folder, then remove', async () => {
    const h = home();
    const src = join(h, 'src-plugin');
    mkdirSync(src);
    writeFileSync(join(src, 'plugin.yaml'), MANIFEST);
    writeFileSync(join(src, 'index.mjs'), ENTRY);
    const i = await hermes(['plugins', 'install', src, '--no-enable'], { home: h });
    assert.equal(i.code, 0, i.stderr);
    assert.match(i.stdout, /installed guard \(local\)/);
    assert.ok(existsSync(join(h, 'plugins', 'guard', 'index.mjs')));
    const again = await hermes(['plugins', 'install', src, '--no-enable'], { home: h });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already installed.*--force/);
    const bad = await hermes(['plugins', 'install', 'not a source!'], { home: h });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /is not a folder, a git URL, owner\/repo or npm:<package>/);
    const rm = await hermes(['plugins', 'remove', 'guard', '-y'], { home: h });
    assert.equal(rm.code, 0, rm.stderr);
    assert.ok(!existsSync(join(h, 'plugins', 'guard')));
  });

  it('install from git (file:// URL), update, pin with --ref', async () => {
    const h = home();
    const repo = join(h, 'guard-repo');
    mkdirSync(repo);
    const git = (...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    git('init', '-q');
    writeFileSync(join(repo, 'plugin.yaml'), MANIFEST);
    writeFileSync(join(repo, 'index.mjs'), ENTRY);
    git('add', '.');
    git('commit', '-qm', 'v1');
    const v1 = git('rev-parse', 'HEAD');
    let r = await hermes(['plugins', 'install', `file://${repo}`, '--no-enable'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`installed guard \\(git @ ${v1.slice(0, 8)}\\)`));
    writeFileSync(join(repo, 'plugin.yaml'), MANIFEST.replace('1.2.0', '1.3.0'));
    git('commit', '-qam', 'v2');
    const v2 = git('rev-parse', 'HEAD');
    r = await hermes(['plugins', 'update', 'guard'], { home: h });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`guard: updated ${v1.slice(0, 8)} → ${v2.slice(0, 8)}`));
    assert.match(readFileSync(join(h, 'plugins', 'guard', 'plugin.yaml'), 'utf8'), /1\.3\.0/);
    r = await hermes(['plugins', 'install', `file://${repo}`, '--ref', v1, '--force', '--no-enable'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(join(h, 'plugins', 'guard', 'plugin.yaml'), 'utf8'), /1\.2\.0/);
    r = await hermes(['plugins', 'update'], { home: h });
    assert.match(r.stdout, new RegExp(`guard: pinned at ${v1.slice(0, 8)}`));
    const l = await hermes(['plugins', 'list'], { home: h });
    assert.match(l.stdout, new RegExp(`guard\\s+· not enabled\\s+1\\.2\\.0\\s+git pinned@${v1.slice(0, 8)}`));
    r = await hermes(['plugins', 'install', `file://${repo}`, '--ref', 'main', '--force'], { home: h });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--ref takes a full 40-character commit SHA/);
  });

  it("the plugin's slash command works in the REPL", { skip: tmuxAvailable() ?? false }, async () => {
    const h = pluginHome(true);
    const t = startHermes([], { home: h });
    try {
      await t.waitFor(/❯/);
      t.type('/greet Ada');
      t.keys('Enter');
      await t.waitFor(/Hello, Ada from the guard plugin!/);
      t.type('/plugins');
      t.keys('Enter');
      await t.waitFor(/guard/);
    } finally {
      t.kill();
    }
  });
});
