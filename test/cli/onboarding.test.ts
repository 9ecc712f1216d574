// hermes setup (wizard and --non-interactive), hermes model, status, doctor and completion, run as
// the real binary against the fake provider.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import { FILESYSTEM } from '../mcp/servers.ts';

let fake: FakeLlm;
let locked: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
  locked = await startFakeLlm({ requireKey: 'the-right-key' });
});
after(async () => {
  await fake?.close();
  await locked?.close();
});

const mode = (p: string) => statSync(p).mode & 0o777;
const oneLine = (s: string) => s.trim().split('\n').length === 1;

describe('hermes setup --non-interactive', () => {
  it('saves the key to .env (0600) and the choice to config.yaml after a test call', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), '# my settings\nagent:\n  max_turns: 25\n');
    const n = locked.requests.length;
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', locked.openaiBaseUrl, '--api-key', '-', '--model', 'fake-model'], { home, input: 'the-right-key\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /✓ fake-model via custom answered/);
    assert.equal(locked.requests.length, n + 2, 'the test call, then the tool-call check of a local server');
    assert.equal(locked.requests[n].apiKey, 'the-right-key');
    assert.equal(mode(join(home, '.env')), 0o600);
    // The key belongs to this server: its own variable, never OPENAI_API_KEY.
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /^CUSTOM_LOCAL_\d+_API_KEY=the-right-key$/m);
    assert.doesNotMatch(readFileSync(join(home, '.env'), 'utf8'), /OPENAI_API_KEY/);
    const cfg = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(cfg, /# my settings/);
    assert.match(cfg, /max_turns: 25/);
    assert.match(cfg, /custom_providers:\n  - name: local-\d+\n    base_url: http:\/\/127\.0\.0\.1:\d+\/v1\n    model: fake-model\n    key_env: CUSTOM_LOCAL_\d+_API_KEY/);
    assert.match(cfg, /model:\n  provider: custom:local-\d+\n  default: fake-model\n/);
    assert.doesNotMatch(cfg, /the-right-key/);
    // The saved setup works end to end.
    locked.enqueue({ text: 'configured and working' });
    const chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, 'configured and working\n');
  });

  it('"the first of N served" is the server’s first, not the alphabetical first', async () => {
    const unsorted = await startFakeLlm();
    unsorted.models = ['zeta-large', 'alpha-small', 'mid-model'];
    try {
      const home = tempHome();
      const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', unsorted.openaiBaseUrl, '--no-test'], { home });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Model: zeta-large \(the first of 3 served/);
      const list = await hermes(['model', '--list'], { home });
      assert.equal(list.stdout, 'alpha-small\nmid-model\nzeta-large\n', 'a list to read is sorted');
    } finally {
      await unsorted.close();
    }
  });

  it('picks the first served model when none is given, and skips the test with --no-test', async () => {
    const home = tempHome();
    const n = fake.requests.length;
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', fake.openaiBaseUrl, '--no-test'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Model: fake-model \(the first of 2 served/);
    assert.equal(fake.requests.length, n);
    assert.ok(!existsSync(join(home, '.env')), 'no key given, none written');
  });

  it('a rejected key fails with the provider’s message and saves nothing', async () => {
    const home = tempHome();
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', locked.openaiBaseUrl, '--api-key', 'wrong-key', '--model', 'fake-model'], { home });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /^hermes: The test call failed, nothing was saved: .*401.*Invalid API key/);
    assert.ok(!existsSync(join(home, 'config.yaml')));
    assert.ok(!existsSync(join(home, '.env')));
  });

  it('bad flags get one clear line and exit 2', async () => {
    const home = tempHome();
    const cases: [string[], RegExp][] = [
      [[], /--provider is required with --non-interactive/],
      [['--provider', 'nope'], /Unknown provider "nope"\. Use one of: openrouter,/],
      [['--provider', 'openrouter'], /No API key for OpenRouter: pass --api-key <key> .* or set OPENROUTER_API_KEY/],
      [['--provider', 'custom'], /A custom endpoint needs --base-url/],
      [['--provider', 'custom', '--base-url', 'localhost:8080'], /--base-url must be an http\(s\) URL/],
    ];
    for (const [args, re] of cases) {
      const r = await hermes(['setup', '--non-interactive', ...args], { home });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, re);
    }
    assert.ok(!existsSync(join(home, 'config.yaml')));
  });

  it('switching to a built-in provider drops the old custom endpoint; a key in the environment is not copied', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: m\n  api_key: old-local-key\n`);
    const r = await hermes(['setup', '--non-interactive', '--provider', 'openrouter', '--model', 'anthropic/claude-sonnet-4.5', '--no-test'], { home, env: { OPENROUTER_API_KEY: 'sk-or-from-env-1234' } });
    assert.equal(r.code, 0, r.stderr);
    const cfg = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(cfg, /provider: openrouter/);
    assert.doesNotMatch(cfg, /base_url|old-local-key/);
    assert.ok(!existsSync(join(home, '.env')));
  });
});

describe('hermes model', () => {
  it('lists the provider’s models and switches without prompts', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: fake-model\n`);
    const list = await hermes(['model', '--list'], { home });
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout, 'fake-model\nfake-model-large\n');
    const sw = await hermes(['model', 'fake-model-large'], { home });
    assert.equal(sw.code, 0, sw.stderr);
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /default: fake-model-large/);
    const show = await hermes(['model'], { home });
    assert.match(show.stdout, /^fake-model-large via custom:local-\d+ \(chat_completions\)/);
    const other = await hermes(['model', 'openrouter:openai/gpt-5'], { home });
    assert.equal(other.code, 0, other.stderr);
    assert.match(other.stdout, /no API key is set for OpenRouter: `hermes config set OPENROUTER_API_KEY <key>`/);
    const cfg = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(cfg, /^model:\n  provider: openrouter\n  default: openai\/gpt-5\ncustom_providers:\n  - name: local-\d+\n/, 'the custom server is remembered, not in the model block');
  });
});

