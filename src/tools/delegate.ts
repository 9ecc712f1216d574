// delegate_task: hand work to subagents — child loops with their own iteration budget, a focused
// system prompt, and restricted tools. Only each child's final summary returns to the parent.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import type { AgentEvent } from '../agent/types.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';
import type { ChildResult, ToolServices } from './types.ts';

/** Tools a subagent never gets (delegate_task too, unless the depth limit allows another level). */
export const CHILD_BLOCKED_TOOLS = ['clarify', 'memory', 'send_message', 'execute_code'];
const MAX_SUMMARY = 24_000;

const task = (z: Zod) =>
  z.object({
  goal: z.string().min(1).describe('What the subagent must achieve'),
  context: z.string().optional().describe('Everything it needs to know: paths, constraints, what was tried'),
  toolsets: z.array(z.string()).optional().describe('Toolsets it may use (default: yours, minus the restricted ones)'),
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

function limits(s: ToolServices) {
  const d = (s.config.delegation ?? {}) as Record<string, unknown>;
  const maxDepth = Math.min(Math.max(Number(d.max_spawn_depth) || 1, 1), 3);
  const maxConcurrent = Math.max(Number(s.env.DELEGATION_MAX_CONCURRENT_CHILDREN) || Number(d.max_concurrent_children) || 3, 1);
  const maxIterations = Math.max(Number(d.max_iterations) || 50, 1);
  const maxSummary = Number(d.max_summary_chars) || MAX_SUMMARY;
  return { maxDepth, maxConcurrent, maxIterations, maxSummary };
}

export default defineTool({
  name: 'delegate_task',
  toolset: 'delegation',
  emoji: '🧭',
  description:
    'Delegate work to subagents that run with their own fresh context and return only a summary. Use for self-contained subtasks ' +
    '(research, investigating a module, a batch of independent edits) to keep your own context small. Give a single `goal` (+ `context`), ' +
    'or `tasks` (a list of {goal, context, toolsets}) to run several in parallel. Subagents cannot ask the user anything and cannot use ' +
    'clarify, memory, send_message or execute_code. Put every detail they need in `context`: they do not see this conversation.',
  schema: (z) =>
    z.object({
    goal: z.string().optional().describe('The task, for a single subagent'),
    context: z.string().optional().describe('Background for the single subagent'),
    toolsets: z.array(z.string()).optional().describe('Toolsets for the single subagent'),
    tasks: z.array(task(z)).min(1).optional().describe('Several tasks to run in parallel'),
    max_iterations: z.coerce.number().int().min(1).optional().describe('Tool-calling iterations per subagent (default delegation.max_iterations, 50)'),
  }),
  check: (s) => !!s.spawnChild,
  requirement: 'needs a session that can start subagents (not offered to subagents past delegation.max_spawn_depth)',
  async handler(a, ctx) {
    const s = ctx.services;
    if (!s.spawnChild) return fail('delegate_task is not available in this session.');
    const tasks = a.tasks ?? (a.goal ? [{ goal: a.goal, context: a.context, toolsets: a.toolsets }] : []);
    if (!tasks.length) return fail('Give a `goal` (and `context`), or a list of `tasks`.');
    const lim = limits(s);
    const depth = s.depth ?? 0;
    if (depth >= lim.maxDepth)
      return fail(`Subagents at this level cannot delegate further (delegation.max_spawn_depth is ${lim.maxDepth}). Do the work yourself.`);
    if (tasks.length > lim.maxConcurrent)
      return fail(`At most ${lim.maxConcurrent} subagents can run at once (delegation.max_concurrent_children); you asked for ${tasks.length}. Split the batch.`);
    const blocked = [...CHILD_BLOCKED_TOOLS, ...(depth + 1 >= lim.maxDepth ? ['delegate_task'] : [])];
    const maxIterations = Math.min(a.max_iterations ?? lim.maxIterations, lim.maxIterations);
    const started = Date.now();
    const results = await Promise.all(
      tasks.map(async (t, i) => {
        const t0 = Date.now();
        const label = tasks.length > 1 ? `[subagent ${i + 1}] ` : '[subagent] ';
        ctx.progress(`${label}started: ${t.goal.slice(0, 80)}`);
        let r: ChildResult;
        try {
          r = await s.spawnChild!({
            goal: t.goal,
            context: t.context,
            toolsets: t.toolsets,
            blockedTools: blocked,
            maxIterations,
            systemPrompt: childSystemPrompt(t.goal, t.context, s.cwd),
            signal: ctx.signal,
            onEvent: (e: AgentEvent) => {
              if (e.type === 'tool_start') ctx.progress(`${label}${e.name}`);
            },
          });
        } catch (e) {
          r = { status: 'failed', summary: '', apiCalls: 0, iterations: 0, error: (e as Error).message, toolTrace: [] };
        }
        let summary = r.summary;
        let spilled: string | undefined;
        if (summary.length > lim.maxSummary) {
          try {
            const dir = join(s.home, 'cache', 'delegation');
            mkdirSync(dir, { recursive: true, mode: 0o700 });
            spilled = join(dir, `${ctx.callId.replace(/[^A-Za-z0-9_-]/g, '_')}_${i}.txt`);
            writeFileSync(spilled, summary, { mode: 0o600 });
          } catch {
            spilled = undefined;
          }
          summary = summary.slice(0, lim.maxSummary) + `\n[… summary truncated${spilled ? `; full text in ${spilled}` : ''} …]`;
        }
        ctx.progress(`${label}${r.status}`);
        const out: Record<string, unknown> = {
          task_index: i,
          status: r.status,
          summary,
          api_calls: r.apiCalls,
          iterations: r.iterations,
          duration_seconds: Math.round((Date.now() - t0) / 100) / 10,
          tools_used: [...new Set(r.toolTrace)],
        };
        if (r.error) out.error = r.error;
        return out;
      }),
    );
    const anyOk = results.some((r) => r.status === 'completed' || r.status === 'partial');
    return { content: ok({ results, total_duration_seconds: Math.round((Date.now() - started) / 100) / 10 }), isError: !anyOk };
  },
});
