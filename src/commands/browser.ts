// /browser connect|disconnect|status: point the browser tools at a Chrome the user runs (started
// with --remote-debugging-port=9222) so their logins are used, go back to Hermes's own browser, or
// show which browser the tools drive. Every surface (REPL, gateway, ACP) shares it.
import { ALL_SURFACES, type CommandDef } from './registry.ts';

const DEFAULT_CDP = 'http://127.0.0.1:9222';

export function browserCommand(): CommandDef {
  return {
    name: 'browser',
    args: '[connect [url]|disconnect|status]',
    description: 'connect the browser tools to your running Chrome (CDP), disconnect, or show status',
    category: 'tools',
    surfaces: ALL_SURFACES,
    completions: ['connect', 'disconnect', 'status'],
    async run(ctx, args) {
      const { browserCommandAction } = await import('../tools/browser/command.ts');
      return { output: await browserCommandAction(ctx.session.services, args, DEFAULT_CDP) };
    },
  };
}
