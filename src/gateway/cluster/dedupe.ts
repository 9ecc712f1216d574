// Inbound dedupe shared by the gateways of a cluster (the PostgreSQL twin of ../dedupe.ts): a message
// id is recorded before it is processed, by the gateway that takes it. Seen again, it is dropped;
// unless it was taken by another gateway and never finished: that gateway died mid-turn (this one
// owns the platform now, so the other no longer does), and the redelivered message is taken over and
// answered here, so nothing is lost and nothing answered twice.
import type { PgDb } from '../../state/store/postgres/pool.ts';
import type { Unfinished } from '../dedupe.ts';
import type { InboundMessage } from '../types.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS hermes_gateway_inbound (
  key TEXT PRIMARY KEY,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  owner TEXT NOT NULL,
  message JSONB,
  state TEXT NOT NULL DEFAULT 'r',
  at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

const key = (platform: string, chatId: string, messageId: string) => `${platform}:${chatId}:${messageId}`;

export class PgInboundDedupe {
  private readonly db: PgDb;
  private readonly owner: string;

  private constructor(db: PgDb, owner: string) {
    this.db = db;
    this.owner = owner;
  }

  static async open(db: PgDb, owner: string): Promise<PgInboundDedupe> {
    await db.tx(async (q) => {
      await q.run("SELECT pg_advisory_xact_lock(hashtext('hermes_gateway_schema'))");
      await q.run(SCHEMA);
      await q.run("DELETE FROM hermes_gateway_inbound WHERE at < now() - interval '7 days'");
    });
    return new PgInboundDedupe(db, owner);
  }

  /** True when this gateway takes the message: new, or unfinished by a gateway that is gone. */
  async claim(platform: string, chatId: string, messageId: string, threadId?: string, msg?: InboundMessage): Promise<boolean> {
    const k = key(platform, chatId, messageId);
    // Through the ordered write queue: messages are claimed in the order they arrived.
    return this.db.write(async (q) => {
      const n = await q.run('INSERT INTO hermes_gateway_inbound (key, platform, chat_id, thread_id, owner, message) VALUES (?, ?, ?, ?, ?, ?::jsonb) ON CONFLICT (key) DO NOTHING', [
        k,
        platform,
        chatId,
        threadId ?? null,
        this.owner,
        msg ? JSON.stringify(msg) : null,
      ]);
      if (n) return true;
      return (await q.run("UPDATE hermes_gateway_inbound SET owner = ?, at = now() WHERE key = ? AND state = 'r' AND owner <> ?", [this.owner, k, this.owner])) > 0;
    });
  }

  finish(platform: string, chatId: string, messageId: string): void {
    void this.db.write((q) => q.run("UPDATE hermes_gateway_inbound SET state = 'd', at = now() WHERE key = ?", [key(platform, chatId, messageId)])).catch(() => undefined);
  }

  finishKey(k: string): void {
    void this.db.write((q) => q.run("UPDATE hermes_gateway_inbound SET state = 'd', at = now() WHERE key = ?", [k])).catch(() => undefined);
  }

  /**
   * The messages of `platform` that other gateways took and never finished. Called when this gateway
   * has just become the platform's owner, so their takers are gone: the platform will not send them
   * again (it saw them confirmed), so they are run here.
   */
  async takeOver(platform: string): Promise<InboundMessage[]> {
    const rows = await this.db.all("SELECT message FROM hermes_gateway_inbound WHERE platform = ? AND state = 'r' AND owner <> ? AND message IS NOT NULL ORDER BY at", [platform, this.owner]);
    return rows.map((r) => (typeof r.message === 'string' ? JSON.parse(r.message) : r.message) as InboundMessage);
  }

  /** Nothing to report at attach: a cut-short message is taken over when the platform redelivers it. */
  unfinished(): Unfinished[] {
    return [];
  }

  close(): void {
    /* the cluster closes the connection */
  }
}
