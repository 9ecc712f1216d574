// A background delegation survives a SIGKILL of its parent, through the real binary: `hermes chat -q`
// dispatches a background subagent and waits for it; the process is killed while the child works;
// `hermes chat -c` (the same session) finds the row whose owner died, reports it as Hermes does
// (status unknown, the task repeated) in a follow-up turn, and marks it delivered, once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { until } from '../gateway/helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const userTexts = (req: RecordedRequest): string[] =>
  (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
const lastUser = (req: RecordedRequest) => userTexts(req).at(-1) ?? '';
const lastIsTool = (req: RecordedRequest) => (req.body.messages as { role: string }[]).at(-1)?.role === 'tool';
const isChild = (req: RecordedRequest) => /focused subagent/.test(JSON.stringify(req.body.messages[0]));

function rows(home: string): Record<string, any>[] {
  const db = new DatabaseSync(join(home, 'state.db'), { readOnly: true });
  try {
    return db.prepare('SELECT * FROM async_delegations').all() as Record<string, any>[];
  } finally {
    db.close();
  }
}

describe('a background delegation across a SIGKILL of the parent', () => {
  it('reports on the next start of the session, once', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const work = join(home, 'work');
    mkdirSync(work);
    fake.setHandler((req) => {
      if (isChild(req)) return { hang: true };
      const last = lastUser(req);
      if (last.startsWith('[ASYNC DELEGATION COMPLETE')) return { text: 'The indexing subagent was lost when Hermes stopped; I can start it again.' };
      if (last === 'anything new?') return { text: 'Nothing new from me.' };
      if (lastIsTool(req)) return { text: 'A subagent is indexing the repo.' };
      return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Index the repository', context: 'src/ only', background: true } }] };
    });
    const n0 = fake.requests.length;
    const child = spawn(process.execPath, [BIN, 'chat', '-q', 'index the repo in the background'], { cwd: work, env: cleanEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('close', (code, sig) => r(sig ? -1 : code)));
    // The child is at work (its model call hangs) and the parent waits for it to report.
    await until(() => fake.requests.slice(n0).some(isChild) && /waiting for 1 background task/.test(out), 60_000, `the subagent to start\n${out}`);
    const [running] = rows(home);
    assert.equal(running.state, 'running');
    assert.equal(Number(running.owner_pid), child.pid);
    child.kill('SIGKILL');
    assert.equal(await exited, -1);

    const n1 = fake.requests.length;
    const r = await hermes(['chat', '-c', '-q', 'anything new?'], { home, cwd: work });
    fake.setHandler(null);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Nothing new from me\.[\s\S]*The indexing subagent was lost when Hermes stopped/);
    assert.match(r.stderr, /🔔 Subagent unknown: Index the repository/);
    const follow = fake.requests.slice(n1).find((q) => lastUser(q).startsWith('[ASYNC DELEGATION COMPLETE'))!;
    assert.ok(follow, 'the follow-up turn carries the report');
    const text = lastUser(follow);
    assert.match(text, new RegExp(`^\\[ASYNC DELEGATION COMPLETE — ${running.delegation_id}\\]`));
    assert.match(text, /Original goal: Index the repository\nContext you provided: src\/ only\n/);
    assert.match(text, /Status: unknown[\s\S]*outcome unknown\./);
    assert.ok(userTexts(follow).includes('anything new?'), 'in the same conversation');
    const [done] = rows(home);
    assert.equal(done.state, 'unknown');
    assert.equal(done.delivery_state, 'delivered');

    // Once: the next start has nothing to report.
    fake.setHandler((req) => ({ text: lastUser(req).startsWith('[ASYNC') ? 'again?!' : 'Still nothing.' }));
    const again = await hermes(['chat', '-c', '-q', 'and now?'], { home, cwd: work });
    fake.setHandler(null);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Still nothing\./);
    assert.doesNotMatch(again.stdout, /again\?!/);
  });
});
