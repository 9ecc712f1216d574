// /suggestions: review suggested automations (Hermes's hermes_cli/suggestions_cmd.py). List the
// pending ones, accept one (its cron job is created through the cronjob tool, delivering to where it
// was accepted), dismiss one for good, seed the curated catalog, or clear accepted records.
import { cronToolCall } from './cron.ts';
import type { CommandDef } from './registry.ts';

const USAGE = [
  'Usage:',
  '  /suggestions              list pending',
  '  /suggestions accept N     schedule suggestion N',
  '  /suggestions dismiss N    dismiss suggestion N',
  '  /suggestions catalog      add curated starter automations',
  '  /suggestions clear        housekeeping',
].join('\n');

export function suggestionsCommand(): CommandDef {
  return {
    name: 'suggestions',
    aliases: ['suggest'],
    args: '[accept|dismiss N | catalog | clear]',
    description: 'review suggested automations (accept or dismiss)',
    category: 'tools',
    surfaces: ['cli', 'gateway'],
    completions: ['accept', 'dismiss', 'catalog', 'clear'],
    async run(ctx, args) {
      const store = await import('../cron/suggestions.ts');
      const home = ctx.session.info.home;
      const [sub = '', ...restWords] = args.trim().split(/\s+/).filter(Boolean);
      const rest = restWords.join(' ');
      switch (sub.toLowerCase()) {
        case '': {
          const pending = store.listPending(home);
          if (!pending.length) return { output: 'No suggested automations right now.\nTry /suggestions catalog to see the curated starter set.' };
          const lines = ['Suggested automations — /suggestions accept N or dismiss N:', ''];
          pending.forEach((s, i) => {
            lines.push(`  ${i + 1}. ${s.title}  [${s.job_spec.schedule}]  (${s.source})`);
            if (s.description) lines.push(`     ${s.description}`);
          });
          return { output: lines.join('\n') };
        }
        case 'accept':
        case 'add':
        case 'schedule': {
          if (!rest) return { output: 'Usage: /suggestions accept <number|id>' };
          const s = store.findSuggestion(home, rest);
          if (!s || s.status !== 'pending') return { output: `No pending suggestion matches '${rest}'. Run /suggestions to list them.` };
          const spec = s.job_spec;
          const { json, error } = await cronToolCall(ctx, { action: 'create', schedule: spec.schedule, prompt: spec.prompt, name: spec.name ?? s.title, deliver: spec.deliver, skills: spec.skills });
          if (error || json.error) return { output: `✗ ${json.error ?? 'the job could not be created'}` };
          store.setSuggestionStatus(home, s.id, 'accepted');
          const sched = typeof json.schedule === 'string' ? json.schedule : spec.schedule;
          const manage = ctx.surface === 'cli' ? 'Manage it with /cron.' : 'Ask me to list, pause, or remove it any time (or /cron).';
          return { output: `Scheduled '${spec.name ?? s.title}' (${sched}). ${manage}` };
        }
        case 'dismiss':
        case 'no':
        case 'reject': {
          if (!rest) return { output: 'Usage: /suggestions dismiss <number|id>' };
          const s = store.findSuggestion(home, rest);
          if (!s || s.status !== 'pending') return { output: `No pending suggestion matches '${rest}'.` };
          store.setSuggestionStatus(home, s.id, 'dismissed');
          return { output: "Dismissed. Won't suggest that again." };
        }
        case 'catalog': {
          const added = store.seedCatalog(home);
          if (!added.length) return { output: 'No new catalog automations to add (already offered, dismissed, or your suggestion list is full). Run /suggestions to see pending.' };
          return { output: `Added ${added.length} suggestion(s): ${added.map((s) => s.title).join(', ')}.\nRun /suggestions to review.` };
        }
        case 'clear':
          return { output: `Cleared ${store.clearResolved(home)} resolved suggestion record(s).` };
        default:
          return { output: USAGE };
      }
    },
  };
}
