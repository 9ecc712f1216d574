// Holographic's fact store on node:sqlite, in the schema Python Hermes's holographic provider uses
// ($HERMES_HOME/memory_store.db: facts + FTS5, entities, fact_entities, memory_banks), so the same
// database works from either. Entities are extracted from each fact (capitalised phrases, quoted
// terms) and link facts together; trust moves +0.05 / -0.10 with feedback. Hermes's optional HRR
// vectors (numpy phase algebra) are not computed here: `probe`, `related` and `reason` run on the
// entity links instead, and rows keep hrr_vector NULL (Hermes rebuilds missing vectors).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { sqlite, type DatabaseSync } from '../../state/sqlite.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
    fact_id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL UNIQUE, category TEXT DEFAULT 'general',
    tags TEXT DEFAULT '', trust_score REAL DEFAULT 0.5, retrieval_count INTEGER DEFAULT 0, helpful_count INTEGER DEFAULT 0,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, hrr_vector BLOB);
CREATE TABLE IF NOT EXISTS entities (
    entity_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, entity_type TEXT DEFAULT 'unknown', aliases TEXT DEFAULT '',
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE IF NOT EXISTS fact_entities (
    fact_id INTEGER REFERENCES facts(fact_id), entity_id INTEGER REFERENCES entities(entity_id), PRIMARY KEY (fact_id, entity_id));
CREATE INDEX IF NOT EXISTS idx_facts_trust ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name ON entities(name);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(content, tags, content=facts, content_rowid=fact_id);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags); END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags); END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags); END;
CREATE TABLE IF NOT EXISTS memory_banks (
    bank_id INTEGER PRIMARY KEY AUTOINCREMENT, bank_name TEXT NOT NULL UNIQUE, vector BLOB NOT NULL, dim INTEGER NOT NULL,
    fact_count INTEGER DEFAULT 0, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
`;

export interface Fact {
  fact_id: number;
  content: string;
  category: string;
  tags: string;
  trust_score: number;
  retrieval_count: number;
  helpful_count: number;
  created_at: string;
  updated_at: string;
}

const STOP = new Set('a an and are as at be by for from has have i in is it me my of on or that the this to was what when where which who why will with you your'.split(' '));
const LOW_SIGNAL = new Set('active assistant current decision default detail fact general important information memory new note project recent session setting status summary system task user workflow'.split(' '));

/** Capitalised multi-word phrases and quoted terms, as Hermes extracts them. */
export function extractEntities(text: string): string[] {
  const out = new Map<string, string>();
  const add = (raw: string) => {
    const c = raw.normalize('NFKC').replace(/\s+/g, ' ').trim().replace(/['\u2019]s$/i, '');
    if (!c || c.length > 80 || c.split(' ').length > 8 || !/[\p{L}\p{N}]/u.test(c)) return;
    const words = c.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    if (words.length && words.every((w) => LOW_SIGNAL.has(w))) return;
    const key = c.toLowerCase().replace(/[-_\s]+/g, ' ');
    if (!out.has(key)) out.set(key, c);
  };
  for (const m of text.matchAll(/\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b/g)) add(m[1]);
  for (const re of [/(?<!\w)"([^"\r\n]+)"(?!\w)/g, /(?<!\w)'([^'\r\n]+)'(?!\w)/g, /\u201c([^\u201d\r\n]+)\u201d/g]) for (const m of text.matchAll(re)) add(m[1]);
  return [...out.values()];
}

/** Natural-language query → an FTS5 OR query of its content words (stopwords dropped). */
export function ftsQuery(q: string): string {
  const words = (q.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => !STOP.has(w) && w.length > 1);
  return [...new Set(words)].map((w) => `"${w}"`).join(' OR ');
}

const clamp = (v: number) => Math.max(0, Math.min(1, v));

export class FactStore {
  readonly db: DatabaseSync;
  readonly defaultTrust: number;
  private readonly stmts = new Map<string, ReturnType<DatabaseSync['prepare']>>();

  /** A prepared statement, prepared once per store. */
  private q(sql: string): ReturnType<DatabaseSync['prepare']> {
    let st = this.stmts.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.stmts.set(sql, st);
    }
    return st;
  }

  constructor(path: string, defaultTrust = 0.5) {
    mkdirSync(dirname(path), { recursive: true });
    const { DatabaseSync } = sqlite();
    this.db = new DatabaseSync(path, { timeout: 10_000 } as never);
    try {
      this.db.exec('PRAGMA journal_mode=WAL');
      this.db.exec('PRAGMA synchronous=NORMAL'); // WAL-safe; no fsync per retrieval-count update
    } catch {
      /* network filesystems: stay in the default journal mode */
    }
    this.db.exec(SCHEMA);
    this.defaultTrust = clamp(defaultTrust);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  add(content: string, category = 'general', tags = ''): { id: number; duplicate: boolean } {
    const c = content.trim();
    if (!c) throw new Error('content must not be empty');
    const existing = this.q('SELECT fact_id FROM facts WHERE content = ?').get(c) as { fact_id: number } | undefined;
    if (existing) return { id: existing.fact_id, duplicate: true };
    const r = this.q('INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, ?)').run(c, category, tags, this.defaultTrust);
    const id = Number(r.lastInsertRowid);
    this.link(id, c);
    return { id, duplicate: false };
  }

  private link(id: number, content: string): void {
    for (const name of extractEntities(content)) {
      const e = this.q('SELECT entity_id FROM entities WHERE lower(name) = lower(?)').get(name) as { entity_id: number } | undefined;
      const eid = e ? e.entity_id : Number(this.q('INSERT INTO entities (name) VALUES (?)').run(name).lastInsertRowid);
      this.q('INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)').run(id, eid);
    }
  }

  search(query: string, o: { category?: string; minTrust?: number; limit?: number } = {}): Fact[] {
    const match = ftsQuery(query);
    if (!match) return [];
    const rows = this.db
      .prepare(
        `SELECT f.* FROM facts f JOIN facts_fts fts ON fts.rowid = f.fact_id WHERE facts_fts MATCH ? AND f.trust_score >= ? ${o.category ? 'AND f.category = ?' : ''} ORDER BY fts.rank, f.trust_score DESC LIMIT ?`,
      )
      .all(...([match, o.minTrust ?? 0.3, ...(o.category ? [o.category] : []), o.limit ?? 10] as (string | number)[])) as unknown as Fact[];
    if (rows.length) this.q(`UPDATE facts SET retrieval_count = retrieval_count + 1 WHERE fact_id IN (${rows.map(() => '?').join(',')})`).run(...rows.map((r) => r.fact_id));
    return rows.map(strip);
  }

  /** Every fact linked to an entity (by name or alias, case-insensitive). */
  probe(entity: string, limit = 20): Fact[] {
    return (
      this.db
        .prepare(
          `SELECT DISTINCT f.* FROM facts f JOIN fact_entities fe ON fe.fact_id = f.fact_id JOIN entities e ON e.entity_id = fe.entity_id
           WHERE lower(e.name) = lower(?) OR (',' || lower(e.aliases) || ',') LIKE '%,' || lower(?) || ',%' ORDER BY f.trust_score DESC LIMIT ?`,
        )
        .all(entity, entity, limit) as unknown as Fact[]
    ).map(strip);
  }

  /** Facts sharing an entity with the given entity's facts (one hop), excluding the entity's own. */
  related(entity: string, limit = 20): Fact[] {
    const own = new Set(this.probe(entity, 1000).map((f) => f.fact_id));
    if (!own.size) return [];
    const ids = [...own];
    const rows = this.db
      .prepare(
        `SELECT DISTINCT f.* FROM facts f JOIN fact_entities fe ON fe.fact_id = f.fact_id WHERE fe.entity_id IN
           (SELECT entity_id FROM fact_entities WHERE fact_id IN (${ids.map(() => '?').join(',')})) ORDER BY f.trust_score DESC LIMIT ?`,
      )
      .all(...ids, limit + ids.length) as unknown as Fact[];
    return rows.filter((f) => !own.has(f.fact_id)).slice(0, limit).map(strip);
  }

  /** Facts linked to all of the entities (compositional AND). */
  reason(entities: string[], limit = 20): Fact[] {
    const sets = entities.map((e) => new Map(this.probe(e, 1000).map((f) => [f.fact_id, f])));
    if (!sets.length) return [];
    return [...sets[0].values()].filter((f) => sets.every((s) => s.has(f.fact_id))).slice(0, limit);
  }

  /** Pairs of facts about the same entity where one negates the other. */
  contradictions(limit = 20): { a: Fact; b: Fact; entity: string }[] {
    const neg = /\b(not|never|no longer|doesn't|does not|don't|do not|isn't|is not|stopped|hates?|dislikes?)\b/i;
    const rows = this.db
      .prepare('SELECT e.name AS entity, f.* FROM facts f JOIN fact_entities fe ON fe.fact_id = f.fact_id JOIN entities e ON e.entity_id = fe.entity_id ORDER BY e.entity_id')
      .all() as unknown as (Fact & { entity: string })[];
    const by = new Map<string, (Fact & { entity: string })[]>();
    for (const r of rows) by.set(r.entity, [...(by.get(r.entity) ?? []), r]);
    const out: { a: Fact; b: Fact; entity: string }[] = [];
    const words = (s: string) => new Set((s.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w) && !neg.test(w)));
    for (const [entity, facts] of by)
      for (let i = 0; i < facts.length; i++)
        for (let j = i + 1; j < facts.length; j++) {
          const [a, b] = [facts[i], facts[j]];
          if (neg.test(a.content) === neg.test(b.content)) continue;
          const wa = words(a.content);
          const overlap = [...words(b.content)].filter((w) => wa.has(w)).length;
          if (overlap >= 2 && out.length < limit) out.push({ a: strip(a), b: strip(b), entity });
        }
    return out;
  }

  update(id: number, o: { content?: string; trustDelta?: number; tags?: string; category?: string }): boolean {
    const row = this.q('SELECT trust_score FROM facts WHERE fact_id = ?').get(id) as { trust_score: number } | undefined;
    if (!row) return false;
    const sets = ['updated_at = CURRENT_TIMESTAMP'];
    const params: (string | number)[] = [];
    if (o.content !== undefined) sets.push('content = ?'), params.push(o.content.trim());
    if (o.tags !== undefined) sets.push('tags = ?'), params.push(o.tags);
    if (o.category !== undefined) sets.push('category = ?'), params.push(o.category);
    if (o.trustDelta !== undefined) sets.push('trust_score = ?'), params.push(clamp(row.trust_score + o.trustDelta));
    this.q(`UPDATE facts SET ${sets.join(', ')} WHERE fact_id = ?`).run(...params, id);
    if (o.content !== undefined) {
      this.q('DELETE FROM fact_entities WHERE fact_id = ?').run(id);
      this.link(id, o.content);
    }
    return true;
  }

  feedback(id: number, helpful: boolean): Fact | null {
    if (!this.update(id, { trustDelta: helpful ? 0.05 : -0.1 })) return null;
    if (helpful) this.q('UPDATE facts SET helpful_count = helpful_count + 1 WHERE fact_id = ?').run(id);
    return this.get(id);
  }

  get(id: number): Fact | null {
    const r = this.q('SELECT * FROM facts WHERE fact_id = ?').get(id) as unknown as Fact | undefined;
    return r ? strip(r) : null;
  }

  remove(id: number): boolean {
    this.q('DELETE FROM fact_entities WHERE fact_id = ?').run(id);
    return Number(this.q('DELETE FROM facts WHERE fact_id = ?').run(id).changes) > 0;
  }

  list(o: { category?: string; minTrust?: number; limit?: number } = {}): Fact[] {
    return (
      this.db
        .prepare(`SELECT * FROM facts WHERE trust_score >= ? ${o.category ? 'AND category = ?' : ''} ORDER BY trust_score DESC, updated_at DESC LIMIT ?`)
        .all(...([o.minTrust ?? 0, ...(o.category ? [o.category] : []), o.limit ?? 50] as (string | number)[])) as unknown as Fact[]
    ).map(strip);
  }

  count(): number {
    return Number((this.q('SELECT count(*) AS n FROM facts').get() as { n: number }).n);
  }
}

function strip(f: Fact & { hrr_vector?: unknown; entity?: string }): Fact {
  const { hrr_vector: _v, entity: _e, ...rest } = f;
  return { ...rest };
}
