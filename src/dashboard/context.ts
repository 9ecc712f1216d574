// What every dashboard route gets: the HERMES_HOME it manages, fresh config on each call, the
// state.db (opened once, shared), the log, and small helpers for JSON errors. Routes call the same
// state/runtime functions the CLI calls; nothing here re-implements them.
import type { Context } from 'hono';
import { loadConfig, type LoadedConfig } from '../state/config.ts';
import { SessionDB } from '../state/db.ts';
import { openSessionStore, type SessionStore } from '../state/store/index.ts';
import { readEnvFile } from '../state/env.ts';
import { hermesLog, logSettingsFrom, type HermesLog } from '../state/logs.ts';
import { paths } from '../state/paths.ts';

export interface DashboardContext {
  home: string;
  version: string;
  startedAt: number;
  /** The environment the dashboard started with (children get it, plus HERMES_HOME). */
  baseEnv: NodeJS.ProcessEnv;
  /** config.yaml over the defaults, read now (the dashboard sees edits made elsewhere). */
  config(): LoadedConfig;
  /** The process environment with HERMES_HOME/.env over it, read now. */
  env(): NodeJS.ProcessEnv;
  /** state.db, opened on first use: what dashboard plugins get (SessionDB's synchronous API); the tabs use `store()`. */
  db(): SessionDB;
  /** The configured session store (state.db, or PostgreSQL with state.backend: postgres), opened on first use. */
  store(): Promise<SessionStore>;
  log: HermesLog | null;
  /** `hermes` argv (after node) that starts the chat in the Chat tab. */
  chatArgs: string[];
  /** Path of bin/hermes.mjs, for child processes. */
  bin: string;
  close(): void;
}

export function createContext(o: { home: string; version: string; baseEnv: NodeJS.ProcessEnv; chatArgs: string[]; bin: string }): DashboardContext {
  let db: SessionDB | null = null;
  let store: Promise<SessionStore> | null = null;
  const first = safeConfig(o.home, o.baseEnv);
  const log = hermesLog(o.home, logSettingsFrom(first.config))?.enable('gui') ?? null;
  const ctx: DashboardContext = {
    home: o.home,
    version: o.version,
    startedAt: Date.now(),
    baseEnv: o.baseEnv,
    chatArgs: o.chatArgs,
    bin: o.bin,
    log,
    config: () => loadConfig(o.home, ctx.env()),
    env: () => {
      const env = { ...o.baseEnv };
      for (const [k, v] of readEnvFile(paths.env(o.home))) env[k] = v;
      return env;
    },
    db: () => (db ??= SessionDB.open(paths.stateDb(o.home))),
    store: () => {
      if (store) return store;
      const { config } = ctx.config();
      const env = ctx.env();
      // On SQLite the store shares the plugins' state.db connection.
      store = openSessionStore(o.home, config, env, { sqlite: ctx.db });
      // A failed connection is not kept: the next request tries again.
      store.catch(() => (store = null));
      return store;
    },
    close: () => {
      db?.close();
      db = null;
      void store?.then((s) => s.close(), () => undefined);
      store = null;
    },
  };
  return ctx;
}

function safeConfig(home: string, env: NodeJS.ProcessEnv): { config: Record<string, unknown> } {
  try {
    return loadConfig(home, env);
  } catch {
    return { config: {} };
  }
}

/** A JSON error a person can act on: what went wrong, and (when known) what to do. */
export function fail(c: Context, status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503, error: string, fix?: string) {
  return c.json(fix ? { error, fix } : { error }, status);
}

/** The JSON body of a request, or null when it is not a JSON object. */
export async function body(c: Context): Promise<Record<string, unknown> | null> {
  try {
    const v = (await c.req.json()) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
