// cronjob: create, list, update, pause, resume, remove and run scheduled jobs (cron/jobs.json).
// The implementation (src/cron/tool.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';

const schema = (z: Zod) =>
  z.object({
  action: z.enum(['create', 'list', 'update', 'pause', 'resume', 'remove', 'run']).describe('create, list, update, pause, resume, remove or run'),
  job_id: z.string().optional().describe('The job (ID, or its exact name) for update/pause/resume/remove/run. List first; never guess IDs.'),
  prompt: z.string().optional().describe('For create/update: the complete, self-contained task. With skills, the instruction that goes with them.'),
  schedule: z
    .string()
    .optional()
    .describe(
      'For create/update: "30m" or "in 2h" (once, after a delay); "every 30m", "every 2h" (repeating); "every monday 9am", "weekdays at 9:30" (weekly/daily); "0 9 * * *" (cron); "2026-06-01T09:00:00" (once, at that time).',
    ),
  name: z.string().optional().describe('A short human-friendly name'),
  repeat: z.union([z.number().int(), z.string()]).optional().describe('How many times to run; omit for the default (once for one-shots, forever otherwise)'),
  deliver: z
    .string()
    .optional()
    .describe(
      'Where the output goes. Omit to send it back to this chat (origin) when there is one, else local. "local" = saved to a file only; "telegram" = that platform\'s home channel; "telegram:<chat_id>[:<thread_id>]" = a specific chat. Comma-separate several.',
    ),
  skills: z.array(z.string()).optional().describe('Skills loaded, in order, before the prompt. On update, [] clears them.'),
  skill: z.string().optional().describe('One skill (older form of `skills`)'),
  model: z.string().optional().describe('Run this job on a specific model (default: the configured model)'),
  provider: z.string().optional().describe('Provider for `model`'),
  script: z.string().optional().describe('A script in HERMES_HOME/scripts/ run before each run; its output is given to the agent as context. On update, "" clears it.'),
  no_agent: z.boolean().optional().describe('No LLM: deliver the script\'s stdout as it is (empty: nothing sent)'),
  context_from: z.array(z.string()).optional().describe('Job IDs whose latest output each run gets as context. [] clears'),
  enabled_toolsets: z.array(z.string()).optional().describe('Only these toolsets for the run (e.g. ["web"]). [] clears'),
  workdir: z.string().optional().describe('Absolute directory the job works in (tools start there). On update, "" clears it.'),
  reason: z.string().optional().describe('For pause: why'),
  include_disabled: z.boolean().optional().describe('For list: include paused and completed jobs (default true)'),
});

export type CronjobArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'cronjob',
  toolset: 'cronjob',
  emoji: '⏰',
  description:
    'Manage scheduled jobs. action=create schedules a task from a prompt (and/or skills); list shows jobs; update, pause, resume, remove and run act on one job by job_id (list first — never guess IDs). ' +
    'Each run happens in a fresh session with no memory of this chat, so write the prompt to be complete on its own. The agent\'s final answer of each run is delivered automatically to the job\'s target; runs are unattended and cannot ask questions. ' +
    'Prefer updating an existing job over creating a near-duplicate.',
  schema,
  // Cron runs never schedule more cron jobs, and subagents do not manage them either.
  check: (s) => s.platform !== 'cron' && (s.depth ?? 0) === 0,
  requirement: (s) => (s.platform === 'cron' ? 'not offered to scheduled runs' : 'not offered to subagents'),
  async handler(a, ctx) {
    const { cronjobTool } = await import('../cron/tool.ts');
    return cronjobTool(a, ctx);
  },
});
