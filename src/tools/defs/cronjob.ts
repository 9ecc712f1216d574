// cronjob: create, list, update, pause, resume, remove and run scheduled jobs (cron/jobs.json).
// The surface lends the implementation (ToolSession.cron: src/cron/service.ts, which loads
// src/cron/tool.ts on the first call); tools never import cron.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) =>
  z.object({
  action: z.enum(['create', 'list', 'update', 'pause', 'resume', 'remove', 'run']),
  job_id: z.string().optional().describe('ID or exact name'),
  prompt: z.string().optional(),
  schedule: z
    .string()
    .optional()
    .describe('"in 2h", "every 30m", "0 9 * * *" or an ISO time'),
  name: z.string().optional(),
  repeat: z.union([z.number().int(), z.string()]).optional(),
  deliver: z
    .string()
    .optional()
    .describe('Default this chat; "local", "<platform>" or "<platform>:<chat_id>"'),
  skills: z.array(z.string()).optional(),
  skill: z.string().optional(),
  model: z.string().optional(),
  provider: z.string().optional(),
  script: z.string().optional().describe('In HERMES_HOME/scripts/, run first; its output is context'),
  no_agent: z.boolean().optional().describe('Deliver the script output, no LLM'),
  context_from: z.array(z.string()).optional().describe('Job IDs whose last output is context'),
  enabled_toolsets: z.array(z.string()).optional(),
  workdir: z.string().optional(),
  reason: z.string().optional(),
  include_disabled: z.boolean().optional(),
});

export type CronjobArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'cronjob',
  toolset: 'cronjob',
  emoji: '⏰',
  description:
    'Schedule prompts to run later or repeatedly (job_id from list). Each run is a fresh unattended session: make the prompt self-contained. The answer goes to deliver.',
  schema,
  // Cron runs never schedule more cron jobs, and subagents do not manage them either.
  check: (s) => !!s.cron && s.platform !== 'cron' && (s.depth ?? 0) === 0,
  requirement: (s) => (s.platform === 'cron' ? 'not offered to scheduled runs' : (s.depth ?? 0) > 0 ? 'not offered to subagents' : 'no scheduler on this surface'),
  async handler(a, ctx) {
    const cron = ctx.cron;
    if (!cron) throw new Error('scheduling is not available on this surface');
    return cron.cronjob(a, ctx);
  },
});
