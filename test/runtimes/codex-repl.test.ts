// The codex app-server runtime at a real terminal (tmux): approvals typed at the one-shot's prompt,
// and a REPL session that switches to codex with /codex-runtime (migrating config.toml), runs turns
// that call a shell command (approved once, then denied), calls Hermes's own tools through the
// hermes-tools MCP server, is interrupted mid-turn, remembers earlier turns, and switches back.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { gatedSuite } from '../helpers/skip.ts';
import { SessionDB } from '../../src/state/db.ts';
import { tempHome } from '../helpers/cli.ts';
import { codexHermesConfig, codexMissing, makeCodexHome, type CodexHome } from '../helpers/codex.ts';
import { startFakeLlm, type FakeLlm, type FakeReply, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const skip = codexMissing() ?? tmuxAvailable() ?? false;
let fake: FakeLlm;
let codex: CodexHome;
const codexReplies: FakeReply[] = [];
const loopReplies: FakeReply[] = [];
const isLoop = (r: RecordedRequest) => r.wire === 'chat' && Array.isArray(r.body.tools) && r.body.tools.length > 0;

before(async () => {
  if (skip) return;
  fake = await startFakeLlm();
  fake.setHandler((r) => (r.wire === 'responses' ? (codexReplies.shift() ?? { text: '(no reply queued)' }) : isLoop(r) ? (loopReplies.shift() ?? { text: 'loop ok' }) : { text: 'A title' }));
  codex = makeCodexHome(fake.openaiBaseUrl);
});
after(async () => {
  codex?.cleanup();
  await fake?.close();
});

const responses = () => fake.requests.filter((r) => r.wire === 'responses');
async function nextRequest(count: () => number, n: number, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (count() < n) {
    if (performance.now() > deadline) throw new Error(`expected request #${n}, got ${count()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const escalated = (file: string) => ({ toolCalls: [{ name: 'exec_command', arguments: { cmd: `echo yes > ${file}`, sandbox_permissions: 'require_escalated', justification: `write ${file}` } }] });

const { describe, it } = gatedSuite(skip || null);
describe('codex runtime at a terminal', () => {
  it('hermes chat -q asks on the terminal: approved once runs the command, denied does not', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl));
    const work = join(home, 'work');
    mkdirSync(work);
    for (const [answer, file] of [
      ['o', 'once.txt'],
      ['d', 'denied.txt'],
    ]) {
      codexReplies.push(escalated(file), { text: answer === 'o' ? 'Wrote it.' : 'You said no.' });
      const t = startHermes(['chat', '-q', `write ${file}`], { home, cwd: work, env: codex.env });
      try {
        const s = await t.waitFor(/\[d\]eny · Enter = deny:/, { timeoutMs: 60_000 });
        assert.match(s, new RegExp(`Codex wants to run this in ${work} — write ${file.replace('.', '\\.')}`));
        assert.match(s, new RegExp(`echo yes > ${file.replace('.', '\\.')}`));
        t.type(answer); // one key, as in the REPL
        assert.equal(await t.exitCode(60_000), 0);
        assert.match(t.screen(), answer === 'o' ? /Wrote it\./ : /You said no\./);
      } finally {
        t.kill();
      }
    }
    assert.equal(readFileSync(join(work, 'once.txt'), 'utf8'), 'yes\n');
    assert.equal(existsSync(join(work, 'denied.txt')), false);
  });

  it('the banner says when turns run in codex', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl));
    const t = startHermes([], { home, env: codex.env });
    try {
      const s = await t.waitFor(/❯/, { timeoutMs: 30_000 });
      assert.match(s, /runtime\s+codex app-server \(shell, file edits and MCP tools run inside codex\)/);
      t.type('/quit');
      t.keys('Enter');
      await t.exitCode(30_000);
    } finally {
      t.kill();
    }
  });

  it('the REPL switches to codex and back with /codex-runtime, and runs real codex turns in between', async () => {
    const home = tempHome();
    // Codex does not know this model's metadata, so it offers MCP tools directly (no tool_search).
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl, '  model: fake-model').replace('openai_runtime: codex_app_server', 'openai_runtime: auto'));
    mkdirSync(join(home, 'skills', 'demo'), { recursive: true });
    writeFileSync(join(home, 'skills', 'demo', 'SKILL.md'), '---\nname: demo\ndescription: A demo skill for the codex test.\n---\nDo the demo.\n');
    const work = join(home, 'work');
    mkdirSync(work);
    const t = startHermes([], { home, cwd: work, env: codex.env, rows: 60 });
    try {
      await t.waitFor(/❯/, { timeoutMs: 30_000 });
      assert.doesNotMatch(t.screen(), /codex app-server/);

      // On Hermes's loop first (chat completions wire).
      const loops = () => fake.requests.filter(isLoop).length;
      let n = loops();
      loopReplies.push({ text: 'Answered by the Hermes loop.' });
      t.type('first question');
      t.keys('Enter');
      await t.waitFor(/Answered by the Hermes loop\./);
      await nextRequest(loops, n + 1);

      let mark = t.mark();
      t.type('/codex-runtime');
      t.keys('Enter');
      let s = await t.waitFor(/Set with \/codex-runtime codex_app_server/, { after: mark });
      assert.match(s, /Runtime: Hermes agent loop \(auto\)/);
      assert.match(s, /Codex CLI: 0\.\d+\.\d+ at \//);

      mark = t.mark();
      t.type('/codex-runtime on');
      t.keys('Enter');
      // Its last line: the screen is read once the whole answer is drawn.
      s = await t.waitFor(/MCP servers hermes-tools,\s+default_permissions =\s+":workspace"/, { after: mark });
      assert.match(s, /Updated .*config\.toml/);
      assert.match(s, /Runtime: codex app-server \(codex 0\.\d+\.\d+\)/);
      assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /openai_runtime: codex_app_server/);
      const toml = readFileSync(join(codex.dir, 'config.toml'), 'utf8');
      assert.match(toml, /# >>> managed by hermes-agent/);
      assert.match(toml, /\[mcp_servers\.hermes-tools\]/);
      assert.match(toml, /model_provider = "fake"/, 'the test provider (user content) is kept');

      // A turn through codex: the Responses wire, with the earlier loop turn as context.
      let c = responses().length;
      codexReplies.push({ text: 'Hi from codex.' });
      mark = t.mark();
      t.type('hello codex');
      t.keys('Enter');
      await t.waitFor(/Hi from codex\./, { after: mark, timeoutMs: 60_000 });
      assert.match(JSON.stringify(responses()[c].body.input), /User: first question/);

      // A shell command that needs approval: approved once.
      codexReplies.push(escalated('approved.txt'), { text: 'Wrote approved.txt.' });
      mark = t.mark();
      t.type('write approved.txt');
      t.keys('Enter');
      s = await t.waitFor(/Dangerous command/, { after: mark, timeoutMs: 60_000 });
      assert.match(s, /Codex wants to run this in .*work — write approved\.txt/);
      t.type('o');
      await t.waitFor(/Wrote approved\.txt\./, { after: mark, timeoutMs: 60_000 });
      assert.equal(readFileSync(join(work, 'approved.txt'), 'utf8'), 'yes\n');

      // …and denied.
      codexReplies.push(escalated('denied.txt'), { text: 'Understood, not written.' });
      mark = t.mark();
      t.type('write denied.txt');
      t.keys('Enter');
      await t.waitFor(/Dangerous command/, { after: mark, timeoutMs: 60_000 });
      t.type('d');
      await t.waitFor(/Understood, not written\./, { after: mark, timeoutMs: 60_000 });
      assert.equal(existsSync(join(work, 'denied.txt')), false);

      // Hermes's own tools, served to codex by the hermes-tools MCP server.
      codexReplies.push({ toolCalls: [{ name: 'skills_list', namespace: 'mcp__hermes_tools', arguments: {} }] }, { text: 'You have the demo skill.' });
      c = responses().length;
      mark = t.mark();
      t.type('which skills do I have?');
      t.keys('Enter');
      s = await t.waitFor(/You have the demo skill\./, { after: mark, timeoutMs: 60_000 });
      assert.match(s, /┊ .*skills/);
      assert.match(JSON.stringify(responses()[c + 1].body.input), /A demo skill for the codex test/);

      // Interrupted mid-turn, then the thread goes on and remembers.
      codexReplies.push({ hang: true });
      c = responses().length;
      mark = t.mark();
      t.type('a long task');
      t.keys('Enter');
      await nextRequest(() => responses().length, c + 1);
      t.keys('C-c');
      await t.waitFor(/⏹ Interrupted\./, { after: mark, timeoutMs: 30_000 });
      codexReplies.push({ text: 'Still here.' });
      c = responses().length;
      mark = t.mark();
      t.type('are you there?');
      t.keys('Enter');
      await t.waitFor(/Still here\./, { after: mark, timeoutMs: 60_000 });
      const input = JSON.stringify(responses()[c].body.input);
      assert.match(input, /hello codex/, 'two-turn memory: the thread has the earlier turns');
      assert.match(input, /a long task/);

      mark = t.mark();
      t.type('/status');
      t.keys('Enter');
      await t.waitFor(/Runtime:\s+codex app-server/, { after: mark });

      // Back to Hermes's loop.
      mark = t.mark();
      t.type('/codex-runtime auto');
      t.keys('Enter');
      await t.waitFor(/Runtime: auto \(the Hermes agent loop\) from the next turn\./, { after: mark });
      n = loops();
      loopReplies.push({ text: 'The loop again.' });
      c = responses().length;
      t.type('and now?');
      t.keys('Enter');
      await t.waitFor(/The loop again\./, { timeoutMs: 30_000 });
      assert.equal(responses().length, c, 'no codex request after switching back');
      assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /openai_runtime: auto/);
      t.type('/quit');
      t.keys('Enter');
      await t.exitCode(30_000);
    } finally {
      t.kill();
    }
    // Everything is one Hermes session in state.db, codex turns projected like any other.
    const db = SessionDB.open(join(home, 'state.db'));
    try {
      const [session] = db.listSessions({ limit: 5 });
      const msgs = db.getMessages(session.id);
      const calls = msgs.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
      assert.deepEqual(calls, ['exec_command', 'exec_command', 'mcp.hermes-tools.skills_list']);
      assert.ok(msgs.some((m) => m.role === 'assistant' && m.content === 'Hi from codex.'));
      assert.ok(msgs.some((m) => m.role === 'assistant' && m.content === 'The loop again.'));
      assert.match(String(db.getModelConfig(session.id).codex_thread_id), /^[0-9a-f-]{36}$/);
    } finally {
      db.close();
    }
  });
});
