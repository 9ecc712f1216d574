// Distributed `hermes batch` on PostgreSQL: `hermes batch --queue URL` enqueues a dataset (idempotent
// by prompt index), `hermes batch worker --queue URL` on any number of machines claims prompts with
// `FOR UPDATE SKIP LOCKED`, runs them with the run's own options (toolsets or distribution, model,
// turns) and stores each trajectory in its job row. A claim is a lease (`--visibility-timeout`,
// renewed while the prompt runs): a dead worker's job is claimed again once its lease lapses, and a
// result is only accepted from the worker holding the current lease, so each prompt ends with exactly
// one trajectory. Failures retry with exponential backoff up to `--max-attempts`. `hermes batch status`
// shows progress and throughput; `hermes batch collect` writes trajectories.jsonl. The state lives
// in the database, so any process may die at any point and the run resumes.
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { PgDb, redactUrl, type Row } from '../state/store/postgres/pool.ts';
import { writeFileAtomic } from '../state/fsutil.ts';
import { prepareRun, runPrompt, type BatchEntry, type DatasetEntry, type RunSpec } from './batch.ts';
import type { BatchOptions } from './commands/batch.ts';
import { CliError } from './errors.ts';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS hermes_batch_runs (
     name TEXT PRIMARY KEY,
     options JSONB NOT NULL,
     total INTEGER NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS hermes_batch_jobs (
     run TEXT NOT NULL REFERENCES hermes_batch_runs(name) ON DELETE CASCADE,
     idx INTEGER NOT NULL,
     prompt TEXT NOT NULL,
     cwd TEXT,
     status TEXT NOT NULL DEFAULT 'queued',
     attempts INTEGER NOT NULL DEFAULT 0,
     locked_by TEXT,
     locked_until TIMESTAMPTZ,
     run_after TIMESTAMPTZ NOT NULL DEFAULT now(),
     error TEXT,
     trajectory JSONB,
     finished_at TIMESTAMPTZ,
     PRIMARY KEY (run, idx)
   )`,
  `CREATE INDEX IF NOT EXISTS hermes_batch_jobs_ready ON hermes_batch_jobs (run, status, run_after)`,
];

/** The options a run keeps so that every worker runs its prompts the same way. */
const RUN_OPTIONS = ['model', 'provider', 'baseUrl', 'toolsets', 'distribution', 'maxTurns', 'batchSize', 'ephemeralSystemPrompt', 'discardNoReasoning'] as const;

async function connect(url: string): Promise<PgDb> {
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new CliError(`--queue must be a postgres:// or postgresql:// URL (got "${redactUrl(url)}").`, 2);
  let db: PgDb;
  try {
    db = await PgDb.connect(url, { max: 4, application: 'hermes-batch' });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  // Two processes creating the tables at once would collide: one at a time.
  await db.tx(async (q) => {
    await q.run("SELECT pg_advisory_xact_lock(hashtext('hermes_batch_schema'))");
    for (const sql of SCHEMA) await q.run(sql);
  });
  return db;
}

function runName(opts: BatchOptions): string {
  if (!opts.runName || !/^[\w.-]+$/.test(opts.runName)) throw new CliError('--run-name is required (letters, digits, ".", "_" or "-").', 2);
  return opts.runName;
}

/** `hermes batch --queue URL`: the dataset into the queue; prompts already queued are left as they are. */
export async function enqueueBatch(url: string, spec: RunSpec, entries: DatasetEntry[]): Promise<void> {
  const name = runName(spec.opts);
  const db = await connect(url);
  try {
    const options = Object.fromEntries(RUN_OPTIONS.filter((k) => spec.opts[k] !== undefined).map((k) => [k, spec.opts[k]]));
    const added = await db.tx(async (q) => {
      const had = await q.get('SELECT options FROM hermes_batch_runs WHERE name = ?', [name]);
      if (!had) await q.run('INSERT INTO hermes_batch_runs (name, options, total) VALUES (?, ?, ?)', [name, JSON.stringify(options), entries.length]);
      else await q.run('UPDATE hermes_batch_runs SET total = GREATEST(total, ?) WHERE name = ?', [entries.length, name]);
      let n = 0;
      for (let i = 0; i < entries.length; i += 1000) {
        const chunk = entries.slice(i, i + 1000);
        n += await q.run(
          'INSERT INTO hermes_batch_jobs (run, idx, prompt, cwd) SELECT ?, * FROM unnest(?::int[], ?::text[], ?::text[]) ON CONFLICT (run, idx) DO NOTHING',
          [name, chunk.map((e) => e.index), chunk.map((e) => e.prompt), chunk.map((e) => e.cwd ?? null) as unknown as string[]],
        );
      }
      return n;
    });
    process.stdout.write(
      `Queued ${added} prompt${added === 1 ? '' : 's'} for run ${name}${added < entries.length ? ` (${entries.length - added} were already queued)` : ''}.\n` +
        `Start workers on any machine: hermes batch worker --queue ${redactUrl(url)} --run-name ${name}\n`,
    );
  } finally {
    await db.close();
  }
}

// A slot asks for its next prompt only when it runs none, so a job still marked as held by this very
// slot is one whose claim committed while its answer was lost (the database restarted mid-claim): it
// is taken first, without counting another attempt, instead of waiting for its lease to lapse.
const CLAIM = `
  UPDATE hermes_batch_jobs j SET status = 'running', attempts = j.attempts + CASE WHEN j.status = 'running' AND j.locked_by = ? THEN 0 ELSE 1 END,
    locked_by = ?, locked_until = now() + make_interval(secs => ?)
  WHERE (j.run, j.idx) = (
    SELECT run, idx FROM hermes_batch_jobs
    WHERE run = ? AND ((status = 'queued' AND run_after <= now()) OR (status = 'running' AND (locked_until < now() OR locked_by = ?)))
    ORDER BY (status = 'running' AND locked_by = ?) DESC, idx LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING j.idx, j.prompt, j.cwd, j.attempts`;

/** `hermes batch worker`: claims and runs prompts until the run has none left to run. */
/** Errors of a database that restarts or is briefly away (not of the query itself). */
const TRANSIENT_DB = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|terminating connection|not queryable|the database system is (starting up|shutting down|in recovery)|57P0[123]|0800[0-6]/i;

/**
 * A worker keeps running through a database restart: a call that failed because the server was away
 * is tried again with backoff (up to about four minutes), said once on stderr.
 */
async function steady<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const err = e as { message?: string; code?: string };
      if (!TRANSIENT_DB.test(`${err.code ?? ''} ${err.message ?? ''}`) || attempt >= 120) throw e;
      if (attempt === 0) process.stderr.write(`batch: the database is unreachable (${err.message}); retrying until it is back\n`);
      await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 2000)));
    }
  }
}

