// Inbound dedupe shared by the gateways of a cluster (the PostgreSQL twin of ../dedupe.ts): a message
// id is recorded before it is processed, by the gateway that takes it. Seen again, it is dropped;
// unless it was taken by another gateway and never finished: that gateway died mid-turn (this one
// owns the platform now, so the other no longer does), and the redelivered message is taken over and
// answered here, so nothing is lost and nothing answered twice. The files a message brought (photos,
// voice notes, documents the adapter downloaded into this machine's caches) are kept with it until
// it is answered, so the gateway that takes it over has them too.
import { readFile } from 'node:fs/promises';
import type { PgDb } from '../../state/store/postgres/pool.ts';
import { saveAttachment } from '../media.ts';
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

const FILES = `CREATE TABLE IF NOT EXISTS hermes_gateway_inbound_files (
  key TEXT NOT NULL,
  idx INTEGER NOT NULL,
  bytes BYTEA NOT NULL,
  PRIMARY KEY (key, idx)
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
      await q.run(FILES);
      await q.run("DELETE FROM hermes_gateway_inbound WHERE at < now() - interval '7 days'");
      await q.run("DELETE FROM hermes_gateway_inbound_files f WHERE NOT EXISTS (SELECT 1 FROM hermes_gateway_inbound i WHERE i.key = f.key AND i.state = 'r')");
    });
    return new PgInboundDedupe(db, owner);
  }

  /** True when this gateway takes the message: new, or unfinished by a gateway that is gone. */
  async claim(platform: string, chatId: string, messageId: string, threadId?: string, msg?: InboundMessage): Promise<boolean> {
    const k = key(platform, chatId, messageId);
    const files = await readFiles(msg);
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
      if (n) {
        for (const [idx, bytes] of files) await q.run('INSERT INTO hermes_gateway_inbound_files (key, idx, bytes) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [k, idx, bytes]);
        return true;
      }
      return (await q.run("UPDATE hermes_gateway_inbound SET owner = ?, at = now() WHERE key = ? AND state = 'r' AND owner <> ?", [this.owner, k, this.owner])) > 0;
    });
  }

  finish(platform: string, chatId: string, messageId: string): void {
    this.finishKey(key(platform, chatId, messageId));
  }

  finishKey(k: string): void {
    void this.db
      .write(async (q) => {
        await q.run("UPDATE hermes_gateway_inbound SET state = 'd', at = now() WHERE key = ?", [k]);
        await q.run('DELETE FROM hermes_gateway_inbound_files WHERE key = ?', [k]);
      })
      .catch(() => undefined);
  }

  /**
   * The messages of `platform` that other gateways took and never finished. Called when this gateway
   * has just become the platform's owner, so their takers are gone: the platform will not send them
   * again (it saw them confirmed), so they are run here.
   */
  async takeOver(platform: string, home: string): Promise<InboundMessage[]> {
    const rows = await this.db.all("SELECT key, message FROM hermes_gateway_inbound WHERE platform = ? AND state = 'r' AND owner <> ? AND message IS NOT NULL ORDER BY at", [platform, this.owner]);
    const out: InboundMessage[] = [];
    for (const r of rows) {
      const msg = (typeof r.message === 'string' ? JSON.parse(r.message) : r.message) as InboundMessage;
      if (msg.attachments?.some((a) => a.path)) {
        // The files were on the machine of the gateway that died: write them into this one's caches.
        const files = await this.db.all('SELECT idx, bytes FROM hermes_gateway_inbound_files WHERE key = ?', [String(r.key)]);
        const byIdx = new Map(files.map((f) => [Number(f.idx), f.bytes as Buffer]));
        msg.attachments = msg.attachments.map((a, i) => {
          const bytes = byIdx.get(i);
          if (!a.path) return a;
          if (!bytes) return { ...a, path: undefined };
          return { ...a, path: saveAttachment(home, { kind: a.kind, bytes, mimeType: a.mimeType, fileName: a.fileName, id: `takeover-${i}` }) };
        });
      }
      out.push(msg);
    }
    return out;
  }

  /** Nothing to report at attach: a cut-short message is taken over when the platform redelivers it. */
  unfinished(): Unfinished[] {
    return [];
  }

  close(): void {
    /* the cluster closes the connection */
  }
}

/** The bytes of a message's downloaded attachments, by index (files that cannot be read are skipped). */
async function readFiles(msg: InboundMessage | undefined): Promise<[number, Buffer][]> {
  const out: [number, Buffer][] = [];
  for (const [i, a] of (msg?.attachments ?? []).entries()) {
    if (!a.path) continue;
    try {
      out.push([i, await readFile(a.path)]);
    } catch {
      /* gone already: the message is still taken over, without it */
    }
  }
  return out;
}
