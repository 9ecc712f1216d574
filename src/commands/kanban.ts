// /kanban: the `hermes kanban` commands from a chat (CLI REPL, gateway, ACP). Allowed while the agent
// works; a task created from a gateway chat reports back to that chat.
import type { CommandDef } from './registry.ts';

export function kanbanCommand(): CommandDef {
  return {
    name: 'kanban',
    args: '<list|show|create|comment|complete|block|unblock|assign|link|context|runs|stats|boards> …',
    description: 'the multi-agent task board',
    category: 'tools',
    surfaces: ['cli', 'gateway', 'acp'],
    midTurn: true,
    completions: ['list', 'show', 'create', 'comment', 'complete', 'block', 'unblock', 'assign', 'link', 'unlink', 'context', 'runs', 'tail', 'stats', 'boards', 'dispatch', 'archive'],
    async run(ctx, args) {
      const { runSlash } = await import('../kanban/cli-run.ts');
      const s = ctx.session.services;
      const output = await runSlash(args, {
        env: s.env,
        home: s.home,
        kanbanConfig: s.config.kanban ?? {},
        origin: ctx.surface === 'gateway' ? s.origin : undefined,
      });
      return { output };
    },
  };
}
