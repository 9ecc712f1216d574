// process's implementation, loaded on the first call.
import type { ToolOutcome } from '../../agent/types.ts';
import { cleanOutput, stripAnsi } from '../output.ts';
import { processRegistry, type ProcEntry } from '../process-registry.ts';
import type { ProcessArgs } from '../defs/process.ts';
import { fail, ok } from '../result.ts';
import type { ToolContext } from '../types.ts';

function uptime(p: ProcEntry): number {
  return Math.round(((p.endedAt ?? Date.now()) - p.startedAt) / 1000);
}

function summary(p: ProcEntry): Record<string, unknown> {
  const r: Record<string, unknown> = {
    session_id: p.id,
    command: p.command.length > 200 ? p.command.slice(0, 200) + '…' : p.command,
    status: p.status,
    pid: p.pid,
    backend: p.backend,
    uptime_seconds: uptime(p),
  };
  if (p.status !== 'running' && p.status !== 'orphaned') r.exit_code = p.exitCode;
  if (p.note) r.note = p.note;
  return r;
}

export async function runProcess(a: ProcessArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
    const reg = processRegistry(ctx.home);
    if (a.action === 'list') {
      const all = reg.list();
      return ok({ processes: all.map(summary), count: all.length, running: all.filter((p) => p.status === 'running').length });
    }
    if (!a.session_id) return fail(`The ${a.action} action needs session_id (from terminal's result, or process list).`);
    const p = reg.get(a.session_id);
    if (!p) return fail(`No process with id ${a.session_id}. Use action "list" to see the known processes.`, { status: 'not_found' });
    const max = ctx.config.tool_output?.max_bytes ?? 50_000;

    switch (a.action) {
      case 'poll': {
        const total = p.dropped + p.output.length;
        const from = Math.max(p.polledTo - p.dropped, 0);
        const fresh = p.output.slice(from);
        p.polledTo = total;
        if (p.status !== 'running') p.consumed = true;
        return ok({ ...summary(p), new_output: cleanOutput(fresh, Math.min(max, 20_000)), output_preview: stripAnsi(p.output.slice(-1000)) });
      }
      case 'log': {
        const lines = stripAnsi(p.output).replace(/\r+\n/g, '\n').split('\n');
        if (lines.length && lines[lines.length - 1] === '') lines.pop();
        const limit = a.limit ?? 200;
        const start = a.offset !== undefined ? a.offset : Math.max(lines.length - limit, 0);
        const slice = lines.slice(start, start + limit);
        const r: Record<string, unknown> = {
          session_id: p.id,
          status: p.status,
          output: cleanOutput(slice.join('\n'), max),
          total_lines: lines.length,
          showing: slice.length ? `lines ${start}-${start + slice.length - 1}` : 'no lines',
        };
        if (p.status !== 'running') p.consumed = true;
        if (p.dropped) r.note = `The first ${p.dropped.toLocaleString('en-US')} characters of output were dropped (only the most recent output is kept: at least the last 200,000 characters).`;
        if (p.recovered) r.note = p.note;
        return ok(r);
      }
      case 'wait': {
        if (p.recovered) return fail(`${p.id} was left by an earlier Hermes process; it cannot be waited on. ${p.note ?? ''}`, summary(p));
        const timeoutS = a.timeout ?? ctx.config.terminal?.timeout ?? 180;
        const r = await reg.wait(p, timeoutS * 1000, ctx.signal);
        const tail = cleanOutput(p.output.slice(-Math.min(max, 20_000)), max);
        if (r === 'exited') p.consumed = true;
        if (r === 'exited') return ok({ ...summary(p), status: p.status, exit_code: p.exitCode, output: tail });
        if (r === 'interrupted') return { content: ok({ ...summary(p), status: 'interrupted', output: tail, note: 'Waiting was interrupted; the process is still running.' }), isError: true };
        return ok({ ...summary(p), status: 'timeout', output: tail, note: `Still running after ${timeoutS}s. Wait again, poll later, or kill it.` });
      }
      case 'kill': {
        if (p.status !== 'running' && p.status !== 'orphaned') return ok({ ...summary(p), note: `Already ${p.status}.` });
        p.consumed = true;
        try {
          await reg.kill(p);
        } catch (e) {
          return fail((e as Error).message, summary(p));
        }
        return ok({ ...summary(p), status: 'killed' });
      }
      case 'write':
      case 'submit': {
        if (a.data === undefined) return fail(`The ${a.action} action needs data.`);
        if (p.status !== 'running' || !p.bg) return fail(`${p.id} is ${p.status}; it no longer reads input.`, summary(p));
        const text = a.action === 'submit' ? a.data + (p.pty ? '\r' : '\n') : a.data;
        if (!p.bg.child.write(text)) return fail(`${p.id} does not accept input (its stdin is closed).`, summary(p));
        return ok({ session_id: p.id, status: 'ok', bytes_written: Buffer.byteLength(text) });
      }
    }
}
