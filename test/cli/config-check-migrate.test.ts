// `hermes config migrate` runs Python Hermes's version steps (v12 → 33) and `hermes config check`
// names old keys and the keys Python reads that this version does not act on; files Python 0.18.2
// and 0.19 wrote check clean and are not rewritten.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { hermes, tempHome } from '../helpers/cli.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** A config.yaml of ours at v12 with every key Hermes's steps 13→33 rename or move. */
const V12 = readFileSync(join(FIXTURES, 'config-v12.yaml'), 'utf8');

/** What Python Hermes 0.19's migrate_config wrote for V12 (test/state/config-migrations.test.ts says how), less plugins.enabled. */
const PYTHON_AFTER: Record<string, unknown> = {
  _config_version: 33,
  model: { default: 'm/x' },
  stt: { provider: 'local', local: { model: 'small' } },
  compression: { threshold: 0.6 },
  memory: { write_approval: true },
  display: { tool_progress_overrides: { telegram: 'off' }, platforms: { telegram: { tool_progress: 'off' } } },
  delegation: { max_concurrent_children: 6 },
  model_catalog: { ttl_hours: 1 },
  agent: { verify_on_stop: false },
  auxiliary: { compression: { model: 'google/gemini-flash', provider: 'openrouter' } },
};

/** Every leaf of `want` has the same value in `got`. */
function includesLeaves(got: unknown, want: unknown, path = ''): void {
  if (want && typeof want === 'object' && !Array.isArray(want)) {
    for (const [k, v] of Object.entries(want)) includesLeaves((got as Record<string, unknown> | undefined)?.[k], v, `${path}${k}.`);
  } else assert.deepEqual(got, want, path);
}

function copyFixture(name: string): string {
  const home = tempHome();
  cpSync(join(FIXTURES, name), home, { recursive: true });
  return home;
}

describe('hermes config migrate (Hermes version steps)', () => {
  it('takes a v12 file to 33 with Hermes\'s renames, keeping comments; an installed plugin is named, not enabled', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), V12);
    writeFileSync(join(home, '.env'), 'LLM_MODEL=foo\nOPENROUTER_API_KEY=x\n', { mode: 0o600 });
    mkdirSync(join(home, 'plugins', 'foo'), { recursive: true });
    writeFileSync(join(home, 'plugins', 'foo', 'plugin.yaml'), 'name: foo\n');

    const check = await hermes(['config', 'check'], { home });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /^· memory\.write_mode \(line 13\): Hermes's old name \(before config version 29\), read as memory\.write_approval; `hermes config migrate` renames it$/m);
    assert.match(check.stdout, /^· delegation\.max_async_children \(line 20\): .* read as delegation\.max_concurrent_children/m);
    assert.equal((await hermes(['config', 'get', 'delegation.max_concurrent_children'], { home })).stdout.trim(), '6', 'the old name is read');
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), V12, 'reading never rewrites');

    const dry = await hermes(['config', 'migrate', '--dry-run'], { home });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Hermes's version steps \(13, 14, 16, 17, 21, 23, 25, 29, 31, 33\); config version 12 → 33\. Nothing was changed\./);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), V12);

    const r = await hermes(['config', 'migrate'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}✓ memory\.write_mode → memory\.write_approval: true$/m);
    assert.match(r.stdout, /^ {2}· plugin foo is not enabled \(plugins are opt-in\): `hermes plugins enable foo` turns it on$/m);
    const text = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(text, /^# mine\n_config_version: 33\nmodel:\n {2}default: m\/x # keep\n/);
    assert.match(text, /tool_progress: "off"/, 'quoted, so PyYAML reads a string too');
    const after = parse(text) as Record<string, Record<string, unknown>>;
    includesLeaves(after, PYTHON_AFTER);
    for (const [sec, key] of [['compression', 'summary_model'], ['compression', 'summary_provider'], ['memory', 'write_mode'], ['skills', 'write_mode'], ['stt', 'model'], ['delegation', 'max_async_children']])
      assert.equal(key in (after[sec] ?? {}), false, `${sec}.${key} is gone`);
    assert.equal(after.plugins, undefined);
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /^LLM_MODEL=\nOPENROUTER_API_KEY=x\n$/);
    assert.ok(existsSync(join(home, 'logs', 'curator')));
    assert.match((await hermes(['config', 'migrate'], { home })).stdout, /is up to date \(config version 33\)/);
  });

  it('a file Python 0.18.2 wrote (already v33) gets no step', async () => {
    const home = copyFixture('hermes-0.18.2-home');
    const r = await hermes(['config', 'migrate', '--dry-run'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /✓|version steps|config version/);
  });
});

describe('hermes config check: keys not supported here', () => {
  it('lists each key Python reads that this version ignores, one line each, without failing', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), 'model:\n  default: m\nagent:\n  verify_on_stop: false\n  max_turns: 9\nstreaming:\n  enabled: true\nmemory:\n  write_approval: true\n');
    const r = await hermes(['config', 'check'], { home });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.split('\n').filter((l) => l.includes('not supported here'));
    assert.deepEqual(lines, [
      '· agent.verify_on_stop (line 4): not supported here (Python Hermes reads it; this version ignores it)',
      '· streaming (line 6): not supported here (Python Hermes reads it; this version ignores it)',
      '· memory.write_approval (line 9): not supported here (Python Hermes reads it; this version ignores it)',
    ]);
    assert.match(r.stdout, /Configuration OK\.\n$/);
  });

  it('a fresh home and the file Python 0.19 wrote check clean, and are not rewritten', async () => {
    const fresh = await hermes(['config', 'check'], { home: tempHome() });
    assert.equal(fresh.code, 0, fresh.stdout);
    assert.doesNotMatch(fresh.stdout, /✗|not supported|old name/);
    const home = copyFixture('hermes-0.19.0-home');
    const before = readFileSync(join(home, 'config.yaml'), 'utf8');
    const r = await hermes(['config', 'check'], { home });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /✗|not supported|old name/);
    await hermes(['config', 'show'], { home });
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), before);
  });
});
