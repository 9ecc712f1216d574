// The Codex runner: each Hermes turn is run by OpenAI's Codex agent in a `codex app-server`
// subprocess. One codex thread per Hermes session (its id kept in state.db's sessions.model_config
// as `codex_thread_id`, resumed with thread/resume), `turn/start` per user turn, streamed deltas and
// tool items turned into the usual AgentEvents, completed items projected into Hermes messages,
// approvals bridged to the person, and `turn/interrupt` on Ctrl+C, /stop or the turn timeout.
import { existsSync, mkdirSync } from 'node:fs';
import pkg from '../../../package.json' with { type: 'json' };
import type { AgentEvent, AgentRequest, Answered, TurnResult } from '../../agent/types.ts';
import { messageText } from '../../agent/repair.ts';
import type { CallMeter } from '../../llm/client.ts';
import { estimateCostUsd } from '../../llm/index.ts';
import type { ProviderRuntime } from '../../llm/resolve.ts';
import { addUsage, emptyUsage, type Message, type ProviderError, type Usage } from '../../llm/types.ts';
import { redactSecrets } from '../../policy/redact.ts';
import type { ToolSession } from '../../tools/types.ts';
import type { RunnerOptions, TurnContext, TurnRunner } from '../types.ts';
import { HERMES_TOOLS_SERVER, serverRequestHandler } from './approvals.ts';
import { codexHome, codexStatus } from './binary.ts';
import { deriveCodexConfig, type DerivedCodex, type HermesEndpoint } from './derive.ts';
import { codexLog } from './log.ts';
import { mcpEnvRefs } from './migrate.ts';
import { CodexProjector, callIdFor, summarizeChanges, toolArgsOf, toolNameOf, toolResultOf } from './projector.ts';
import type { ThreadItem } from './protocol/v2/ThreadItem.ts';
import type { ThreadTokenUsage } from './protocol/v2/ThreadTokenUsage.ts';
import type { Turn } from './protocol/v2/Turn.ts';
import type { UserInput } from './protocol/v2/UserInput.ts';
import { CodexAppServerClient, type Notification } from './transport.ts';

export const FALLBACK_HINT = 'Fall back to the default runtime with /codex-runtime auto.';
const SEED_CHARS = 24_000;
const DISPLAY_ITEMS = new Set(['commandExecution', 'fileChange', 'mcpToolCall', 'dynamicToolCall']);

/** The parts of a Session the codex runner uses. */
export interface CodexHost {
  readonly id: string;
  readonly options: RunnerOptions;
  readonly services: ToolSession;
  /** The model, provider and endpoint Hermes resolved (usage accounting; codex's model provider). */
  readonly runtimeInfo: HermesEndpoint;
  persist(write: () => Promise<unknown> | undefined): void;
  /**
   * The session's spend caps (config.yaml budgets:): asked before each turn is handed to codex and
   * after each model call codex reports (thread/tokenUsage/updated), told every call's usage (the
   * spend ledger). `runtime` is what the calls are priced and recorded as.
   */
  readonly meter?: CallMeter;
  readonly runtime?: ProviderRuntime;
}

type Item = ThreadItem & { id: string; type: string };

/** Codex's environment: Hermes's, minus secrets that came only from HERMES_HOME/.env, plus CODEX_HOME / RUST_LOG. */
export function codexEnv(o: Pick<RunnerOptions, 'env' | 'dotenvNames' | 'config'>): NodeJS.ProcessEnv {
  const keep = /^(OPENAI_|CODEX_|AZURE_OPENAI_)/;
  const needed = new Set(mcpEnvRefs(o.config.mcp_servers, o.env));
  const drop = new Set((o.dotenvNames ?? []).filter((n) => !keep.test(n) && !needed.has(n)));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined && !drop.has(k)) env[k] = v;
  const c = codexSettings(o.config);
  if (c.home) env.CODEX_HOME = codexHome(c.home, o.env);
  env.RUST_LOG = c.rust_log || o.env.RUST_LOG || 'warn';
  return env;
}

