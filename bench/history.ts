// History-heavy commands as sessions pile up (issue 30 §2): `hermes sessions list` and
// `hermes chat -c -q …` (continue the latest session, one call to the fake LLM), `chat -r <title>`
// (resume a session by its title) and `hermes insights` against a state.db of
// 10 sessions and one of 100,000 sessions / 1,000,000 messages. Goal: the 100k time ≤ 1.5× the
// 10-session time. The large database is generated once into the temp folder and reused
// (BENCH_FRESH=1 rebuilds); `chat -c` adds two messages to its latest session on each run.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionDB } from '../src/state/db.ts';
import { BIN as OWN_BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { median, timeCommand, type Bench, type BenchRow } from './lib.ts';

/** BENCH_HISTORY_BIN=<other checkout>/bin/hermes.mjs measures another build on the same databases. */
const BIN = process.env.BENCH_HISTORY_BIN ?? OWN_BIN;
const BIG = Number(process.env.BENCH_HISTORY_SESSIONS ?? 100_000);
const PER_SESSION = 10;
const GEN_VERSION = 1;
const SOURCES = ['cli', 'cli', 'cli', 'telegram', 'discord', 'cron', 'cli', 'api_server'];
const WORDS = ['deploy', 'nginx', 'config', 'the', 'build', 'failed', 'again', 'please', 'check', 'logs', 'database', 'backup', 'why', 'is', 'slow'];

/** A HERMES_HOME whose state.db holds `sessions` sessions of PER_SESSION messages each. */
function seed(home: string, sessions: number): void {
  const path = join(home, 'state.db');
  const marker = join(home, `.seeded-${sessions}-v${GEN_VERSION}`);
  if (existsSync(marker) && !process.env.BENCH_FRESH) return;
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const db = SessionDB.open(path);
  const raw = db.raw;
  const insS = raw.prepare('INSERT INTO sessions (id, source, model, started_at, ended_at, message_count, title) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insM = raw.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
  const t0 = Date.now() / 1000 - sessions * 600 - 86_400;
  raw.exec('BEGIN');
  for (let s = 0; s < sessions; s++) {
    const id = `20260101_${String(s).padStart(9, '0')}`;
    const start = t0 + s * 600;
    insS.run(id, SOURCES[s % SOURCES.length], 'bench/model', start, start + 300, PER_SESSION, s % 3 === 0 ? `Session ${s}` : null);
    for (let m = 0; m < PER_SESSION; m++) {
      const text = Array.from({ length: 12 }, (_, i) => WORDS[(s * 7 + m * 3 + i) % WORDS.length]).join(' ');
      insM.run(id, m % 2 ? 'assistant' : 'user', `${text} #${s}.${m}`, start + m * 20);
    }
  }
  raw.exec('COMMIT');
  db.close();
  writeFileSync(marker, '');
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const fake = await startFakeLlm();
  try {
    fake.setHandler(() => {
      fake.requests.length = 0;
      return { text: 'ok' };
    });
    const homes: [string, number][] = [
      [join(tmpdir(), 'hermes-bench-history-10'), 10],
      [join(tmpdir(), `hermes-bench-history-${BIG}`), BIG],
    ];
    const samples: Record<string, Record<number, number[]>> = { list: {}, continue: {}, resume: {}, insights: {} };
    // 'Session 9' is a title in both databases (every third session has one).
    const cmds = { list: ['sessions', 'list'], continue: ['chat', '-c', '-q', 'and now?'], resume: ['chat', '-r', 'Session 9', '-q', 'and now?'], insights: ['insights'] };
    for (const [home, n] of homes) {
      mkdirSync(home, { recursive: true });
      const t = performance.now();
      seed(home, n);
      if (performance.now() - t > 1000) process.stderr.write(`bench: seeded ${n.toLocaleString('en-US')} sessions in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
      writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench-model\n  api_key: k\n`);
      // The first open after an upgrade builds the new index: not part of the measurement.
      await timeCommand(process.execPath, [BIN, 'sessions', 'list'], cleanEnv(home), home);
    }
    // Round-robin (10 sessions, then 100k, command by command), so load on the machine hits both alike.
    for (let i = 0; i < 8; i++)
      for (const [key, args] of Object.entries(cmds))
        for (const [home, n] of homes) {
          const r = await timeCommand(process.execPath, [BIN, ...args], cleanEnv(home), home);
          if (r.code !== 0) throw new Error(`hermes ${args.join(' ')} failed (exit ${r.code}) with ${n} sessions`);
          ((samples[key][n] ??= []) as number[]).push(r.ms);
        }
    const times = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([n, xs]) => [n, median(xs)]))])) as Record<string, Record<number, number>>;
    const big = BIG.toLocaleString('en-US');
    for (const [key, label] of [
      ['list', 'hermes sessions list'],
      ['continue', 'hermes chat -c -q'],
      ['resume', 'hermes chat -r <title> -q'],
      ['insights', 'hermes insights'],
    ] as const) {
      const small = times[key][10];
      const large = times[key][BIG];
      rows.push({ name: `${label}, 10 sessions`, value: small, unit: 'ms', note: 'median of 8' });
      rows.push({
        name: `${label}, ${big} sessions`,
        value: large,
        unit: 'ms',
        target: '≤ 1.5× 10 sessions',
        ok: large <= 1.5 * small,
        note: `${(large / small).toFixed(2)}× the 10-session time; ${(BIG * PER_SESSION).toLocaleString('en-US')} messages`,
      });
    }
  } finally {
    await fake.close();
  }
  return rows;
};

export default bench;
