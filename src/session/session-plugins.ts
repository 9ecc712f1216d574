// What plugins and hooks change in a Session: plugin tools join its registry, every tool call passes
// the tool hooks (pre_tool_call may block, ask for approval or rewrite the arguments; post_tool_call
// observes; transform_tool_result rewrites), each turn fires pre_llm_call (its context rides on the
// user message at call time, never in the cached system prompt) and post_llm_call / on_session_end,
// and the session's event stream feeds the observer hooks (API requests, streaming, approvals).
import type { AgentEvent, AgentTool, ToolOutcome, TurnResult } from '../agent/types.ts';
import type { LlmStream, Message, StreamFn, StreamResult } from '../llm/types.ts';
import { messageText } from '../agent/repair.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { HookManager, HookPayload } from '../plugins/hooks.ts';
import { pluginHost, type PluginContributions, type SectionInfo } from '../plugins/state.ts';
import { VerifyGate } from '../plugins/verify-gate.ts';
import { pluginToolDefinition } from '../tools/plugin-tools.ts';

/** The parts of a Session this module reads (kept narrow so the Session stays the owner). */
export interface PluginSessionHost {
  readonly id: string;
  readonly options: { home: string; platform: string; cwd: string; depth?: number; parentSessionId?: string; history?: Message[]; config?: unknown };
  readonly history: Message[];
  readonly runtime: { model: string; provider: string };
  callTool(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  /** Text for the conversation from outside (inject_message): the next user turn, as a background notice. */
  inject(text: string): boolean;
  emit(e: AgentEvent): void;
}

const OBSERVED = ['pre_api_request', 'post_api_request', 'api_request_error', 'on_stream_start', 'on_stream_delta', 'on_stream_end', 'on_interim_message', 'pre_approval_request', 'post_approval_response'];
const TOOL_HOOKS = ['pre_tool_call', 'post_tool_call', 'transform_tool_result'];

const errorJson = (message: string) => JSON.stringify({ error: message });

export class SessionPlugins {
  readonly host: PluginContributions;
  private readonly s: PluginSessionHost;
  private turnSeq = 0;
  private turnId = '';
  private iteration = 0;
  private streamed = '';
  private readonly approvals = new Map<string, { command: string; description: string }>();
  /** Rule keys approved "for this session" through a pre_tool_call approve. */
  private readonly approvedRules = new Set<string>();
  private warned = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private readonly verify: VerifyGate;

  constructor(host: PluginContributions, s: PluginSessionHost) {
    this.host = host;
    this.s = s;
    const max = Number((s.options.config as { agent?: { max_verify_nudges?: unknown } } | undefined)?.agent?.max_verify_nudges ?? 3);
    this.verify = new VerifyGate(host.hooks, Number.isFinite(max) && max >= 0 ? max : 3);
    // A hook that throws or times out is logged; the person sees it once per session too.
    this.unsubscribe = host.hooks.onProblem((m) => {
      const key = m.split(';')[0];
      if (this.warned.has(key)) return;
      this.warned.add(key);
      s.emit({ type: 'warning', message: m });
    });
    // The newest top-level session is the one plugins reach until another one starts a turn, so a
    // plugin command can inject_message before the first turn.
    this.activate();
  }

  get hooks(): HookManager {
    return this.host.hooks;
  }

  private base(): HookPayload {
    return { session_id: this.s.id, task_id: this.s.id, platform: this.s.options.platform, model: this.s.runtime.model };
  }

  /** Adds the plugins' tools to a registry (idempotent: a shared registry keeps one copy). */
  registerTools(registry: ToolRegistry): void {
    for (const t of this.host.tools()) {
      const def = pluginToolDefinition(t.tool);
      try {
        if (registry.get(def.name) !== def) registry.register(def, { override: t.override });
      } catch (e) {
        this.s.emit({ type: 'warning', message: `${t.owner}: ${(e as Error).message} Rename the plugin's tool, or allow the override with plugins.entries.<id>.allow_tool_override: true.` });
      }
    }
  }

