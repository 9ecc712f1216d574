// `hermes chat -q` with model.openai_runtime: codex_app_server, against the real codex binary (the
// @openai/codex devDependency) talking to the fake LLM: the turn runs inside codex, tools and
// approvals go through Hermes, and the projected turn lands in state.db.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { gatedSuite } from '../helpers/skip.ts';
import { SessionDB } from '../../src/state/db.ts';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { codexHermesConfig, codexMissing, makeCodexHome, type CodexHome } from '../helpers/codex.ts';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.ts';

const skip = codexMissing() ?? false;
let fake: FakeLlm;
let codex: CodexHome;
/** Replies for codex's Responses requests, in order; anything else (Hermes's own calls) gets a plain answer. */
const codexReplies: FakeReply[] = [];

before(async () => {
  if (skip) return;
  fake = await startFakeLlm();
  fake.setHandler((req) => (req.wire === 'responses' ? (codexReplies.shift() ?? { text: '(no reply queued)' }) : { text: 'Hermes aux answer' }));
  codex = makeCodexHome(fake.openaiBaseUrl);
});
after(async () => {
  codex?.cleanup();
  await fake?.close();
});

function setup(extra = ''): { home: string; work: string } {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl, extra));
  const work = join(home, 'work');
  mkdirSync(work);
  return { home, work };
}

const run = (args: string[], home: string, work: string, env: Record<string, string> = {}) => hermes(args, { home, cwd: work, env: { ...codex.env, ...env }, timeoutMs: 90_000 });

function stored(home: string) {
  const db = SessionDB.open(join(home, 'state.db'));
  try {
    const [s] = db.listSessions({ limit: 10 }).reverse();
    const id = db.listSessions({ limit: 10 })[0].id;
    return { sessions: db.listSessions({ limit: 10 }), messages: db.getMessages(id), modelConfig: db.getModelConfig(id), first: s };
  } finally {
    db.close();
  }
}

const responsesRequests = () => fake.requests.filter((r) => r.wire === 'responses');

