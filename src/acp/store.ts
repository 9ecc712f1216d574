// Where editor sessions persist: the configured session store (HERMES_HOME/state.db, or PostgreSQL
// with state.backend: postgres), source `acp`. The session runtime writes through it as turns run;
// session/load, /list and /fork read sessions back from it, so they work across `hermes acp`
// restarts (and with sessions Python Hermes wrote).
import type { Message } from '../llm/types.ts';
import type { SessionStore } from '../runtime/session.ts';
import { openSessionStore, type Awaitable } from '../state/store/index.ts';

export interface StoredSession {
  id: string;
  source: string;
  title: string | null;
  cwd: string | null;
  system_prompt: string | null;
  started_at: number;
}

/** What the ACP server needs of the session store (either backend). */
export interface AcpStore extends SessionStore {
  getSession(id: string): Awaitable<StoredSession | null>;
  getMessages(sessionId: string): Awaitable<Message[]>;
  listSessions(opts: { source?: string; limit?: number }): Awaitable<(StoredSession & { preview: string; last_active: number })[]>;
  close?(): Awaitable<void>;
}

/** Opens the session store; on failure the server runs without persistence and says why (on stderr). */
export async function openAcpStore(home: string, config: Parameters<typeof openSessionStore>[1], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<AcpStore | null> {
  try {
    return await openSessionStore(home, config, env);
  } catch (e) {
    log(`cannot open the session store (${(e as Error).message}); sessions will not be saved`);
    return null;
  }
}
