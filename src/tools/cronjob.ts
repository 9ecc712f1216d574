// cronjob: create, list, update, pause, resume, remove and run scheduled jobs (cron/jobs.json).
// The surface lends the implementation (ToolServices.cron: src/cron/service.ts, which loads
// src/cron/tool.ts on the first call); tools never import cron.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';

const schema = (z: Zod) =>
  z.object({
  action: z.enum(['create', 'list', 'update', 'pause', 'resume', 'remove', 'run']),
  job_id: z.string().optional().describe('Job ID or exact name (list first)'),
  prompt: z.string().optional().describe('The complete, self-contained task'),
  schedule: z
    .string()
    .optional()
    .describe('"in 2h", "every 30m", "weekdays at 9:30", "0 9 * * *" or an ISO time'),
  name: z.string().optional().describe('Short name'),
  repeat: z.union([z.number().int(), z.string()]).optional().describe('Run count (default: once for one-shots, else forever)'),
  deliver: z
    .string()
    .optional()
    .describe('Default: this chat, else local. "local", "<platform>" (home channel) or "<platform>:<chat_id>[:<thread_id>]", comma-separated'),
  skills: z.array(z.string()).optional().describe('Skills loaded before the prompt ([] clears)'),
  skill: z.string().optional().describe('Older form of skills'),
  model: z.string().optional().describe('Model for the runs'),
  provider: z.string().optional(),
  script: z.string().optional().describe('Script in HERMES_HOME/scripts/ run first; its output is context ("" clears)'),
  no_agent: z.boolean().optional().describe('Deliver the script output as is, no LLM'),
  context_from: z.array(z.string()).optional().describe('Job IDs whose last output is context'),
  enabled_toolsets: z.array(z.string()).optional().describe('Toolsets for the run'),
  workdir: z.string().optional().describe('Absolute working directory'),
  reason: z.string().optional(),
  include_disabled: z.boolean().optional().describe('list: include paused/finished (default true)'),
});

export type CronjobArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'cronjob',
  toolset: 'cronjob',
  emoji: '⏰',
  description:
    'Schedule tasks. create (prompt and/or skills, schedule); list; update/pause/resume/remove/run one job by job_id (list first, never guess). ' +
    'Each run is a fresh, unattended session that does not see this chat: make the prompt complete. Its final answer is delivered to `deliver`. Update rather than duplicate.',
  schema,
  // Cron runs never schedule more cron jobs, and subagents do not manage them either.
  check: (s) => !!s.cron && s.platform !== 'cron' && (s.depth ?? 0) === 0,
  requirement: (s) => (s.platform === 'cron' ? 'not offered to scheduled runs' : (s.depth ?? 0) > 0 ? 'not offered to subagents' : 'no scheduler on this surface'),
  async handler(a, ctx) {
    const cron = ctx.services.cron;
    if (!cron) throw new Error('scheduling is not available on this surface');
    return cron.cronjob(a, ctx);
  },
});
