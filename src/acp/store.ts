// Where editor sessions persist: state.db (source `acp`). The session runtime writes through the
// SessionStore it is given; session/load, /list and /fork read back through the members below.
import type { Message } from '../llm/types.ts';
import type { SessionStore } from '../runtime/session.ts';

export interface StoredSession {
  id: string;
  source: string;
  title: string | null;
  cwd: string | null;
  system_prompt: string | null;
  started_at: number;
}

/** What the ACP server needs of the SessionDB (src/state/db.ts implements all of it). */
export interface AcpStore extends SessionStore {
  getSession(id: string): StoredSession | null;
  getMessages(sessionId: string): Message[];
  listSessions(opts: { source?: string; limit?: number }): (StoredSession & { preview: string; last_active: number })[];
  close?(): void;
}

/**
 * Opens HERMES_HOME/state.db for the ACP server, or returns null when the SessionDB is not available
 * in this build: sessions then live for as long as the `hermes acp` process (list/load/resume/fork
 * work within it).
 *
 * When src/state/db.ts is merged this becomes `return SessionDB.open(paths.stateDb(home))`.
 */
export async function openAcpStore(home: string): Promise<AcpStore | null> {
  void home;
  return null;
}
