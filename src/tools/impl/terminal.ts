// terminal's implementation, loaded on the first call (keeps session start-up light).
import { analyzeCommand } from '../../policy/dangerous.ts';
import { approveCommand, approveUnsandboxed } from '../approval.ts';
import { onSessionClose } from '../cleanup.ts';
import { BackendConfigError, childEnv, sessionSandbox } from '../env/index.ts';
import { LocalBackend } from '../env/local.ts';
import { sandboxDenialNote } from '../../sandbox/denial.ts';
import { presentUnguarded, sweepUnguarded } from '../../sandbox/sweep.ts';
import type { ExecutionBackend } from '../env/types.ts';
import { cleanOutput } from '../output.ts';
import { processRegistry } from '../process-registry.ts';
import { resolvePath } from '../defs/read-file.ts';
import { fail, ok } from '../result.ts';
import { FOREGROUND_MAX_S, type TerminalArgs } from '../defs/terminal.ts';
import type { ToolOutcome } from '../../agent/types.ts';
import type { Notifier, ToolContext, ToolSession } from '../types.ts';
import { defineSlot } from '../../state/slots.ts';
import { redactionEnabled, redactSecrets } from '../../policy/redact.ts';

const usesSudo = (command: string) => analyzeCommand(command).commands.some((c) => c[0] && c[0].replace(/^.*\//, '') === 'sudo');

/** The sudo password a person gave this session (kept for the session only). */
const sudoPasswordSlot = defineSlot<string>('sudo_password');
/** Every task id whose background processes this session started (they end with it). */
const processTasksSlot = defineSlot<Set<string>>('process_tasks');

/** `sudo` → `sudo -S -p ''` at command positions, so a password can come on stdin. */
export function sudoWithStdin(command: string): string {
  return command.replace(/(^|[;&|(`\n]\s*|\$\(\s*|\bthen\s+|\bdo\s+)sudo(?=\s)/g, "$1sudo -S -p ''");
}

async function sudoPassword(command: string, ctx: ToolContext, backend: ExecutionBackend): Promise<string | undefined> {
  if (!usesSudo(command)) return undefined;
  const fromEnv = ctx.env.SUDO_PASSWORD;
  if (fromEnv) return fromEnv;
  const cached = ctx.slots.peek(sudoPasswordSlot);
  if (cached) return cached;
  if (backend.kind !== 'local') return undefined;
  // Passwordless or cached sudo needs nothing.
  const probe = await backend.exec('sudo -n true', { timeoutMs: 10_000, signal: ctx.signal });
  if (probe.exitCode === 0) return undefined;
  const { answer } = await ctx.ask({ kind: 'secret', name: 'SUDO_PASSWORD', prompt: `sudo password (kept for this session only) to run: ${command.slice(0, 200)}` });
  if (typeof answer === 'string' && answer) {
    ctx.slots.set(sudoPasswordSlot, answer);
    return answer;
  }
  return undefined;
}

/** The session's notifier, with secrets redacted from what the processes report. */
function redactingNotifier(s: ToolSession): Notifier | undefined {
  const n = s.notifier;
  if (!n?.listening) return undefined;
  if (!redactionEnabled(s.env, s.config)) return n;
  return { signal: n.signal, listening: true, expect: (w) => n.expect(w), notify: (x) => n.notify({ ...x, text: redactSecrets(x.text) }) };
}

export async function runTerminal(a: TerminalArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
    const s = ctx;
    let backend: ExecutionBackend;
    try {
      backend = await ctx.exec();
    } catch (e) {
      if (e instanceof BackendConfigError) return fail(e.message, { output: '', exit_code: -1 });
      throw e;
    }
    const cwd = a.workdir ? (backend.kind === 'local' ? resolvePath(a.workdir, await backend.currentCwd()) : a.workdir) : undefined;

    const approval = await approveCommand(a.command, ctx, { container: backend.isContainer, cwd: backend.kind === 'local' ? (cwd ?? (await backend.currentCwd())) : undefined });
    if (!approval.allowed) return fail(approval.reason, { output: '', exit_code: -1, status: approval.hardline ? 'blocked' : 'denied' });

    // Escalation: a run outside the OS sandbox is a person's decision, asked each time.
    const sandbox = backend.kind === 'local' ? sessionSandbox(s) : undefined;
    let unsandboxed = false;
    if (a.unsandboxed && sandbox?.active) {
      const esc = await approveUnsandboxed(a.command, ctx);
      if (!esc.allowed) return fail(esc.reason, { output: '', exit_code: -1, status: 'denied' });
      backend = new LocalBackend({ cwd: await backend.currentCwd(), env: childEnv(s) });
      unsandboxed = true;
    }

    if (sandbox?.active && !unsandboxed && usesSudo(a.command))
      return fail('sudo cannot work inside the OS sandbox (it gains no privileges there). If the task truly needs it, run the command again with unsandboxed: true (the user is asked), or ask the user to run it.', { output: '', exit_code: -1, status: 'denied' });
    const password = await sudoPassword(a.command, ctx, backend);
    const command = password ? sudoWithStdin(a.command) : a.command;
    const max = s.config.tool_output?.max_bytes ?? 50_000;

    if (a.background) {
      const reg = processRegistry(s.home);
      const wantsNotice = !!a.notify_on_complete || !!a.watch_patterns?.some((x) => x);
      // Hermes: notify_on_complete wins when both are set.
      const watchPatterns = a.notify_on_complete ? [] : (a.watch_patterns ?? []).filter((x) => x);
      let p;
      try {
        p = await reg.spawn(backend, command, {
          cwd: cwd ?? (await backend.currentCwd()),
          pty: !!a.pty,
          taskId: s.taskId,
          notifyOnComplete: !!a.notify_on_complete,
          watchPatterns,
          notifier: wantsNotice ? redactingNotifier(s) : undefined,
        });
      } catch (e) {
        return fail(`Could not start the background process: ${(e as Error).message}`, { output: '', exit_code: -1 });
      }
      if (password) p.bg?.child.write(`${password}\n`);
      // The session's background processes end with it (every task id it had, e.g. across /new).
      let tasks = s.slots.peek(processTasksSlot);
      if (!tasks) {
        const mine = new Set<string>();
        tasks = mine;
        s.slots.set(processTasksSlot, mine);
        onSessionClose(s, async () => {
          await Promise.all([...mine].map((t) => reg.killTask(t)));
        });
      }
      tasks.add(s.taskId);
      const orphans = reg.orphanNotice();
      const reporting = p.notifyOnComplete
        ? ' You will be told when it ends, as a new message: carry on with other work and do not poll or wait for it.'
        : p.watcher
          ? ` Output lines containing ${p.watcher.patterns.map((x) => JSON.stringify(x)).join(', ')} will be reported to you as new messages.`
          : '';
      return ok({
        ...(orphans ? { notice: orphans } : {}),
        output: `Background process started on ${backend.label}. Use the process tool with session_id "${p.id}" to poll, read its log, wait, send input or kill it.${reporting}`,
        session_id: p.id,
        pid: p.pid,
        exit_code: 0,
        error: null,
        ...(p.notifyOnComplete ? { notify_on_complete: true } : {}),
        ...(p.watcher ? { watch_patterns: p.watcher.patterns } : {}),
        ...(wantsNotice && !s.notifier?.listening ? { note: 'This session has no conversation to report back to; check on the process with the process tool.' } : {}),
        ...(a.notify_on_complete && a.watch_patterns?.length ? { note: 'watch_patterns was ignored: notify_on_complete already reports the end.' } : {}),
      });
    }

    const configured = s.config.terminal?.timeout ?? 180;
    const timeoutS = a.timeout ?? configured;
    const limit = Math.max(FOREGROUND_MAX_S, configured);
    if (timeoutS > limit)
      return fail(`A foreground command may run at most ${limit} s. For longer jobs use background: true, then the process tool (wait/poll/log).`, { output: '', exit_code: -1 });

    // Protected names the mounts cannot guard (missing at the top of the user's home): what the
    // command creates of them is moved aside after it (sandbox/sweep.ts).
    const guardPlan = sandbox?.active && !unsandboxed ? sandbox.plan() : null;
    const present = presentUnguarded(guardPlan);
    let r;
    try {
      r = await backend.exec(command, { cwd, timeoutMs: timeoutS * 1000, signal: ctx.signal, stdin: password !== undefined ? `${password}\n` : undefined, pty: !!a.pty });
    } catch (e) {
      return fail((e as Error).message, { output: '', exit_code: -1 });
    }
    const output = cleanOutput(r.output, max, r.dropped);
    const result: Record<string, unknown> = {
      output,
      exit_code: r.timedOut ? 124 : r.interrupted ? 130 : (r.exitCode ?? -1),
      error: null,
    };
    if (r.timedOut) result.error = `Command timed out after ${timeoutS}s and was killed. Use a longer timeout, or background: true for long-running commands.`;
    else if (r.interrupted) result.error = 'Command was interrupted by the user.';
    else if (/sudo: (a terminal is required|a password is required|no tty present)/.test(output))
      result.error = 'sudo needs a password: the user can set SUDO_PASSWORD in ~/.hermes/.env, or run the command themselves.';
    const notes = r.note ? [r.note] : [];
    const swept = guardPlan && present && sweepUnguarded(guardPlan, present, s.home);
    if (swept) notes.push(swept);
    if (sandbox?.active && !unsandboxed && result.exit_code !== 0) {
      const plan = sandbox.plan();
      const denial = plan && sandboxDenialNote(r.output, plan, cwd ?? (await backend.currentCwd()));
      if (denial) notes.push(denial);
    }
    if (notes.length) result.note = notes.join(' ');
    const orphans = processRegistry(s.home).orphanNotice();
    if (orphans) result.notice = orphans;
    return { content: ok(result), isError: r.timedOut || r.interrupted };
}
