// terminal: run a shell command on the session's backend (local, ssh, docker), in the foreground
// with a timeout, or in the background through the process registry. The implementation
// (impl/terminal.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';

export { capOutput, cleanOutput, stripAnsi } from './output.ts';

export const FOREGROUND_MAX_S = 600;

const schema = (z: Zod) =>
  z.object({
  command: z.string().min(1).describe('The command to run'),
  background: z.boolean().optional().describe('Run in the background; returns a session_id for the process tool'),
  timeout: z.coerce.number().int().min(1).optional().describe(`Seconds before a foreground command is killed (default terminal.timeout, 180; at most ${FOREGROUND_MAX_S})`),
  workdir: z.string().optional().describe('Directory to run in (default: the session working directory / the shell\'s current directory)'),
  pty: z.boolean().optional().describe('Run in a pseudo-terminal, for interactive programs (local and SSH)'),
  unsandboxed: z
    .boolean()
    .optional()
    .describe('Run outside the OS sandbox (local backend). Only when a command failed on a sandbox denial and the task truly needs that write: the user is asked to approve it'),
  notify_on_complete: z
    .boolean()
    .optional()
    .describe('With background: you get one new message when it ends (builds, tests); keep working, do not poll'),
  watch_patterns: z
    .array(z.string())
    .optional()
    .describe('With background: output lines containing these are reported to you (max 1 per 15 s). For rare signals of servers, e.g. "Listening on"'),
});

export type TerminalArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    'Run a bash command; returns combined output and exit code. On SSH/container backends the shell persists (cd, exports). ' +
    '`background: true` for servers and long jobs (then the process tool), `pty: true` for interactive programs. ' +
    'Read and search files with read_file/search_files, not cat/grep/find. Dangerous commands need the user\'s approval.',
  schema,
  async handler(a, ctx) {
    const { runTerminal } = await import('./impl/terminal.ts');
    return runTerminal(a, ctx);
  },
});
