// A plugin adds the other kinds of things the ctx API names: a `hermes <name>` CLI command, a
// namespaced skill the model can load, and a terminal backend chosen with terminal.backend.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

// A plugin's image provider (ctx.register_image_gen_provider) is what image_generate uses when
// image_gen.provider names it: the bytes it returns are saved under HERMES_HOME like FAL's or OpenAI's.
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const IMAGE_ENTRY = `
import { appendFileSync } from 'node:fs';
export function register(ctx) {
  ctx.register_image_gen_provider({
    name: 'pixelpainter',
    unavailable: (env) => (env.PIXEL_KEY ? null : 'needs PIXEL_KEY'),
    generate: async (req) => {
      appendFileSync(ctx.hermes_home + '/pixel-calls.txt', req.prompt + ' | ' + req.aspect + '\\n');
      return { images: [{ data: '${PNG_B64}' }], model: 'pixel-1' };
    },
  });
}
`;

function imageHome(): string {
  const h = home('plugins:\n  enabled: [pixel]\nimage_gen:\n  provider: pixelpainter\n');
  const dir = join(h, 'plugins', 'pixel');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: pixel\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'index.mjs'), IMAGE_ENTRY);
  return h;
}

describe('plugin image provider', () => {
  it('image_generate uses the provider image_gen.provider names, and its availability check', async () => {
    const h = imageHome();
    const n = main().length;
    enqueue({ toolCalls: [{ name: 'image_generate', arguments: { prompt: 'a red fox', aspect_ratio: 'square' } }] }, { text: 'painted' });
    const r = await hermes(['chat', '-q', 'paint a fox'], { home: h, env: { PIXEL_KEY: 'k' } });
    assert.equal(r.code, 0, r.stderr);
    const reqs = (await requests(n + 2)).slice(n);
    const tool = (JSON.parse(bodyText(reqs[1])) as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'tool')!;
    const result = JSON.parse(tool.content) as { success: boolean; provider: string; model: string; image: string; media_tag: string };
    assert.equal(result.success, true, tool.content);
    assert.equal(result.provider, 'pixelpainter');
    assert.equal(result.model, 'pixel-1');
    const file = result.image;
    assert.ok(file.startsWith(h) && result.media_tag === `MEDIA:${file}`, `the image is saved under HERMES_HOME: ${tool.content}`);
    assert.deepEqual(readFileSync(file), Buffer.from(PNG_B64, 'base64'));
    assert.equal(readFileSync(join(h, 'pixel-calls.txt'), 'utf8'), 'a red fox | square\n');
    assert.match(bodyText(reqs[0]), /image_generate/, 'offered while the plugin says it is available');
    // Without its key the plugin's own check takes the tool away.
    const m = main().length;
    enqueue({ text: 'no paint' });
    const off = await hermes(['chat', '-q', 'paint a fox'], { home: h, env: { PIXEL_KEY: '' } });
    assert.equal(off.code, 0, off.stderr);
    const [req] = (await requests(m + 1)).slice(m);
    assert.doesNotMatch(bodyText(req), /image_generate/);
  });

  it('`hermes status` loads plugins: the plugin image provider shows as provided, and image_generate as available', async () => {
    const h = imageHome();
    const r = await hermes(['status'], { home: h, env: { PIXEL_KEY: 'k' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Plugins\s+pixel\b/);
    assert.match(r.stdout, /Images\s+pixelpainter · provided by plugin pixel/);
    assert.doesNotMatch(r.stdout, /image_generate unavailable/);
    const j = JSON.parse((await hermes(['status', '--json'], { home: h, env: { PIXEL_KEY: 'k' } })).stdout);
    assert.deepEqual(j.image_gen, { provider: 'pixelpainter', plugin: 'plugin pixel', unavailable: null });
    assert.ok(j.tools.includes('image_generate'));
    const off = await hermes(['status'], { home: h, env: { PIXEL_KEY: '' } });
    assert.match(off.stdout, /Images\s+pixelpainter · unavailable: the pixelpainter image provider needs PIXEL_KEY/);
  });
});
