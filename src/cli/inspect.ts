// Facts `hermes status` and `hermes doctor` both report: which keys are set (names only, never
// values), which tools a session would get, how many sessions state.db holds.

import { standaloneMessaging } from '../gateway/messaging.ts';
import { cronService } from '../cron/service.ts';
import { existsSync } from 'node:fs';
import { PROVIDERS } from '../llm/catalog.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { paths } from '../state/paths.ts';
import { Slots } from '../state/slots.ts';
import { openSessionStore, storeChoice } from '../state/store/index.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import type { Availability } from '../tools/registry.ts';
import { resolveToolsetNames } from '../tools/toolsets.ts';
import type { ToolSession } from '../tools/types.ts';

/** Tool keys and endpoints Hermes reads besides the providers' keys. */
export const TOOL_ENV = ['FIRECRAWL_API_KEY', 'FIRECRAWL_API_URL', 'TAVILY_API_KEY', 'EXA_API_KEY', 'PARALLEL_API_KEY', 'SEARXNG_URL', 'SUDO_PASSWORD'];

export interface KeyStatus {
  name: string;
  set: boolean;
  /** '.env' when it came from HERMES_HOME/.env, 'environment' otherwise. */
  from?: '.env' | 'environment';
  /** What reads it. */
  for: string;
}

export function keyStatuses(env: NodeJS.ProcessEnv, dotenvNames: string[]): KeyStatus[] {
  const seen = new Set<string>();
  const out: KeyStatus[] = [];
  const add = (name: string, what: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const v = env[name];
    const set = typeof v === 'string' && v.trim() !== '';
    out.push({ name, set, from: set ? (dotenvNames.includes(name) ? '.env' : 'environment') : undefined, for: what });
  };
  for (const p of PROVIDERS) for (const k of p.keyEnvs) add(k, p.isCustom ? 'custom endpoints' : p.name);
  const reg = builtinRegistry();
  for (const d of reg.all()) for (const k of d.requiresEnv ?? []) add(k, `${d.name} tool`);
  for (const k of TOOL_ENV) add(k, k === 'SUDO_PASSWORD' ? 'sudo in terminal' : 'web tools');
  return out;
}

/** Services close enough to a CLI session's for deciding which tools it would get. */
export function probeServices(home: string, config: HermesConfig, env: NodeJS.ProcessEnv, cwd = process.cwd()): ToolSession {
  return {
    home,
    config,
    env,
    cwd,
    platform: 'cli',
    sessionId: 'probe',
    taskId: 'probe',
    slots: new Slots(),
    yolo: false,
    depth: 0,
    callTool: async () => ({ content: '{}' }),
    spawnChild: async () => ({ status: 'failed', summary: '', apiCalls: 0, iterations: 0, toolTrace: [] }),
    auxiliary: () => null,
    messaging: standaloneMessaging(env, config),
    cron: cronService,
  };
}

export interface ToolReport {
  toolsets: string[];
  enabled: string[];
  /** Tools the configured toolsets ask for that cannot run, with why. */
  unavailable: Availability[];
  error?: string;
}

export function toolReport(home: string, config: HermesConfig, env: NodeJS.ProcessEnv): ToolReport {
  const reg = builtinRegistry();
  const services = probeServices(home, config, env);
  // The vision tool needs an auxiliary model; a real session has the main model for that.
  services.auxiliary = () => ({ stream: () => { throw new Error('probe'); }, model: 'probe', provider: 'probe' });
  const toolsets = Array.isArray(config.toolsets) && config.toolsets.length ? config.toolsets : ['hermes-cli'];
  const disabled = config.agent?.disabled_toolsets ?? [];
  try {
    const enabled = reg.build(toolsets, services, disabled).map((t) => t.name);
    const requested = resolveToolsetNames(toolsets, disabled, reg.toolsets(), config.custom_toolsets ?? {});
    const unavailable = reg
      .availability(services)
      .filter((a) => !a.available && requested.has(a.name));
    return { toolsets, enabled, unavailable };
  } catch (e) {
    return { toolsets, enabled: [], unavailable: [], error: (e as Error).message };
  }
}

/** Sessions in state.db, or null when there is no database (or no sessions table) yet. */
/** How many sessions there are, the newest start, and where they are (state.db, or the PostgreSQL URL without its password). */
export async function sessionCount(home: string, config?: Parameters<typeof storeChoice>[0], env?: NodeJS.ProcessEnv): Promise<{ count: number; last?: string; where: string } | null> {
  if (config && storeChoice(config, env).backend === 'postgres') {
    const store = await openSessionStore(home, config, env);
    try {
      const count = await store.countSessions({ archived: 'include', includeTool: true });
      const newest = (await store.listSessions({ archived: 'include', includeTool: true, limit: 1 }))[0];
      return { count, last: newest ? new Date(newest.started_at * 1000).toISOString().replace('T', ' ').slice(0, 16) : undefined, where: store.location };
    } finally {
      await store.close();
    }
  }
  const file = paths.stateDb(home);
  if (!existsSync(file)) return null;
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='sessions'").get();
    if (!row) return null;
    const n = db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number };
    let last: string | undefined;
    try {
      const r = db.prepare('SELECT started_at FROM sessions ORDER BY started_at DESC LIMIT 1').get() as { started_at?: number } | undefined;
      if (r?.started_at) last = new Date(r.started_at * 1000).toISOString().replace('T', ' ').slice(0, 16);
    } catch {
      /* older schema */
    }
    return { count: Number(n.n), last, where: file };
  } finally {
    db.close();
  }
}
