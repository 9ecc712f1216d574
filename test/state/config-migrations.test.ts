// Python Hermes's config version steps (src/state/config-migrations.ts), checked against what the real
// Python `migrate_config` wrote: hermes_cli/config.py of the 0.19 fork stefrogovskyi/hermes-agent
// (commit 7e3acd02d), run with HERMES_HOME on the v12 file below (`migrate_config(interactive=False)`).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { CONFIG_VERSION, coerceConfigVersion, legacyKeys, planMigration, readLegacyNames } from '../../src/state/config-migrations.ts';
import { loadConfig } from '../../src/state/config.ts';
import { defaultConfig } from '../../src/state/defaults.ts';

/** A config.yaml of ours at v12 with every key Hermes's steps 13→33 rename or move. */
const V12 = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'config-v12.yaml'), 'utf8');

/** Python's config.yaml after the migration (its commented template block left out). plugins.enabled: see below. */
const PYTHON_AFTER = `_config_version: 33
model:
  default: m/x
stt:
  provider: local
  local:
    model: small
compression:
  threshold: 0.6
memory:
  write_approval: true
display:
  tool_progress_overrides:
    telegram: 'off'
  platforms:
    telegram:
      tool_progress: 'off'
delegation:
  max_concurrent_children: 6
model_catalog:
  ttl_hours: 1
agent:
  verify_on_stop: false
auxiliary:
  compression:
    model: google/gemini-flash
    provider: openrouter
plugins:
  enabled:
    - foo
`;

const home = (): string => mkdtempSync(join(tmpdir(), 'hermes-mig-'));

describe('config version steps 12 → 33', () => {
  it('give what Python Hermes 0.19 migrate_config wrote, except that installed plugins are listed, not enabled', () => {
    const raw = parse(V12) as Record<string, unknown>;
    const plan = planMigration(raw, 12, { home: home(), env: new Map([['LLM_MODEL', 'foo']]) });
    const expected = parse(PYTHON_AFTER) as Record<string, unknown>;
    delete expected.plugins;
    delete expected._config_version; // written by the command after the steps
    const got = { ...plan.result };
    delete got._config_version;
    assert.deepEqual(got, expected);
    assert.deepEqual(plan.edits.envCleared, ['LLM_MODEL']);
    assert.deepEqual(plan.steps, [13, 14, 16, 17, 23, 25, 29, 31, 33]);
    assert.equal(raw.memory && (raw.memory as Record<string, unknown>).write_mode, 'approve', 'the input is not changed');
  });

  it('keep values the user chose (a raised max_concurrent_children, an explicit verify_on_stop, a custom ttl)', () => {
    const raw = { delegation: { max_async_children: 4, max_concurrent_children: 8 }, agent: { verify_on_stop: true }, model_catalog: { ttl_hours: 6 }, stt: { provider: 'openai', model: 'whisper-1' } };
    const plan = planMigration(raw, 31, { home: home(), env: new Map() });
    // v32 flips a literal true (the old default) off; v33 drops max_async_children, 8 stays.
    assert.deepEqual(plan.result, { delegation: { max_concurrent_children: 8 }, agent: { verify_on_stop: false }, model_catalog: { ttl_hours: 6 }, stt: { provider: 'openai', model: 'whisper-1' } });
    const all = planMigration(raw, 12, { home: home(), env: new Map() }).result as Record<string, Record<string, unknown>>;
    assert.deepEqual(all.stt, { provider: 'openai', openai: { model: 'whisper-1' } }, 'a cloud provider gets the flat model');
    assert.equal(planMigration(raw, 33, { home: home(), env: new Map() }).steps.length, 0, 'a v33 file has nothing to do');
  });

  it('a flat local stt.model that is not a whisper model is dropped, not moved', () => {
    const r = planMigration({ stt: { model: 'whisper-1' } }, 13, { home: home(), env: new Map() }).result;
    assert.deepEqual(r, { agent: { verify_on_stop: false } }, 'stt left empty goes (v31 turns verify_on_stop off)');
  });

  it('installed plugins are named with the command that enables them', () => {
    const h = home();
    const dir = join(h, 'plugins', 'foo-dir');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plugin.yaml'), 'name: foo\n');
    const plan = planMigration({}, 20, { home: h, env: new Map() });
    assert.ok(plan.edits.notes.some((n) => n.startsWith('· plugin foo is not enabled') && n.includes('hermes plugins enable foo')), plan.edits.notes.join('\n'));
    assert.equal(planMigration({ plugins: { enabled: [] } }, 20, { home: h, env: new Map() }).edits.notes.length, 1, 'an allow-list present: only the verify_on_stop step speaks');
  });

  it('the version follows Hermes: 33, coerced as Hermes does', () => {
    assert.equal(CONFIG_VERSION, 33);
    assert.equal(defaultConfig()._config_version, 33);
    assert.equal(coerceConfigVersion('12'), 12);
    assert.equal(coerceConfigVersion(true), 0);
    assert.equal(coerceConfigVersion('x'), 0);
    assert.equal(coerceConfigVersion(-3), 0);
  });
});

describe('loading an old file', () => {
  it('reads the old names with their new meaning, in memory', () => {
    const user = readLegacyNames(parse(V12) as Record<string, unknown>) as Record<string, Record<string, unknown>>;
    assert.equal(user.delegation.max_concurrent_children, 6);
    assert.equal(user.memory.write_approval, true);
    assert.deepEqual(user.auxiliary, { compression: { model: 'google/gemini-flash', provider: 'openrouter' } });
    assert.deepEqual(user.stt.local, { model: 'small' });
    assert.equal('tool_progress_overrides' in user.display, false);
    assert.deepEqual(legacyKeys(user), []);
    assert.deepEqual(
      legacyKeys(parse(V12) as Record<string, unknown>).map((l) => l.key),
      ['stt.model', 'display.tool_progress_overrides', 'compression.summary_model', 'compression.summary_provider', 'memory.write_mode', 'skills.write_mode', 'delegation.max_async_children'],
    );
  });

  it('loadConfig applies them without touching the file', () => {
    const h = home();
    writeFileSync(join(h, 'config.yaml'), V12);
    const c = loadConfig(h, {});
    assert.deepEqual(c.problems, []);
    assert.equal(c.config.delegation.max_concurrent_children, 6);
    assert.equal(c.config.auxiliary.compression.model, 'google/gemini-flash');
    assert.equal(c.config.stt.local.model, 'small');
    assert.equal(c.config.display.platforms?.telegram?.tool_progress, 'off');
  });
});

