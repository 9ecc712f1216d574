// Cron fire claims shared through PostgreSQL (`state.backend: postgres`): several gateways (or
// `hermes cron tick`s) on several machines may hold the same jobs; each scheduled run of a job — a
// (job id, scheduled time) slot — is fired by exactly one of them. The first to insert the slot's
// row runs it; the others see the row and skip that run (their own schedule moves on).
import { PgDb } from '../state/store/postgres/pool.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS hermes_cron_fires (
  job_id TEXT NOT NULL,
  slot TEXT NOT NULL,
  owner TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, slot)
)`;

export class PgFireClaims {
  private readonly db: PgDb;

  private constructor(db: PgDb) {
    this.db = db;
  }

  static async open(url: string): Promise<PgFireClaims> {
    const db = await PgDb.connect(url, { max: 2, application: 'hermes-cron' });
    try {
      await db.tx(async (q) => {
        await q.run("SELECT pg_advisory_xact_lock(hashtext('hermes_cron_schema'))");
        await q.run(SCHEMA);
        await q.run("DELETE FROM hermes_cron_fires WHERE at < now() - interval '90 days'");
      });
    } catch (e) {
      await db.close();
      throw e;
    }
    return new PgFireClaims(db);
  }

  /** True when this process fires the job's run at `slot`; false when another already has. */
  async claim(jobId: string, slot: string, owner: string): Promise<boolean> {
    return (await this.db.run('INSERT INTO hermes_cron_fires (job_id, slot, owner) VALUES (?, ?, ?) ON CONFLICT (job_id, slot) DO NOTHING', [jobId, slot, owner])) > 0;
  }

  /** Who fired a slot (for the log), or null. */
  async firedBy(jobId: string, slot: string): Promise<string | null> {
    const r = await this.db.get('SELECT owner FROM hermes_cron_fires WHERE job_id = ? AND slot = ?', [jobId, slot]);
    return r ? String(r.owner) : null;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