  /** The plugins' system prompt sections, rendered once for a new session. */
  sections(info: Omit<SectionInfo, 'profile_name'>): string[] {
    const out: string[] = [];
    let total = 0;
    for (const sec of [...this.host.sections()].sort((a, b) => a.id.localeCompare(b.id))) {
      let text: unknown;
      try {
        text = typeof sec.content === 'function' ? sec.content(Object.freeze({ ...info, profile_name: this.host.profile })) : sec.content;
      } catch (e) {
        this.s.emit({ type: 'warning', message: `${sec.owner}: system prompt section ${sec.id} failed (${(e as Error).message}); left out` });
        continue;
      }
      if (typeof text !== 'string' || !text.trim()) continue;
      const body = `[Plugin section ${sec.id} from ${sec.owner.replace(/^plugin:/, '')}]\n${text.trim()}`;
      if (text.length > sec.maxChars || total + body.length > 8000) {
        this.s.emit({ type: 'warning', message: `${sec.owner}: system prompt section ${sec.id} is over its budget (${text.length} characters; ${sec.maxChars} each, 8000 for all); left out` });
        continue;
      }
      total += body.length;
      out.push(body);
    }
    return out;
  }

  /** A tool whose calls pass the tool hooks. */
  wrapTool(tool: AgentTool): AgentTool {
    const hooked = this.hookedTool(tool);
    return {
      ...hooked,
      execute: async (args, ctx): Promise<ToolOutcome> => {
        const out = await hooked.execute(args, ctx);
        if (!out.isError) this.verify.note(tool.name, args, this.s.options.cwd);
        return out;
      },
    };
  }

  /** pre_verify: the next user turn a hook asks for after a turn that edited files, if any. */
  verifyNudge(r: TurnResult): Promise<string | undefined> {
    return this.verify.nudge(r, { ...this.base(), turn_id: this.turnId }, this.s.options.cwd);
  }

  private hookedTool(tool: AgentTool): AgentTool {
    const hooks = this.host.hooks;
    return {
      ...tool,
      execute: async (args, ctx): Promise<ToolOutcome> => {
        if (!hooks.hasAny(TOOL_HOOKS)) return tool.execute(args, ctx);
        const call: HookPayload = { tool_name: tool.name, args, task_id: this.s.id, session_id: this.s.id, tool_call_id: ctx.callId, turn_id: this.turnId };
        const started = Date.now();
        let out: ToolOutcome;
        let used = args;
        const d = hooks.has('pre_tool_call') ? await hooks.preToolCall(call) : null;
        if (d?.action === 'block') out = { content: errorJson(d.message), isError: true };
        else {
          if (d && 'args' in d && d.args) used = { ...args, ...d.args };
          let allowed = true;
          if (d?.action === 'approve' && !(d.rule_key && this.approvedRules.has(d.rule_key))) {
            const r = await ctx.ask({ kind: 'approval', command: `${tool.name} ${JSON.stringify(used)}`, description: d.message || 'a plugin hook asks you to approve this tool call', choices: d.rule_key ? ['once', 'session', 'deny'] : ['once', 'deny'] });
            allowed = r.answer === 'once' || r.answer === 'session' || r.answer === 'always';
            if (allowed && r.answer !== 'once' && d.rule_key) this.approvedRules.add(d.rule_key);
            if (!allowed) out = { content: errorJson(`The user did not approve this ${tool.name} call (${r.source === 'person' ? 'denied' : r.source === 'no_responder' ? 'nobody could approve it' : r.source}).`), isError: true };
          }
          out ??= allowed ? await tool.execute(used, ctx) : { content: errorJson('not approved'), isError: true };
        }
        const result: HookPayload = { ...call, args: used, result: out.content, duration_ms: Date.now() - started, status: out.isError ? 'error' : 'ok', error_type: out.isError ? 'tool_error' : null, error_message: out.isError ? out.content : null };
        if (hooks.has('post_tool_call')) await hooks.invoke('post_tool_call', result);
        if (hooks.has('transform_tool_result')) {
          const t = await hooks.transform('transform_tool_result', result, { allowEmpty: true });
          if (t !== undefined) out = { ...out, content: t };
        }
        return out;
      },
    };
  }

  /** Before a turn: on_session_start (first turn of a new session), then pre_llm_call's context. */
  async beforeTurn(user: Message, firstTurn: boolean): Promise<string | undefined> {
    this.turnId = `turn_${++this.turnSeq}`;
    this.verify.turnStarted(user.content);
    if (firstTurn && !this.s.options.history?.length) await this.hooks.invoke('on_session_start', this.base());
    if (!this.hooks.has('pre_llm_call')) return undefined;
    return this.hooks.context('pre_llm_call', {
      ...this.base(),
      turn_id: this.turnId,
      user_message: user.content,
      conversation_history: this.s.history.map((m) => ({ ...m })),
      is_first_turn: firstTurn,
      parent_session_id: this.s.options.parentSessionId ?? null,
      sender_id: null,
    });
  }

