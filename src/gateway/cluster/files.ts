// The files an inbound message brought (photos, voice notes, documents the adapter downloaded into
// this machine's caches), kept in PostgreSQL beside the cluster's delivery ledger until the message
// is finished: a gateway that answers it after a failover has them too, though the machine that
// downloaded them is gone.
import { readFile } from 'node:fs/promises';
import type { PgDb } from '../../state/store/postgres/pool.ts';
import { saveAttachment } from '../media.ts';
import type { InboundMessage } from '../types.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS hermes_gateway_inbound_files (
  key TEXT NOT NULL,
  idx INTEGER NOT NULL,
  bytes BYTEA NOT NULL,
  PRIMARY KEY (key, idx)
)`;

export interface InboundFiles {
  /** Stores the bytes of `msg`'s downloaded attachments under the ledger key `key`. */
  save(key: string, msg: InboundMessage): Promise<void>;
  /** `msg` with its attachments written into this machine's caches from the stored bytes. */
  restore(key: string, msg: InboundMessage): Promise<InboundMessage>;
}

export class PgInboundFiles implements InboundFiles {
  private readonly db: PgDb;
  private readonly home: string;

  private constructor(db: PgDb, home: string) {
    this.db = db;
    this.home = home;
  }

  static async open(db: PgDb, home: string): Promise<PgInboundFiles> {
    await db.tx(async (q) => {
      await q.run("SELECT pg_advisory_xact_lock(hashtext('hermes_gateway_schema'))");
      await q.run(SCHEMA);
      // Files of messages that are finished (or gone from the ledger) are not needed any more.
      await q.run("DELETE FROM hermes_gateway_inbound_files f WHERE NOT EXISTS (SELECT 1 FROM gateway_inbound_ledger i WHERE i.key = f.key AND i.state IN ('received', 'running'))");
    });
    return new PgInboundFiles(db, home);
  }

  async save(key: string, msg: InboundMessage): Promise<void> {
    const files: [number, Buffer][] = [];
    for (const [i, a] of (msg.attachments ?? []).entries()) {
      if (!a.path) continue;
      try {
        files.push([i, await readFile(a.path)]);
      } catch {
        /* gone already: the message is still answered, without it */
      }
    }
    if (!files.length) return;
    await this.db.write(async (q) => {
      for (const [idx, bytes] of files) await q.run('INSERT INTO hermes_gateway_inbound_files (key, idx, bytes) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [key, idx, bytes]);
    });
  }

  async restore(key: string, msg: InboundMessage): Promise<InboundMessage> {
    if (!msg.attachments?.some((a) => a.path)) return msg;
    const rows = await this.db.all('SELECT idx, bytes FROM hermes_gateway_inbound_files WHERE key = ?', [key]);
    const byIdx = new Map(rows.map((f) => [Number(f.idx), f.bytes as Buffer]));
    return {
      ...msg,
      attachments: msg.attachments.map((a, i) => {
        const bytes = byIdx.get(i);
        if (!a.path) return a;
        if (!bytes) return { ...a, path: undefined };
        return { ...a, path: saveAttachment(this.home, { kind: a.kind, bytes, mimeType: a.mimeType, fileName: a.fileName, id: `takeover-${i}` }) };
      }),
    };
  }
}