export async function workBatch(url: string, opts: BatchOptions & { visibilityTimeout?: string; maxAttempts?: string }): Promise<void> {
  const name = runName(opts);
  const num = (v: string | undefined, flag: string, dflt: number) => {
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new CliError(`${flag} expects a positive whole number, got "${v}".`, 2);
    return n;
  };
  const slots = num(opts.numWorkers, '--num-workers', 4);
  const lease = num(opts.visibilityTimeout, '--visibility-timeout', 300);
  const maxAttempts = num(opts.maxAttempts, '--max-attempts', 3);
  const db = await connect(url);
  let done = 0;
  let failed = 0;
  try {
    const run = await db.get('SELECT options FROM hermes_batch_runs WHERE name = ?', [name]);
    if (!run) throw new CliError(`No run "${name}" in the queue. Enqueue it first: hermes batch --queue URL --dataset-file F --run-name ${name}`, 2);
    const stored = (typeof run.options === 'string' ? JSON.parse(run.options) : run.options) as Partial<BatchOptions>;
    const spec = prepareRun({ ...stored, runName: name, verbose: opts.verbose });
    const me = `${hostname()}:${process.pid}`;
    const mine = new Set<number>();
    // The lease is renewed while prompts run, so only a dead worker's jobs lapse.
    const renew = setInterval(() => {
      if (mine.size)
        void db.run(`UPDATE hermes_batch_jobs SET locked_until = now() + make_interval(secs => ?) WHERE run = ? AND locked_by = ? AND status = 'running' AND idx = ANY(?::int[])`, [lease, name, me, [...mine]]).catch(() => undefined);
    }, Math.max(250, (lease * 1000) / 3));
    renew.unref();
    const slot = async (n: number) => {
      const id = `${me}:${n}`;
      for (;;) {
        const job = await steady(() => db.get(CLAIM, [id, id, lease, name, id, id]));
        if (!job) {
          const left = await steady(() => db.get(`SELECT COUNT(*) FILTER (WHERE status = 'queued') AS queued, COUNT(*) FILTER (WHERE status = 'running') AS running FROM hermes_batch_jobs WHERE run = ?`, [name]));
          if (!Number(left?.queued) && !Number(left?.running)) return;
          // Prompts waiting for a retry, or held by other workers (whose leases may lapse): wait.
          await new Promise((r) => setTimeout(r, Math.min(1000, lease * 250)));
          continue;
        }
        const idx = Number(job.idx);
        mine.add(idx);
        try {
          const r = await runPrompt(spec, { index: idx, prompt: String(job.prompt), cwd: (job.cwd as string | null) ?? undefined });
          // Only the holder of the current lease may finish the job: a lapsed worker's result is dropped.
          const mineStill = `run = ? AND idx = ? AND status = 'running' AND locked_by = ?`;
          if (r.kind === 'failed') {
            const last = Number(job.attempts) >= maxAttempts;
            const n = await steady(() => db.run(
              last
                ? `UPDATE hermes_batch_jobs SET status = 'failed', error = ?, locked_by = NULL, finished_at = now() WHERE ${mineStill}`
                : `UPDATE hermes_batch_jobs SET status = 'queued', error = ?, locked_by = NULL, run_after = now() + make_interval(secs => LEAST(300, power(2, attempts)::int)) WHERE ${mineStill}`,
              [r.error, name, idx, id],
            ));
            if (n && last) failed++;
            if (opts.verbose) process.stderr.write(`✗ #${idx} ${r.error}${last ? '' : ' (will retry)'}\n`);
          } else {
            const traj = r.kind === 'done' ? JSON.stringify(r.entry) : null;
            const n = await steady(() => db.run(`UPDATE hermes_batch_jobs SET status = ?, trajectory = ?::jsonb, error = NULL, locked_by = NULL, finished_at = now() WHERE ${mineStill}`, [
              r.kind,
              traj,
              name,
              idx,
              id,
            ]));
            if (n) done++;
            if (opts.verbose) process.stderr.write(`${n ? '✓' : '↷ (lease lost)'} #${idx}\n`);
          }
        } finally {
          mine.delete(idx);
        }
      }
    };
    await Promise.all(Array.from({ length: slots }, (_, i) => slot(i)));
    clearInterval(renew);
  } finally {
    await db.close();
  }
  process.stdout.write(`Worker done: ${done} prompt${done === 1 ? '' : 's'} completed, ${failed} failed for good.\n`);
}

