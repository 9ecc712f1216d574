// The gateway core: every platform adapter hands its messages here. Per message: dedupe (persisted)
// → session key → authorization (pairing for strangers in DMs) → slash commands → the two-level
// busy guard → a turn on the conversation's warm Session → the reply, chunked to the platform.
//
// Busy guard, two levels (Hermes's base-adapter guard and runner guard, in one event loop):
//  1. on arrival, for a conversation with a turn running: /approve, /deny, /stop, answers to an
//     open clarify/approval and mid-turn commands (/status, /queue, /steer…) act at once;
//  2. anything else follows the busy input mode: `interrupt` (stop the turn, run the new message
//     next — ⚡), `queue` (run it after — ⏳) or `steer` (hand it to the running turn — ⏩).
import { routerMessaging, standalonePorts } from './messaging.ts';
import { localeFrom, setLocale, t } from '../i18n/index.ts';
import { preGatewayDispatch, wantsDispatchHook } from './plugin-dispatch.ts';
import { notifyPluginHook } from '../plugins/state.ts';
import type { AgentRequest } from '../agent/types.ts';
import { createCommandRegistry } from '../commands/builtin.ts';
import type { CommandRegistry } from '../commands/registry.ts';
import type { LlmClient } from '../llm/index.ts';
import type { Message } from '../llm/types.ts';
import { redactionEnabled } from '../policy/redact.ts';
import { composeNotices } from '../session/inbox.ts';
import { Session, type ExplicitChoices, type SessionStore, type SessionWriter } from '../session/session.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { SqliteLedger } from '../state/delivery-ledger.ts';
import { processRegistry, type ProcessRegistry } from '../tools/process-registry.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { McpManager } from '../mcp/manager.ts';
import { PLATFORM_TOOLSETS } from '../tools/toolsets.ts';
import { authorize, unauthorizedDmBehavior } from './auth.ts';
import { defaultCacheSize, WarmCache } from './cache.ts';
import { ChatRequests } from './chat-requests.ts';
import { runCommand } from './command-dispatch.ts';
import { gatewayCommands, type GatewayControl } from './commands.ts';
import { homeChannel, messagingCwd, numberSetting, platformSettings } from './config.ts';
import { HandoffWatcher } from './handoff.ts';
import { InboundDedupe } from './dedupe.ts';
import { GatewayLedger } from './ledger.ts';
import { DeliveryRouter, sendText, type ReplyParts, type SenderFactory } from './delivery.ts';
import { HookBus } from './hooks.ts';
import { modelView, speakerText } from './inbound.ts';
import { Warm, type Lane } from './lanes.ts';
import { knownChats, mirrorDelivery, reportUnfinished } from './mirror.ts';
import { PairingStore } from './pairing.ts';
import { getPlatform } from './platforms/registry.ts';
import { buildSessionKey, isSharedMultiUserSession, neutralizeInline, type KeyOptions } from './session-key.ts';
import { resetPolicyFrom, resetReason, SessionIndex, type RoutingShare } from './session-store.ts';
import { openTranscriptStore, type StoredSession, type TranscriptStore } from './transcripts.ts';
import { runTurn } from './turn.ts';
import type { DeliveryOrigin, InboundHandlers, InboundMessage, PlatformAdapter, SessionSource } from './types.ts';
import { pluginCommandDef } from '../commands/plugin-commands.ts';

export { TYPING_GRACE_MS, TYPING_INTERVAL_MS } from './turn.ts';

const EVICT_REASON = 'cache_evict';

/** Inbound dedupe: the delivery ledger (state.db, or a cluster's in PostgreSQL), or the file in HERMES_HOME without one. */
export interface Dedupe {
  claim(platform: string, chatId: string, messageId: string, threadId?: string, msg?: InboundMessage): boolean | Promise<boolean>;
  finish(platform: string, chatId: string, messageId: string): void;
  finishKey(key: string): void;
  unfinished(): import('./dedupe.ts').Unfinished[];
  close(): void;
}

export interface RunnerOptions {
  /** Another dedupe (tests); default: the delivery ledger in state.db (or HERMES_HOME/gateway/inbound.jsonl without one). */
  dedupe?: Dedupe;
  /** The delivery ledger (a cluster's, in PostgreSQL); default: state.db's when the transcripts are there. */
  ledger?: GatewayLedger;
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  dotenvNames?: string[];
  log?: (line: string) => void;
  /** Tests: one LLM client factory for every session (default: each session resolves its own). */
  llmFactory?: () => LlmClient;
  registry?: ToolRegistry;
  transcripts?: TranscriptStore;
  /** Routing shared with the other gateways of a cluster (which session each chat is in). */
  routing?: RoutingShare;
  senderFactory?: SenderFactory;
  now?: () => number;
  profile?: string;
  /** Titles and background self-review after turns (default true; tests turn them off). */
  backgroundTasks?: boolean;
}

