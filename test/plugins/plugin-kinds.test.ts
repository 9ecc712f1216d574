// A plugin adds the other kinds of things the ctx API names: a `hermes <name>` CLI command, a
// namespaced skill the model can load, and a terminal backend chosen with terminal.backend.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bodyText, chatHarness } from '../helpers/chat-harness.ts';
import { hermes } from '../helpers/cli.ts';

const { enqueue, main, requests, home } = chatHarness();

const ENTRY = `
export function register(ctx) {
  ctx.register_cli_command({
    name: 'hello',
    help: 'say hello from a plugin',
    setup: (cmd) => cmd.argument('<who>').option('--loud', 'shout'),
    handler: (opts, args) => { const s = 'hello ' + args[0] + ' from ' + ctx.profile_name; process.stdout.write((opts.loud ? s.toUpperCase() : s) + '\\n'); },
  });
  ctx.register_skill('tips', 'skills/tips');
  ctx.register_terminal_environment_provider({
    name: 'echoenv',
    create: () => ({
      kind: 'echoenv', isContainer: true, label: 'echoenv',
      currentCwd: async () => '/echo',
      exec: async (command) => ({ output: 'ECHOENV ran: ' + command, exitCode: 0, timedOut: false, interrupted: false }),
      spawn: async () => { throw new Error('no background processes on echoenv'); },
      close: async () => {},
    }),
  });
}
`;

function extrasHome(extra = ''): string {
  const h = home(`plugins:\n  enabled: [extras]\n${extra}`);
  const dir = join(h, 'plugins', 'extras');
  mkdirSync(join(dir, 'skills', 'tips'), { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: extras\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'index.mjs'), ENTRY);
  writeFileSync(join(dir, 'skills', 'tips', 'SKILL.md'), '---\nname: tips\ndescription: handy tips\n---\nTip number one: water the plants on Tuesdays.\n');
  return h;
}

describe('plugin kinds', () => {
  it('a plugin CLI command runs as `hermes <name>`; unknown commands still fail clearly', async () => {
    const h = extrasHome();
    let r = await hermes(['hello', 'Ada', '--loud'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'HELLO ADA FROM DEFAULT\n');
    r = await hermes(['--help'], { home: h });
    assert.doesNotMatch(r.stdout, /hello/, 'plugins are not loaded for built-in commands');
    r = await hermes(['helo', 'x'], { home: h });
    assert.notEqual(r.code, 0);
  });

  it('a plugin skill loads by its namespaced name, and a plugin terminal backend runs commands', async () => {
    const h = extrasHome('terminal:\n  backend: echoenv\n');
    const n = main().length;
    enqueue(
      { toolCalls: [{ name: 'skill_view', arguments: { name: 'extras:tips' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'uname -a' } }] },
      { text: 'done with extras' },
    );
    const r = await hermes(['chat', '-q', 'use the extras'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /done with extras/);
    const reqs = (await requests(n + 3)).slice(n);
    assert.match(bodyText(reqs[1]), /water the plants on Tuesdays/);
    assert.match(bodyText(reqs[2]), /ECHOENV ran: uname -a/);
  });
});
