// A Session on the codex runtime, in process, against the real codex binary: /steer reaches the
// running codex turn, /compress is codex's own compaction, and closing the session ends codex.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { gatedSuite } from '../helpers/skip.ts';
import { Session } from '../../src/session/session.ts';
import { removeManagedBlock } from '../../src/runners/codex/migrate.ts';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand as runIn } from '../../src/commands/registry.ts';
import { loadConfig } from '../../src/state/config.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { cleanEnv, tempHome } from '../helpers/cli.ts';
import { codexHermesConfig, codexMissing, makeCodexHome, type CodexHome } from '../helpers/codex.ts';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.ts';

const skip = codexMissing() ?? false;
let fake: FakeLlm;
let codex: CodexHome;
const replies: FakeReply[] = [];

before(async () => {
  if (skip) return;
  fake = await startFakeLlm();
  fake.setHandler((r) => (r.wire === 'responses' ? (replies.shift() ?? { text: '(none queued)' }) : { text: 'aux' }));
  codex = makeCodexHome(fake.openaiBaseUrl);
});
after(async () => {
  codex?.cleanup();
  await fake?.close();
});

function open(): { session: Session; db: SessionDB; home: string } {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl));
  const work = join(home, 'work');
  mkdirSync(work);
  const env = cleanEnv(home, codex.env);
  const db = SessionDB.open(join(home, 'state.db'));
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: work, platform: 'cli', interactive: false, store: new SqliteSessionStore(db), backgroundTasks: false });
  return { session, db, home };
}

const runCommand = async (session: Session, line: string) => (await runIn(createCommandRegistry({ home: session.info.home }), line, { session, surface: 'cli', hooks: {} })) ?? {};
const responses = () => fake.requests.filter((r) => r.wire === 'responses');

const { describe, it } = gatedSuite(skip || null);
describe('Session on the codex runtime', () => {
  it('steering text typed mid-turn reaches codex (turn/steer) and is stored as the user’s message', async () => {
    const { session, db } = open();
    try {
      assert.equal(session.runnerKind, 'codex_app_server');
      replies.push({ toolCalls: [{ name: 'exec_command', arguments: { cmd: 'sleep 2; echo slept' } }] }, { text: 'Done, with bananas.' });
      const n = responses().length;
      const off = session.on((e) => {
        if (e.type === 'tool_start') session.steer('also mention bananas');
      });
      const r = await session.prompt('run the slow command');
      off();
      assert.equal(r.completed, true);
      assert.equal(r.finalText, 'Done, with bananas.');
      assert.match(JSON.stringify(responses()[n + 1].body.input), /also mention bananas/);
      assert.deepEqual(
        db.getMessages(session.id).map((m) => m.role),
        ['user', 'assistant', 'tool', 'user', 'assistant'],
      );
      assert.equal(db.getMessages(session.id)[3].content, 'also mention bananas');
    } finally {
      await session.close();
      db.close();
    }
  });

  it('a changed setting applies to the next turn: /yolo, and /codex-runtime on (config.toml refreshed) in a running session', async () => {
    const { session, db, home } = open();
    const work = session.info.cwd;
    const escalated = { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo yes > esc.txt', sandbox_permissions: 'require_escalated', justification: 'write esc.txt' } }] };
    try {
      replies.push(escalated, { text: 'Declined.' });
      await session.prompt('write esc.txt');
      assert.equal(existsSync(join(work, 'esc.txt')), false, 'nobody to ask: declined');
      const r = await runCommand(session, '/yolo');
      assert.match(r.output ?? '', /YOLO on/);
      replies.push(escalated, { text: 'Written.' });
      await session.prompt('write esc.txt again');
      assert.equal(readFileSync(join(work, 'esc.txt'), 'utf8'), 'yes\n', 'the same codex thread, now with approvals off');
      // Already on: /codex-runtime on refreshes Hermes's block in config.toml, and the next turn starts a codex that reads it.
      const on = await runCommand(session, '/codex-runtime on');
      assert.match(on.output ?? '', /already codex app-server/);
      assert.match(on.output ?? '', /Permissions: writes in .* and uses the network without asking/);
      assert.match(readFileSync(join(codex.dir, 'config.toml'), 'utf8'), /managed by hermes-agent/);
      replies.push({ text: 'Third.' });
      assert.equal((await session.prompt('third')).finalText, 'Third.');
    } finally {
      await session.close();
      db.close();
      removeManagedBlock(codex.dir);
    }
    const log = readFileSync(join(home, 'logs', 'codex-app-server.log'), 'utf8');
    assert.match(log, /settings changed; starting a new codex process for the next turn/);
    assert.match(log, /resumed thread/, 'the new process resumed the same thread');
    assert.equal(log.match(/started thread/g)?.length, 1);
  });

  it('/compress is codex’s native compaction; closing the session ends the codex process', async () => {
    const { session, db, home } = open();
    try {
      assert.equal(await session.compress(), 'There is no codex thread to compact yet.');
      replies.push({ text: 'First answer.' });
      await session.prompt('first');
      replies.push({ text: 'Second answer.' });
      await session.prompt('second');
      const n = responses().length;
      replies.push({ text: 'Summary: the user asked twice.' });
      assert.match(await session.compress(), /Codex compacted the thread/);
      assert.ok(responses().length > n, 'codex asked the model for the summary');
      replies.push({ text: 'Third answer.' });
      assert.equal((await session.prompt('third')).finalText, 'Third answer.');
    } finally {
      await session.close();
      db.close();
    }
    const log = readFileSync(join(home, 'logs', 'codex-app-server.log'), 'utf8');
    assert.equal(log.match(/started thread/g)?.length, 1);
    assert.doesNotMatch(log, /resumed thread/, 'warm turns reuse the loaded thread (no thread/resume per turn)');
    const pid = Number(/started codex \S+ \(pid (\d+)/.exec(log)![1]);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the codex subprocess is gone');
  });
});
