// /codex-runtime: every surface (REPL, gateway, ACP) shows or switches the turn runtime.
import { ALL_SURFACES, type CommandDef } from './registry.ts';

export function codexRuntimeCommand(): CommandDef {
  return {
    name: 'codex-runtime',
    args: '[auto|codex_app_server|on|off]',
    description: 'show or switch the runtime: Hermes’s loop, or OpenAI Codex over codex app-server',
    category: 'config',
    surfaces: ALL_SURFACES,
    completions: ['auto', 'codex_app_server', 'on', 'off'],
    async run(ctx, args) {
      const { applyCodexRuntime } = await import('../runners/codex/switch.ts');
      const s = ctx.session;
      const r = applyCodexRuntime({ home: s.info.home, config: s.settings.config, env: s.info.env, provider: s.runtime.provider, args, endpoint: s.runtime, cwd: s.info.cwd, yolo: s.services.yolo });
      return { output: r.output, action: r.changed ? 'runtime_changed' : undefined };
    },
  };
}
