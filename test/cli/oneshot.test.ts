// `hermes chat -q` end to end: the real binary against the fake LLM over each wire format.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

/** A HERMES_HOME whose config points at the fake with the given wire format. */
function homeFor(apiMode: 'chat_completions' | 'anthropic_messages' | 'codex_responses', extra = ''): string {
  const home = tempHome();
  const baseUrl = apiMode === 'anthropic_messages' ? fake.anthropicBaseUrl : fake.openaiBaseUrl;
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: test-model\n  api_key: test-key\n  api_mode: ${apiMode}\n${extra}`,
  );
  return home;
}

describe('hermes chat -q', () => {
  it('prints the version fast path and the subcommand', async () => {
    const home = tempHome();
    const a = await hermes(['--version'], { home });
    assert.equal(a.code, 0);
    assert.match(a.stdout, /^hermes \d+\.\d+\.\d+\n$/);
    const b = await hermes(['version'], { home });
    assert.equal(b.stdout, a.stdout);
  });

  for (const mode of ['chat_completions', 'anthropic_messages', 'codex_responses'] as const) {
    it(`completes a multi-tool turn over ${mode}`, async () => {
      const home = homeFor(mode);
      const work = join(home, 'work');
      await import('node:fs').then((fs) => fs.mkdirSync(work));
      writeFileSync(join(work, 'notes.txt'), 'the launch code is 4417\n');
      const before = fake.requests.length;
      fake.enqueue(
        {
          text: 'Let me look.',
          toolCalls: [
            { name: 'read_file', arguments: { path: 'notes.txt' } },
            { name: 'todo', arguments: { todos: [{ id: '1', content: 'report the code', status: 'in_progress' }] } },
          ],
        },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo $((4400+17))' } }] },
        { text: 'The code is 4417, and the shell agrees.' },
      );
      const r = await hermes(['chat', '-q', 'what is the code?'], { home, cwd: work });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Let me look\./);
      assert.match(r.stdout, /The code is 4417, and the shell agrees\.\n$/);
      // One activity line per tool on stderr.
      assert.match(r.stderr, /┊ 📖 read notes\.txt/);
      assert.match(r.stderr, /┊ 📋 plan 1 item/);
      assert.match(r.stderr, /┊ 💻 \$ echo/);
      const reqs = fake.requests.slice(before);
      assert.equal(reqs.length, 3);
      const wire = { chat_completions: 'chat', anthropic_messages: 'anthropic', codex_responses: 'responses' }[mode];
      assert.ok(reqs.every((q) => q.wire === wire));
      assert.ok(reqs.every((q) => q.apiKey === 'test-key'));
      // The model saw the file contents and the command output.
      const last = JSON.stringify(reqs[2].body);
      assert.match(last, /the launch code is 4417/);
      assert.match(last, /4417\\\\n|4417\\n/);
    });
  }

  it('-Q prints only the final answer', async () => {
    const home = homeFor('chat_completions');
    fake.enqueue({ text: 'thinking out loud', toolCalls: [{ name: 'todo', arguments: {} }] }, { text: 'Final answer.' });
    const r = await hermes(['chat', '-Q', '-q', 'hi'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Final answer.\n');
    assert.equal(r.stderr, '');
  });

  it('reads the question from stdin when there is no -q', async () => {
    const home = homeFor('chat_completions');
    const before = fake.requests.length;
    fake.enqueue({ text: 'piped ok' });
    const r = await hermes(['chat'], { home, input: 'a question on stdin' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'piped ok\n');
    assert.match(JSON.stringify(fake.requests[before].body), /a question on stdin/);
  });

  it('refuses a dangerous command without --yolo and tells the model why', async () => {
    const home = homeFor('chat_completions');
    const victim = join(home, 'victim');
    await import('node:fs').then((fs) => fs.mkdirSync(join(victim, 'sub'), { recursive: true }));
    writeFileSync(join(victim, 'sub', 'keep.txt'), 'precious');
    const before = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}/sub` } }] }, { text: 'I was not allowed to delete it.' });
    const r = await hermes(['chat', '-q', 'clean up'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(victim, 'sub', 'keep.txt')), 'the file system is untouched');
    const toolResult = JSON.stringify(fake.requests[before + 1].body);
    assert.match(toolResult, /needs approval/);
    assert.match(toolResult, /non-interactive/);
    // With --yolo the same command runs.
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}/sub` } }] }, { text: 'Deleted.' });
    const y = await hermes(['chat', '--yolo', '-q', 'clean up'], { home });
    assert.equal(y.code, 0, y.stderr);
    assert.ok(!existsSync(join(victim, 'sub')));
  });

  it('switches to a fallback provider on 401 and says so', async () => {
    const home = homeFor(
      'chat_completions',
      `fallback_providers:\n  - provider: custom\n    model: backup-model\n    base_url: ${fake.anthropicBaseUrl}\n    api_key: backup-key\n    api_mode: anthropic_messages\n`,
    );
    const before = fake.requests.length;
    fake.enqueue({ status: 401, error: 'Invalid API key provided' }, { text: 'answered by the backup' });
    const r = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'answered by the backup\n');
    assert.match(r.stderr, /fallback/i);
    const reqs = fake.requests.slice(before);
    assert.deepEqual(
      reqs.map((q) => [q.wire, q.apiKey, q.body.model]),
      [
        ['chat', 'test-key', 'test-model'],
        ['anthropic', 'backup-key', 'backup-model'],
      ],
    );
  });

  it('rotates to the next key on a 429', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: m\n`);
    const before = fake.requests.length;
    fake.enqueue({ status: 429, error: 'Rate limit reached', retryAfter: 0 }, { text: 'second key worked' });
    const r = await hermes(['chat', '-v', '-q', 'hi'], { home, env: { OPENAI_API_KEY: 'key-one,key-two' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'second key worked\n');
    assert.deepEqual(
      fake.requests.slice(before).map((q) => q.apiKey),
      ['key-one', 'key-two'],
    );
  });
});

