// PostgreSQL (state.backend: postgres) at scale, on a throwaway local cluster (test/helpers/postgres.ts):
//   - distributed batch throughput with 1, 2 and 4 worker processes pulling one queue (fake LLM
//     answering after HERMES_BENCH_PG_LLM_MS, 300 ms by default; HERMES_BENCH_PG_PROMPTS prompts, 200);
//   - full-text search p95 over HERMES_BENCH_PG_MESSAGES messages (1,000,000 by default), generated
//     server-side (generate_series) and searched through PgSessionStore.searchMessages, as session_search does.
// Skipped, with the reason, when the PostgreSQL server binaries are not installed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, hermes, tempHome } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../test/helpers/postgres.ts';
import { median, percentile, type Bench, type BenchRow } from './lib.ts';

const PROMPTS = Number(process.env.HERMES_BENCH_PG_PROMPTS ?? 200);
const LLM_MS = Number(process.env.HERMES_BENCH_PG_LLM_MS ?? 300);
const MESSAGES = Number(process.env.HERMES_BENCH_PG_MESSAGES ?? 1_000_000);

function worker(home: string, url: string, run: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'batch', 'worker', '--queue', url, '--run-name', run, '--num-workers', '1'], { cwd: home, env: cleanEnv(home), stdio: 'ignore' });
    child.on('exit', (code) => resolve(code));
  });
}

async function batchRows(cluster: PgCluster): Promise<BenchRow[]> {
  const llm = await startFakeLlm();
  llm.setHandler(() => ({ text: 'done', delayMs: LLM_MS }));
  const rows: BenchRow[] = [];
  try {
    const home = tempHome('hermes-bench-pgbatch-');
    writeFileSync(join(home, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n`);
    writeFileSync(join(home, 'prompts.jsonl'), `${Array.from({ length: PROMPTS }, (_, i) => JSON.stringify({ prompt: `prompt ${i}` })).join('\n')}\n`);
    let one = 0;
    for (const n of [1, 2, 4]) {
      const url = await cluster.createDatabase(`bench_batch_${n}`);
      const q = await hermes(['batch', '--queue', url, '--dataset-file', 'prompts.jsonl', '--run-name', 'bench', '--toolsets', 'todo'], { home });
      if (q.code !== 0) throw new Error(`enqueue failed: ${q.stderr}`);
      const t = performance.now();
      const codes = await Promise.all(Array.from({ length: n }, () => worker(home, url, 'bench')));
      const s = (performance.now() - t) / 1000;
      if (codes.some((c) => c !== 0)) throw new Error(`a worker exited with ${codes.join(', ')}`);
      const rate = PROMPTS / s;
      if (n === 1) one = rate;
      rows.push({
        name: `batch on a PostgreSQL queue, ${n} worker process${n > 1 ? 'es' : ''}`,
        value: rate,
        unit: 'prompts/s',
        note: `${PROMPTS} prompts in ${s.toFixed(1)} s (fake LLM ${LLM_MS} ms, process start-up included)${n > 1 ? `; ×${(rate / one).toFixed(2)} of 1 worker` : ''}`,
      });
    }
  } finally {
    await llm.close();
  }
  return rows;
}

async function searchRows(cluster: PgCluster): Promise<BenchRow[]> {
  const url = await cluster.createDatabase('bench_fts');
  const { PgSessionStore } = await import('../src/state/store/postgres/sessions.ts');
  const store = await PgSessionStore.open(url, { max: 2 });
  try {
    const db = store.db;
    const t = performance.now();
    // Words w0…w19999 with a skewed (Zipf-like) frequency, 12 to a message, 100 messages to a session.
    // The index is built once after the load (as a restore would), not row by row.
    await db.run('DROP INDEX IF EXISTS idx_messages_fts');
    await db.run(`INSERT INTO sessions (id, source, started_at) SELECT 'b' || s, 'cli', 1700000000 + s FROM generate_series(1, ${Math.ceil(MESSAGES / 100)}) s`);
    await db.run(`INSERT INTO messages (session_id, role, content, timestamp, fts)
      SELECT 'b' || ((g - 1) / 100 + 1), CASE WHEN g % 2 = 0 THEN 'assistant' ELSE 'user' END, c.t, 1700000000 + g, to_tsvector('simple', c.t)
      FROM generate_series(1, ${MESSAGES}) g
      CROSS JOIN LATERAL (SELECT string_agg('w' || floor(20000 * power(random(), 3))::int, ' ') AS t FROM generate_series(1, 12 + 0 * g)) c`);
    await db.run('CREATE INDEX idx_messages_fts ON messages USING GIN (fts)');
    await db.run('ANALYZE');
    const loadS = (performance.now() - t) / 1000;
    const typical = ['w120', 'w450', 'w1200', 'w2500', 'w6000', 'w15000', 'w300 OR w800', '"w40 w41"', 'w60 w900', 'w199*'];
    const common = ['w0', 'w1', 'w0 w2'];
    const time = async (queries: string[], rounds: number) => {
      const ms: number[] = [];
      for (let r = 0; r < rounds; r++)
        for (const q of queries) {
          const s = performance.now();
          await store.searchMessages(q, { limit: 10 });
          ms.push(performance.now() - s);
        }
      return ms;
    };
    await time([...typical, ...common], 1);
    const tt = await time(typical, 5);
    const ct = await time(common, 5);
    const n = MESSAGES.toLocaleString('en-US');
    return [
      { name: `PostgreSQL: load ${n} msgs server-side + GIN index`, value: loadS, unit: 's' },
      { name: `PostgreSQL FTS, typical queries, ${n} msgs`, value: percentile(tt, 95), unit: 'ms p95', note: `p50 ${median(tt).toFixed(2)} ms; ${typical.length} queries ×5 (words, OR, phrase, prefix) through searchMessages` },
      { name: `PostgreSQL FTS, most common words, ${n} msgs`, value: percentile(ct, 95), unit: 'ms p95', note: `p50 ${median(ct).toFixed(2)} ms; words in a large share of all messages` },
    ];
  } finally {
    await store.close();
  }
}

const bench: Bench = async () => {
  const why = postgresUnavailable();
  if (why) return [{ name: 'PostgreSQL benchmarks', value: NaN, unit: '', note: `skipped: ${why}` }];
  const cluster = (await startPostgres())!;
  try {
    return [...(await batchRows(cluster)), ...(await searchRows(cluster))];
  } finally {
    cluster.stop();
  }
};

export default bench;
