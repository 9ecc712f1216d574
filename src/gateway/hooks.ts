// Gateway event hooks: HERMES_HOME/hooks/<name>/HOOK.yaml (name, description, events) plus a
// handler module beside it (handler.mjs, handler.js or handler.ts) exporting
// `handle(eventType, context)` (sync or async). Loaded once at gateway start; a failing or slow
// handler is logged and never disturbs the gateway. Events: gateway:startup, session:start,
// session:end, session:reset, agent:start, agent:step, agent:end, command:<name>; an `events`
// entry ending in `*` matches a prefix (`command:*`).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface LoadedHook {
  name: string;
  description: string;
  events: string[];
  handle: (eventType: string, context: Record<string, unknown>) => unknown;
}

const HANDLER_FILES = ['handler.mjs', 'handler.js', 'handler.ts'];
const HOOK_TIMEOUT_MS = 30_000;

export class HookBus {
  readonly hooks: LoadedHook[] = [];
  private readonly log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.log = log;
  }

  async load(home: string): Promise<void> {
    const dir = join(home, 'hooks');
    if (!existsSync(dir)) return;
    const { parse } = await import('yaml');
    for (const name of readdirSync(dir).sort()) {
      const hdir = join(dir, name);
      try {
        if (!statSync(hdir).isDirectory()) continue;
        const manifest = join(hdir, 'HOOK.yaml');
        if (!existsSync(manifest)) continue;
        const meta = (parse(readFileSync(manifest, 'utf8')) ?? {}) as Record<string, unknown>;
        const events = Array.isArray(meta.events) ? meta.events.map(String) : [];
        if (!events.length) {
          this.log(`hooks: ${name}: HOOK.yaml lists no events; skipped`);
          continue;
        }
        const file = HANDLER_FILES.map((f) => join(hdir, f)).find((f) => existsSync(f));
        if (!file) {
          this.log(`hooks: ${name}: no handler (${HANDLER_FILES.join(', ')}); skipped`);
          continue;
        }
        const mod = (await import(pathToFileURL(file).href)) as { handle?: unknown; default?: { handle?: unknown } | ((...a: unknown[]) => unknown) };
        const handle = typeof mod.handle === 'function' ? mod.handle : typeof mod.default === 'function' ? mod.default : typeof mod.default?.handle === 'function' ? mod.default.handle : null;
        if (!handle) {
          this.log(`hooks: ${name}: ${file} exports no handle(eventType, context); skipped`);
          continue;
        }
        this.hooks.push({ name: String(meta.name ?? name), description: String(meta.description ?? ''), events, handle: handle as LoadedHook['handle'] });
        this.log(`hooks: loaded ${name} (${events.join(', ')})`);
      } catch (e) {
        this.log(`hooks: ${name}: failed to load: ${(e as Error).message}`);
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
