// The one config schema (src/state/config-zod.ts): the precomputed defaults, JSON Schema and key list
// are what it says today; the load-time checks (over the JSON Schema, no zod) agree with zod's own
// parse; the dashboard's form offers every terminal backend the code runs; a Python Hermes
// config.yaml (the fixtures written by Hermes 0.18.2 and 0.19.0) checks clean.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { z } from 'zod';
import { generated } from '../../scripts/config-gen.mjs';
import { configSchema } from '../../src/dashboard/config-schema.ts';
import { SUPPORTED } from '../../src/tools/env/index.ts';
import { typeProblems, unknownKeys } from '../../src/state/config-schema.ts';
import { hermesConfigSchema } from '../../src/state/config-zod.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { ROOT } from '../helpers/cli.ts';

describe('the config schema', () => {
  it('the precomputed files are the schema of today (run `node scripts/config-gen.mjs` after changing it)', () => {
    const { ts, md } = generated();
    assert.equal(readFileSync(join(ROOT, 'src/state/config-generated.ts'), 'utf8'), ts, 'src/state/config-generated.ts is stale');
    assert.equal(readFileSync(join(ROOT, 'docs/config-keys.md'), 'utf8'), md, 'docs/config-keys.md is stale');
  });

  it('the defaults are the schema parsing an empty config.yaml', () => {
    assert.deepEqual(defaultConfig(), hermesConfigSchema(z).parse({}));
    assert.equal(defaultConfig().agent.max_turns, 90);
    const a = defaultConfig();
    a.toolsets.push('x');
    assert.deepEqual(defaultConfig().toolsets, ['hermes-cli'], 'each call gives a fresh copy');
  });

  it('the load-time checks find what zod finds, one problem per wrong value', () => {
    const schema = hermesConfigSchema(z);
    const cases: Record<string, unknown>[] = [
      {},
      { agent: { max_turns: 'lots' } },
      { agent: { max_turns: null }, approvals: { mode: false }, terminal: { sandbox: { network: true } } },
      { agent: { max_turns: 'unlimited' }, kanban: { max_in_progress: 4 } },
      { terminal: { backend: 'vercel_sandbox', timeout: '3' } },
      { terminal: { backend: 'my plugin' } },
      { display: { tool_progress: 'loud', show_cost: 'yes' } },
      { fallback_providers: [{ provider: 'openrouter' }] },
      { fallback_providers: [{ provider: 'openrouter', model: 'x', context_length: 'big' }] },
      { providers: { lab: { base_url: 5 } } },
      { auxiliary: { my_task: { timeout: 'soon' } } },
      { toolsets: ['a', 3] },
      { prompt_caching: { cache_ttl: 'auto' }, onboarding: { seen: { x: true } }, compression: { model_thresholds: { m: 1 } } },
      { security: { website_blocklist: { domains: 'x.com' } } },
      { tool_loop_guardrails: { warn_after: { exact_failure: 'two' } } },
    ];
    for (const c of cases) {
      const mine = typeProblems(c);
      const zod = schema.safeParse(c);
      assert.equal(mine.length === 0, zod.success, `${JSON.stringify(c)}: ${JSON.stringify(mine)} vs ${zod.success ? 'ok' : JSON.stringify(zod.error.issues)}`);
      if (!zod.success) {
        const paths = new Set(zod.error.issues.map((i) => i.path.join('.')));
        for (const p of mine) assert.ok([...paths].some((zp) => zp.startsWith(p.keys.join('.'))), `${p.key} is where zod sees it: ${[...paths].join(', ')}`);
      }
    }
    assert.deepEqual(
      typeProblems({ terminal: { timeout: '3' }, display: { tool_progress: 'loud' } }).map((p) => `${p.key} ${p.message}`),
      ['terminal.timeout must be a number', 'display.tool_progress must be one of: off, new, all, verbose'],
    );
  });

  it('the dashboard form offers every terminal backend the code runs, and the choices the schema names', () => {
    const fields = configSchema();
    const backend = fields.find((f) => f.key === 'terminal.backend');
    assert.deepEqual([...(backend?.options ?? [])].sort(), [...SUPPORTED].sort());
    assert.deepEqual(fields.find((f) => f.key === 'prompt_caching.cache_ttl')?.options, ['5m', '1h', 'auto']);
    assert.ok(fields.find((f) => f.key === 'model.provider')?.options?.includes('openrouter'));
    const turns = fields.find((f) => f.key === 'agent.max_turns');
    assert.equal(turns?.type, 'number');
    assert.equal(turns?.nullable, true);
    assert.ok(!fields.some((f) => f.key === 'onboarding'), 'keys we only accept from Python Hermes are not offered');
  });

  it('config.yaml files written by Python Hermes 0.18.2 and 0.19.0 check clean', () => {
    const dirs = ['test/fixtures/hermes-0.18.2-home', 'test/fixtures/hermes-0.19.0-home', '../shared/fixtures/hermes-0.18.2-home', '../shared/fixtures/hermes-0.19.0-home'];
    let seen = 0;
    for (const d of dirs) {
      const file = join(ROOT, d, 'config.yaml');
      if (!existsSync(file)) continue;
      seen++;
      const user = (parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, unknown>;
      if (typeof user.model === 'string') user.model = { default: user.model };
      assert.deepEqual(typeProblems(user), [], file);
      assert.deepEqual(unknownKeys(user, () => []), [], file);
    }
    assert.ok(seen >= 2, 'the fixtures are there');
  });
});