interface Counts {
  total: number;
  done: number;
  discarded: number;
  failed: number;
  running: number;
  queued: number;
  recent: number;
  first: number | null;
  last: number | null;
}

async function counts(db: PgDb, name: string): Promise<Counts> {
  const r = (await db.get(
    `SELECT COUNT(*) AS total,
       COUNT(*) FILTER (WHERE status = 'done') AS done, COUNT(*) FILTER (WHERE status = 'discarded') AS discarded,
       COUNT(*) FILTER (WHERE status = 'failed') AS failed, COUNT(*) FILTER (WHERE status = 'running') AS running,
       COUNT(*) FILTER (WHERE status = 'queued') AS queued,
       COUNT(*) FILTER (WHERE finished_at > now() - interval '60 seconds' AND status IN ('done', 'discarded')) AS recent,
       EXTRACT(EPOCH FROM MIN(finished_at)) AS first, EXTRACT(EPOCH FROM MAX(finished_at)) AS last
     FROM hermes_batch_jobs WHERE run = ?`,
    [name],
  )) as Row;
  const n = (k: string) => Number(r[k] ?? 0);
  return { total: n('total'), done: n('done'), discarded: n('discarded'), failed: n('failed'), running: n('running'), queued: n('queued'), recent: n('recent'), first: r.first == null ? null : Number(r.first), last: r.last == null ? null : Number(r.last) };
}

