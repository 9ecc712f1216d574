// Which state store a process uses, and opening it. `state.backend` in config.yaml: `sqlite` (the
// default: HERMES_HOME/state.db, Hermes's own file) or `postgres` (`state.url`, or the
// HERMES_DATABASE_URL environment variable, which wins). The PostgreSQL code and the `pg` client
// load only when that backend is chosen.
import { SessionDB } from '../db.ts';
import { paths } from '../paths.ts';
import { SqliteSessionStore } from './sqlite.ts';
import type { SessionStore, StoreBackend } from './types.ts';
import { configSetting } from '../config-env.ts';

export type { Awaitable, ListOptions, SessionStore, StoreBackend, UsageRecord } from './types.ts';
export { SqliteSessionStore } from './sqlite.ts';

export interface StoreChoice {
  backend: StoreBackend;
  /** The PostgreSQL URL (postgres backend only). */
  url?: string;
}

export class StoreConfigError extends Error {}

/** The backend and URL from config.yaml's `state` section and the environment. */
export function storeChoice(config: { state?: { backend?: unknown; url?: unknown } } | undefined, env: NodeJS.ProcessEnv = process.env): StoreChoice {
  const raw = String(config?.state?.backend ?? 'sqlite').trim().toLowerCase() || 'sqlite';
  const backend = raw === 'postgresql' || raw === 'pg' ? 'postgres' : raw;
  if (backend !== 'sqlite' && backend !== 'postgres') throw new StoreConfigError(`state.backend is "${raw}"; it must be sqlite or postgres (hermes config set state.backend sqlite).`);
  if (backend === 'sqlite') return { backend };
  const url = String(configSetting(config, 'state.url', env) || '').trim();
  if (!url) throw new StoreConfigError('state.backend is postgres but no database is named: set state.url in config.yaml or HERMES_DATABASE_URL (postgres://user:password@host:5432/dbname).');
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new StoreConfigError(`The state database URL must start with postgres:// or postgresql:// (got "${url.replace(/:[^:@/]*@/, ':***@')}").`);
  return { backend, url };
}

/**
 * Opens the configured session store (state.db, or the PostgreSQL database). `sqlite` opens state.db
 * instead of the default (a surface's own error message, or a connection it already holds).
 */
export async function openSessionStore(
  home: string,
  config?: { state?: { backend?: unknown; url?: unknown } },
  env: NodeJS.ProcessEnv = process.env,
  opts: { sqlite?: () => SessionDB } = {},
): Promise<SessionStore> {
  const choice = storeChoice(config, env);
  if (choice.backend === 'sqlite') return new SqliteSessionStore(opts.sqlite ? opts.sqlite() : SessionDB.open(paths.stateDb(home)));
  const { PgSessionStore } = await import('./postgres/sessions.ts');
  return PgSessionStore.open(choice.url!);
}

/** The session store on a state.db file (tests, tools that name the file). */
export function openSqliteStore(file: string): SessionStore {
  return new SqliteSessionStore(SessionDB.open(file));
}
