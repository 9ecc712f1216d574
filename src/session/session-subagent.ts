// Subagents (delegate_task): a child Session built from the parent's settings, its tools narrowed
// to the requested toolsets, its spend counted in the parent's scope and totals.
import type { ChildResult, ChildSpec, ToolServices } from '../tools/types.ts';
import type { AgentTool } from '../agent/types.ts';
import type { LlmClient } from '../llm/index.ts';
import type { MemoryManager } from '../state/memory-provider.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { deferredToolsets, resolveToolsetNames } from '../tools/toolsets.ts';
import type { MeterHost } from './budgets.ts';
import type { Session } from './session.ts';
import type { SessionPlugins } from './session-plugins.ts';
import type { ExplicitChoices, SessionOptions, SessionTotals } from './session-types.ts';

/** What a subagent takes from its parent session, read when the subagent starts. */
export interface SubagentParent {
  readonly id: string;
  readonly options: SessionOptions;
  /** The parent's tools, deferred ones included. */
  readonly tools: AgentTool[];
  readonly registry: ToolRegistry;
  readonly services: ToolServices;
  readonly llm: LlmClient;
  /** The toolsets the parent keeps behind tool_search. */
  readonly lazy: Set<string>;
  readonly spend: MeterHost;
  readonly plugins: SessionPlugins | null;
  readonly memory: MemoryManager | null;
}

/**
 * A subagent (delegate_task): a child session with its own budget, the given system prompt, and
 * the parent's tools narrowed to the requested toolsets minus the blocked ones. (Moved from
 * Session.spawnChild.)
 */
export async function runSubagent(p: SubagentParent, act: { addUsage(t: SessionTotals): void; newSession(o: SessionOptions): Session }, spec: ChildSpec): Promise<ChildResult> {
  const o = p.options;
  // The child is built from tool names (deferred ones included; tool_search is the parent's own).
  const parentNames = new Set(p.tools.map((t) => t.name).filter((n) => n !== 'tool_search'));
  let wanted: Set<string> = parentNames;
  if (spec.toolsets?.length) {
    try {
      wanted = resolveToolsetNames(spec.toolsets, [], p.registry.toolsets(), o.config.custom_toolsets ?? {});
    } catch (e) {
      return { status: 'failed', summary: '', apiCalls: 0, iterations: 0, error: (e as Error).message, toolTrace: [] };
    }
  }
  const names = [...wanted].filter((n) => parentNames.has(n) && !spec.blockedTools.includes(n));
  const d: Partial<typeof o.config.delegation> = o.config.delegation ?? {};
  const override = !!(d.model || d.provider || d.base_url);
  const explicit: ExplicitChoices = { ...o.explicit, toolsets: undefined, maxTurns: spec.maxIterations, yolo: p.services.yolo };
  if (override) Object.assign(explicit, { provider: d.provider || undefined, model: d.model || undefined, baseUrl: d.base_url || undefined, apiKey: d.api_key || undefined });
  const child = act.newSession({
    home: o.home,
    config: o.config,
    env: o.env,
    cwd: o.cwd,
    platform: 'subagent',
    source: 'subagent',
    interactive: false,
    explicit,
    llm: o.llm && !override ? p.llm : undefined,
    registry: p.registry,
    store: o.store,
    transcript: o.transcript,
    dotenvNames: o.dotenvNames,
    systemPrompt: spec.systemPrompt,
    now: o.now,
    depth: (p.services.depth ?? 0) + 1,
    toolNames: names,
    // The same prompt budget as here: toolsets it was given by name are sent, the rest wait behind its own tool_search.
    deferredToolsets: [...(spec.toolsets?.length ? deferredToolsets(spec.toolsets, p.registry.toolsets(), o.config.custom_toolsets ?? {}) : p.lazy)],
    parentSessionId: p.id,
    spend: { scope: p.spend.scope, sessionId: p.spend.sessionId, job: p.spend.job },
    ports: o.ports,
  });
  const trace: string[] = [];
  const childStarted = Date.now();
  p.plugins?.subagentStart(spec.goal, spec.role ?? 'leaf');
  spec.onStart?.({ sessionId: child.id, steer: (t) => child.steer(t), interrupt: () => child.interrupt() });
  const off = child.on((e) => {
    if (e.type === 'tool_start') trace.push(e.name);
    spec.onEvent?.(e);
  });
  try {
    const r = await child.prompt(spec.goal, { signal: spec.signal });
    const status = r.interrupted ? 'interrupted' : r.failed ? 'failed' : r.partial ? 'partial' : 'completed';
    // The child's totals include its own subagents: the whole tree adds up in the parent.
    const spent = child.totals;
    act.addUsage(spent);
    await p.plugins?.subagentStop({ childSessionId: child.id, role: spec.role ?? 'leaf', summary: r.finalText, status, tools: trace, durationMs: Date.now() - childStarted });
    if (p.memory?.active) void p.memory.onDelegation(spec.goal, r.finalText, child.id);
    return {
      status,
      summary: r.finalText,
      apiCalls: r.apiCalls,
      iterations: r.iterations,
      error: r.error?.message,
      toolTrace: trace,
      usage: spent.usage,
      costUsd: spent.costUsd,
      model: child.runtime.model,
    };
  } finally {
    off();
    await child.close('subagent_done');
  }
}
