// /agents (/tasks): the subagents part. Live children of the session (delegate_task's, background or
// not) with their ids, what the session's background delegations in state.db came to, and the
// subcommands on one child: `watch` (its transcript, followed live where the surface can show text
// later: the REPL and the TUI), `unwatch`, `steer <id> <text>` (read after its next tool call),
// `stop <id>`.
import type { Session } from '../session/session.ts';
import { steerSubagent, stopSubagent, subagentsSlot, type LiveSubagent } from '../tools/subagents.ts';
import type { CommandContext, CommandResult } from './registry.ts';

const BACKLOG = 30;
const watching = new WeakMap<Session, () => void>();

const secs = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`;
};

function liveOf(s: Session): LiveSubagent[] {
  return [...(s.services.slots.peek(subagentsSlot)?.values() ?? [])];
}

/** A child by subagent id, delegation id, or a unique prefix of either. */
function find(s: Session, key: string): LiveSubagent | string {
  const all = liveOf(s);
  const exact = all.find((x) => x.id === key || x.delegationId === key);
  if (exact) return exact;
  const hits = all.filter((x) => x.id.startsWith(key) || x.delegationId.startsWith(key));
  if (hits.length === 1) return hits[0];
  if (!hits.length) return `No subagent ${key} in this session. /agents lists them.`;
  return `${key} matches ${hits.length} subagents: give more of the id.`;
}

/** The lines /agents adds about subagents. */
export async function subagentLines(s: Session): Promise<string[]> {
  const out: string[] = [];
  const live = liveOf(s);
  for (const x of live.filter((l) => l.status === 'running'))
    out.push(`  subagent ${x.id} (${x.delegationId}${x.background ? ', background' : ''})  running ${secs(Date.now() - x.startedAt)}, ${x.toolCount} tool call(s)${x.lastTool ? `, last ${x.lastTool}` : ''}  ${x.goal.slice(0, 60)}`);
  const store = s.services.sessionDb;
  if (store?.delegations) {
    try {
      const rows = await store.delegations.list([s.id], 10);
      const done = rows.filter((r) => r.state !== 'running');
      if (done.length) out.push(`  background delegations of this session:`);
      for (const r of done) out.push(`    ${r.delegationId}  ${r.state.padEnd(11)} ${r.deliveryState.padEnd(9)}  ${String(r.task.goal ?? '').slice(0, 60)}`);
    } catch {
      /* the listing goes without them */
    }
  }
  if (live.some((l) => l.status === 'running')) out.push('  /agents watch <id> follows one; /agents steer <id> <text> redirects it; /agents stop <id> ends it.');
  return out;
}

/** `/agents <sub> …`; null when `args` is no subcommand (the plain listing). */
export function agentsSubcommand(ctx: CommandContext, args: string): CommandResult | null {
  const [sub, id = '', ...rest] = args.trim().split(/\s+/);
  const s = ctx.session;
  switch (sub) {
    case '':
    case undefined:
      return null;
    case 'unwatch': {
      const off = watching.get(s);
      watching.delete(s);
      off?.();
      return { output: off ? 'Stopped following the subagent.' : 'Not following a subagent.' };
    }
    case 'watch':
    case 'open':
    case 'steer':
    case 'stop': {
      if (!id) return { output: `Usage: /agents ${sub} <subagent id>${sub === 'steer' ? ' <text>' : ''}` };
      const sa = find(s, id);
      if (typeof sa === 'string') return { output: sa };
      if (sub === 'stop') return { output: stopSubagent(sa) ? `⏹ Asked ${sa.id} to stop; its partial result still reports back.` : `${sa.id} is not running.` };
      if (sub === 'steer') {
        const text = args.trim().split(/\s+/).slice(2).join(' ') || rest.join(' ');
        if (!text) return { output: 'Usage: /agents steer <subagent id> <text>' };
        return { output: steerSubagent(sa, text) ? `⏩ Steer queued for ${sa.id}: it reads it after its next tool call.` : `${sa.id} is not running: nothing to steer.` };
      }
      return watch(ctx, sa);
    }
    default:
      return { output: 'Usage: /agents [watch <id> | unwatch | steer <id> <text> | stop <id>]' };
  }
}

function watch(ctx: CommandContext, sa: LiveSubagent): CommandResult {
  const s = ctx.session;
  const head = `── ${sa.id} (${sa.delegationId}) ${sa.status}: ${sa.goal.slice(0, 70)}${sa.path ? `\n   transcript: ${sa.path}` : ''}`;
  const backlog = sa.lines.slice(-BACKLOG).join('\n');
  const show = ctx.hooks.show;
  if (sa.status !== 'running' || !show) return { output: [head, backlog, sa.status === 'running' && sa.path ? `(tail -f ${sa.path} to follow it)` : ''].filter(Boolean).join('\n') };
  watching.get(s)?.();
  const follower = (line: string) => show(line);
  sa.followers.add(follower);
  const off = () => sa.followers.delete(follower);
  watching.set(s, off);
  return { output: `${head}\n${backlog}\n(following live; /agents unwatch stops)` };
}