export interface CodexSettings {
  path: string;
  home: string;
  model: string;
  turn_timeout: number;
  rust_log: string;
}

export function codexSettings(config: RunnerOptions['config']): CodexSettings {
  const c: Partial<CodexSettings> = config.codex ?? {};
  const t = Number(c.turn_timeout);
  return {
    path: typeof c.path === 'string' ? c.path : '',
    home: typeof c.home === 'string' ? c.home : '',
    model: typeof c.model === 'string' ? c.model : '',
    turn_timeout: Number.isFinite(t) && t > 0 ? t : 600,
    rust_log: typeof c.rust_log === 'string' ? c.rust_log : '',
  };
}

function usageOf(u: ThreadTokenUsage['last']): Usage {
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteInputTokens),
    output_tokens: u.outputTokens,
    cache_read_tokens: u.cachedInputTokens,
    cache_write_tokens: u.cacheWriteInputTokens,
    reasoning_tokens: u.reasoningOutputTokens,
  };
}

/** Earlier turns as text, for a codex thread that starts in the middle of a Hermes conversation. */
export function seedTranscript(history: Message[]): string {
  const lines: string[] = [];
  for (const m of history) {
    const text = messageText(m.content).trim();
    if (m.role === 'user' && text) lines.push(`User: ${text}`);
    else if (m.role === 'assistant') {
      if (text) lines.push(`Assistant: ${text}`);
      for (const c of m.tool_calls ?? []) lines.push(`Assistant called ${c.function.name}(${c.function.arguments.slice(0, 300)})`);
    } else if (m.role === 'tool' && text) lines.push(`Tool result: ${text.slice(0, 500)}`);
  }
  let body = lines.join('\n\n');
  if (body.length > SEED_CHARS) body = `[… earlier messages omitted …]\n\n${body.slice(-SEED_CHARS)}`;
  return body ? `Earlier in this conversation (from Hermes's session history; continue from here):\n\n${body}` : '';
}

interface ActiveTurn {
  threadId: string;
  turnId: string | null;
}

export class CodexRunner implements TurnRunner {
  readonly kind = 'codex_app_server' as const;
  private readonly host: CodexHost;
  private client: CodexAppServerClient | null = null;
  private threadId: string | null = null;
  private threadModel = '';
  /** The subprocess the thread is loaded in. */
  private threadClient: CodexAppServerClient | null = null;
  private active: ActiveTurn | null = null;
  private readonly fileChanges = new Map<string, string>();
  /** MCP servers codex is still starting (their tools are not offered to the model until ready). */
  private readonly mcpStarting = new Set<string>();
  private readonly mcpWaiters: (() => void)[] = [];
  /** The first turn of a subprocess waited for its MCP servers. */
  private mcpChecked = false;
  private readonly log: (line: string) => void;
  /** Requests to the person go through the running turn's broker. */
  private ask: (<R extends AgentRequest>(req: R) => Promise<Answered<R>>) | null = null;
  /** The latest subprocess, kept for its stderr tail after it is retired. */
  private lastClient: CodexAppServerClient | null = null;
  private emit: (e: AgentEvent) => void = () => {};
  /** The derived settings the running subprocess was started with (see derive.ts). */
  private clientKey = '';

  constructor(host: CodexHost) {
    this.host = host;
    this.log = codexLog(host.options.home);
  }

  /** What this turn runs with, derived from Hermes's settings as they are now. */
  private derive(): DerivedCodex {
    const o = this.host.options;
    const settings = codexSettings(o.config);
    return deriveCodexConfig({
      config: o.config,
      env: o.env,
      home: o.home,
      cwd: o.cwd,
      yolo: !!this.host.services.yolo,
      endpoint: this.host.runtimeInfo,
      codexHome: codexHome(settings.home, o.env),
      codexModel: settings.model,
      dotenvNames: o.dotenvNames ? [...o.dotenvNames] : undefined,
    });
  }