describe('hermes status', () => {
  it('says what an unavailable tool needs, not "requirements not met"', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: fake-model\n`);
    const r = await hermes(['status'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /○ send_message unavailable: needs a messaging platform: none is configured \(`hermes gateway setup` sets up Telegram, Discord, Slack, Matrix, Signal, email and the others\)/);
    assert.match(r.stdout, /○ web_search unavailable: needs FIRECRAWL_API_KEY/);
    assert.doesNotMatch(r.stdout, /requirements not met/);
    const withBot = await hermes(['status'], { home, env: { TELEGRAM_BOT_TOKEN: '1:x' } });
    assert.doesNotMatch(withBot.stdout, /send_message unavailable/);
  });

  it('names the provider, model and keys that are set, never their values', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: fake-model\n`);
    writeFileSync(join(home, '.env'), 'OPENAI_API_KEY=sk-secret-in-dotenv-999\n', { mode: 0o600 });
    const r = await hermes(['status'], { home, env: { TAVILY_API_KEY: 'tvly-secret-in-env-888' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Provider\s+custom · chat_completions · http:\/\/127\.0\.0\.1/);
    assert.match(r.stdout, /Model\s+fake-model/);
    assert.match(r.stdout, /Key\s+OPENAI_API_KEY \(from .*\.env\)/);
    assert.match(r.stdout, /✓ OPENAI_API_KEY\s+\.env/);
    assert.match(r.stdout, /✓ TAVILY_API_KEY\s+environment/);
    assert.match(r.stdout, /Toolsets\s+hermes-cli → \d+ tools/);
    assert.match(r.stdout, /Sessions\s+none yet/);
    assert.doesNotMatch(r.stdout, /secret-in/);
    const j = await hermes(['status', '--json'], { home });
    const data = JSON.parse(j.stdout);
    assert.equal(data.provider.model, 'fake-model');
    assert.ok(data.tools.includes('terminal'));
    assert.doesNotMatch(j.stdout, /secret-in/);
  });

  it('says what is missing when no provider is configured', async () => {
    const r = await hermes(['status'], { home: tempHome() });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Provider\s+not ready: No LLM provider configured: .*hermes setup/);
    assert.match(r.stdout, /Config\s+.*\(not created yet: run `hermes setup`\)/);
  });
});

