// terminal: run a shell command on the session's backend (local, ssh, docker), in the foreground
// with a timeout, or in the background through the process registry.
import { z } from 'zod';
import { analyzeCommand } from '../policy/dangerous.ts';
import { approveCommand } from './approval.ts';
import { onSessionClose } from './cleanup.ts';
import { BackendConfigError, getBackend } from './env/index.ts';
import type { ExecutionBackend } from './env/types.ts';
import { processRegistry } from './process-registry.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';
import type { ToolContext } from './types.ts';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[()][A-Za-z0-9]/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Keeps the head (40%) and tail (60%) of long output, marking what was cut. */
export function capOutput(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = Math.floor(max * 0.4);
  const tail = max - head;
  return `${s.slice(0, head)}\n\n[… ${(s.length - head - tail).toLocaleString('en-US')} characters of output omitted …]\n\n${s.slice(-tail)}`;
}

/** Terminal output for the model: escape codes removed, CRLF (pty) normalized, capped. */
export function cleanOutput(raw: string, max: number): string {
  return capOutput(stripAnsi(raw).replace(/\r+\n/g, '\n'), max);
}

export const FOREGROUND_MAX_S = 600;

const usesSudo = (command: string) => analyzeCommand(command).commands.some((c) => c[0] && c[0].replace(/^.*\//, '') === 'sudo');

/** `sudo` → `sudo -S -p ''` at command positions, so a password can come on stdin. */
export function sudoWithStdin(command: string): string {
  return command.replace(/(^|[;&|(`\n]\s*|\$\(\s*|\bthen\s+|\bdo\s+)sudo(?=\s)/g, "$1sudo -S -p ''");
}

async function sudoPassword(command: string, ctx: ToolContext, backend: ExecutionBackend): Promise<string | undefined> {
  if (!usesSudo(command)) return undefined;
  const s = ctx.services;
  const fromEnv = s.env.SUDO_PASSWORD;
  if (fromEnv) return fromEnv;
  const cached = s.state.get('sudo_password') as string | undefined;
  if (cached) return cached;
  if (backend.kind !== 'local') return undefined;
  // Passwordless or cached sudo needs nothing.
  const probe = await backend.exec('sudo -n true', { timeoutMs: 10_000, signal: ctx.signal });
  if (probe.exitCode === 0) return undefined;
  const { answer } = await ctx.ask({ kind: 'secret', name: 'SUDO_PASSWORD', prompt: `sudo password (kept for this session only) to run: ${command.slice(0, 200)}` });
  if (typeof answer === 'string' && answer) {
    s.state.set('sudo_password', answer);
    return answer;
  }
  return undefined;
}

export default defineTool({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    'Run a shell command (bash) and get its combined output and exit code. The terminal backend may be local, SSH or a container; ' +
    'on SSH and container backends one shell persists between calls (cd and exports carry over). ' +
    'Use `background: true` for servers and long jobs (then the process tool to poll, read logs, wait, write input or kill), and `pty: true` for programs that need a terminal. ' +
    'Do not use cat/head/tail/grep/find to read or search files: use read_file and search_files. ' +
    'Dangerous commands (recursive deletes, disk writes, piping downloads into a shell, …) need the user\'s approval and some are never allowed.',
  schema: z.object({
    command: z.string().min(1).describe('The command to run'),
    background: z.boolean().optional().describe('Run in the background and return a session_id for the process tool (default false)'),
    timeout: z.coerce.number().int().min(1).optional().describe(`Seconds before a foreground command is killed (default terminal.timeout, 180; at most ${FOREGROUND_MAX_S})`),
    workdir: z.string().optional().describe('Directory to run in (default: the session working directory / the shell\'s current directory)'),
    pty: z.boolean().optional().describe('Run in a pseudo-terminal, for interactive programs (local and SSH)'),
  }),
  async handler(a, ctx) {
    const s = ctx.services;
    let backend: ExecutionBackend;
    try {
      backend = getBackend(s);
    } catch (e) {
      if (e instanceof BackendConfigError) return fail(e.message, { output: '', exit_code: -1 });
      throw e;
    }
    const cwd = a.workdir ? (backend.kind === 'local' ? resolvePath(a.workdir, await backend.currentCwd()) : a.workdir) : undefined;

    const approval = await approveCommand(a.command, ctx, { container: backend.isContainer });
    if (!approval.allowed) return fail(approval.reason, { output: '', exit_code: -1, status: approval.hardline ? 'blocked' : 'denied' });

    const password = await sudoPassword(a.command, ctx, backend);
    const command = password ? sudoWithStdin(a.command) : a.command;
    const max = s.config.tool_output?.max_bytes ?? 50_000;

    if (a.background) {
      const reg = processRegistry(s.home);
      let p;
      try {
        p = await reg.spawn(backend, command, { cwd: cwd ?? (await backend.currentCwd()), pty: !!a.pty, taskId: s.taskId });
      } catch (e) {
        return fail(`Could not start the background process: ${(e as Error).message}`, { output: '', exit_code: -1 });
      }
      if (password) p.bg?.child.write(`${password}\n`);
      // The session's background processes end with it (every task id it had, e.g. across /new).
      let tasks = s.state.get('process_tasks') as Set<string> | undefined;
      if (!tasks) {
        const mine = new Set<string>();
        tasks = mine;
        s.state.set('process_tasks', mine);
        onSessionClose(s, async () => {
          await Promise.all([...mine].map((t) => reg.killTask(t)));
        });
      }
      tasks.add(s.taskId);
      const orphans = reg.orphanNotice();
      return ok({
        ...(orphans ? { notice: orphans } : {}),
        output: `Background process started on ${backend.label}. Use the process tool with session_id "${p.id}" to poll, read its log, wait, send input or kill it.`,
        session_id: p.id,
        pid: p.pid,
        exit_code: 0,
        error: null,
      });
    }

    const configured = s.config.terminal?.timeout ?? 180;
    const timeoutS = a.timeout ?? configured;
    const limit = Math.max(FOREGROUND_MAX_S, configured);
    if (timeoutS > limit)
      return fail(`A foreground command may run at most ${limit} s. For longer jobs use background: true, then the process tool (wait/poll/log).`, { output: '', exit_code: -1 });

    let r;
    try {
      r = await backend.exec(command, { cwd, timeoutMs: timeoutS * 1000, signal: ctx.signal, stdin: password !== undefined ? `${password}\n` : undefined, pty: !!a.pty });
    } catch (e) {
      return fail((e as Error).message, { output: '', exit_code: -1 });
    }
    const output = cleanOutput(r.output, max);
    const result: Record<string, unknown> = {
      output,
      exit_code: r.timedOut ? 124 : r.interrupted ? 130 : (r.exitCode ?? -1),
      error: null,
    };
    if (r.timedOut) result.error = `Command timed out after ${timeoutS}s and was killed. Use a longer timeout, or background: true for long-running commands.`;
    else if (r.interrupted) result.error = 'Command was interrupted by the user.';
    else if (/sudo: (a terminal is required|a password is required|no tty present)/.test(output))
      result.error = 'sudo needs a password: the user can set SUDO_PASSWORD in ~/.hermes/.env, or run the command themselves.';
    if (r.note) result.note = r.note;
    const orphans = processRegistry(s.home).orphanNotice();
    if (orphans) result.notice = orphans;
    return { content: ok(result), isError: r.timedOut || r.interrupted };
  },
});
