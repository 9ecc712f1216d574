// /curator [status|run [--dry-run]|pause|resume|pin <skill>|unpin <skill>|restore <skill>|list-archived]:
// the skill curator from a conversation (state/curator.ts; `hermes curator` is the full command).
import { curatorSettings, curatorStatusText, setPaused } from '../state/curator.ts';
import { isAgentCreated, listArchived, restoreSkill, setPinned } from '../state/skill-usage.ts';
import { ALL_SURFACES, type CommandDef } from './registry.ts';

const USAGE = 'Usage: /curator [status|run [--dry-run] [--consolidate]|pause|resume|pin <skill>|unpin <skill>|restore <skill>|list-archived]';

export function curatorCommand(): CommandDef {
  return {
    name: 'curator',
    args: '[status|run|pause|resume|pin|unpin|restore|list-archived]',
    description: 'skill maintenance: stale and archived agent-created skills, pins',
    category: 'tools',
    surfaces: ALL_SURFACES,
    completions: ['status', 'run', 'run --dry-run', 'run --consolidate', 'pause', 'resume', 'pin', 'unpin', 'restore', 'list-archived'],
    async run(ctx, args) {
      const home = ctx.session.info.home;
      const s = curatorSettings(ctx.session.settings.config);
      const [sub = 'status', ...rest] = args.trim().split(/\s+/).filter(Boolean);
      const name = rest[0];
      switch (sub) {
        case 'status':
          return { output: curatorStatusText(home, s) };
        case 'run': {
          if (!s.enabled) return { output: 'The curator is disabled (curator.enabled: false in config.yaml).' };
          const dry = rest.includes('--dry-run');
          const { runCuratorPass } = await import('../session/curator-review.ts');
          const o = { config: ctx.session.settings.config, env: ctx.session.info.env };
          const r = await runCuratorPass({ home, config: o.config, env: o.env, dryRun: dry, consolidate: rest.includes('--consolidate') ? true : undefined });
          const lines = r.record.state_transitions.map((t) => `  ${t.name}: ${t.from} → ${t.to}`);
          return { output: [`Curator ${dry ? 'dry run' : 'run'}: ${r.summary}`, ...lines, `Report: ${r.reportDir}/REPORT.md`].join('\n') };
        }
        case 'pause':
        case 'resume':
          setPaused(home, sub === 'pause');
          return { output: `Curator ${sub === 'pause' ? 'paused' : 'resumed'}.` };
        case 'pin':
        case 'unpin':
          if (!name) return { output: USAGE };
          if (!isAgentCreated(home, name)) return { output: `${name} is bundled or hub-installed: the curator never touches it.` };
          return { output: setPinned(home, name, sub === 'pin') ? `${sub === 'pin' ? 'Pinned' : 'Unpinned'} ${name}.` : `Could not update skills/.usage.json.` };
        case 'restore': {
          if (!name) return { output: USAGE };
          const r = restoreSkill(home, name);
          return { output: r.ok ? `Restored ${name} (${r.message}). /reload-skills makes it a command again.` : `Not restored: ${r.message}.` };
        }
        case 'list-archived': {
          const names = listArchived(home);
          return { output: names.length ? `Archived skills:\n${names.map((n) => `  ${n}`).join('\n')}` : 'No archived skills.' };
        }
        default:
          return { output: USAGE };
      }
    },
  };
}