describe('hermes doctor', () => {
  it('passes on a good setup and checks the provider over the network', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: fake-model\n`, { mode: 0o600 });
    const r = await hermes(['doctor'], { home });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /✓ Node\.js\s+v\d+/);
    assert.match(r.stdout, /✓ Provider\s+custom at http:\/\/127\.0\.0\.1:\d+\/v1 answers \(2 models, fake-model among them\)/);
    assert.match(r.stdout, /✓ SQLite FTS5\s+SQLite [\d.]+ with FTS5/);
    assert.match(r.stdout, /✓ ripgrep/);
  });

  it('finds problems, names the fix, and --fix repairs what is safe', async () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\nmcp_servers:\n  files:\n    command: no-such-mcp-binary\n  fs:\n    command: ${process.execPath}\n    args: [${FILESYSTEM}, ${home}]\n`,
      { mode: 0o600 },
    );
    writeFileSync(join(home, '.env'), 'OPENAI_API_KEY=k-1234\n');
    chmodSync(join(home, '.env'), 0o644);
    chmodSync(home, 0o755);
    // --timeout 30: the MCP servers' connect check must not give up on a loaded machine
    const r = await hermes(['doctor', '--timeout', '30'], { home });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /! HERMES_HOME\s+.* is accessible by others \(mode 755\)\n\s+→ `chmod 700 /);
    assert.match(r.stdout, /✗ \.env\s+.* is readable by others \(mode 644\)\n\s+→ `chmod 600 /);
    assert.match(r.stdout, /✗ Provider\s+custom at http:\/\/127\.0\.0\.1:9\/v1: .*\n\s+→ check the network and the base URL/);
    assert.match(r.stdout, /✗ MCP servers\s+files: command "no-such-mcp-binary" not found; working: fs \(\d+ tools\)/);
    assert.match(r.stderr, /^hermes: \d+ problem\(s\), \d+ warning\(s\)\. Safe repairs: `hermes doctor --fix`\.$/m);
    const fixed = await hermes(['doctor', '--fix'], { home });
    assert.match(fixed.stdout, /✓ HERMES_HOME\s+fixed: chmod 700/);
    assert.match(fixed.stdout, /✓ \.env\s+fixed: chmod 600/);
    assert.equal(mode(join(home, '.env')), 0o600);
    assert.equal(mode(home), 0o700);
  });

  it('gives up on a provider that does not answer within --timeout', async () => {
    const sockets: Socket[] = [];
    const server: Server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const home = tempHome();
      writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: http://127.0.0.1:${port}/v1\n  default: m\n`, { mode: 0o600 });
      const r = await hermes(['doctor', '--timeout', '1'], { home, timeoutMs: 20_000 });
      assert.equal(r.code, 1);
      assert.match(r.stdout, /✗ Provider\s+custom at http:\/\/127\.0\.0\.1:\d+\/v1: .*(timed out|timeout|aborted)/i);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});

