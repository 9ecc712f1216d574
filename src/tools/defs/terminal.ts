// terminal: run a shell command on the session's backend (local, ssh, docker), in the foreground
// with a timeout, or in the background through the process registry. The implementation
// (impl/terminal.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';

export { capOutput, cleanOutput, stripAnsi } from '../output.ts';

export const FOREGROUND_MAX_S = 600;

const schema = (z: Zod) =>
  z.object({
  command: z.string().min(1),
  background: z.boolean().optional(),
  timeout: z.coerce.number().int().min(1).optional().describe(`Seconds (default 180, max ${FOREGROUND_MAX_S})`),
  workdir: z.string().optional(),
  pty: z.boolean().optional(),
  unsandboxed: z
    .boolean()
    .optional()
    .describe('Run outside the OS sandbox; only after a sandbox denial, and the user must approve'),
  notify_on_complete: z
    .boolean()
    .optional()
    .describe('With background: a message tells you when it ends; do not poll'),
  watch_patterns: z
    .array(z.string())
    .optional()
    .describe('With background: report output lines containing these'),
});

export type TerminalArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    'Run a bash command; returns output and exit code. background for servers and long jobs (then use process), pty for interactive programs.',
  schema,
  async handler(a, ctx) {
    const { runTerminal } = await import('../impl/terminal.ts');
    return runTerminal(a, ctx);
  },
});
