// process: manage background processes started with terminal(background=true). The
// implementation (impl/process.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';

const ACTIONS = ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit'] as const;

const schema = (z: Zod) =>
  z.object({
  action: z.enum(ACTIONS).describe('list | poll | log | wait | kill | write | submit'),
  session_id: z.string().optional().describe('The process id from terminal (proc_…); required except for list'),
  data: z.string().optional().describe('Text for write/submit'),
  timeout: z.coerce.number().int().min(1).optional().describe('Seconds to wait (wait; default terminal.timeout, 180)'),
  offset: z.coerce.number().int().min(0).optional().describe('First line for log (0-based)'),
  limit: z.coerce.number().int().min(1).optional().describe('Lines for log (default 200)'),
});

export type ProcessArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'process',
  toolset: 'terminal',
  emoji: '⚙️',
  description:
    'Manage background processes started with terminal(background=true). Actions: ' +
    '`list` (all processes, including any left running by a Hermes that crashed); ' +
    '`poll` (status and the output since the last poll); ' +
    '`log` (the output by lines: offset/limit, default the last 200 lines); ' +
    '`wait` (block until it exits or `timeout` seconds pass; returns early if the user interrupts); ' +
    '`kill`; `write` (send `data` to its stdin); `submit` (send `data` and Enter).',
  schema,
  async handler(a, ctx) {
    const { runProcess } = await import('./impl/process.ts');
    return runProcess(a, ctx);
  },
});
