// Gateway event hooks: HERMES_HOME/hooks/<name>/HOOK.yaml (name, description, events) plus a
// handler module beside it (handler.mjs, handler.js or handler.ts) exporting
// `handle(eventType, context)` (sync or async). Loaded once at gateway start; a failing or slow
// handler is logged and never disturbs the gateway. Events: gateway:startup, session:start,
// session:end, session:reset, agent:start, agent:step, agent:end, command:<name>; an `events`
// entry ending in `*` matches a prefix (`command:*`).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';

export interface LoadedHook {
  name: string;
  description: string;
  events: string[];
  handle: (eventType: string, context: Record<string, unknown>) => unknown;
}

const HANDLER_FILES = ['handler.mjs', 'handler.js', 'handler.ts'];
const HOOK_TIMEOUT_MS = 30_000;

/** One folder of HERMES_HOME/hooks, as found (nothing imported). */
export interface GatewayHookDir {
  name: string;
  dir: string;
  displayName: string;
  description: string;
  events: string[];
  /** The JavaScript handler to import, when there is one. */
  handler?: string;
  /** Only a handler.py (written for Python Hermes). */
  python: boolean;
  /** Why it does not load (a Python handler, no events, no handler). */
  problem?: string;
}

/** What to do with a handler.py: the same contract, in JavaScript. */
export const PYTHON_HOOK_ADVICE =
  'handler.py is a Python gateway hook, which Hermes in TypeScript cannot run, so this hook is NOT loaded. ' +
  'Port it to handler.mjs in the same folder (`export async function handle(eventType, context) { … }`, same events and context keys), ' +
  'then restart the gateway; `hermes hooks doctor` checks it.';

/** The gateway hook folders of a home with their manifests read. */
export function scanGatewayHooks(home: string, parse: (text: string) => unknown): GatewayHookDir[] {
  const dir = join(home, 'hooks');
  if (!existsSync(dir)) return [];
  const out: GatewayHookDir[] = [];
  for (const name of readdirSync(dir).sort()) {
    const hdir = join(dir, name);
    try {
      if (!statSync(hdir).isDirectory()) continue;
    } catch {
      continue;
    }
    const manifest = join(hdir, 'HOOK.yaml');
    if (!existsSync(manifest)) continue;
    const h: GatewayHookDir = { name, dir: hdir, displayName: name, description: '', events: [], python: false };
    try {
      const meta = (parse(readFileSync(manifest, 'utf8')) ?? {}) as Record<string, unknown>;
      h.displayName = String(meta.name ?? name);
      h.description = String(meta.description ?? '');
      h.events = Array.isArray(meta.events) ? meta.events.map(String) : [];
    } catch (e) {
      h.problem = `HOOK.yaml cannot be read (${(e as Error).message}); skipped`;
      out.push(h);
      continue;
    }
    h.handler = HANDLER_FILES.map((f) => join(hdir, f)).find((f) => existsSync(f));
    h.python = !h.handler && existsSync(join(hdir, 'handler.py'));
    if (h.python) h.problem = PYTHON_HOOK_ADVICE;
    else if (!h.events.length) h.problem = 'HOOK.yaml lists no events; skipped';
    else if (!h.handler) h.problem = `no handler (${HANDLER_FILES.join(', ')}); skipped`;
    out.push(h);
  }
  return out;
}

export class HookBus {
  readonly hooks: LoadedHook[] = [];
  private readonly log: (line: string, level?: 'WARNING') => void;

  constructor(log: (line: string, level?: 'WARNING') => void) {
    this.log = log;
  }

  async load(home: string): Promise<void> {
    const dir = join(home, 'hooks');
    if (!existsSync(dir)) return;
    for (const h of scanGatewayHooks(home, (t) => parse(t))) {
      if (h.problem) {
        // A Python hook is reported loudly (WARNING, so it reaches errors.log and the console), never skipped silently.
        this.log(`hooks: ${h.name}: ${h.problem}`, h.python ? 'WARNING' : undefined);
        continue;
      }
      try {
        const mod = (await import(pathToFileURL(h.handler!).href)) as { handle?: unknown; default?: { handle?: unknown } | ((...a: unknown[]) => unknown) };
        const handle = typeof mod.handle === 'function' ? mod.handle : typeof mod.default === 'function' ? mod.default : typeof mod.default?.handle === 'function' ? mod.default.handle : null;
        if (!handle) {
          this.log(`hooks: ${h.name}: ${h.handler} exports no handle(eventType, context); skipped`);
          continue;
        }
        this.hooks.push({ name: h.displayName, description: h.description, events: h.events, handle: handle as LoadedHook['handle'] });
        this.log(`hooks: loaded ${h.name} (${h.events.join(', ')})`);
      } catch (e) {
        this.log(`hooks: ${h.name}: failed to load: ${(e as Error).message}`);
      }
    }
  }

  private matches(pattern: string, event: string): boolean {
    return pattern === event || pattern === '*' || (pattern.endsWith('*') && event.startsWith(pattern.slice(0, -1)));
  }

  /** Runs every matching handler; resolves when all settled (errors are logged, never thrown). */
  emit(event: string, context: Record<string, unknown>): Promise<void> {
    const targets = this.hooks.filter((h) => h.events.some((p) => this.matches(p, event)));
    if (!targets.length) return Promise.resolve();
    return Promise.all(
      targets.map(async (h) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve().then(() => h.handle(event, { ...context })),
            new Promise((_, rej) => {
              timer = setTimeout(() => rej(new Error(`timed out after ${HOOK_TIMEOUT_MS / 1000}s`)), HOOK_TIMEOUT_MS);
              timer.unref?.();
            }),
          ]);
        } catch (e) {
          this.log(`hooks: ${h.name} on ${event}: ${(e as Error)?.message ?? String(e)}`);
        } finally {
          if (timer) clearTimeout(timer);
        }
      }),
    ).then(() => undefined);
  }
}