  /** transform_llm_output: a plugin's rewrite of the final answer, or undefined. */
  async transformFinal(text: string): Promise<string | undefined> {
    if (!text || !this.hooks.has('transform_llm_output')) return undefined;
    const t = await this.hooks.transform('transform_llm_output', { response_text: text, ...this.base() });
    return t && t !== text ? t : undefined;
  }

  /** After a turn: post_llm_call (a completed turn), then on_session_end (every turn, Hermes's canonical fire). */
  async afterTurn(user: Message, r: TurnResult): Promise<void> {
    if (r.completed && !r.interrupted && this.hooks.has('post_llm_call'))
      await this.hooks.invoke('post_llm_call', { ...this.base(), turn_id: this.turnId, user_message: user.content, assistant_response: r.finalText, conversation_history: this.s.history.map((m) => ({ ...m })) });
    if (this.hooks.has('on_session_end')) {
      const reason = r.interrupted ? 'interrupted' : r.failed ? 'error' : r.partial ? 'budget_exhausted' : 'completed';
      await this.hooks.invoke('on_session_end', { ...this.base(), turn_id: this.turnId, completed: r.completed, failed: r.failed, interrupted: r.interrupted, turn_exit_reason: reason });
    }
  }

  reset(reason: string, oldId: string, newId: string): void {
    this.hooks.notify('on_session_reset', () => ({ ...this.base(), session_id: newId, reason, old_session_id: oldId, new_session_id: newId }));
  }

