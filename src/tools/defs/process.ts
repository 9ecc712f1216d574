// process: manage background processes started with terminal(background=true). The
// implementation (impl/process.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';

const ACTIONS = ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit'] as const;

const schema = (z: Zod) =>
  z.object({
  action: z.enum(ACTIONS),
  session_id: z.string().optional().describe('From terminal; not for list'),
  data: z.string().optional(),
  timeout: z.coerce.number().int().min(1).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).optional(),
});

export type ProcessArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'process',
  toolset: 'terminal',
  emoji: '⚙️',
  description:
    'Manage background processes from terminal: list, poll (new output), log (lines by offset/limit), wait (until exit or timeout s), kill, write/submit (data to stdin; submit adds Enter).',
  schema,
  async handler(a, ctx) {
    const { runProcess } = await import('../impl/process.ts');
    return runProcess(a, ctx);
  },
});
