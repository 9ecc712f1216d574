// The gateway hosts the kanban service (src/kanban/service.ts): the embedded dispatcher
// (kanban.dispatch_in_gateway, every kanban.dispatch_interval_seconds) and the watcher that tells
// the chat that created a task what became of it, through the gateway's delivery router, and fires
// the kanban_task_* hooks.
import type { HookBus } from './hooks.ts';

export interface KanbanLink {
  stop(): Promise<void>;
}

export async function startKanban(o: {
  home: string;
  env: NodeJS.ProcessEnv;
  send: (target: string, text: string) => Promise<{ ok: boolean; error?: string }>;
  hooks: HookBus;
  log: (line: string) => void;
}): Promise<KanbanLink> {
  const [{ startKanbanService }, { loadConfig }] = await Promise.all([import('../kanban/service.ts'), import('../state/config.ts')]);
  const config = () => {
    try {
      return ((loadConfig(o.home, o.env).config as { kanban?: Record<string, unknown> }).kanban ?? {}) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  return startKanbanService({
    env: { ...o.env, HERMES_HOME: o.home },
    config,
    log: o.log,
    notify: o.send,
    hook: (event, context) => void o.hooks.emit(event, context),
  });
}
