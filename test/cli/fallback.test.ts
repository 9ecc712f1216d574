// `hermes fallback` on the config.yaml Python Hermes 0.18.2 wrote (its chain came from `hermes fallback add`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { hermes } from '../helpers/cli.ts';
import { copyPythonHome } from '../helpers/hermes-home.ts';

const chainOf = (h: string) => (parse(readFileSync(join(h, 'config.yaml'), 'utf8')) as { fallback_providers?: unknown[] }).fallback_providers;

test('hermes fallback list, add, remove and clear keep the chain in Hermes’s shape', async () => {
  const h = copyPythonHome();
  const list = await hermes(['fallback'], { home: h });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^\n {2}Primary: {3}mock-model {2}\(via custom\)\n\n {2}Fallback chain \(1 entry\):\n {4}1\. anthropic\/claude-sonnet-5 {2}\(via openrouter\) {2}\[https:\/\/openrouter\.ai\/api\/v1\]\n/);

  const add = await hermes(['fallback', 'add', '--provider', 'anthropic', '--model', 'claude-fixture-4'], { home: h });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /Added fallback: claude-fixture-4 {2}\(via anthropic\) {2}\[https:\/\/api\.anthropic\.com\]\n {2}Chain is now 2 entries long\./);
  assert.deepEqual(chainOf(h), [
    { provider: 'openrouter', model: 'anthropic/claude-sonnet-5', base_url: 'https://openrouter.ai/api/v1', api_mode: 'chat_completions' },
    { provider: 'anthropic', model: 'claude-fixture-4', base_url: 'https://api.anthropic.com', api_mode: 'anthropic_messages' },
  ]);
  assert.match(readFileSync(join(h, 'config.yaml'), 'utf8'), /_config_version: 33/, 'the rest of config.yaml is kept');
  const dup = await hermes(['fallback', 'add', '--provider', 'openrouter', '--model', 'anthropic/claude-sonnet-5'], { home: h });
  assert.match(dup.stdout, /is already in the fallback chain — skipped\./);
  const self = await hermes(['fallback', 'add', '--provider', 'custom', '--model', 'mock-model', '--base-url', 'http://127.0.0.1:40161/v1'], { home: h });
  assert.match(self.stdout, /A provider cannot be a fallback for itself — no change\./);
  const bad = await hermes(['fallback', 'add'], { home: h });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /needs a terminal to pick a provider and model, or --provider and --model/);
  const unknown = await hermes(['fallback', 'add', '--provider', 'nowhere', '--model', 'x'], { home: h });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown provider 'nowhere'/);

  const rm = await hermes(['fallback', 'remove', '1'], { home: h });
  assert.match(rm.stdout, /Removed fallback: anthropic\/claude-sonnet-5 {2}\(via openrouter\)/);
  assert.equal(chainOf(h)?.length, 1);
  const noYes = await hermes(['fallback', 'clear'], { home: h });
  assert.equal(noYes.code, 2);
  assert.equal(chainOf(h)?.length, 1, 'nothing cleared without confirmation');
  const clear = await hermes(['fallback', 'clear', '--yes'], { home: h });
  assert.match(clear.stdout, /Fallback chain cleared\./);
  assert.deepEqual(chainOf(h), []);
  assert.match((await hermes(['fallback', 'list'], { home: h })).stdout, /No fallback providers configured\.\n\n {2}Add one with: {2}hermes fallback add/);
});
