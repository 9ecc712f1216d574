// Reads a state.db the way Python Hermes does: through Python's own sqlite3 module (python3 is on
// every machine the suite runs on), so a test sees the rows Hermes would see, not our reader's view.
import { execFileSync } from 'node:child_process';

const READ = `
import json, sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
c.row_factory = sqlite3.Row
print(json.dumps([dict(r) for r in c.execute(sys.argv[2], sys.argv[3:])]))
`;

/** Rows of `sql` (with `?` parameters), as Python's sqlite3 returns them. */
export function pyQuery(db: string, sql: string, ...params: string[]): Record<string, unknown>[] {
  return JSON.parse(execFileSync('python3', ['-c', READ, db, sql, ...params], { encoding: 'utf8' })) as Record<string, unknown>[];
}

/** A session's message rows in id order (role, content, active, compacted, …). */
export function pyRows(db: string, sessionId: string): Record<string, unknown>[] {
  return pyQuery(db, 'SELECT * FROM messages WHERE session_id = ? ORDER BY id', sessionId);
}

/** The first column of the first row. */
export function pyScalar(db: string, sql: string, ...params: string[]): unknown {
  const r = pyQuery(db, sql, ...params)[0];
  return r ? Object.values(r)[0] : undefined;
}