describe('hermes chat -q: bad input gets one clear line', () => {
  const oneLine = (s: string) => s.trim().split('\n').length === 1 && !/\n\s+at /.test(s);

  it('no provider configured', async () => {
    const r = await hermes(['chat', '-q', 'hi'], { home: tempHome() });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /^hermes: .*OPENROUTER_API_KEY.*hermes setup/);
  });

  it('malformed config.yaml names the file and line', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), 'model:\n  default: x\n  provider: [unclosed\n');
    const r = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /config\.yaml line \d+: invalid YAML/);
  });

  it('a wrongly typed setting names the key and line', async () => {
    const home = homeFor('chat_completions', 'agent:\n  max_turns: many\n');
    const r = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /config\.yaml line 8: `agent\.max_turns` must be a positive number/);
  });

  it('unreachable endpoint', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n  api_key: k\nagent:\n  api_max_retries: 0\n');
    const r = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /127\.0\.0\.1:9/);
  });

  it('a rejected key shows the provider’s own message', async () => {
    const home = homeFor('chat_completions');
    fake.enqueue({ status: 401, error: 'Incorrect API key provided: te***ey' });
    const r = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /401/);
    assert.match(r.stderr, /Incorrect API key provided/);
  });

  it('an unknown toolset', async () => {
    const home = homeFor('chat_completions');
    const r = await hermes(['chat', '-t', 'nonsense', '-q', 'hi'], { home });
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /Unknown toolset or tool "nonsense"/);
  });

  it('an unknown provider', async () => {
    const home = homeFor('chat_completions');
    const r = await hermes(['chat', '--provider', 'nope', '-q', 'hi'], { home });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /nope/);
  });

  it('keeps secrets out of config show and writes .env 0600', async () => {
    const home = tempHome();
    const set = await hermes(['config', 'set', 'OPENROUTER_API_KEY', 'sk-or-v1-abcdefghijklmnop'], { home });
    assert.equal(set.code, 0, set.stderr);
    assert.doesNotMatch(set.stdout, /abcdefghijklmnop/);
    const { statSync } = await import('node:fs');
    assert.equal(statSync(join(home, '.env')).mode & 0o777, 0o600);
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /OPENROUTER_API_KEY=sk-or-v1-abcdefghijklmnop/);
    const get = await hermes(['config', 'get', 'OPENROUTER_API_KEY'], { home });
    assert.doesNotMatch(get.stdout, /abcdefghijklmnop/);
    const bad = await hermes(['config', 'set', 'agent.max_turns', 'lots'], { home });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Not saved: `agent\.max_turns`/);
    const ok = await hermes(['config', 'set', 'agent.max_turns', '25'], { home });
    assert.equal(ok.code, 0);
    assert.equal((await hermes(['config', 'get', 'agent.max_turns'], { home })).stdout, '25\n');
    assert.equal((await hermes(['config', 'unset', 'agent.max_turns'], { home })).code, 0);
    assert.equal((await hermes(['config', 'get', 'agent.max_turns'], { home })).stdout, '90\n');
    assert.equal((await hermes(['config', 'path'], { home })).stdout, join(home, 'config.yaml') + '\n');
    const check = await hermes(['config', 'check'], { home });
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});