  private async ensureClient(d: DerivedCodex): Promise<CodexAppServerClient> {
    if (this.client?.alive && this.clientKey === d.processKey) return this.client;
    if (this.client?.alive) {
      // The endpoint, key, MCP servers or config.toml changed: the next turn runs in a new codex.
      this.log('settings changed; starting a new codex process for the next turn');
      await this.retire();
    }
    const o = this.host.options;
    const settings = codexSettings(o.config);
    const status = codexStatus(settings.path, o.env);
    if (!status.ok || !status.path) throw new Error(status.problem ?? 'codex is not usable');
    // codex creates its default ~/.codex itself but refuses to start when CODEX_HOME names a missing folder.
    const home = codexHome(settings.home, o.env);
    if (!existsSync(home)) mkdirSync(home, { recursive: true, mode: 0o700 });
    const { client, info } = await CodexAppServerClient.start(
      {
        bin: status.path,
        env: { ...codexEnv(o), ...d.env },
        cwd: o.cwd,
        log: (l) => this.log(`codex: ${l}`),
        onServerRequest: serverRequestHandler({
          ask: (req) => (this.ask ? this.ask(req) : Promise.resolve({ answer: (req.kind === 'approval' ? 'deny' : req.kind === 'clarify' ? '' : null) as never, source: 'no_responder' as const })),
          services: this.host.services,
          cwd: o.cwd,
          fileChange: (id) => this.fileChanges.get(id),
          warn: (message) => this.emit({ type: 'warning', message }),
        }),
      },
      { name: 'hermes', title: 'Hermes Agent', version: pkg.version },
    );
    this.log(`started codex ${status.version} (pid ${client.pid}, CODEX_HOME ${info.codexHome})`);
    this.mcpStarting.clear();
    this.mcpChecked = false;
    client.onNotification((n) => {
      if (n.method !== 'mcpServer/startupStatus/updated') return;
      const name = String(n.params.name ?? '');
      if (n.params.status === 'starting') this.mcpStarting.add(name);
      else {
        this.mcpStarting.delete(name);
        if (n.params.status === 'failed' || n.params.error) this.log(`MCP server ${name}: ${n.params.status} ${String(n.params.error ?? n.params.failureReason ?? '')}`);
      }
      if (!this.mcpStarting.size) for (const f of this.mcpWaiters.splice(0)) f();
    });
    this.client = client;
    this.clientKey = d.processKey;
    this.lastClient = client;
    return client;
  }

  /** Waits (bounded) until codex has started its MCP servers, so the first turn sees their tools. */
  private async mcpReady(signal: AbortSignal, maxMs = 20_000): Promise<void> {
    if (!this.mcpStarting.size) {
      // thread/start reports servers as "starting" just after it returns: give it a moment.
      await new Promise((r) => setTimeout(r, 50));
      if (!this.mcpStarting.size) return;
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, maxMs);
      t.unref?.();
      signal.addEventListener('abort', () => resolve(), { once: true });
      this.mcpWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
    if (this.mcpStarting.size) this.log(`MCP servers still starting after ${maxMs / 1000}s: ${[...this.mcpStarting].join(', ')}`);
  }

  private get store() {
    return this.host.options.store;
  }

