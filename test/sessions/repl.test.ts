// The interactive REPL through a real PTY: chat, title it, check memory, leave, come back with -c.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SessionDB } from '../../src/state/db.ts';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

interface Term {
  kill(): void;
  write(s: string): void;
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number>;
  output(): string;
}

async function spawnRepl(home: string, args: string[] = []): Promise<Term> {
  const pty = (await import('@lydell/node-pty')).default;
  const env = cleanEnv(home, { TERM: 'xterm-256color' }) as Record<string, string>;
  const p = pty.spawn(process.execPath, [BIN, ...args], { cols: 140, rows: 40, cwd: home, env });
  let buf = '';
  let cursor = 0;
  const waiters = new Set<() => void>();
  p.onData((d) => {
    buf += d;
    for (const w of waiters) w();
  });
  const exited = new Promise<number>((r) => p.onExit((e) => r(e.exitCode)));
  return {
    kill: () => p.kill(),
    write: (s) => p.write(s),
    output: () => buf,
    exited,
    waitFor(re, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(buf.slice(cursor));
          if (m) {
            cursor += m.index + m[0].length;
            waiters.delete(check);
            clearTimeout(t);
            resolve(m[0]);
          }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${re}; screen so far:\n${buf.slice(-2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

test('REPL: chat, /title, /memory, quit, then -c brings the conversation back', async () => {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\ntoolsets: [memory, session_search, skills, todo]\n`);
  llm.setHandler((r) => {
    const sys = JSON.stringify(r.body.messages?.[0] ?? '');
    if (/You name conversations/.test(sys)) return { text: 'Weekend plans' };
    const last = JSON.stringify((r.body.messages as unknown[]).at(-1));
    if (last.includes('hiking')) return { text: 'Hiking sounds great, bring water.' };
    return { text: 'Welcome back.' };
  });
  const terms: Term[] = [];
  try {
    const t = await spawnRepl(home);
    terms.push(t);
    await t.waitFor(/❯ /);
    t.write('I am going hiking on Saturday\r');
    await t.waitFor(/bring water\./);
    await t.waitFor(/❯ /);
    t.write('/memory\r');
    await t.waitFor(/User profile .* — 0%/);
    t.write('/title Saturday hike\r');
    await t.waitFor(/Title set: Saturday hike/);
    t.write('/sessions\r');
    await t.waitFor(/▶ \d{8}_\d{6}_[0-9a-f]{6}.*Saturday hike/);
    t.write('/quit\r');
    assert.equal(await t.exited, 0);

    const db = SessionDB.open(join(home, 'state.db'));
    const s = db.listSessions()[0];
    assert.equal(s.title, 'Saturday hike');
    assert.equal(s.end_reason, 'cli_close');
    assert.deepEqual(db.getMessages(s.id).map((m) => m.content), ['I am going hiking on Saturday', 'Hiking sounds great, bring water.']);
    db.close();

    const t2 = await spawnRepl(home, ['-c']);
    terms.push(t2);
    await t2.waitFor(/↻ Resuming “Saturday hike” \(\d{8}_\d{6}_[0-9a-f]{6}\), 2 messages\./);
    await t2.waitFor(/hermes: Hiking sounds great, bring water\./);
    await t2.waitFor(/❯ /);
    t2.write('what was I doing this weekend?\r');
    await t2.waitFor(/Welcome back\./);
    t2.write('/quit\r');
    assert.equal(await t2.exited, 0);
    const db2 = SessionDB.open(join(home, 'state.db'));
    assert.equal(db2.listSessions().length, 1);
    assert.equal(db2.getMessages(s.id).length, 4);
    db2.close();
  } finally {
    for (const t of terms) t.kill();
    llm.setHandler(null);
  }
});