describe('hermes completion', () => {
  it('bash completes commands, subcommands, flags and values', async () => {
    const home = tempHome();
    const r = await hermes(['completion', 'bash'], { home });
    assert.equal(r.code, 0, r.stderr);
    const file = join(home, 'hermes.bash');
    writeFileSync(file, r.stdout);
    const complete = (words: string[]) => {
      const script = `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _hermes_completion; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const out = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
      assert.equal(out.status, 0, out.stderr);
      return out.stdout.trim().split('\n').filter(Boolean);
    };
    assert.deepEqual(complete(['hermes', 'do']), ['doctor']);
    assert.deepEqual(complete(['hermes', 'config', 's']).sort(), ['set', 'show']);
    assert.ok(complete(['hermes', 'chat', '--provider', 'anth']).includes('anthropic'));
    assert.ok(complete(['hermes', 'setup', '--']).includes('--non-interactive'));
    assert.ok(complete(['hermes', '-']).includes('--query'), 'the default command’s flags work on the bare program');
    assert.deepEqual(complete(['hermes', 'completion', 'f']), ['fish']);
    assert.ok(complete(['hermes', 'config', 'set', 'display.show_r']).includes('display.show_reasoning'));
  });

  it('zsh and fish scripts cover the same commands; an unknown shell is one clear line', async () => {
    const home = tempHome();
    const zsh = await hermes(['completion', 'zsh'], { home });
    assert.equal(zsh.code, 0);
    assert.match(zsh.stdout, /^#compdef hermes/);
    assert.match(zsh.stdout, /'doctor:check the installation/);
    if (spawnSync('zsh', ['--version']).status === 0) {
      writeFileSync(join(home, '_hermes'), zsh.stdout);
      assert.equal(spawnSync('zsh', ['-n', join(home, '_hermes')]).status, 0);
    }
    const fish = await hermes(['completion', 'fish'], { home });
    assert.match(fish.stdout, /complete -c hermes -n '__fish_use_subcommand' -a 'setup'/);
    assert.match(fish.stdout, /complete -c hermes -n '__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from show get set/);
    const bad = await hermes(['completion', 'tcsh'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^hermes: Which shell\? `hermes completion bash`/);
  });
});

describe('hermes config edit', () => {
  // An editor that breaks the file the first time and fixes it the second.
  const editor = (home: string) => {
    const f = join(home, 'editor.sh');
    writeFileSync(f, `#!/bin/sh\nif [ -f "$1.once" ]; then printf 'model:\\n  default: fixed-model\\n' > "$1"; else touch "$1.once"; printf 'model:\\n  default: [broken\\n' > "$1"; fi\n`);
    chmodSync(f, 0o755);
    return f;
  };

  it('without a terminal, a broken file is one clear line naming the line', async () => {
    const home = tempHome();
    const r = await hermes(['config', 'edit'], { home, env: { EDITOR: editor(home) } });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /config\.yaml line \d+: invalid YAML/);
  });

  it('on a terminal, offers to reopen the editor until the file is valid', { skip: tmuxAvailable() ?? false }, async () => {
    const home = tempHome();
    const t = startHermes(['config', 'edit'], { home, env: { EDITOR: editor(home) } });
    try {
      await t.waitFor(/invalid YAML[\s\S]*Open the editor again to fix it\? \[Y\/n\]/);
      t.keys('Enter');
      await t.waitFor(/✓ .*config\.yaml is valid\./);
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /default: fixed-model/);
  });
});

const wizard = gatedSuite(tmuxAvailable());
wizard.describe('hermes setup (wizard)', () => {
  wizard.it('goes from nothing to a working provider: pick, URL, masked key, model from /models, test call, saved', async () => {
    const home = tempHome();
    const t = startHermes(['setup'], { home, cols: 110, rows: 40 });
    try {
      await t.waitFor(/Which inference provider\? \(\d+; type to filter\)/);
      t.type('custom'); // the list filters as you type
      await t.waitFor(/Search: custom.*\(1 match\)\n│  ● Custom endpoint/);
      t.keys('Enter');
      await t.waitFor(/Base URL of the OpenAI-compatible endpoint/);
      t.type(locked.openaiBaseUrl);
      t.keys('Enter');
      await t.waitFor(/A name for this endpoint/);
      await t.waitFor(/local-\d+/); // a slug: no spaces, parentheses or colons
      // A name that is not a slug is refused, with the nearest one that is.
      t.type(' (Lab):2');
      t.keys('Enter');
      await t.waitFor(/"local-\d+ \(Lab\):2" cannot name an endpoint: use lower-case letters, digits and hyphens.*Try\s+"local-\d+-lab-2"/s);
      for (let i = 0; i < 8; i++) t.keys('BSpace');
      t.keys('Enter');
      await t.waitFor(/API key for local-\d+ \(leave empty if the server needs none\) — saved as\s+CUSTOM_LOCAL_\d+_API_KEY/);
      t.type('the-right-key');
      await t.waitFor(/•{13}/);
      assert.doesNotMatch(t.screen(), /the-right-key/);
      t.keys('Enter');
      await t.waitFor(/2 model\(s\) available/);
      t.type('large');
      await t.waitFor(/● fake-model-large/);
      t.keys('Enter');
      await t.waitFor(/fake-model-large answered in/);
      await t.waitFor(/Ready\. Start chatting with `hermes`/);
      assert.equal(await t.exitCode(), 0);
      assert.doesNotMatch(t.screen(), /the-right-key/);
    } finally {
      t.kill();
    }
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /^CUSTOM_LOCAL_\d+_API_KEY=the-right-key$/m);
    assert.equal(mode(join(home, '.env')), 0o600);
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /model:\n  provider: custom:local-\d+\n  default: fake-model-large\n/);
  });

  wizard.it('the first `hermes` with nothing configured runs the wizard, then the chat', async () => {
    const home = tempHome();
    const t = startHermes([], { home, cols: 110, rows: 40 });
    try {
      await t.waitFor(/No provider is set up yet: starting `hermes setup`\./);
      await t.waitFor(/Which inference provider\?/);
      t.type('vllm'); // an alias finds it too
      await t.waitFor(/\(1 match\)\n│  ● Custom endpoint/);
      t.keys('Enter');
      await t.waitFor(/Base URL/);
      t.type(fake.openaiBaseUrl);
      t.keys('Enter');
      await t.waitFor(/A name for this endpoint/);
      t.keys('Enter');
      await t.waitFor(/API key for local-\d+/);
      t.keys('Enter'); // a local server needs none
      await t.waitFor(/2 model\(s\) available/);
      t.keys('Enter');
      await t.waitFor(/Ready\. Start chatting/);
      await t.waitFor(/fake-model via custom:local/);
      fake.enqueue({ text: 'first conversation works' });
      t.type('hello');
      t.keys('Enter');
      await t.waitFor(/first conversation works/);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  wizard.it('`hermes` with an emptied config.yaml says so and runs the wizard instead of guessing a provider', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), '');
    writeFileSync(join(home, '.env'), 'OPENROUTER_API_KEY=sk-or-test\n');
    const t = startHermes([], { home, cols: 150, rows: 40 });
    try {
      await t.waitFor(/config\.yaml is empty \(no settings\): starting `hermes setup`\./);
      await t.waitFor(/Which inference provider\?/);
    } finally {
      t.kill();
    }
  });

  wizard.it('providers that sign in with OAuth are marked and cannot be picked before signing in', async () => {
    const home = tempHome();
    const t = startHermes(['setup'], { home, cols: 120, rows: 40 });
    try {
      await t.waitFor(/Which inference provider\?/);
      t.type('codex');
      await t.waitFor(/● OpenAI Codex — ChatGPT sign-in \(OAuth\): run `hermes auth add openai-codex` first/);
      t.keys('Enter');
      // The warning, then the same question asked again (◆ marks the open prompt; ◇ the answered one).
      await t.waitFor(/OpenAI Codex signs in with OAuth: run `hermes auth add openai-codex` first \(or pick one that takes an API key\)\.[^]*◆\s+Which inference provider\?/);
      t.keys('C-c');
      assert.equal(await t.exitCode(), 1);
    } finally {
      t.kill();
    }
    assert.ok(!existsSync(join(home, 'config.yaml')));
  });

  wizard.it('a provider you signed in to with OAuth is offered and used without a key', async () => {
    const home = tempHome();
    // The Qwen CLI's sign-in file (Hermes reads it as the qwen-oauth pool), pointing at the fake server.
    mkdirSync(join(home, '.qwen'), { recursive: true });
    writeFileSync(join(home, '.qwen', 'oauth_creds.json'), JSON.stringify({ access_token: 'qwen-token-1234', refresh_token: 'r', expiry_date: Date.now() + 3_600_000, resource_url: 'portal.qwen.ai' }));
    const t = startHermes(['setup'], { home, cols: 120, rows: 40, env: { HERMES_QWEN_BASE_URL: fake.openaiBaseUrl } });
    try {
      await t.waitFor(/Which inference provider\?/);
      t.type('Qwen OAuth');
      await t.waitFor(/● Qwen OAuth/);
      await t.waitFor(/signed in \(auth\.json\)/);
      t.keys('Enter');
      await t.waitFor(/Use the credentials in auth\.json\?/);
      t.keys('Enter');
      await t.waitFor(/2 model\(s\) available/);
      t.keys('Enter');
      await t.waitFor(/Ready\. Start chatting/);
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /provider: qwen-oauth/);
    assert.equal(fake.requests.at(-1)!.apiKey, 'qwen-token-1234');
  });

  wizard.it('a rejected key leads back to the key prompt', async () => {
    const home = tempHome();
    const t = startHermes(['setup', '--provider', 'custom'], { home, cols: 110, rows: 40 });
    try {
      await t.waitFor(/Base URL/);
      t.type(locked.openaiBaseUrl);
      t.keys('Enter');
      await t.waitFor(/A name for this endpoint/);
      t.keys('Enter');
      await t.waitFor(/API key for local-\d+/);
      t.type('wrong-key');
      t.keys('Enter');
      await t.waitFor(/Could not list models/);
      await t.waitFor(/401\): Invalid API key — check the key you entered/);
      await t.waitFor(/Enter the key again/);
      t.keys('Enter');
      const mark = t.mark();
      await t.waitFor(/API key for local-\d+/, { after: mark - 4 });
      t.type('the-right-key');
      t.keys('Enter');
      await t.waitFor(/2 model\(s\) available/);
      t.keys('C-c');
      await t.waitFor(/Cancelled: nothing was changed\./);
      assert.equal(await t.exitCode(), 1);
    } finally {
      t.kill();
    }
    assert.ok(!existsSync(join(home, 'config.yaml')));
    assert.ok(!existsSync(join(home, '.env')));
  });
});
