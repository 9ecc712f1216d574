// Opening the session store for a CLI command, apart from chat.ts so the commands that only read or
// manage sessions (sessions, cost, insights) do not load the agent runtime with it.
import { SessionDB } from '../state/db.ts';
import { describeDbError } from '../state/db-errors.ts';
import { paths } from '../state/paths.ts';
import { openSessionStore, storeChoice, type SessionStore } from '../state/store/index.ts';
import type { CliContext } from './context.ts';
import { CliError } from './errors.ts';

/** Opens HERMES_HOME/state.db, or fails with one clear line. */
export function openStateDb(home: string): SessionDB {
  let db: SessionDB;
  try {
    db = SessionDB.open(paths.stateDb(home));
  } catch (e) {
    // (The message names the file, what is wrong and what to do: repair/recover for a damaged one.)
    throw Object.assign(new CliError(describeDbError(e, paths.stateDb(home), 'state')), { cause: e });
  }
  if (db.compatNote) process.stderr.write(`hermes: note: ${db.compatNote}\n`);
  return db;
}

/** Opens the configured session store (`state.backend`: state.db, or PostgreSQL), or fails with one clear line. */
export async function openStore(ctx: CliContext): Promise<SessionStore> {
  try {
    storeChoice(ctx.loaded.config, ctx.env);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
  try {
    // (state.db through openStateDb: its one clear line for a damaged or unwritable file.)
    return await openSessionStore(ctx.home, ctx.loaded.config, ctx.env, { sqlite: () => openStateDb(ctx.home) });
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError((e as Error).message);
  }
}
