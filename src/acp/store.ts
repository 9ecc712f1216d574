// Where editor sessions persist: the configured session store (HERMES_HOME/state.db, or PostgreSQL
// with state.backend: postgres), source `acp`. The session runtime writes through it as turns run;
// session/load, /list and /fork read sessions back from it, so they work across `hermes acp`
// restarts (and with sessions Python Hermes wrote).
import { openSessionStore, type SessionStore } from '../state/store/index.ts';

/** What the ACP server keeps its sessions in: the session store (either backend). */
export type AcpStore = SessionStore;

/** Opens the session store; on failure the server runs without persistence and says why (on stderr). */
export async function openAcpStore(home: string, config: Parameters<typeof openSessionStore>[1], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<AcpStore | null> {
  try {
    return await openSessionStore(home, config, env);
  } catch (e) {
    log(`cannot open the session store (${(e as Error).message}); sessions will not be saved`);
    return null;
  }
}
