import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, deepMerge, expandEnvRefs, getKey, loadConfig, setConfigKey, splitKey, unsetConfigKey } from '../../src/state/config.ts';
import { parseDotenv, updateEnvFile } from '../../src/state/env.ts';

const home = () => mkdtempSync(join(tmpdir(), 'hermes-cfg-'));

describe('config.yaml', () => {
  it('merges the user file over the defaults and expands ${VAR}', () => {
    const h = home();
    writeFileSync(join(h, 'config.yaml'), 'model:\n  default: gpt-x\n  api_key: ${MY_KEY}\nagent:\n  max_turns: 12\n');
    const c = loadConfig(h, { MY_KEY: 'secret' });
    assert.equal(c.config.model.default, 'gpt-x');
    assert.equal(c.config.model.api_key, 'secret');
    assert.equal(c.config.agent.max_turns, 12);
    assert.equal(c.config.agent.api_max_retries, 3, 'defaults fill the rest');
    assert.equal(c.config.terminal.timeout, 180);
    assert.deepEqual(c.problems, []);
  });

  it('accepts the legacy `model: name` and fallback_model forms', () => {
    const h = home();
    writeFileSync(join(h, 'config.yaml'), 'model: anthropic/claude-sonnet-4\nfallback_model:\n  provider: openrouter\n  model: x/y\n');
    const c = loadConfig(h, {});
    assert.equal(c.config.model.default, 'anthropic/claude-sonnet-4');
    assert.deepEqual(c.config.fallback_providers, [{ provider: 'openrouter', model: 'x/y' }]);
  });

  it('reports invalid YAML with the file and line', () => {
    const h = home();
    writeFileSync(join(h, 'config.yaml'), 'model:\n  default: a\n   bad: [\n');
    assert.throws(
      () => loadConfig(h, {}),
      (e: unknown) => e instanceof ConfigError && /config\.yaml line [23]: invalid YAML/.test(e.message) && /hermes config edit/.test(e.message),
    );
  });

  it('reports a self-referencing YAML anchor in one clear error (not a stack overflow)', () => {
    const h = home();
    for (const text of ['model:\n  default: x\nloop: &a\n  inner: *a\n', 'list: &l\n  - 1\n  - *l\n', 'deep: &d\n  a:\n    b:\n      c: *d\n']) {
      writeFileSync(join(h, 'config.yaml'), text);
      assert.throws(
        () => loadConfig(h, {}),
        (e: unknown) => e instanceof ConfigError && /config\.yaml line \d+: invalid YAML \(an alias refers to the mapping or list it is inside/.test(e.message) && !/call stack/.test(e.message),
      );
    }
    // Ordinary anchors still work.
    writeFileSync(join(h, 'config.yaml'), 'base: &b\n  x: 1\nother: *b\n');
    assert.deepEqual((loadConfig(h, {}).user as Record<string, unknown>).other, { x: 1 });
  });

  it('reports wrongly typed values with their line', () => {
    const h = home();
    writeFileSync(join(h, 'config.yaml'), 'agent:\n  max_turns: lots\ndisplay:\n  tool_progress: loud\n');
    const c = loadConfig(h, {});
    assert.deepEqual(
      c.problems.map((p) => [p.key, p.line]),
      [
        ['agent.max_turns', 2],
        ['display.tool_progress', 4],
      ],
    );
  });

  it('sets and unsets dotted keys keeping comments, atomically', () => {
    const h = home();
    writeFileSync(join(h, 'config.yaml'), '# my settings\nmodel: old-model\n');
    setConfigKey(h, 'model.provider', 'openrouter');
    setConfigKey(h, 'providers.my\\.box.base_url', 'http://box:8000/v1');
    const text = readFileSync(join(h, 'config.yaml'), 'utf8');
    assert.match(text, /# my settings/);
    const c = loadConfig(h, {});
    assert.equal(c.config.model.default, 'old-model');
    assert.equal(c.config.model.provider, 'openrouter');
    assert.equal(getKey(c.config, 'providers.my\\.box.base_url'), 'http://box:8000/v1');
    assert.equal(unsetConfigKey(h, 'model.provider'), true);
    assert.equal(loadConfig(h, {}).config.model.provider, 'auto');
    assert.equal(unsetConfigKey(h, 'nope.nothing'), false);
  });

  it('has small pure helpers that behave', () => {
    assert.deepEqual(splitKey('a.b\\.c.d'), ['a', 'b.c', 'd']);
    assert.deepEqual(deepMerge({ a: { b: 1, c: [1] } }, { a: { c: [2] } }), { a: { b: 1, c: [2] } });
    assert.equal(expandEnvRefs('${A:-dflt}-${B}', { B: 'b' }), 'dflt-b');
  });
});

describe('.env', () => {
  it('parses quotes, export, comments and multi-line values', () => {
    const m = parseDotenv('# c\nexport A=1\nB="two words" # note\nC=\'x#y\'\nD="line1\\nline2"\nE=plain # c\n');
    assert.deepEqual(Object.fromEntries(m), { A: '1', B: 'two words', C: 'x#y', D: 'line1\nline2', E: 'plain' });
  });

  it('updates keys in place with mode 0600', () => {
    const h = home();
    const f = join(h, '.env');
    writeFileSync(f, '# keys\nA=1\nB=2\n', { mode: 0o644 });
    updateEnvFile(f, { A: 'new value', C: '3', B: null });
    assert.equal(readFileSync(f, 'utf8'), '# keys\nA="new value"\nC=3\n');
    assert.equal(statSync(f).mode & 0o777, 0o600);
  });
});