  /** Resumes the session's stored thread, or starts a new one. Returns whether it is new. */
  private async ensureThread(client: CodexAppServerClient, system: string, d: DerivedCodex): Promise<boolean> {
    const o = this.host.options;
    const settings = codexSettings(o.config);
    const home = codexHome(settings.home, o.env);
    const threadParams = {
      cwd: o.cwd,
      approvalPolicy: d.approvalPolicy,
      config: d.config,
      ...(d.sandbox ? { sandbox: d.sandbox } : {}),
      ...(d.model ? { model: d.model } : {}),
    };
    if (this.threadId && this.threadClient === client) return false;
    if (!this.threadId) {
      const stored = (await this.store?.getModelConfig(this.host.id)) ?? {};
      const id = typeof stored.codex_thread_id === 'string' ? stored.codex_thread_id : null;
      const sameHome = !stored.codex_home || stored.codex_home === home;
      if (id && sameHome) {
        try {
          const r = await client.request('thread/resume', { threadId: id, ...threadParams, excludeTurns: true });
          this.threadId = r.thread.id;
          this.threadModel = r.model;
          this.threadClient = client;
          this.log(`resumed thread ${r.thread.id} for session ${this.host.id}`);
          return false;
        } catch (e) {
          this.emit({ type: 'warning', message: `Could not resume codex thread ${id} (${(e as Error).message}); starting a new one with this conversation's history.` });
        }
      }
    } else {
      // The subprocess was replaced (it died or timed out): load the thread into the new one.
      try {
        const r = await client.request('thread/resume', { threadId: this.threadId, ...threadParams, excludeTurns: true });
        this.threadModel = r.model;
        this.threadClient = client;
        this.log(`resumed thread ${this.threadId} in a new codex process`);
        return false;
      } catch (e) {
        this.emit({ type: 'warning', message: `Could not resume codex thread ${this.threadId} (${(e as Error).message}); starting a new one with this conversation's history.` });
        this.threadId = null;
      }
    }
    const r = await client.request('thread/start', { ...threadParams, developerInstructions: system || null });
    this.threadId = r.thread.id;
    this.threadModel = r.model;
    this.threadClient = client;
    this.log(`started thread ${r.thread.id} for session ${this.host.id} (model ${r.model}, cwd ${r.cwd})`);
    const threadId = r.thread.id;
    this.host.persist(() => this.store?.patchModelConfig(this.host.id, { codex_thread_id: threadId, codex_home: home }));
    return true;
  }

