// delegate_task: hand work to subagents — child loops with their own iteration budget, a focused
// system prompt, and restricted tools. Only each child's final summary returns to the parent.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import type { AgentEvent } from '../../agent/types.ts';
import { defineSlot } from '../../state/slots.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import type { ChildResult, ToolContext, ToolSession } from '../types.ts';
import { completionEvent, deliverCompletion, recordDispatch } from '../impl/delegation.ts';
import { endSubagent, observer, startSubagent, steerSubagent, stopSubagent, subagentSummary, subagentsSlot, type LiveSubagent } from '../subagents.ts';

/** Tools a subagent never gets (delegate_task too, unless the depth limit allows another level). */
export const CHILD_BLOCKED_TOOLS = ['clarify', 'memory', 'send_message', 'execute_code'];
const MAX_SUMMARY = 24_000;

const task = (z: Zod) =>
  z.object({
  goal: z.string().min(1),
  context: z.string().optional(),
  toolsets: z.array(z.string()).optional(),
  role: z.enum(['leaf', 'orchestrator']).optional(),
});

export function childSystemPrompt(goal: string, context: string | undefined, cwd: string): string {
  return [
    'You are a focused subagent working for another AI agent, which delegated one task to you. Work autonomously: nobody can answer questions.',
    `Working directory: ${cwd}`,
    '',
    `Your task:\n${goal}`,
    context ? `\nContext from the delegating agent:\n${context}` : '',
    '',
    'When you are done (or cannot go on), reply with a concise summary for the delegating agent: what you did, what you found, ' +
      'files you created or modified (with paths), and any problems or open questions. The summary is all it will see.',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

function limits(s: ToolSession) {
  const d: Partial<ToolSession['config']['delegation']> = s.config.delegation ?? {};
  const maxDepth = Math.min(Math.max(Number(d.max_spawn_depth) || 1, 1), 3);
  const maxConcurrent = Math.max(Number(s.env.DELEGATION_MAX_CONCURRENT_CHILDREN) || Number(d.max_concurrent_children) || 3, 1);
  const maxIterations = Math.max(Number(d.max_iterations) || 50, 1);
  const maxSummary = Number(d.max_summary_chars) || MAX_SUMMARY;
  // Hermes v33: max_concurrent_children caps background delegations too (max_async_children is folded in by `hermes config migrate`).
  const maxAsync = maxConcurrent;
  const orchestratorEnabled = d.orchestrator_enabled !== false;
  return { maxDepth, maxConcurrent, maxIterations, maxSummary, maxAsync, orchestratorEnabled };
}

/** Background delegations running in a session (delegation id → goal). */
const runningSlot = defineSlot('async_delegations', () => new Map<string, string>());

/** A child's result as the model reads it: summary capped (the rest spilled to a file), usage attached. */
function resultEntry(s: ToolSession, r: ChildResult, i: number, callId: string, t0: number, role: string, maxSummary: number): Record<string, unknown> {
  let summary = r.summary;
  if (summary.length > maxSummary) {
    let spilled: string | undefined;
    try {
      const dir = join(s.home, 'cache', 'delegation');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      spilled = join(dir, `${callId.replace(/[^A-Za-z0-9_-]/g, '_')}_${i}.txt`);
      writeFileSync(spilled, summary, { mode: 0o600 });
    } catch {
      spilled = undefined;
    }
    summary = summary.slice(0, maxSummary) + `\n[… summary truncated${spilled ? `; full text in ${spilled}` : ''} …]`;
  }
  const out: Record<string, unknown> = {
    task_index: i,
    status: r.status,
    summary,
    api_calls: r.apiCalls,
    iterations: r.iterations,
    duration_seconds: Math.round((Date.now() - t0) / 100) / 10,
    tools_used: [...new Set(r.toolTrace)],
    role,
  };
  if (r.model) out.model = r.model;
  if (r.usage) out.tokens = { input: r.usage.input_tokens + r.usage.cache_read_tokens + r.usage.cache_write_tokens, output: r.usage.output_tokens };
  if (r.costUsd !== undefined && r.costUsd !== null) out.cost_usd = Math.round(r.costUsd * 1e6) / 1e6;
  if (r.error) out.error = r.error;
  return out;
}

export default defineTool({
  name: 'delegate_task',
  toolset: 'delegation',
  emoji: '🧭',
  description:
    'Subagents do self-contained subtasks (fresh context, summary back): goal + context, or parallel tasks. They see no chat, ask nothing: give all details. background: reports later; action: manage live ones.',
  schema: (z) =>
    z.object({
    goal: z.string().optional(),
    context: z.string().optional(),
    toolsets: z.array(z.string()).optional(),
    tasks: z.array(task(z)).min(1).optional(),
    role: z.enum(['leaf', 'orchestrator']).optional(),
    background: z.boolean().optional(),
    max_iterations: z.coerce.number().int().min(1).optional(),
    action: z.enum(['list', 'steer', 'stop']).optional(),
    subagent_id: z.string().optional(),
    message: z.string().optional(),
  }),
  check: (s) => !!s.spawnChild,
  requirement: 'needs a session that can start subagents (not offered to subagents past delegation.max_spawn_depth)',
  async handler(a, ctx) {
    const s = ctx;
    if (!s.spawnChild) return fail('delegate_task is not available in this session.');
    if (a.action) return control(ctx, a.action, a.subagent_id, a.message);
    if (a.background && a.tasks?.length) return fail('`background` runs one subagent: give a single `goal`, not `tasks` (or drop background to run the batch now).');
    const tasks = a.tasks ?? (a.goal ? [{ goal: a.goal, context: a.context, toolsets: a.toolsets }] : []);
    if (!tasks.length || tasks.some((t) => !t.goal.trim())) return fail('Give a `goal` (and `context`), or a list of `tasks`, each with its goal.');
    const lim = limits(s);
    const depth = s.depth ?? 0;
    if (depth >= lim.maxDepth)
      return fail(`Subagents at this level cannot delegate further (delegation.max_spawn_depth is ${lim.maxDepth}). Do the work yourself.`);
    if (tasks.length > lim.maxConcurrent)
      return fail(`At most ${lim.maxConcurrent} subagents can run at once (delegation.max_concurrent_children); you asked for ${tasks.length}. Split the batch.`);
    // An orchestrator keeps delegate_task while the depth limit allows another level; otherwise it is a leaf.
    const roleOf = (t: { role?: 'leaf' | 'orchestrator' }) =>
      (t.role ?? a.role) === 'orchestrator' && lim.orchestratorEnabled && depth + 1 < lim.maxDepth ? 'orchestrator' : 'leaf';
    const maxIterations = Math.min(a.max_iterations ?? lim.maxIterations, lim.maxIterations);
    const live = ctx.slot(subagentsSlot);
    const runOne = async (t: (typeof tasks)[number], i: number, signal: AbortSignal, label: string, sa: LiveSubagent, progress = ctx.progress): Promise<Record<string, unknown>> => {
      const t0 = Date.now();
      const role = roleOf(t);
      progress(`${label}started: ${t.goal.slice(0, 80)}`);
      const watch = observer(sa);
      let r: ChildResult;
      try {
        r = await s.spawnChild!({
          goal: t.goal,
          context: t.context,
          toolsets: t.toolsets,
          role,
          blockedTools: [...CHILD_BLOCKED_TOOLS, ...(role === 'orchestrator' ? [] : ['delegate_task'])],
          maxIterations,
          systemPrompt: childSystemPrompt(t.goal, t.context, s.cwd),
          signal,
          onEvent: (e: AgentEvent) => {
            watch.event(e);
            if (e.type === 'tool_start') progress(`${label}${e.name}`);
          },
          onStart: (c) => {
            sa.sessionId = c.sessionId;
            sa.control = c;
            for (const m of sa.missedSteer.splice(0)) steerSubagent(sa, m);
          },
        });
      } catch (e) {
        r = { status: 'failed', summary: '', apiCalls: 0, iterations: 0, error: (e as Error).message, toolTrace: [] };
      }
      watch.flush();
      endSubagent(sa, r);
      progress(`${label}${r.status}`);
      const entry = resultEntry(s, r, i, ctx.callId, t0, role, lim.maxSummary);
      entry.subagent_id = sa.id;
      if (sa.path) entry.live_transcript = sa.path;
      if (sa.missedSteer.length) entry.missed_steer = sa.missedSteer.join('\n');
      return entry;
    };

    if (a.background) {
      const notifier = s.notifier;
      if (!notifier?.listening) return fail('Background subagents need a conversation to report back to, and this session has none. Run it without background.');
      const running = s.slots.get(runningSlot);
      if (running.size >= lim.maxAsync)
        return fail(`${running.size} background subagents are already running (delegation.max_concurrent_children is ${lim.maxAsync}). Wait for one to report back, or run this one without background.`);
      const id = `deleg_${randomBytes(4).toString('hex')}`;
      const t = tasks[0];
      const started = Date.now();
      const sessionId = s.sessionId;
      const store = s.sessionDb;
      const task = { goal: t.goal, context: t.context ?? null, toolsets: t.toolsets ?? null, role: roleOf(t), model: s.config.delegation?.model || null };
      running.set(id, t.goal);
      const durable = await recordDispatch(store, { id, sessionId, dispatchedAt: started, task });
      const sa = startSubagent(live, s.home, { delegationId: id, index: 0, goal: t.goal, context: t.context, background: true });
      // The call has returned by the time the child works: its progress has no tool line to go to.
      const work = runOne(t, 0, notifier.signal, '[background subagent] ', sa, () => {})
        .then(async (e) => {
          const ev = completionEvent(id, sessionId, task, e, started);
          if (durable) await store!.delegations.finished(id, ev.status, ev, e).catch(() => undefined);
          await deliverCompletion(durable ? store : undefined, notifier, ev, 'session');
        })
        .finally(() => running.delete(id));
      notifier.expect(work);
      return ok({
        status: 'dispatched',
        delegation_id: id,
        subagent_id: sa.id,
        goal: t.goal,
        role: roleOf(t),
        ...(sa.path ? { live_transcript: sa.path } : {}),
        note: 'The subagent runs in the background. Its result will arrive as a new message when it finishes: carry on, and do not wait or poll for it. delegate_task(action="steer", subagent_id, message) redirects it.',
      });
    }

    const started = Date.now();
    const batch = `deleg_${randomBytes(4).toString('hex')}`;
    const results = await Promise.all(
      tasks.map((t, i) =>
        runOne(t, i, ctx.signal, tasks.length > 1 ? `[subagent ${i + 1}] ` : '[subagent] ', startSubagent(live, s.home, { delegationId: batch, index: i, goal: t.goal, context: t.context, background: false })),
      ),
    );
    const anyOk = results.some((r) => r.status === 'completed' || r.status === 'partial');
    return { content: ok({ results, total_duration_seconds: Math.round((Date.now() - started) / 100) / 10 }), isError: !anyOk };
  },
});

/** delegate_task(action=list|steer|stop): the session's own live subagents (Hermes 0.21's control actions). */
function control(ctx: ToolContext, action: 'list' | 'steer' | 'stop', id: string | undefined, message: string | undefined): ReturnType<typeof ok> | ReturnType<typeof fail> {
  const live = ctx.slot(subagentsSlot);
  if (action === 'list') {
    const running = [...live.values()].filter((x) => x.status === 'running').map(subagentSummary);
    return ok({
      action: 'list',
      count: running.length,
      subagents: running,
      ...(running.length ? {} : { note: 'No live subagents right now. Children that already finished have delivered (or will deliver) their results as normal completion messages: there is nothing to steer or stop.' }),
    });
  }
  const sid = (id ?? '').trim();
  if (!sid) return fail(`action='${action}' requires subagent_id (from the dispatch response or action='list').`);
  const sa = live.get(sid);
  if (!sa || sa.status !== 'running') return fail(`No live subagent '${sid}' in this conversation. It may have already finished (its result arrives as a normal completion message). Use action='list' to see live children.`);
  if (action === 'stop') {
    if (!stopSubagent(sa)) return fail(`Could not interrupt '${sid}': it is finishing. Its result arrives as a normal completion message.`);
    return ok({ action: 'stop', subagent_id: sid, status: 'interrupt_requested', note: 'The subagent stops at its next boundary. Its partial result still comes back as a completion message: do not wait or poll.' });
  }
  const text = (message ?? '').trim();
  if (!text) return fail("action='steer' requires a non-empty 'message' describing the course correction.");
  if (!steerSubagent(sa, text)) return fail(`Subagent '${sid}' no longer takes steering: it is finishing.`);
  return ok({ action: 'steer', subagent_id: sid, status: 'queued', note: 'Steering text queued. The subagent reads it after its next tool call; the current call is never cut.' });
}
