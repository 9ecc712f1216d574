import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import { filteredEnv } from '../policy/secrets-env.ts';
import { approveCommand } from './approval.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Keeps the head and tail of long output, marking what was cut. */
export function capOutput(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = Math.floor(max * 0.4);
  const tail = max - head;
  return `${s.slice(0, head)}\n\n[… ${(s.length - head - tail).toLocaleString('en-US')} characters of output omitted …]\n\n${s.slice(-tail)}`;
}

export interface RunResult {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
}

/** Runs `command` with bash in its own process group; kills the group on timeout or abort. */
export function runShell(
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal; stdin?: string },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const LIMIT = 64 * 1024 * 1024;
    const collect = (b: Buffer) => {
      if (size < LIMIT) chunks.push(b);
      size += b.length;
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
    let timedOut = false;
    let interrupted = false;
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 2000).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = () => {
      interrupted = true;
      kill();
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => chunks.push(Buffer.from(String(e.message))));
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      resolve({ output: Buffer.concat(chunks).toString('utf8'), exitCode: code, timedOut, interrupted });
    });
  });
}

export default defineTool({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    'Run a shell command (bash) and get its combined output and exit code. The working directory persists only through `workdir`; ' +
    'each call is a fresh shell. Do not use cat/head/tail/grep/find for files: use read_file and search_files. ' +
    'Long-running commands need a timeout; dangerous commands ask the user for approval first.',
  schema: z.object({
    command: z.string().min(1).describe('The command to run'),
    timeout: z.coerce.number().int().min(1).optional().describe('Seconds before the command is killed (default from terminal.timeout, 180)'),
    workdir: z.string().optional().describe('Absolute directory to run in (default: the session working directory)'),
  }),
  async handler(a, ctx) {
    const s = ctx.services;
    const cwd = a.workdir ? resolvePath(a.workdir, s.cwd) : s.cwd;
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) return fail(`workdir ${cwd} does not exist or is not a directory.`);
    const approval = await approveCommand(a.command, ctx);
    if (!approval.allowed) return fail(approval.reason, { status: 'denied' });
    const timeoutS = a.timeout ?? s.config.terminal.timeout ?? 180;
    const env = filteredEnv(s.env, { passthrough: s.config.terminal.env_passthrough, dotenvNames: s.state.get('dotenv_names') as string[] | undefined });
    const r = await runShell(a.command, { cwd, env, timeoutMs: timeoutS * 1000, signal: ctx.signal });
    const output = capOutput(stripAnsi(r.output), s.config.tool_output?.max_bytes ?? 50_000);
    const result: Record<string, unknown> = { output, exit_code: r.exitCode };
    if (r.timedOut) result.error = `Command timed out after ${timeoutS}s and was killed. Use a longer timeout or run it in the background.`;
    else if (r.interrupted) result.error = 'Command was interrupted by the user.';
    else result.error = null;
    return { content: ok(result), isError: r.timedOut || r.interrupted };
  },
});
