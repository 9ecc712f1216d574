// /cron: manage scheduled jobs from a chat (CLI REPL and gateway), through the cronjob tool's code.
import { splitArgs } from '../policy/split-args.ts';
import type { CommandContext, CommandDef } from './registry.ts';

const USAGE = [
  '/cron [list]                          list jobs',
  '/cron add <schedule> <prompt> [--skill s] [--deliver t] [--name n] [--repeat n]',
  '/cron edit <job> [--schedule s] [--prompt p] [--deliver t] [--name n] [--skill s] [--add-skill s] [--remove-skill s] [--clear-skills]',
  '/cron pause|resume|run|remove <job>',
  'Schedules: "30m", "every 2h", "every monday 9am", "0 9 * * *", "2026-06-01T09:00".',
].join('\n');

/** Splits a command line into words, keeping "quoted strings" together. */
const REPEATABLE = new Set(['skill', 'add-skill', 'remove-skill']);

function parseFlags(words: string[]): { rest: string[]; flags: Record<string, string | string[] | true> } {
  const rest: string[] = [];
  const flags: Record<string, string | string[] | true> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (!w.startsWith('--') || w.length < 3) {
      rest.push(w);
      continue;
    }
    const name = w.slice(2);
    if (name === 'clear-skills') {
      flags[name] = true;
      continue;
    }
    const value = words[++i];
    if (value === undefined) throw new Error(`--${name} needs a value.`);
    if (REPEATABLE.has(name)) flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  return { rest, flags };
}

type Json = Record<string, any>;

/** Runs the cronjob tool's action `a` for a slash command (/cron, /suggestions accept), as the session's tool would. */
export async function cronToolCall(ctx: CommandContext, a: Json): Promise<{ json: Json; error: boolean }> {
  const { cronjobTool } = await import('../cron/tool.ts');
  const { toolContext } = await import('../tools/context.ts');
  const ac = new AbortController();
  const slash = {
    callId: `slash_cron_${Date.now()}`,
    signal: ac.signal,
    ask: (async () => ({ answer: null, source: 'no_responder' })) as never,
    progress: () => {},
  };
  const r = await cronjobTool(a as never, toolContext(slash, ctx.session.services));
  const content = typeof r === 'string' ? r : r.content;
  return { json: JSON.parse(content) as Json, error: typeof r !== 'string' && !!r.isError };
}

function describeJob(j: Json): string {
  const bits = [`${j.job_id} [${j.state}] ${j.name}`, `  ${j.schedule} · ${j.repeat} · deliver: ${j.deliver}`, `  next: ${j.next_run_at ?? '—'}`];
  if (j.skills?.length) bits.push(`  skills: ${j.skills.join(', ')}`);
  if (j.last_status) bits.push(`  last: ${j.last_run_at} ${j.last_status === 'ok' ? 'ok' : `${j.last_status}: ${j.last_error}`}`);
  if (j.last_delivery_error) bits.push(`  ⚠ delivery failed: ${j.last_delivery_error}`);
  return bits.join('\n');
}

export function cronCommand(): CommandDef {
  return {
    name: 'cron',
    args: '[list|add|edit|pause|resume|run|remove] …',
    description: 'manage scheduled jobs',
    category: 'tools',
    surfaces: ['cli', 'gateway'],
    completions: ['list', 'add', 'edit', 'pause', 'resume', 'run', 'remove'],
    async run(ctx, args) {
      const words = splitArgs(args);
      const sub = (words.shift() ?? 'list').toLowerCase();
      let parsed: ReturnType<typeof parseFlags>;
      try {
        parsed = parseFlags(words);
      } catch (e) {
        return { output: `${(e as Error).message}\n${USAGE}` };
      }
      const { rest, flags } = parsed;
      const str = (k: string) => (typeof flags[k] === 'string' ? (flags[k] as string) : undefined);
      const call = (a: Json) => cronToolCall(ctx, a);
      const fail = (json: Json) => ({ output: `✗ ${json.error}` });

      if (sub === 'list' || sub === 'ls') {
        const { json } = await call({ action: 'list' });
        if (!json.count) return { output: 'No scheduled jobs. Add one: /cron add "every 2h" "Check the server"' };
        return { output: [...json.jobs.map(describeJob), ...(json.note ? [`⚠ ${json.note}`] : [])].join('\n\n') };
      }
      if (sub === 'add' || sub === 'create') {
        if (rest.length < 2) return { output: USAGE };
        // The schedule is the longest leading run of words that parses as one ("every monday 9am …").
        const { parseSchedule } = await import('../cron/schedule.ts');
        let n = Math.min(5, rest.length - 1);
        for (; n > 1; n--) {
          try {
            parseSchedule(rest.slice(0, n).join(' '), { now: Date.now, tz: 'UTC' });
            break;
          } catch {
            /* shorter */
          }
        }
        const r = await call({
          action: 'create',
          schedule: rest.slice(0, n).join(' '),
          prompt: rest.slice(n).join(' '),
          skills: flags.skill,
          deliver: str('deliver'),
          name: str('name'),
          repeat: str('repeat'),
        });
        if (r.error) return fail(r.json);
        return { output: `Created job ${r.json.job_id}: ${r.json.name}\n  ${r.json.schedule} · ${r.json.repeat} · deliver: ${r.json.deliver}\n  next: ${r.json.next_run_at}${r.json.note ? `\n⚠ ${r.json.note}` : ''}` };
      }
      const ref = rest.join(' ');
      if (!ref) return { output: USAGE };
      if (sub === 'edit') {
        const a: Json = { action: 'update', job_id: ref };
        for (const k of ['schedule', 'prompt', 'name', 'deliver', 'repeat']) if (str(k) !== undefined) a[k] = str(k);
        if (flags['clear-skills']) a.skills = [];
        else if (flags.skill) a.skills = flags.skill;
        else if (flags['add-skill'] || flags['remove-skill']) {
          const cur = await call({ action: 'list' });
          const job = (cur.json.jobs as Json[]).find((j) => j.job_id === ref || String(j.name).toLowerCase() === ref.toLowerCase());
          const drop = new Set((flags['remove-skill'] as string[] | undefined) ?? []);
          a.skills = [...((job?.skills as string[]) ?? []).filter((s) => !drop.has(s)), ...((flags['add-skill'] as string[] | undefined) ?? [])];
        }
        const r = await call(a);
        return r.error ? fail(r.json) : { output: `Updated:\n${describeJob(r.json.job)}` };
      }
      const action = { pause: 'pause', resume: 'resume', run: 'run', remove: 'remove', rm: 'remove', delete: 'remove' }[sub];
      if (!action) return { output: `Unknown /cron subcommand "${sub}".\n${USAGE}` };
      const r = await call({ action, job_id: ref, reason: str('reason') });
      if (r.error) return fail(r.json);
      if (action === 'remove') return { output: r.json.message };
      if (action === 'run') {
        const j = r.json.job;
        if (j.executed === 'started') return { output: `Started ${j.name} in the background; output goes to ${j.deliver}.` };
        const lines = [`${j.execution_success ? '✓' : '✗'} ${j.name}: ${j.execution_success ? 'ok' : `failed: ${j.execution_error}`}`];
        if (j.delivery_error) lines.push(`  ⚠ delivery failed: ${j.delivery_error}`);
        if (j.output_file) lines.push(`  output: ${j.output_file}`);
        return { output: lines.join('\n') };
      }
      return { output: `${action === 'pause' ? 'Paused' : 'Resumed'}:\n${describeJob(r.json.job)}` };
    },
  };
}
