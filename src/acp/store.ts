// Where editor sessions persist: HERMES_HOME/state.db (source `acp`). The session runtime writes
// through it as turns run; session/load, /list and /fork read sessions back from it, so they work
// across `hermes acp` restarts (and with sessions Python Hermes wrote).
import type { Message } from '../llm/types.ts';
import type { SessionStore } from '../runtime/session.ts';
import { SessionDB } from '../state/db.ts';
import { paths } from '../state/paths.ts';

export interface StoredSession {
  id: string;
  source: string;
  title: string | null;
  cwd: string | null;
  system_prompt: string | null;
  started_at: number;
}

/** What the ACP server needs of the session store (the SessionDB). */
export interface AcpStore extends SessionStore {
  getSession(id: string): StoredSession | null;
  getMessages(sessionId: string): Message[];
  listSessions(opts: { source?: string; limit?: number }): (StoredSession & { preview: string; last_active: number })[];
  close?(): void;
}

/** Opens state.db; on failure the server runs without persistence and says why (on stderr). */
export function openAcpStore(home: string, log: (line: string) => void): AcpStore | null {
  try {
    return SessionDB.open(paths.stateDb(home));
  } catch (e) {
    log(`cannot open ${paths.stateDb(home)} (${(e as Error).message}); sessions will not be saved`);
    return null;
  }
}
