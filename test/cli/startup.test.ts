// Start-up stays light: a one-shot answer (no tool call, no MCP servers) must not load the heavy
// packages that only some commands or tool calls need. Speed itself is measured by `npm run bench`;
// this guards the structure that keeps it fast.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, ROOT, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

const HEAVY = ['zod', 'playwright-core', 'ws', 'ink', 'react', 'react-reconciler', 'yoga-layout', 'baileys', 'matrix-js-sdk', 'qrcode-terminal', 'supermemory', '@modelcontextprotocol/sdk', '@agentclientprotocol/sdk', 'discord.js', '@slack/bolt', 'grammy', 'imapflow', 'nodemailer', 'linkedom', 'turndown', '@mozilla/readability', '@lydell/node-pty', '@anthropic-ai/sdk', 'hono', 'croner', 'irc-framework', '@line/bot-sdk', 'pg', 'dingtalk-stream', '@larksuiteoapi/node-sdk'];

// undici (behind the fetch globals) and http2 with it; what an ES-module import of `node:process` or
// `node:util` evaluates (their namespaces read every lazy property: the report module, parseArgs).
const HEAVY_BUILTINS = ['node:internal/deps/undici/undici', 'node:http2', 'node:internal/process/report', 'node:internal/util/parse_args/parse_args'];

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function loaded(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n');
}

describe('start-up weight', () => {
  // From the sources, tool schemas are computed with zod at start-up; only the bundle precomputes them.
  const fromSources = !process.env.HERMES_TEST_BUNDLE;
  it('`hermes chat -q` loads none of the heavy optional packages', { skip: fromSources && 'runs against the bundle (npm test)' }, async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: m\n  api_key: k\n`);
    const record = join(home, 'modules.txt');
    const r = await hermes(['chat', '-q', 'hello'], {
      home,
      env: { NODE_OPTIONS: `--import ${join(ROOT, 'test/helpers/record-modules.mjs')}`, HERMES_RECORD_MODULES: record },
    });
    assert.equal(r.code, 0, r.stderr);
    const mods = loaded(record);
    assert.ok(mods.includes('node:http'), 'the recorder sees the imports of the run');
    const heavy = HEAVY.filter((h) => mods.some((m) => m === h || m.startsWith(`${h}/`)));
    assert.deepEqual(heavy, [], `loaded at start-up: ${heavy.join(', ')}`);
    // The SDKs are bundled so that a request through nodeFetch loads no undici (scripts/sdk-web-globals.mjs);
    // commander takes process and util as values (scripts/build.mjs).
    const builtins = HEAVY_BUILTINS.filter((b) => mods.includes(b));
    assert.deepEqual(builtins, [], `built-ins loaded at start-up: ${builtins.join(', ')}`);
    // Ink and React are bundled into chunks of their own (the build lists them): none of them loads.
    const tuiFiles = JSON.parse(readFileSync(join(ROOT, 'dist', 'tui-files.json'), 'utf8')) as string[];
    assert.ok(tuiFiles.length > 0, 'the build names the chunks holding ink and react');
    const tuiLoaded = mods.filter((m) => tuiFiles.some((f) => m.endsWith(`/${f}`)));
    assert.deepEqual(tuiLoaded, [], `TUI chunks loaded at start-up: ${tuiLoaded.join(', ')}`);
  });

  it('`hermes --version` loads no package at all', async () => {
    const home = tempHome();
    const record = join(home, 'modules.txt');
    const r = await hermes(['--version'], { home, env: { NODE_OPTIONS: `--import ${join(ROOT, 'test/helpers/record-modules.mjs')}`, HERMES_RECORD_MODULES: record } });
    assert.equal(r.code, 0, r.stderr);
    const packages = loaded(record).filter((m) => m && !m.startsWith('node:') && !m.startsWith('.') && !m.startsWith('/') && !m.startsWith('file:'));
    assert.deepEqual(packages, []);
  });
});