const YES = /^(y|yes|ok|okay|approve|allow|sure|go|go ahead)[.!]?$/i;
const NO = /^(n|no|nope|deny|stop|cancel|don'?t)[.!]?$/i;

export class GatewayRunner {
  readonly home: string;
  readonly config: HermesConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly router: DeliveryRouter;
  readonly pairing: PairingStore;
  readonly dedupe: Dedupe;
  /** Every inbound message and reply, in the transcript's store (null: no state.db to keep it in). */
  readonly ledger: GatewayLedger | null;
  readonly index: SessionIndex;
  readonly transcripts: TranscriptStore;
  readonly hooks: HookBus;
  readonly cache: WarmCache<Warm>;
  readonly commands: CommandRegistry;
  /** The gateway process's controls (/restart, /platform); set by the daemon that runs this runner. */
  control: GatewayControl | null = null;
  readonly log: (line: string) => void;
  private readonly o: RunnerOptions;
  readonly lanes = new Map<string, Lane>();
  readonly requests: ChatRequests;
  private readonly adapters = new Map<string, PlatformAdapter>();
  private readonly idle = new Set<() => void>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private accepting = true;
  readonly keyOpts: KeyOptions;
  /** What sessions are given: the session store (`store`), or without one the JSONL writer (`transcript`). */
  private readonly store: { store: SessionStore; transcript?: undefined } | { store?: undefined; transcript: SessionWriter };
  private readonly now: () => number;
  private processes: ProcessRegistry | null = null;
  /** Session ids restored from the store (and which of them were ended), until their next turn. */
  private readonly restored = new Set<string>();
  private readonly restoredEnded = new Set<string>();
  /** One tool registry for every session: definitions and their JSON schemas are built once. */
  private readonly registry: ToolRegistry;
  /** config.yaml's MCP servers (one connection each, for every session). */
  private mcp: McpManager | null = null;
  /** Bumped when the shared registry's tools change; sessions built earlier rebuild their tools. */
  private toolsGeneration = 0;
  private readonly toolsBuiltAt = new WeakMap<Session, number>();
  readonly handoffs: HandoffWatcher;

  constructor(o: RunnerOptions) {
    this.o = o;
    this.home = o.home;
    this.config = o.config;
    setLocale(localeFrom(o.config, o.env));
    this.env = o.env;
    this.now = o.now ?? Date.now;
    this.log = o.log ?? (() => undefined);
    this.pairing = new PairingStore(o.home);
    this.index = new SessionIndex(o.home, { now: this.now, shared: o.routing });
    this.transcripts = o.transcripts ?? openTranscriptStore(o.home, this.log);
    this.ledger = o.ledger ?? (o.dedupe ? null : openLedger(this.transcripts, this.log));
    this.dedupe = o.dedupe ?? this.ledger ?? new InboundDedupe(`${o.home}/gateway/inbound.jsonl`);
    this.hooks = new HookBus(this.log);
    this.router = new DeliveryRouter({ env: o.env, config: o.config as never, senderFactory: o.senderFactory, log: this.log, onDelivered: (d) => void mirrorDelivery(this, this.now, d) });
    this.router.knownChats = () => knownChats(this.index);
    const c = (o.config.agent as { agent_cache?: { max_size?: number; idle_ttl_secs?: number } }).agent_cache ?? {};
    this.cache = new WarmCache<Warm>({
      maxSize: numberSetting(c.max_size, defaultCacheSize()),
      idleTtlMs: numberSetting(c.idle_ttl_secs, 3600) * 1000,
      onEvict: (_k, w, why) => {
        this.restored.delete(w.session.id);
        this.restoredEnded.delete(w.session.id);
        void w.session.close(why === 'clear' ? 'gateway_shutdown' : EVICT_REASON);
      },
      now: this.now,
    });
    this.keyOpts = {
      groupSessionsPerUser: (o.config as { group_sessions_per_user?: boolean }).group_sessions_per_user !== false,
      threadSessionsPerUser: (o.config as { thread_sessions_per_user?: boolean }).thread_sessions_per_user === true,
      profile: o.profile,
    };
    const t = this.transcripts;
    if (t.db) {
      // Sessions get the session store itself (session_search, titles and compression lineage use it);
      // only evicting a warm runtime must not end the conversation in state.db.
      const db = t.db;
      this.store = {
        store: new Proxy(db, {
          get(target, prop, receiver) {
            if (prop === 'endSession') return (id: string, reason: string) => (reason === EVICT_REASON ? Promise.resolve() : target.endSession(id, reason));
            return Reflect.get(target, prop, receiver);
          },
        }),
      };
    } else
      this.store = {
        // (The JSONL files answer at once; each call returns its promise, as a store's.)
        transcript: {
          createSession: async (meta) => {
            // Sessions restored from the store are known to exist; reopen (if ended) without reading twice.
            if (this.restored.has(meta.id)) {
              this.restored.delete(meta.id);
              if (this.restoredEnded.delete(meta.id)) await t.reopenSession?.(meta.id);
            } else if (await t.getStoredSession(meta.id)) await t.reopenSession?.(meta.id);
            else await t.createSession(meta);
          },
          appendMessage: async (id, m) => (await t.appendMessage(id, m)) as number,
          appendMessages: async (id, ms) => (await t.appendMessages(id, ms)) as number[],
          recordUsage: async (id, r, model, provider, baseUrl) => t.recordUsage(id, r, model, provider, baseUrl),
          // Evicting a warm runtime releases memory; the conversation itself goes on.
          endSession: async (id, reason) => {
            if (reason !== EVICT_REASON) await t.endSession(id, reason);
          },
          flush: async () => undefined,
        },
      };
    this.registry = o.registry ?? builtinRegistry();
    this.commands = createCommandRegistry({ home: o.home, externalDirs: ((o.config.skills as { external_dirs?: string[] } | undefined)?.external_dirs ?? []) as string[] });
    for (const def of gatewayCommands()) this.commands.replace(def);
    this.requests = new ChatRequests(this);
    // `/handoff <platform>` from the CLI (src/gateway/handoff.ts).
    this.handoffs = new HandoffWatcher({
      env: this.env,
      config: this.config as never,
      index: this.index,
      store: () => this.transcripts.db,
      adapter: (p) => this.adapters.get(p),
      sessionKey: (s) => this.sessionKey(s),
      dropWarm: (k) => this.evict(k),
      synthetic: (adapter, msg) => this.runLane(this.laneFor(this.sessionKey(msg.source), adapter, msg.source), msg),
      log: this.log,
    });
  }

  // ------------------------------------------------------------------------------------------
  // Lifecycle

  async init(): Promise<void> {
    await this.hooks.load(this.home);
    await this.loadPlugins();
    this.processes = processRegistry(this.home);
    await this.startMcp();
    this.sweepTimer = setInterval(() => this.sweep(), 60_000);
    this.sweepTimer.unref?.();
    this.handoffs.start();
  }

  /** Wires an adapter's inbound events to the runner and its sends to the router. */
  handlersFor(adapter: PlatformAdapter): InboundHandlers {
    this.adapters.set(adapter.name, adapter);
    return {
      message: (m) => this.onMessage(adapter, m),
      action: (a) => this.requests.onAction(adapter, a),
      // Plugins hear platform events (reactions…) from people allowed in, never from strangers.
      platformEvent: (e) => authorize(e.source, this.env, this.pairing).ok && notifyPluginHook(this.home, 'gateway_platform_event', () => ({ platform: e.source.platform, event_type: e.eventType, payload: e.payload })),
    };
  }

  /** The adapter is connected: deliveries go through it; chats cut short by a crash are told. */
  attached(adapter: PlatformAdapter): void {
    this.router.attach(adapter);
    if (this.ledger) void this.ledger.recover(this, adapter).catch((e: unknown) => this.log(`gateway: ${adapter.name}: could not answer the messages a stopped gateway left: ${(e as Error).message}`));
    else void reportUnfinished(adapter, this.dedupe, this.log);
    if (adapter.setCommands) {
      const cmds = this.commands
        .list('gateway')
        .filter((d) => /^[a-z0-9_]{1,32}$/.test(d.name))
        .map((d) => ({ command: d.name, description: d.description.slice(0, 256) }));
      void adapter.setCommands(cmds).catch((e) => this.log(`${adapter.name}: could not publish the command menu: ${(e as Error).message}`));
    }
  }

  detached(name: string): void {
    this.router.detach(name);
  }

  connectedPlatforms(): string[] {
    return this.router.connectedPlatforms();
  }

  /** Stops taking new messages (the daemon drains next). */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** False once the gateway is stopping. */
  get isAccepting(): boolean {
    return this.accepting;
  }

  get activeTurns(): number {
    let n = 0;
    for (const l of this.lanes.values()) if (l.running) n++;
    return n;
  }

  /** Resolves once no turn is running (or after `timeoutMs`, with turns interrupted). */
  async drain(timeoutMs: number): Promise<{ interrupted: number }> {
    if (!this.activeTurns) return { interrupted: 0 };
    const settled = new Promise<void>((resolve) => {
      const check = () => {
        if (!this.activeTurns) {
          this.idle.delete(check);
          resolve();
        }
      };
      this.idle.add(check);
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([settled.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeoutMs)))]);
    if (timer) clearTimeout(timer);
    if (!timedOut) return { interrupted: 0 };
    let n = 0;
    for (const l of this.lanes.values()) {
      if (!l.running) continue;
      l.waiting = [];
      this.cache.peek(l.key)?.session.interrupt();
      n++;
    }
    await Promise.race([settled, new Promise((r) => setTimeout(r, 5000))]);
    return { interrupted: n };
  }

  /** The profile's plugins and approved shell hooks (a new shell hook needs consent from the CLI first). */
  private async loadPlugins(): Promise<void> {
    const { loadSurfacePlugins } = await import('../plugins/load.ts');
    const { pluginPorts } = await import('../mcp/plugin-call.ts');
    const host = await loadSurfacePlugins({ home: this.home, config: this.config, env: this.env, cwd: messagingCwd(this.env), warn: (m) => this.log(`plugins: ${m}`), ports: pluginPorts });
    for (const def of (host?.commands() ?? []).map(pluginCommandDef)) if (!this.commands.list().some((d) => d.name === def.name || d.aliases?.includes(def.name))) this.commands.add(def);
  }

  /**
   * config.yaml's MCP servers, connected once for the whole gateway: their tools live in the shared
   * registry, and warm sessions pick up changes (a server connecting late, dropping, coming back).
   */
  private async startMcp(): Promise<void> {
    const raw = this.config.mcp_servers;
    if (!raw || typeof raw !== 'object' || !Object.keys(raw).length) return;
    try {
      const { startMcp } = await import('../mcp/session.ts');
      this.mcp = await startMcp({ home: this.home, env: this.env, cwd: messagingCwd(this.env), raw, waitMs: 15_000 });
    } catch (e) {
      this.log(`mcp: servers could not start: ${(e as Error).message}`);
      return;
    }
    if (!this.mcp) return;
    this.mcp.syncInto(this.registry);
    for (const s of this.mcp.status()) this.log(`mcp: ${s.name}: ${s.state}${s.state === 'ready' ? ` (${s.tools} tools)` : ''}`);
    this.mcp.on((e) => {
      this.log(`mcp: ${e.server}: ${e.state}${e.error ? ` (${e.error})` : ''}`);
      // Warm sessions rebuild their tool list before their next turn (see warmFor).
      this.toolsGeneration++;
    });
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.handoffs.stop();
    await this.mcp?.close().catch(() => undefined);
    this.cache.clear();
    this.index.flush();
    await this.router.close();
    await this.transcripts.close();
    this.dedupe.close();
    if (this.ledger && this.ledger !== (this.dedupe as unknown)) this.ledger.close();
  }

  private sweep(): void {
    this.cache.sweep();
    for (const [k, l] of this.lanes) if (!l.running && !l.waiting.length && !l.open.length) this.lanes.delete(k);
  }

  // ------------------------------------------------------------------------------------------
  // Sessions

  sessionKey(source: SessionSource): string {
    return buildSessionKey(source, this.keyOpts);
  }

  private toolsetsFor(platform: string): string[] {
    const pt = (this.config.platform_toolsets ?? {}) as Record<string, string[]>;
    if (Array.isArray(pt[platform]) && pt[platform].length) return pt[platform];
    return PLATFORM_TOOLSETS[`hermes-${platform}`] ? [`hermes-${platform}`] : ['hermes-gateway'];
  }

  private sessionContext(real: SessionSource): string {
    const source = modelView(real, this.config as never);
    const who = neutralizeInline(source.userName || source.userId || 'user');
    const where =
      source.chatType === 'dm'
        ? `a direct message with ${JSON.stringify(who)}`
        : `${source.chatType} ${JSON.stringify(neutralizeInline(source.chatName || source.chatId))}${source.threadId ? `, thread ${source.threadId}` : ''}`;
    const homes = this.connectedPlatforms()
      .map((p) => [p, homeChannel(p, this.env, this.config as never)] as const)
      .filter(([, h]) => h)
      .map(([p, h]) => `${p}:${h!.chatId}`);
    const lines = [
      '## Current Session Context',
      `You are talking on ${source.platform}, in ${where}.`,
      `Connected platforms: ${this.connectedPlatforms().join(', ') || source.platform}.`,
      homes.length ? `Home channels: ${homes.join(', ')}.` : 'No home channels are set (/sethome sets one).',
      'Your final reply is sent to this chat automatically; use send_message only to reach other chats.',
    ];
    const hint = getPlatform(source.platform)?.promptHint;
    if (hint) lines.push(hint);
    if (isSharedMultiUserSession(source, this.keyOpts)) lines.push('Several people share this conversation. Each message starts with [speaker name]; address people by name and do not save one person’s details as facts about "the user".');
    return lines.join('\n');
  }

  /** Sessions with background processes still running are never reset or evicted. */
  /** Background work of a conversation reported back: it runs as the next turn once the lane is free. */
  private onNotice(key: string): void {
    const lane = this.lanes.get(key);
    if (!lane || lane.running || !this.accepting) return;
    if (!this.pullNotices(lane)) return;
    void this.runLane(lane).catch((e) => this.log(`gateway: background notice for ${key} failed: ${(e as Error).stack ?? e}`));
  }

  /** Moves a conversation's waiting notices into its lane as one synthetic message. */
  private pullNotices(lane: Lane): boolean {
    const warm = this.cache.peek(lane.key);
    const notes = warm?.session.inbox.take() ?? [];
    if (!notes.length) return false;
    this.log(`gateway: ${lane.source.platform}:${lane.source.chatId}: ${notes.map((n) => n.title).join('; ')}`);
    lane.waiting.push({ source: lane.source, messageId: `notice-${notes[0].id}-${Date.now()}`, text: composeNotices(notes), meta: { notice: true } });
    return true;
  }

  private hasBackgroundProcesses(session: Session): boolean {
    if (!this.processes) return false;
    const task = session.services.taskId;
    return session.inbox.working > 0 || this.processes.list().some((p) => p.taskId === task && p.status === 'running');
  }

  private async createSession(source: SessionSource, sessionId: string, restore: boolean, adapter?: PlatformAdapter): Promise<Session> {
    let stored: StoredSession | null = null;
    let history: Message[] | undefined;
    if (restore) {
      const t = this.transcripts;
      const loaded = t.load ? await t.load(sessionId) : await (async () => {
        const session = await t.getStoredSession(sessionId);
        return session ? { session, messages: await t.getMessages(sessionId) } : null;
      })();
      stored = loaded?.session ?? null;
      history = loaded?.messages;
    }
    if (stored && !this.transcripts.db) {
      this.restored.add(sessionId);
      if (stored.endedAt) this.restoredEnded.add(sessionId);
    }
    const config = sessionConfig(this.config);
    const sys = [config.agent.system_prompt, this.sessionContext(source)].filter(Boolean).join('\n\n');
    const session = new Session({
      home: this.home,
      config,
      env: this.env,
      cwd: messagingCwd(this.env),
      platform: source.platform,
      source: source.platform,
      interactive: true,
      explicit: { toolsets: this.toolsetsFor(source.platform) },
      sessionId,
      history,
      systemPrompt: stored?.systemPrompt ?? undefined,
      llm: this.o.llmFactory?.(),
      registry: this.registry,
      ...this.store,
      dotenvNames: this.o.dotenvNames,
      promptParts: { systemMessage: sys, notes: this.mcp?.notes() },
      now: this.o.now,
      backgroundTasks: this.o.backgroundTasks,
      services: {
        origin: { platform: source.platform, chatId: source.chatId, threadId: source.threadId, userId: source.userId },
        messaging: routerMessaging(this.router),
      },
      ports: standalonePorts,
    });
    const display = platformSettings(this.config as never, source.platform);
    const tp = display.tool_progress ?? (this.config.display as { platforms?: Record<string, { tool_progress?: string }> }).platforms?.[source.platform]?.tool_progress ?? adapter?.prefers?.toolProgress;
    if (typeof tp === 'string' && ['off', 'new', 'all', 'verbose'].includes(tp)) session.prefs.toolProgress = tp as Session['prefs']['toolProgress'];
    const busy = this.env.HERMES_GATEWAY_BUSY_INPUT_MODE || (display.busy_input_mode as string | undefined) || adapter?.prefers?.busyInputMode;
    if (busy && ['interrupt', 'queue', 'steer'].includes(busy)) session.prefs.busyInputMode = busy as Session['prefs']['busyInputMode'];
    for (const w of session.warnings) this.log(`session ${sessionId}: ${w}`);
    return session;
  }

  /**
   * A session for a request-shaped surface (API server, webhooks): nobody can answer approvals
   * (unattended policy applies), stored like every other session.
   */
  serviceSession(o: { platform: string; sessionId?: string; history?: Message[]; systemPrompt?: string; systemExtra?: string; toolsets?: string[]; explicit?: ExplicitChoices; origin?: DeliveryOrigin; env?: Record<string, string> }): Session {
    const config = sessionConfig(this.config);
    const sys = [config.agent.system_prompt, o.systemExtra].filter(Boolean).join('\n\n');
    const session = new Session({
      home: this.home,
      config,
      env: o.env ? { ...this.env, ...o.env } : this.env,
      cwd: messagingCwd(this.env),
      platform: o.platform,
      source: o.platform,
      interactive: false,
      explicit: { ...o.explicit, toolsets: o.toolsets ?? this.toolsetsFor(o.platform) },
      sessionId: o.sessionId,
      history: o.history,
      systemPrompt: o.systemPrompt,
      llm: this.o.llmFactory?.(),
      registry: this.registry,
      ...this.store,
      dotenvNames: this.o.dotenvNames,
      promptParts: sys ? { systemMessage: sys } : undefined,
      now: this.o.now,
      services: o.origin ? { origin: o.origin } : undefined,
      ports: standalonePorts,
    });
    return session;
  }

  /** The warm runtime for a conversation, created (or restored from the store) when needed. */
  async warmFor(key: string, source: SessionSource, adapter?: PlatformAdapter): Promise<{ warm: Warm; created: boolean }> {
    const hit = this.cache.get(key);
    if (hit) {
      if ((this.toolsBuiltAt.get(hit.session) ?? 0) !== this.toolsGeneration && !hit.session.busy) {
        hit.session.rebuildTools();
        this.toolsBuiltAt.set(hit.session, this.toolsGeneration);
      }
      return { warm: hit, created: false };
    }
    // Gateways sharing a database: the conversation may have moved here from another gateway.
    await this.index.refresh(key);
    const { entry, created } = this.index.ensure(key, source);
    const session = await this.createSession(source, entry.session_id, !created, adapter);
    const raced = this.cache.get(key);
    if (raced) {
      // Another message of this chat built the runtime while the store was read: keep that one.
      void session.close(EVICT_REASON);
      return { warm: raced, created: false };
    }
    this.toolsBuiltAt.set(session, this.toolsGeneration);
    const warm = new Warm(session, key, () => this.hasBackgroundProcesses(session));
    this.cache.set(key, warm);
    session.inbox.listening = true;
    session.inbox.on(() => this.onNotice(key));
    if (created) void this.hooks.emit('session:start', { platform: source.platform, user_id: source.userId ?? null, session_id: entry.session_id, session_key: key });
    return { warm, created };
  }

  /** Drops a warm runtime (the conversation goes on: the next message rebuilds it from the store). */
  evict(key: string): void {
    const w = this.cache.delete(key);
    if (!w) return;
    this.restored.delete(w.session.id);
    this.restoredEnded.delete(w.session.id);
    void w.session.close(EVICT_REASON);
  }

  /** A platform (re)gained in a cluster: its idle warm runtimes may be stale (another gateway went on with those chats). */
  forgetPlatform(platform: string): void {
    for (const key of this.cache.keys()) if (this.cache.peek(key)?.session.info.platform === platform && !this.cache.peek(key)?.session.busy) this.evict(key);
  }

  /** Applies the reset policy before a turn. Returns the reason when the conversation was reset. */
  async maybeReset(key: string, warm: Warm, source: SessionSource): Promise<string | null> {
    const last = this.index.lastActive(key);
    if (last === null) return null;
    const reason = resetReason(resetPolicyFrom(this.config as never, this.env), last, this.now());
    if (!reason) return null;
    if (warm.session.busy || this.hasBackgroundProcesses(warm.session)) return null;
    const old = warm.session.id;
    if (!warm.session.history.length && !warm.session.persisted && !(await this.transcripts.getStoredSession(old))) {
      this.index.touch(key, source);
      return null;
    }
    warm.session.reset(reason === 'idle' ? 'session_reset_idle' : 'session_reset_daily');
    this.index.setSessionId(key, warm.session.id, reason, old);
    void this.hooks.emit('session:end', { platform: source.platform, user_id: source.userId ?? null, session_key: key, session_id: old, reason });
    void this.hooks.emit('session:reset', { platform: source.platform, user_id: source.userId ?? null, session_key: key, old_session_id: old, session_id: warm.session.id, reason });
    return reason;
  }

  // ------------------------------------------------------------------------------------------
  // Inbound

  private laneFor(key: string, adapter: PlatformAdapter, source: SessionSource): Lane {
    let l = this.lanes.get(key);
    if (!l) {
      l = { key, adapter, source, running: false, waiting: [], open: [] };
      this.lanes.set(key, l);
    }
    l.adapter = adapter;
    l.source = source;
    return l;
  }

  /**
   * A message from an adapter: recorded first (the inbound dedupe / delivery ledger), then handled.
   * Resolves once it is recorded (not answered): an adapter may confirm it to the platform then.
   */
  onMessage(adapter: PlatformAdapter, msg: InboundMessage): Promise<void> {
    if (!this.accepting) return Promise.resolve();
    const src = msg.source;
    // A message the ledger hands back after a restart was recorded (and adopted) already.
    const claim = msg.meta?.replayed === true ? true : this.dedupe.claim(src.platform, src.chatId, msg.messageId, src.threadId, msg);
    const go = (ok: boolean) => {
      if (!ok) return void this.log(`gateway: duplicate ${src.platform} message ${msg.messageId} in ${src.chatId} ignored`);
      void this.handleMessage(adapter, msg).catch((e) => this.log(`gateway: message from ${src.platform}:${src.chatId} failed: ${(e as Error).stack ?? e}`));
    };
    if (typeof claim === 'boolean') return Promise.resolve(go(claim));
    return claim.then(go, (e: unknown) => this.log(`gateway: could not record a ${src.platform} message from ${src.chatId}, so it is not handled: ${(e as Error).message}`));
  }

  /** Sends text as it is (no ledger): notices, and replies the ledger resends itself. */
  async sendRaw(adapter: PlatformAdapter, source: SessionSource, text: string, parts?: ReplyParts): Promise<{ ok: boolean; messageId?: string; error?: string }> {
    const r = await sendText(adapter, source.chatId, text, { threadId: source.threadId, redact: redactionEnabled(this.env, this.config as never), parts });
    if (!r.ok) this.log(`gateway: ${adapter.name}: send to ${source.chatId} failed: ${r.error}`);
    return { ok: r.ok, messageId: r.messageIds[0], error: r.error };
  }

  /** A reply to `batch`, recorded in the delivery ledger before and right after it is sent. */
  async replyTo(lane: Lane, batch: InboundMessage[], text: string, opts: { replyTo?: string; meta?: Record<string, unknown> } = {}): Promise<string | undefined> {
    const { adapter, source } = lane;
    const send = async (parts?: ReplyParts) => {
      const r = await sendText(adapter, source.chatId, text, { threadId: source.threadId, replyTo: opts.replyTo, meta: opts.meta, redact: redactionEnabled(this.env, this.config as never), parts });
      if (!r.ok) this.log(`gateway: ${adapter.name}: send to ${source.chatId} failed: ${r.error}`);
      return { ok: r.ok, messageId: r.messageIds[0], error: r.error };
    };
    const r = this.ledger ? await this.ledger.send(adapter, source, batch, lane.key, text, send) : await send();
    return r.messageId;
  }

  async reply(adapter: PlatformAdapter, source: SessionSource, text: string, opts: { replyTo?: string; meta?: Record<string, unknown>; buttons?: { label: string; data: string }[][] } = {}): Promise<string | undefined> {
    if (opts.buttons && adapter.supportsButtons) {
      const r = await adapter.send(source.chatId, text, { threadId: source.threadId, buttons: opts.buttons, meta: opts.meta });
      if (!r.ok) this.log(`gateway: ${adapter.name}: send failed: ${r.error}`);
      return r.messageId;
    }
    const r = await sendText(adapter, source.chatId, text, { threadId: source.threadId, replyTo: opts.replyTo, meta: opts.meta, redact: redactionEnabled(this.env, this.config as never) });
    if (!r.ok) this.log(`gateway: ${adapter.name}: send to ${source.chatId} failed: ${r.error}`);
    return r.messageIds[0];
  }

  private async handleMessage(adapter: PlatformAdapter, msg: InboundMessage): Promise<void> {
    if (!this.accepting) return;
    const src = msg.source;
    const done = () => this.dedupe.finish(src.platform, src.chatId, msg.messageId);
    // Plugins' pre_gateway_dispatch sees the message before authorization: it may drop or rewrite it.
    const d = wantsDispatchHook(this.home) ? await preGatewayDispatch(this.home, msg, { sessionKey: this.sessionKey(src), reply: (t) => this.reply(adapter, src, t) }) : null;
    if (d?.action === 'skip') return void (this.log(`plugins: pre_gateway_dispatch skipped a ${src.platform} message${d.reason ? ` (${d.reason})` : ''}`), done());
    if (d?.action === 'rewrite') msg = { ...msg, text: d.text };
    const auth = authorize(src, this.env, this.pairing);
    if (!auth.ok) {
      await this.stranger(adapter, msg);
      done();
      return;
    }
    const key = this.sessionKey(src);
    const lane = this.laneFor(key, adapter, src);
    lane.lastMeta = msg.meta;
    const text = msg.text.trim();

    // Answers to an open clarify / approval of this conversation go straight to the running turn.
    if (lane.open.length && !text.startsWith('/')) {
      const r = lane.open[0];
      const warm = this.cache.peek(key);
      if (warm && r.kind === 'clarify') {
        const n = Number(text);
        const choices = (r.request as { choices?: string[] }).choices;
        const answer = choices && Number.isInteger(n) && n >= 1 && n <= choices.length ? choices[n - 1] : text;
        warm.session.answer(r.id, answer);
        done();
        return;
      }
      if (warm && r.kind === 'approval' && (YES.test(text) || NO.test(text))) {
        warm.session.answer(r.id, YES.test(text) ? 'once' : 'deny');
        done();
        return;
      }
    }

    if (text.startsWith('/')) {
      await runCommand(this, adapter, lane, msg);
      done();
      return;
    }

    if (lane.running) {
      const warm = this.cache.peek(key);
      const mode = warm?.session.prefs.busyInputMode ?? 'interrupt';
      const ack = (platformSettings(this.config as never, src.platform).busy_ack_enabled ?? (this.config.display as { busy_ack_enabled?: boolean }).busy_ack_enabled ?? adapter.prefers?.busyAck) !== false;
      if (mode === 'steer' && warm) {
        warm.session.steer(speakerText(msg, { home: this.home, config: this.config as never, env: this.env, keyOpts: this.keyOpts, log: this.log }));
        if (ack) await this.reply(adapter, src, t('gateway.busy_steer'));
        done();
        return;
      }
      lane.waiting.push(msg);
      if (mode === 'interrupt' && warm) {
        // Interrupt before awaiting the acknowledgement: while it is being sent the running turn may
        // end and the lane start the next one — with this very message —, which must not be aborted.
        warm.session.interrupt();
        if (ack) await this.reply(adapter, src, t('gateway.busy_interrupt'));
      } else if (ack) await this.reply(adapter, src, t('gateway.busy_queued', { count: lane.waiting.length }));
      return;
    }
    lane.waiting.push(msg);
    await this.runLane(lane);
  }

  /** Someone not allowed in: a pairing code in DMs (or silence), nothing in groups. */
  private async stranger(adapter: PlatformAdapter, msg: InboundMessage): Promise<void> {
    const src = msg.source;
    const who = `${src.platform} user ${src.userId ?? '?'}${src.userName ? ` (${neutralizeInline(src.userName, 60)})` : ''}`;
    if (src.chatType !== 'dm' || !src.userId || unauthorizedDmBehavior(src.platform, this.config as never) !== 'pair') {
      this.log(`auth: ignored a message from ${who} (not allowed)`);
      return;
    }
    const r = this.pairing.generateCode(src.platform, src.userId, src.userName ?? '');
    if ('refused' in r) {
      this.log(`auth: no pairing code for ${who}: ${r.refused.replace(/_/g, ' ')}`);
      return;
    }
    this.log(`auth: pairing code issued to ${who}`);
    await this.reply(
      adapter,
      src,
      t('gateway.pairing', { code: r.code, platform: src.platform }),
      { meta: msg.meta },
    );
  }

  // ------------------------------------------------------------------------------------------
  // Turns

  async runLane(lane: Lane, push?: InboundMessage): Promise<void> {
    if (push) lane.waiting.push(push);
    if (lane.running) return;
    lane.running = true;
    try {
      while (lane.waiting.length || this.pullNotices(lane)) {
        const warm = this.cache.peek(lane.key);
        const mode = warm?.session.prefs.busyInputMode ?? 'interrupt';
        // Interrupt mode merges everything that arrived meanwhile; queue mode takes one at a time.
        const batch = mode === 'queue' ? lane.waiting.splice(0, 1) : lane.waiting.splice(0);
        await runTurn(this, lane, batch);
      }
    } finally {
      lane.running = false;
      for (const f of [...this.idle]) f();
    }
  }
}

/**
 * A session's own view of the config: what slash commands change per session (agent.* such as
 * reasoning effort and disabled toolsets) is copied; the rest is shared, read-only.
 */
function sessionConfig(c: HermesConfig): HermesConfig {
  return { ...c, agent: { ...c.agent } };
}

/** state.db's delivery ledger beside the transcripts (none when they are not in a SQLite file). */
function openLedger(t: TranscriptStore, log: (line: string) => void): GatewayLedger | null {
  const file = t.db?.file;
  if (!file) return null;
  try {
    return new GatewayLedger(SqliteLedger.open(file), log);
  } catch (e) {
    log(`gateway: the delivery ledger in ${file} could not be opened (${(e as Error).message}); messages are deduplicated by gateway/inbound.jsonl instead`);
    return null;
  }
}