const { describe, it } = gatedSuite(skip || null);
describe('hermes chat -q on the codex app-server runtime', () => {
  it('answers through codex, with Hermes’s system prompt as developer instructions, and stores the turn', async () => {
    const { home, work } = setup();
    const n = responsesRequests().length;
    codexReplies.push({ text: 'Hello from inside codex.' });
    const r = await run(['chat', '-q', 'say hello'], home, work);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Hello from inside codex.\n');
    const reqs = responsesRequests().slice(n);
    assert.equal(reqs.length, 1, 'one model request, made by codex');
    assert.equal(reqs[0].apiKey, 'sk-test-hermes', 'codex used Hermes’s endpoint and key, not its own config.toml provider');
    const dev = JSON.stringify(reqs[0].body.input.filter((i: { role?: string }) => i.role === 'developer'));
    assert.match(dev, /You are Hermes/);
    const s = stored(home);
    assert.deepEqual(s.messages.map((m) => [m.role, m.content]), [
      ['user', 'say hello'],
      ['assistant', 'Hello from inside codex.'],
    ]);
    assert.match(String(s.modelConfig.codex_thread_id), /^[0-9a-f-]{36}$/);
    assert.equal(s.modelConfig.codex_home, codex.dir);
    assert.match(readFileSync(join(home, 'logs', 'codex-app-server.log'), 'utf8'), /started thread /);
  });

  it('with nobody to ask, a command needing approval is declined; --yolo runs it', async () => {
    const { home, work } = setup();
    const call = { name: 'exec_command', arguments: { cmd: 'echo approved > proof.txt', sandbox_permissions: 'require_escalated', justification: 'write proof.txt' } };
    codexReplies.push({ toolCalls: [call] }, { text: 'It was declined.' });
    const r = await run(['chat', '-q', 'write proof.txt'], home, work);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /┊ 💻 \$ echo approved > proof\.txt/, 'the tool line shows the command codex ran, not just exec_command');
    assert.equal(existsSync(join(work, 'proof.txt')), false);
    const declined = stored(home).messages.find((m) => m.role === 'tool');
    assert.equal(JSON.parse(String(declined?.content)).status, 'declined');

    codexReplies.push({ toolCalls: [call] }, { text: 'Done.' });
    const y = await run(['chat', '-q', 'write proof.txt', '--yolo'], home, work);
    assert.equal(y.code, 0, y.stderr);
    assert.equal(readFileSync(join(work, 'proof.txt'), 'utf8'), 'approved\n');
    const s = stored(home);
    const tool = s.messages.find((m) => m.role === 'tool');
    assert.deepEqual(JSON.parse(String(tool?.content)), { exit_code: 0, output: '' });
    const assistant = s.messages.find((m) => m.tool_calls?.length)!;
    assert.equal(assistant.tool_calls![0].function.name, 'exec_command');
    assert.equal(assistant.tool_calls![0].id, tool!.tool_call_id);
  });

  it('turned on in config.yaml alone (nothing migrated, CODEX_HOME under /var/tmp), --yolo runs a command that writes in the working directory through Hermes’s endpoint', async () => {
    const { home, work } = setup();
    const n = responsesRequests().length;
    // /var/tmp is not codex's temporary directory: a home there works.
    const varTmp = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : codex.dir, 'hermes-codex-home-'));
    after(() => rmSync(varTmp, { recursive: true, force: true }));
    copyFileSync(join(codex.dir, 'config.toml'), join(varTmp, 'config.toml'));
    // The command also counts the keys it can see: none (as Hermes's own terminal, secrets stay out).
    codexReplies.push({ toolCalls: [{ name: 'exec_command', arguments: { cmd: "echo written > out.txt && env | grep -c -E '^(OPENAI_API_KEY|HERMES_CODEX_API_KEY)=' || true" } }] }, { text: 'Wrote out.txt.' });
    const r = await run(['chat', '-q', 'write out.txt', '--yolo'], home, work, { CODEX_HOME: varTmp });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Wrote out.txt.\n');
    assert.equal(readFileSync(join(work, 'out.txt'), 'utf8'), 'written\n');
    const tool = JSON.parse(String(stored(home).messages.find((m) => m.role === 'tool')?.content));
    assert.equal(tool.exit_code, 0, JSON.stringify(tool));
    assert.doesNotMatch(tool.output, /Read-only file system/);
    assert.match(tool.output, /^0$/m, 'no API key in the command’s environment');
    const reqs = responsesRequests().slice(n);
    assert.equal(reqs.length, 2);
    assert.ok(reqs.every((q) => q.apiKey === 'sk-test-hermes'), 'both model calls went to Hermes’s endpoint with Hermes’s key');
    assert.doesNotMatch(readFileSync(join(varTmp, 'config.toml'), 'utf8'), /managed by hermes-agent/, 'nothing was written to config.toml');
    assert.equal(stored(home).modelConfig.codex_home, varTmp);
  });

  it('without --yolo a write in the working directory runs without asking; the endpoint can come from OPENAI_BASE_URL', async () => {
    const { home, work } = setup();
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl).replace(/ {2}base_url: .*\n/, ''));
    const n = responsesRequests().length;
    codexReplies.push({ toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo plain > plain.txt' } }] }, { text: 'Done.' });
    const r = await run(['chat', '-q', 'write plain.txt'], home, work, { OPENAI_BASE_URL: fake.openaiBaseUrl });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(work, 'plain.txt'), 'utf8'), 'plain\n');
    assert.equal(responsesRequests().length, n + 2);
  });

  it('a file change (codex apply_patch) lands in the workspace and in state.db as apply_patch', async () => {
    const { home, work } = setup();
    codexReplies.push({ toolCalls: [{ name: 'apply_patch', custom: true, arguments: '*** Begin Patch\n*** Add File: hello.txt\n+hello from apply_patch\n*** End Patch\n' }] }, { text: 'Created hello.txt.' });
    const r = await run(['chat', '-q', 'create hello.txt', '--yolo'], home, work);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(work, 'hello.txt'), 'utf8'), 'hello from apply_patch\n');
    const msgs = stored(home).messages;
    const call = msgs.find((m) => m.tool_calls?.length)!.tool_calls![0];
    assert.equal(call.function.name, 'apply_patch');
    assert.match(String(msgs.find((m) => m.role === 'tool')!.content), /"summary":"1 add: .*\/work\/hello\.txt"/);
  });

  it('--continue resumes the stored codex thread: the second turn sees the first', async () => {
    const { home, work } = setup();
    codexReplies.push({ text: 'Noted: the password is swordfish.' });
    assert.equal((await run(['chat', '-q', 'remember the password swordfish'], home, work)).code, 0);
    const thread = stored(home).modelConfig.codex_thread_id;
    const n = responsesRequests().length;
    codexReplies.push({ text: 'It was swordfish.' });
    const r = await run(['chat', '-q', 'what was the password?', '--continue'], home, work);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'It was swordfish.\n');
    const input = JSON.stringify(responsesRequests()[n].body.input);
    assert.match(input, /remember the password swordfish/);
    assert.match(input, /Noted: the password is swordfish\./);
    const s = stored(home);
    assert.equal(s.sessions.length, 1, 'the same Hermes session continued');
    assert.equal(s.modelConfig.codex_thread_id, thread, 'and the same codex thread');
    assert.match(readFileSync(join(home, 'logs', 'codex-app-server.log'), 'utf8'), new RegExp(`resumed thread ${thread}`));
    assert.deepEqual(s.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
  });

  it('a fresh codex thread in a conversation that began on Hermes’s loop gets the earlier turns', async () => {
    const { home, work } = setup();
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl).replace('openai_runtime: codex_app_server', 'openai_runtime: auto'));
    assert.equal((await run(['chat', '-q', 'my favourite colour is teal'], home, work)).code, 0);
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl));
    const n = responsesRequests().length;
    codexReplies.push({ text: 'Teal.' });
    const r = await run(['chat', '-q', 'what is my favourite colour?', '--continue'], home, work);
    assert.equal(r.code, 0, r.stderr);
    const input = JSON.stringify(responsesRequests()[n].body.input);
    assert.match(input, /Earlier in this conversation/);
    assert.match(input, /User: my favourite colour is teal/);
    assert.match(input, /Assistant: Hermes aux answer/);
  });

  it('Ctrl+C mid-turn interrupts codex (turn/interrupt) and keeps the conversation', async () => {
    const { home, work } = setup();
    const n = responsesRequests().length;
    codexReplies.push({ hang: true });
    const child = spawn(process.execPath, [BIN, 'chat', '-q', 'take your time'], { cwd: work, env: cleanEnv(home, codex.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const closed = new Promise<number | null>((r) => child.on('close', r));
    try {
      const deadline = performance.now() + 60_000;
      while (responsesRequests().length === n && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(responsesRequests().length, n + 1, `codex asked the model\n${err}`);
      child.kill('SIGINT');
      assert.equal(await closed, 130, err);
    } finally {
      child.kill('SIGKILL');
    }
    assert.match(err, /Interrupted\./);
    assert.match(readFileSync(join(home, 'logs', 'codex-app-server.log'), 'utf8'), /interrupting turn (\S+)\n.*turn \1 interrupted/s);
    assert.deepEqual(stored(home).messages.map((m) => [m.role, m.content]), [['user', 'take your time']]);
    // The next turn continues the same thread.
    codexReplies.push({ text: 'Back again.' });
    const r = await run(['chat', '-q', 'still there?', '--continue'], home, work);
    assert.equal(r.code, 0, r.stderr);
    assert.match(JSON.stringify(responsesRequests().at(-1)!.body.input), /take your time/);
  });

  it('codex.turn_timeout interrupts a turn that does not finish, with how to fall back', async () => {
    const { home, work } = setup('  turn_timeout: 3');
    codexReplies.push({ hang: true });
    const r = await run(['chat', '-q', 'never ends'], home, work);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Codex app-server turn failed: the turn did not finish within 3s/);
    assert.match(r.stderr, /\/codex-runtime auto/);
    assert.match(readFileSync(join(home, 'logs', 'codex-app-server.log'), 'utf8'), /interrupting turn/);
  });

  it('hermes doctor says what the turn will use, and why CODEX_HOME must not be under codex’s temporary directory', async () => {
    const { home, work } = setup();
    const ok = await run(['doctor'], home, work);
    assert.match(ok.stdout, new RegExp(`✓ Codex runtime\\s+codex 0\\.\\d+\\.\\d+; model gpt-5\\.5 via Hermes's endpoint ${fake.openaiBaseUrl.replace(/[.]/g, '\\.')} \\(Responses API\\) with the key from OPENAI_API_KEY; permissions: writes in the working directory without asking`));
    assert.match(ok.stdout, /MCP servers: hermes-tools/);
    // Under codex's $TMPDIR: refused, with a fix that names what to change.
    const bad = await run(['doctor'], home, work, { CODEX_HOME: join(codex.env.TMPDIR, 'codex') });
    assert.match(bad.stdout, /✗ Codex runtime\s+CODEX_HOME \(.*\/codex\) is under codex's temporary directory .*bwrap: execvp codex-linux-sandbox/);
    assert.match(bad.stdout, /→ unset CODEX_HOME or set it to a directory outside the temporary directory/);
    // A CODEX_HOME that does not exist: codex would refuse to start; the printed command creates it.
    const missing = join(codex.dir, 'not-yet');
    const gone = await run(['doctor'], home, work, { CODEX_HOME: missing });
    assert.match(gone.stdout, /✗ Codex runtime\s+CODEX_HOME .*not-yet \(from CODEX_HOME\) does not exist/);
    assert.match(gone.stdout, /→ `mkdir -p \S*not-yet`/);
    await run(['doctor', '--fix'], home, work, { CODEX_HOME: missing });
    assert.ok(existsSync(missing));
    assert.match((await run(['doctor'], home, work, { CODEX_HOME: missing })).stdout, /✓ Codex runtime/);
  });

  it('doctor’s fixes work as printed: a provider codex does not serve, turned off with the printed command', async () => {
    const { home, work } = setup();
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl).replace('provider: openai', 'provider: custom'));
    const d = await run(['doctor'], home, work);
    assert.match(d.stdout, /! Codex runtime\s+model\.openai_runtime is codex_app_server, but provider "custom" keeps the Hermes loop/);
    const fix = /`(hermes config set model\.openai_runtime auto)`/.exec(d.stdout);
    assert.ok(fix, d.stdout);
    const set = await run(fix[1].split(' ').slice(1), home, work);
    assert.equal(set.code, 0, set.stderr);
    assert.match((await run(['doctor'], home, work)).stdout, /- Codex runtime\s+not in use/);
  });

  it('spend caps hold inside codex: every model call it reports goes to the spend ledger, and a runaway loop stops within one request of the cap', async () => {
    const { home, work } = setup('budgets:\n  session_tokens: 25000\n  action: stop\n');
    codexReplies.length = 0;
    const n = responsesRequests().length;
    // A model that keeps calling a tool, each call reading 10,000 tokens and writing 50.
    for (let i = 0; i < 6; i++) codexReplies.push({ toolCalls: [{ name: 'exec_command', arguments: { cmd: `echo step ${i}` } }], usage: { input: 10_000, output: 50 } });
    try {
      const r = await run(['chat', '-q', 'loop forever', '--yolo'], home, work);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /^hermes: budgets\.session_tokens 25,000 tokens reached: 20,100 tokens spent this session/m);
      const calls = responsesRequests().length - n;
      assert.ok(calls >= 2 && calls <= 3, `two calls fit under the cap, at most one more was under way (${calls})`);
      const dir = join(home, 'spend');
      const entries = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; input: number; output: number }));
      const main = entries.filter((e) => e.kind === 'main');
      assert.ok(main.length >= 2 && main.length <= 3, JSON.stringify(entries));
      assert.ok(main.every((e) => e.input === 10_000 && e.output === 50), JSON.stringify(main));
      // The next run starts under the cap (its first request is estimated small): codex makes one
      // call, past which the turn stops (a second may already be under way); the run after that
      // stops before codex starts.
      const m = responsesRequests().length;
      const again = await run(['chat', '-q', 'more', '--continue', '--yolo'], home, work);
      assert.equal(again.code, 1, again.stderr);
      assert.match(again.stderr, /budgets\.session_tokens 25,000 tokens reached: 30,150 tokens spent this session/);
      const more = responsesRequests().length - m;
      // 0 when the stop reached codex before its first request left (seen once in a fresh-clone run).
      assert.ok(more <= 2, `at most one request past the cap (one more may be under way): ${more}`);
      const k = responsesRequests().length;
      const third = await run(['chat', '-q', 'more', '--continue', '--yolo'], home, work);
      assert.equal(third.code, 1, third.stderr);
      assert.match(third.stderr, /budgets\.session_tokens 25,000 tokens reached: (30,150|40,200|50,250) tokens spent this session/);
      assert.equal(responsesRequests().length, k, 'no request once the cap is spent');
      const spent = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { input: number; output: number })).reduce((t, e) => t + e.input + e.output, 0);
      // Every call codex reported is in the ledger (a call cut by the interrupt may report nothing).
      const made = responsesRequests().length - n;
      assert.ok(spent % 10_050 === 0 && spent <= made * 10_050 && spent >= (made - 2) * 10_050, `${spent} tokens in the ledger for ${made} calls`);
    } finally {
      codexReplies.length = 0;
    }
  });

  it('a missing codex fails the turn with the install hint and how to fall back', async () => {
    const { home, work } = setup();
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl).replace(/path: .*/, 'path: /nonexistent/codex'));
    const r = await run(['chat', '-q', 'hello'], home, work);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Codex app-server turn failed: codex\.path \(\/nonexistent\/codex\) does not exist\. Install the Codex CLI with `npm install -g @openai\/codex`/);
    assert.match(r.stderr, /\/codex-runtime auto/);
  });
});
