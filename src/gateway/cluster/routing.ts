// Gateway routing shared by the gateways of a cluster: which session a chat is in (the entries of
// sessions.json), kept in PostgreSQL's gateway_routing table too, so when another gateway takes a
// platform over, a chat goes on in the same session (its history restored from the shared store)
// instead of starting a fresh one. Each gateway still keeps sessions.json as its local copy.
import type { PgDb } from '../../state/store/postgres/pool.ts';
import type { RoutingShare, SessionEntry } from '../session-store.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS gateway_routing (
  scope TEXT NOT NULL DEFAULT '', session_key TEXT NOT NULL, entry_json TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (scope, session_key))`;

export class PgRouting implements RoutingShare {
  private readonly db: PgDb;
  private readonly scope: string;
  private readonly log: (line: string) => void;

  private constructor(db: PgDb, scope: string, log: (line: string) => void) {
    this.db = db;
    this.scope = scope;
    this.log = log;
  }

  static async open(db: PgDb, opts: { scope?: string; log?: (line: string) => void } = {}): Promise<PgRouting> {
    await db.tx(async (q) => {
      await q.run("SELECT pg_advisory_xact_lock(hashtext('hermes_gateway_schema'))");
      await q.run(SCHEMA);
    });
    return new PgRouting(db, opts.scope ?? '', opts.log ?? (() => undefined));
  }

  async get(key: string): Promise<SessionEntry | null> {
    const row = await this.db.get('SELECT entry_json FROM gateway_routing WHERE scope = ? AND session_key = ?', [this.scope, key]);
    if (!row) return null;
    try {
      const e = JSON.parse(String(row.entry_json)) as SessionEntry;
      return e && typeof e.session_id === 'string' && /^[A-Za-z0-9_.-]+$/.test(e.session_id) ? e : null;
    } catch {
      return null;
    }
  }

  put(entry: SessionEntry): void {
    const at = Date.parse(entry.updated_at) / 1000 || Date.now() / 1000;
    // Ordered with this gateway's other writes; the newer entry wins when two gateways write one key.
    void this.db
      .write((q) =>
        q.run(
          `INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (scope, session_key) DO UPDATE SET entry_json = EXCLUDED.entry_json, updated_at = EXCLUDED.updated_at
           WHERE gateway_routing.updated_at <= EXCLUDED.updated_at`,
          [this.scope, entry.session_key, JSON.stringify(entry), at],
        ),
      )
      .catch((e: unknown) => this.log(`cluster: could not share the routing of ${entry.session_key}: ${(e as Error).message}`));
  }
}