  async finalize(reason: string): Promise<void> {
    if (this.hooks.has('on_session_finalize')) await this.hooks.invoke('on_session_finalize', { ...this.base(), reason });
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  interrupted(reason: string): void {
    this.hooks.notify('agent_loop_stopped', () => ({ session_key: this.s.id, platform: this.s.options.platform, reason, invalidation_reason: reason }));
  }

  subagentStart(childGoal: string, role: string): void {
    this.hooks.notify('subagent_start', () => ({ parent_session_id: this.s.id, parent_turn_id: this.turnId, parent_subagent_id: null, child_session_id: null, child_subagent_id: `${this.s.id}-${Date.now().toString(36)}`, child_role: role, child_goal: childGoal }));
  }

  async subagentStop(p: { childSessionId: string; role: string; summary: string; status: string; tools: string[]; durationMs: number }): Promise<void> {
    if (!this.hooks.has('subagent_stop')) return;
    await this.hooks.invoke('subagent_stop', {
      parent_session_id: this.s.id,
      parent_turn_id: this.turnId,
      child_session_id: p.childSessionId,
      child_role: p.role,
      child_summary: p.summary,
      child_status: p.status,
      tool_call_history: p.tools.map((t) => ({ tool_name: t })),
      duration_ms: p.durationMs,
    });
  }

  /** Whether the session needs to feed its events to observer hooks. */
  get observes(): boolean {
    return this.hooks.hasAny(OBSERVED);
  }

  /** Observer hooks fed from the session's events (never awaited: the token path stays fast). */
  onEvent(e: AgentEvent): void {
    const h = this.hooks;
    const info = () => ({ turn_id: this.turnId, iteration: this.iteration, session_id: this.s.id, model: this.s.runtime.model, provider: this.s.runtime.provider, surface: this.s.options.platform });
    switch (e.type) {
      case 'api_start':
        this.iteration = e.iteration;
        this.streamed = '';
        h.notify('pre_api_request', () => ({ ...info(), task_id: this.s.id, api_call_count: e.iteration + 1, message_count: this.s.history.length, platform: this.s.options.platform }));
        h.notify('on_stream_start', info);
        break;
      case 'retract':
        this.streamed = '';
        break;
      case 'text_delta':
        this.streamed += e.text;
        h.notify('on_stream_delta', () => ({ ...info(), delta: e.text, kind: 'text' }));
        break;
      case 'usage':
        h.notify('post_api_request', () => ({ ...info(), task_id: this.s.id, platform: this.s.options.platform, usage: e.usage, response_model: e.model }));
        h.notify('on_stream_end', () => ({ ...info(), final_text: this.streamed, finished: true, error: null }));
        break;
      case 'error':
        h.notify('api_request_error', () => ({ ...info(), task_id: this.s.id, platform: this.s.options.platform, error: e.error.message, reason: e.error.kind }));
        h.notify('on_stream_end', () => ({ ...info(), final_text: this.streamed, finished: false, error: e.error.message }));
        break;
      case 'message': {
        // An assistant message that calls tools is shown before the final answer: on_interim_message.
        const m = e.message;
        const text = m.role === 'assistant' && m.tool_calls?.length ? messageText(m.content).trim() : '';
        if (text) h.notify('on_interim_message', () => ({ ...info(), text, already_streamed: this.streamed.trim().length > 0 }));
        break;
      }
      case 'request':
        if (e.request.kind !== 'approval') break;
        this.approvals.set(e.id, { command: e.request.command, description: e.request.description });
        h.notify('pre_approval_request', () => ({ command: (e.request as { command: string }).command, description: (e.request as { description: string }).description, pattern_key: '', pattern_keys: [], session_key: this.s.id, surface: this.s.options.platform === 'cli' ? 'cli' : 'gateway', turn_id: this.turnId }));
        break;
      case 'request_resolved': {
        const a = this.approvals.get(e.id);
        if (!a) break;
        this.approvals.delete(e.id);
        const choice = e.source === 'timeout' ? 'timeout' : String(e.answer);
        h.notify('post_approval_response', () => ({ ...a, pattern_key: '', pattern_keys: [], session_key: this.s.id, surface: this.s.options.platform === 'cli' ? 'cli' : 'gateway', turn_id: this.turnId, choice }));
        break;
      }
      default:
        break;
    }
  }

  /**
   * An auxiliary model's stream (titles, compression, smart approvals…) with `pre_auxiliary_call`
   * before each request and `post_auxiliary_call` when it ends; the stream itself when no plugin
   * registered them.
   */
  auxStream(task: string, rt: { model: string; provider: string; baseUrl?: string; apiMode?: string }, stream: StreamFn): StreamFn {
    const h = this.hooks;
    if (!h.hasAny(['pre_auxiliary_call', 'post_auxiliary_call'])) return stream;
    return (req): LlmStream => {
      const startedAt = Date.now() / 1000;
      const ids = { aux_task: task, task_id: this.s.id, turn_id: this.turnId, session_id: this.s.id, platform: this.s.options.platform, streaming: true, model: rt.model, provider: rt.provider, base_url: rt.baseUrl ?? null, api_mode: rt.apiMode ?? null };
      h.notify('pre_auxiliary_call', () => ({ ...ids, request_messages: req.messages, system_prompt: req.system ?? null, message_count: req.messages.length, tool_count: req.tools?.length ?? 0, max_tokens: req.maxTokens ?? null, started_at: startedAt }));
      const inner = stream(req);
      let posted = false;
      const post = (r: StreamResult) => {
        if (posted) return;
        posted = true;
        const failed = r.stopReason === 'error' || r.stopReason === 'aborted';
        h.notify('post_auxiliary_call', () => ({
          ...ids,
          started_at: startedAt,
          ended_at: Date.now() / 1000,
          api_duration: Date.now() / 1000 - startedAt,
          finish_reason: r.stopReason,
          response_model: r.model,
          usage: failed ? null : r.usage,
          assistant_content_chars: messageText(r.message.content).length,
          assistant_tool_call_count: r.message.tool_calls?.length ?? 0,
          error: failed ? (r.error?.message ?? r.stopReason) : null,
          error_type: failed ? (r.error?.kind ?? r.stopReason) : null,
        }));
      };
      return {
        async *[Symbol.asyncIterator]() {
          for await (const ev of inner) {
            if (ev.type === 'done') post(ev.result);
            yield ev;
          }
        },
        async result() {
          const r = await inner.result();
          post(r);
          return r;
        },
      };
    };
  }

  /** This session as the one plugins reach (dispatch_tool, inject_message). */
  activate(): void {
    if ((this.s.options.depth ?? 0) > 0) return;
    const s = this.s;
    this.host.setActive({
      get id() {
        return s.id;
      },
      platform: s.options.platform,
      callTool: (name, args) => this.s.callTool(name, args),
      inject: (content) => this.s.inject(content),
    });
  }
}

/** The session's plugin side, or null when no plugin host was loaded for its home (zero cost). */
export function sessionPlugins(s: PluginSessionHost): SessionPlugins | null {
  const host = pluginHost(s.options.home);
  return host ? new SessionPlugins(host, s) : null;
}
