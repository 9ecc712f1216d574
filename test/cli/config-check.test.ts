// `hermes config check` against the schema of config.yaml: a key nothing reads is reported with the
// nearest real one, a provider that does not exist with the nearest provider; a config written by
// Python Hermes 0.18.2 checks clean; `config set` refuses a misspelt key.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';

/** config.yaml as Python Hermes 0.18.2 wrote it (from a real home made by it). */
const HERMES_0_18_2 = `model:
  provider: custom
  base_url: http://127.0.0.1:40161/v1
  default: mock-model
  api_key: sk-mock-fixture
fallback_providers:
  - provider: openrouter
    model: anthropic/claude-sonnet-5
    base_url: https://openrouter.ai/api/v1
    api_mode: chat_completions
compression:
  protect_last_n: 2
  protect_first_n: 0
onboarding:
  seen:
    busy_input_prompt: true
_config_version: 33
display:
  compact: true
  resume_display: minimal
`;

describe('hermes config check', () => {
  it('reports unknown keys and providers, with the nearest real ones, and fails', async () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'config.yaml'),
      'model:\n  provider: custm\n  default: m\nagent:\n  max_turn: 5\nfoo: 1\nfallback_providers:\n  - provider: openroutr\n    model: x\nauxiliary:\n  vision:\n    provider: main\n',
    );
    const r = await hermes(['config', 'check'], { home });
    assert.equal(r.code, 1, r.stdout);
    const file = join(home, 'config.yaml');
    assert.ok(r.stdout.includes(`✗ ${file} line 2: \`model.provider\` names "custm", which is not a provider (did you mean \`custom\`?).`), r.stdout);
    assert.ok(r.stdout.includes(`✗ ${file} line 5: \`agent.max_turn\` is not a setting (did you mean \`agent.max_turns\`?).`), r.stdout);
    assert.ok(r.stdout.includes(`✗ ${file} line 6: \`foo\` is not a setting.`), r.stdout);
    assert.ok(r.stdout.includes(`✗ ${file} line 8: \`fallback_providers[0].provider\` names "openroutr", which is not a provider (did you mean \`openrouter\`?).`), r.stdout);
    assert.doesNotMatch(r.stdout, /auxiliary/, '`main` is a valid auxiliary provider');
    assert.doesNotMatch(r.stdout, /Configuration OK/);
    assert.equal(r.stderr, 'hermes: 4 problem(s) found.\n');
  });

  it('a named endpoint is a provider; a custom:<name> nobody defined is not', async () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'config.yaml'),
      'model:\n  provider: custom:lab\n  default: m\ncustom_providers:\n  - name: Lab\n    base_url: http://127.0.0.1:9/v1\nfallback_providers:\n  - provider: custom:gone\n    model: m\n',
    );
    const r = await hermes(['config', 'check'], { home });
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stdout, /model\.provider/);
    assert.match(r.stdout, /`fallback_providers\[0\]\.provider` names "custom:gone", but no custom_providers entry or providers: key has that name \(yours: custom:lab\)/);
  });

  it('a config.yaml written by Python Hermes 0.18.2 checks clean', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), HERMES_0_18_2);
    const r = await hermes(['config', 'check'], { home });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Configuration OK\./);
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /onboarding:/, 'Hermes keys this version does not use are still fine');
  });

  it('config set refuses a misspelt key and names the real one', async () => {
    const home = tempHome();
    const r = await hermes(['config', 'set', 'agent.max_turn', '5'], { home });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'hermes: Not saved: `agent.max_turn` is not a setting. Did you mean `agent.max_turns`?\n');
    const ok = await hermes(['config', 'set', 'agent.max_turns', '5'], { home });
    assert.equal(ok.code, 0, ok.stderr);
  });
  it('reports each wrongly typed value in one line with its line number, and accepts what Hermes accepts', async () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'config.yaml'),
      'terminal:\n  timeout: soon\n  backend: vercel_sandbox\ndisplay:\n  show_cost: maybe\ncheckpoints: true\napprovals:\n  mode: false\nfallback_providers:\n  - provider: openrouter\n',
    );
    const r = await hermes(['config', 'check'], { home });
    assert.equal(r.code, 1, r.stdout);
    const file = join(home, 'config.yaml');
    const bad = r.stdout.split('\n').filter((l) => l.startsWith('✗'));
    assert.deepEqual(bad, [
      `✗ ${file} line 2: \`terminal.timeout\` must be a number.`,
      `✗ ${file} line 5: \`display.show_cost\` must be true or false.`,
      `✗ ${file} line 10: \`fallback_providers[0]\` needs both \`provider\` and \`model\`.`,
    ]);
    assert.equal(r.stderr, 'hermes: 3 problem(s) found.\n');
  });
});