export function progressBar(fraction: number, width = 30): string {
  const f = Math.max(0, Math.min(1, fraction));
  const full = Math.round(f * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}] ${(f * 100).toFixed(1)}%`;
}

/** `hermes batch status`: progress, throughput and failures of a queued run. */
export async function batchStatus(url: string, opts: BatchOptions & { json?: boolean }): Promise<void> {
  const name = runName(opts);
  const db = await connect(url);
  try {
    if (!(await db.get('SELECT 1 AS x FROM hermes_batch_runs WHERE name = ?', [name]))) throw new CliError(`No run "${name}" in the queue.`, 2);
    const c = await counts(db, name);
    const finished = c.done + c.discarded + c.failed;
    const span = c.first !== null && c.last !== null ? c.last - c.first : 0;
    const rate = span > 0 ? (c.done + c.discarded) / span : null;
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ run: name, ...c, per_second: rate })}\n`);
      return;
    }
    const lines = [
      `Run ${name}: ${progressBar(c.total ? finished / c.total : 0)}  ${finished}/${c.total}`,
      `  done ${c.done}  discarded ${c.discarded}  failed ${c.failed}  running ${c.running}  queued ${c.queued}`,
      `  throughput: ${rate === null ? '-' : `${rate.toFixed(2)} prompts/s overall`}, ${c.recent} in the last minute`,
    ];
    const errs = await db.all(`SELECT idx, error FROM hermes_batch_jobs WHERE run = ? AND status = 'failed' ORDER BY idx LIMIT 5`, [name]);
    for (const e of errs) lines.push(`  ✗ #${e.idx}: ${String(e.error).slice(0, 200)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await db.close();
  }
}

/** `hermes batch collect`: the run's trajectories into <output-dir>/<run>/trajectories.jsonl. */
export async function collectBatch(url: string, opts: BatchOptions): Promise<void> {
  const name = runName(opts);
  const db = await connect(url);
  try {
    const rows = await db.all(`SELECT trajectory FROM hermes_batch_jobs WHERE run = ? AND status = 'done' ORDER BY idx`, [name]);
    const c = await counts(db, name);
    const outDir = join(resolve(opts.outputDir ?? 'data'), name);
    mkdirSync(outDir, { recursive: true });
    const lines = rows.map((r) => JSON.stringify(typeof r.trajectory === 'string' ? JSON.parse(r.trajectory) : (r.trajectory as BatchEntry)));
    writeFileAtomic(join(outDir, 'trajectories.jsonl'), lines.length ? `${lines.join('\n')}\n` : '');
    writeFileSync(join(outDir, 'statistics.json'), `${JSON.stringify({ run_name: name, prompts: c.total, trajectories: c.done, discarded_no_reasoning: c.discarded, failed: c.failed, pending: c.queued + c.running }, null, 2)}\n`);
    process.stdout.write(`${lines.length} trajectories in ${join(outDir, 'trajectories.jsonl')}${c.queued + c.running ? ` (${c.queued + c.running} prompts still pending)` : ''}\n`);
  } finally {
    await db.close();
  }
}