  async run(user: Message, ctx: TurnContext): Promise<TurnResult> {
    const now = this.host.options.now ?? Date.now;
    const appended: Message[] = [];
    const append = (m: Message) => {
      m.timestamp ??= now() / 1000;
      ctx.history.push(m);
      appended.push(m);
      ctx.sink?.append(m);
      ctx.emit({ type: 'message', message: m });
    };
    const prior = ctx.history.slice();
    append({ ...user });
    ctx.emit({ type: 'turn_start', userMessage: user });
    this.emit = ctx.emit;
    this.ask = (req) => ctx.broker.ask(req, ctx.signal);

    let usage = emptyUsage();
    let cost: number | null = null;
    let apiCalls = 0;
    let iterations = 0;
    let finalText = '';
    const finish = (r: Pick<TurnResult, 'completed' | 'failed' | 'interrupted'> & { error?: TurnResult['error']; partial?: boolean }): TurnResult => {
      const result: TurnResult = { finalText, partial: false, ...r, apiCalls, iterations, usage, costUsd: cost, messages: appended };
      ctx.emit({ type: 'turn_end', result });
      this.emit = () => {};
      this.ask = null;
      return result;
    };
    const fail = (message: string): TurnResult => {
      const text = `Codex app-server turn failed: ${message.replace(/\.$/, '')}. ${FALLBACK_HINT}`;
      const error = { kind: 'codex_app_server', message: text };
      ctx.emit({ type: 'error', error });
      if (!finalText) finalText = text;
      return finish({ completed: false, partial: true, failed: true, interrupted: false, error });
    };

    if (ctx.signal.aborted) return finish({ completed: false, failed: false, interrupted: true });
    // Spend caps: codex makes its model calls itself, so the cap is checked before the turn is
    // handed over and again after every call it reports; a cap that stops the run interrupts the
    // turn (at most the call already under way goes past it).
    const meter = this.host.meter;
    const meterRt = (): ProviderRuntime => {
      const rt = this.host.runtime;
      const model = this.threadModel || this.host.runtimeInfo.model;
      return rt ? { ...rt, model } : ({ provider: this.host.runtimeInfo.provider, model, baseUrl: this.host.runtimeInfo.baseUrl } as ProviderRuntime);
    };
    let budgetStop: ProviderError | null = null;
    const stopForBudget = (error: ProviderError): TurnResult => {
      ctx.emit({ type: 'error', error });
      return finish({ completed: false, failed: true, interrupted: false, error });
    };
    if (meter) {
      const stop = await meter.before({ model: meterRt().model, system: ctx.system, messages: [...prior, user], tools: [], signal: ctx.signal }, meterRt());
      if (stop) return stopForBudget(stop);
    }
    let checking: Promise<void> = Promise.resolve();
    let client: CodexAppServerClient;
    let fresh: boolean;
    let derived: DerivedCodex;
    try {
      derived = this.derive();
      client = await this.ensureClient(derived);
      fresh = await this.ensureThread(client, ctx.system, derived);
    } catch (e) {
      await this.retire();
      return fail(this.withStderr((e as Error).message));
    }
    const threadId = this.threadId!;
    if (!this.mcpChecked) {
      await this.mcpReady(ctx.signal);
      this.mcpChecked = true;
    }

    const text = messageText(user.content);
    const seed = fresh && prior.length ? seedTranscript(prior) : '';
    const input: UserInput[] = [];
    if (seed) input.push({ type: 'text', text: seed, text_elements: [] });
    input.push({ type: 'text', text, text_elements: [] });
    if (Array.isArray(user.content)) for (const p of user.content) if (p.type === 'image_url') input.push({ type: 'image', url: p.image_url.url });
    const projector = new CodexProjector({ submittedText: input.filter((i) => i.type === 'text').map((i) => (i as { text: string }).text).join('\n') });
    const started = new Map<string, number>();
    const active: ActiveTurn = { threadId, turnId: null };
    this.active = active;

    let completedTurn: Turn | null = null;
    let turnError: string | null = null;
    let settle: () => void = () => {};
    const done = new Promise<void>((r) => (settle = r));
    const onNote = (n: Notification) => {
      const p = n.params;
      if (p.threadId !== undefined && p.threadId !== threadId) return;
      if (n.method === 'turn/completed') {
        const turn = p.turn as Turn;
        if (active.turnId && turn.id !== active.turnId) return;
        completedTurn = turn;
        settle();
        return;
      }
      if (active.turnId && typeof p.turnId === 'string' && p.turnId !== active.turnId) return;
      this.display(n, started, ctx.emit);
      if (n.method === 'thread/tokenUsage/updated') {
        const u = usageOf((p.tokenUsage as ThreadTokenUsage).last);
        apiCalls++;
        usage = addUsage(usage, u);
        const c = estimateCostUsd(this.threadModel || this.host.runtimeInfo.model, this.host.runtimeInfo.provider, u);
        if (c !== null) cost = (cost ?? 0) + c;
        ctx.emit({ type: 'usage', usage: u, costUsd: c, model: this.threadModel || this.host.runtimeInfo.model, provider: this.host.runtimeInfo.provider });
        if (meter) {
          const rt = meterRt();
          try {
            meter.after({ message: { role: 'assistant', content: '' }, stopReason: 'stop', usage: u, model: rt.model, provider: rt.provider }, rt);
          } catch {
            /* the ledger is the meter's business */
          }
          // The next call codex makes would be about as big as this one: past a cap, the turn stops
          // (or, with action: ask, waits on nothing: codex goes on while the person is asked).
          checking = checking.then(async () => {
            if (budgetStop || ctx.signal.aborted) return;
            const stop = await meter.before({ model: rt.model, system: '', messages: [], tools: [], signal: ctx.signal }, rt);
            if (stop && !budgetStop) {
              budgetStop = stop;
              void this.interrupt(client, active);
            }
          });
        }
      } else if (n.method === 'error') {
        const err = p.error as { message?: string; additionalDetails?: string | null } | undefined;
        const msg = [err?.message, err?.additionalDetails].filter(Boolean).join(': ');
        if (p.willRetry) ctx.emit({ type: 'warning', message: `codex: ${msg} (retrying)` });
        else turnError = msg || 'codex reported an error';
      } else if (['warning', 'configWarning', 'deprecationNotice'].includes(n.method)) this.log(`${n.method}: ${JSON.stringify(p).slice(0, 500)}`);
      const pr = projector.project(n.method, p);
      for (const m of pr.messages) append(m);
      if (pr.toolIteration) iterations++;
      if (pr.finalText !== undefined) finalText = pr.finalText;
    };
    const off = client.onNotification(onNote);
    const settings = codexSettings(this.host.options.config);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void this.interrupt(client, active);
    }, settings.turn_timeout * 1000);
    timer.unref?.();
    const onAbort = () => void this.interrupt(client, active);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const died = client.exited.then(() => settle());
    try {
      try {
        // Permissions and model go with every turn: /yolo, /approvals and /model apply from the next one.
        const r = await client.request('turn/start', {
          threadId,
          input,
          cwd: this.host.options.cwd,
          approvalPolicy: derived.approvalPolicy,
          ...(derived.sandboxPolicy ? { sandboxPolicy: derived.sandboxPolicy } : {}),
          ...(derived.model ? { model: derived.model } : {}),
        });
        active.turnId = r.turn.id;
        if (ctx.signal.aborted) void this.interrupt(client, active);
      } catch (e) {
        return fail(this.withStderr((e as Error).message));
      }
      await done;
      void died;
      for (const m of projector.flush()) append(m);
      const turn = completedTurn as Turn | null;
      if (turn) this.log(`turn ${turn.id} ${turn.status}`);
      if (!turn) {
        await this.retire();
        if (ctx.signal.aborted) return finish({ completed: false, failed: false, interrupted: true });
        return fail(timedOut ? `the turn did not finish within ${settings.turn_timeout}s` : this.withStderr('codex app-server exited during the turn'));
      }
      if (budgetStop) return stopForBudget(budgetStop);
      if (turn.status === 'interrupted' || ctx.signal.aborted) {
        if (timedOut) return fail(`the turn did not finish within ${settings.turn_timeout}s and was interrupted`);
        return finish({ completed: false, failed: false, interrupted: true });
      }
      if (turn.status === 'failed') {
        const e = turn.error;
        return fail([e?.message, e?.additionalDetails].filter(Boolean).join(': ') || turnError || 'the turn failed');
      }
      return finish({ completed: true, failed: false, interrupted: false });
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      off();
      this.active = null;
      this.fileChanges.clear();
    }
  }

  /** Live display: tool start/end and deltas as the usual events (messages come from the projector). */
  private display(n: Notification, started: Map<string, number>, emit: (e: AgentEvent) => void): void {
    const p = n.params;
    switch (n.method) {
      case 'item/agentMessage/delta':
        emit({ type: 'text_delta', text: String(p.delta ?? '') });
        return;
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/textDelta':
        emit({ type: 'reasoning_delta', text: String(p.delta ?? '') });
        return;
      case 'item/commandExecution/outputDelta':
        emit({ type: 'tool_progress', callId: callIdFor(String(p.itemId ?? '')), name: 'exec_command', text: String(p.delta ?? '') });
        return;
      case 'item/started':
      case 'item/completed': {
        const item = p.item as Item | undefined;
        if (!item || !DISPLAY_ITEMS.has(item.type)) return;
        const name = displayName(item);
        const callId = callIdFor(item.id);
        if (n.method === 'item/started') {
          started.set(item.id, Date.now());
          if (item.type === 'fileChange') this.fileChanges.set(item.id, summarizeChanges((item as Extract<ThreadItem, { type: 'fileChange' }>).changes));
          emit({ type: 'tool_start', callId, name, args: toolArgsOf(item) });
        } else {
          const [content, isError] = toolResultOf(item);
          const ms = (item as { durationMs?: number | null }).durationMs;
          const t0 = started.get(item.id);
          started.delete(item.id);
          if (t0 === undefined) emit({ type: 'tool_start', callId, name, args: toolArgsOf(item) });
          emit({ type: 'tool_end', callId, name, content, isError, durationMs: typeof ms === 'number' ? ms : t0 ? Date.now() - t0 : 0 });
        }
        return;
      }
      default:
        return;
    }
  }

  private async interrupt(client: CodexAppServerClient, active: ActiveTurn): Promise<void> {
    if (!active.turnId || !client.alive) return;
    this.log(`interrupting turn ${active.turnId}`);
    try {
      await client.request('turn/interrupt', { threadId: active.threadId, turnId: active.turnId }, 10_000);
    } catch (e) {
      this.log(`turn/interrupt: ${(e as Error).message}`);
    }
    // A turn that does not wind down is ended by replacing the subprocess.
    const t = setTimeout(() => {
      if (this.active === active) void this.retire();
    }, 15_000);
    t.unref?.();
  }

  steer(text: string): boolean {
    const a = this.active;
    const client = this.client;
    if (!a?.turnId || !client?.alive) return false;
    client.request('turn/steer', { threadId: a.threadId, input: [{ type: 'text', text, text_elements: [] }], expectedTurnId: a.turnId }).catch((e) => {
      this.emit({ type: 'warning', message: `codex did not take the steering text (${(e as Error).message}); send it again after the turn.` });
    });
    return true;
  }

  async compact(signal?: AbortSignal): Promise<string> {
    if (!this.threadId && typeof (await this.store?.getModelConfig(this.host.id))?.codex_thread_id !== 'string') return 'There is no codex thread to compact yet.';
    const d = this.derive();
    const client = await this.ensureClient(d);
    await this.ensureThread(client, '', d);
    const threadId = this.threadId!;
    const done = new Promise<string>((resolve) => {
      const off = client.onNotification((n) => {
        if (n.params.threadId !== threadId) return;
        if (n.method === 'thread/compacted' || n.method === 'turn/completed') {
          off();
          resolve(n.method === 'turn/completed' && (n.params.turn as Turn).status === 'failed' ? `Codex could not compact the thread: ${(n.params.turn as Turn).error?.message ?? 'unknown error'}.` : 'Codex compacted the thread (its native compaction; the Hermes transcript is unchanged).');
        }
      });
      signal?.addEventListener('abort', () => {
        off();
        resolve('Compaction was interrupted.');
      });
      void client.exited.then(() => resolve('codex app-server exited during compaction.'));
    });
    await client.request('thread/compact/start', { threadId });
    return done;
  }

  switchConversation(): void {
    this.threadId = null;
    this.threadClient = null;
    this.threadModel = '';
  }

  private withStderr(message: string): string {
    const tail = this.lastClient?.stderrTail(8).join('\n').trim();
    return tail ? `${message}\ncodex stderr (last lines):\n${redactSecrets(tail)}` : message;
  }

  /** Drops the subprocess (it died, hung or timed out); the next turn starts a new one and resumes the thread. */
  private async retire(): Promise<void> {
    const c = this.client;
    this.client = null;
    await c?.close(500).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.retire();
  }
}

/** Names surfaces show: Hermes's own tools served to codex appear under their Hermes names. */
function displayName(item: Item): string {
  if (item.type === 'mcpToolCall' && (item as { server?: string }).server === HERMES_TOOLS_SERVER) return String((item as { tool?: string }).tool);
  return toolNameOf(item);
}
