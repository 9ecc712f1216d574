// `hermes acp`: Hermes as an Agent Client Protocol agent for editors (Zed, VS Code, JetBrains…).
// Each ACP session is a runtime Session (platform `acp`); its events stream out as session/update
// notifications, its approval requests become session/request_permission, and file edits are
// approved as diffs under the session's edit-approval policy.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import * as acp from '@agentclientprotocol/sdk/unstable';
import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  McpServer,
  PermissionOption,
  SessionConfigOption,
  SessionInfo,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk/unstable';
import pkg from '../../package.json' with { type: 'json' };
import { messageText } from '../agent/repair.ts';
import type { AgentEvent, AgentRequest, ApprovalChoice, TurnResult } from '../agent/types.ts';
import { createCommandRegistry } from '../commands/builtin.ts';
import { parseModelArg } from '../commands/model.ts';
import { runCommand } from '../commands/registry.ts';
import { describeError, ResolveError, resolveRuntime, servedModels } from '../llm/index.ts';
import type { Message } from '../llm/types.ts';
import { parseServer, type McpServerConfig } from '../mcp/config.ts';
import { McpManager } from '../mcp/manager.ts';
import { attachMcp } from '../mcp/session.ts';
import { newSessionId, resolveInputFrom, Session } from '../session/session.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { namedEndpoints } from '../state/endpoints.ts';
import { paths } from '../state/paths.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import { diskAccess, EDIT_POLICIES, installEditTools, type EditPolicy, type EditSession, type FileAccess } from './edits.ts';
import { promptToMessage } from './prompt.ts';
import { composeNotices } from '../session/inbox.ts';
import { diffContent, resultContent, textContent, toolKind, toolLocations, toolTitle } from './render.ts';
import type { AcpStore } from './store.ts';
import { standalonePorts } from '../gateway/messaging.ts';

export interface AcpServerOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  config: HermesConfig;
  /** config.yaml's `mcp_servers` as written (unexpanded). */
  rawMcp: unknown;
  dotenvNames?: string[];
  store: AcpStore | null;
  log: (line: string) => void;
  /** How long session/new waits for slow MCP servers (default 10 s; they keep connecting after). */
  mcpWaitMs?: number;
}

interface LiveSession {
  id: string;
  session: Session;
  cwd: string;
  clientMcp: McpManager | null;
  clientServers: McpServer[];
  edits: EditSession;
  title: string | null;
  updatedAt: number;
  turn: Promise<TurnResult> | null;
  out: Promise<void>;
  running: Map<string, { name: string; args: Record<string, unknown> }>;
  permissions: Map<string, AbortController>;
  notices: string[];
  /** A background-notice turn is being run (onNotice). */
  draining?: boolean;
}

/** The slash commands editors are offered (each must exist in the shared registry). */
/** Models of the provider offered in the model option (OpenRouter lists hundreds). */
const MODEL_OPTIONS_MAX = 300;
const ADVERTISED = ['help', 'model', 'tools', 'context', 'reset', 'compress', 'steer', 'queue', 'version', 'reload-mcp'];

const OPTION_TO_CHOICE: Record<string, ApprovalChoice> = { allow_once: 'once', allow_session: 'session', allow_always: 'always', reject: 'deny' };

const POLICY_NAMES: Record<EditPolicy, string> = {
  ask: 'Ask before every edit',
  workspace_session: 'Edit the workspace without asking',
  session: 'Edit anywhere without asking',
};

export class HermesAcpServer {
  private readonly o: AcpServerOptions;
  private client: AgentContext | null = null;
  private clientCaps: ClientCapabilities = {};
  private readonly sessions = new Map<string, LiveSession>();
  private configMcp: Promise<McpManager | null> | null = null;
  private readonly commands = createCommandRegistry();

  constructor(o: AcpServerOptions) {
    this.o = o;
  }

  // -------------------------------------------------------------------------------------------
  // wiring

  app(): acp.AgentApp {
    return acp
      .agent({ name: 'hermes' })
      .onRequest(acp.methods.agent.initialize, ({ params }) => this.initialize(params))
      .onRequest(acp.methods.agent.authenticate, ({ params }) => this.authenticate(params.methodId))
      .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
        this.client ??= client;
        const live = await this.open({ cwd: params.cwd, mcpServers: params.mcpServers });
        this.afterOpen(live);
        return { sessionId: live.id, configOptions: await this.configOptions(live) };
      })
      .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
        this.client ??= client;
        const live = await this.restore(params.sessionId, params.cwd, params.mcpServers);
        await this.replay(live);
        this.afterOpen(live);
        return { configOptions: await this.configOptions(live) };
      })
      .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => {
        this.client ??= client;
        const live = await this.restore(params.sessionId, params.cwd, params.mcpServers);
        this.afterOpen(live);
        return { configOptions: await this.configOptions(live) };
      })
      .onRequest(acp.methods.agent.session.fork, async ({ params, client }) => {
        this.client ??= client;
        const live = await this.fork(params.sessionId, params.cwd, params.mcpServers);
        this.afterOpen(live);
        return { sessionId: live.id, configOptions: await this.configOptions(live) };
      })
      .onRequest(acp.methods.agent.session.list, ({ params }) => this.list(params.cwd ?? undefined))
      .onRequest(acp.methods.agent.session.close, async ({ params }) => {
        const live = this.sessions.get(params.sessionId);
        if (!live) throw acp.RequestError.sessionNotFound(params.sessionId);
        this.sessions.delete(live.id);
        await live.session.close('acp_close');
        return {};
      })
      .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
        const live = this.live(params.sessionId);
        this.setOption(live, params.configId, params.value);
        return { configOptions: await this.configOptions(live) };
      })
      .onRequest(acp.methods.agent.session.prompt, ({ params }) => this.prompt(this.live(params.sessionId), params.prompt))
      .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
        const live = this.sessions.get(params.sessionId);
        if (!live) return;
        this.o.log(`session ${live.id}: cancelled by the editor`);
        live.session.interrupt();
      });
  }

  /** Serves one connection on a stream until it closes. */
  async serve(stream: acp.Stream): Promise<void> {
    const conn = this.app().connect(stream);
    this.client = conn.client;
    await conn.closed;
    await this.shutdown();
  }

  async shutdown(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((l) => l.session.close('acp_exit').catch(() => {})));
    const m = await this.configMcp?.catch(() => null);
    await m?.close();
    await this.o.store?.close?.();
  }

  private live(id: string): LiveSession {
    const live = this.sessions.get(id);
    if (!live) throw acp.RequestError.sessionNotFound(id);
    return live;
  }

  // -------------------------------------------------------------------------------------------
  // initialize / authenticate

  private initialize(params: acp.InitializeRequest): acp.InitializeResponse {
    this.clientCaps = params.clientCapabilities ?? {};
    this.o.log(`initialize: ${params.clientInfo?.name ?? 'unknown client'} ${params.clientInfo?.version ?? ''} (protocol ${params.protocolVersion}; fs read ${!!this.clientCaps.fs?.readTextFile}, write ${!!this.clientCaps.fs?.writeTextFile})`);
    void this.configManager();
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { list: {}, resume: {}, fork: {}, close: {} },
      },
      authMethods: [
        {
          id: 'hermes',
          name: 'Hermes configuration',
          description: 'Use the model provider and API key configured for Hermes (`hermes config set model.provider …`, keys in ~/.hermes/.env).',
        },
      ],
      agentInfo: { name: 'hermes-agent', title: 'Hermes Agent', version: pkg.version },
    };
  }

  private authenticate(methodId: string): acp.AuthenticateResponse {
    if (methodId !== 'hermes') throw acp.RequestError.invalidParams({ methodId }, `unknown authentication method "${methodId}"; use "hermes"`);
    try {
      resolveRuntime(resolveInputFrom(this.o.config, this.o.env));
    } catch (e) {
      throw acp.RequestError.authRequired(undefined, e instanceof Error ? e.message : String(e));
    }
    return {};
  }

  // -------------------------------------------------------------------------------------------
  // sessions

  private configManager(): Promise<McpManager | null> {
    if (!this.configMcp) {
      const skip = ['1', 'true', 'yes'].includes((this.o.env.HERMES_ACP_SKIP_CONFIGURED_MCP ?? '').toLowerCase());
      this.configMcp = (async () => {
        if (skip) return null;
        const m = new McpManager({ env: this.o.env, home: this.o.home, logDir: paths.logs(this.o.home), source: 'config', oauthInteractive: false }).configure(this.o.rawMcp);
        if (!m.configured) return null;
        await m.start(this.o.mcpWaitMs ?? 10_000);
        return m;
      })();
    }
    return this.configMcp;
  }

  /** Editor-supplied MCP servers as Hermes server configs (problems become notices). */
  private clientServerConfigs(servers: McpServer[], taken: Set<string>, notices: string[]): McpServerConfig[] {
    const out: McpServerConfig[] = [];
    for (const s of servers) {
      if (taken.has(s.name)) {
        notices.push(`The editor's MCP server "${s.name}" has the same name as one in config.yaml; the config.yaml one is used.`);
        continue;
      }
      let raw: Record<string, unknown>;
      if ('type' in s && s.type === 'acp') {
        notices.push(`The editor's MCP server "${s.name}" uses the ACP transport, which Hermes does not support; it was skipped.`);
        continue;
      } else if ('url' in s) raw = { url: s.url, headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])), transport: 'type' in s && s.type === 'sse' ? 'sse' : 'http' };
      else raw = { command: s.command, args: s.args, env: Object.fromEntries(s.env.map((v) => [v.name, v.value])) };
      const r = parseServer(s.name.replace(/[^A-Za-z0-9_.-]/g, '_'), raw, this.o.env);
      if (r.config && !r.problem) out.push(r.config);
      else notices.push(`The editor's MCP server "${s.name}" could not be used: ${r.problem}`);
    }
    return out;
  }

  private fileAccess(sessionId: () => string): FileAccess {
    const disk = diskAccess();
    const fs = this.clientCaps.fs ?? {};
    if (!fs.readTextFile && !fs.writeTextFile) return disk;
    const client = () => this.client!;
    return {
      viaClient: !!fs.readTextFile,
      read: fs.readTextFile
        ? async (path) => {
            const local = await disk.read(path);
            if (local === null) {
              // A file that does not exist on disk may still be open (unsaved) in the editor.
              try {
                return (await client().request(acp.methods.client.fs.readTextFile, { sessionId: sessionId(), path })).content;
              } catch {
                return null;
              }
            }
            try {
              return (await client().request(acp.methods.client.fs.readTextFile, { sessionId: sessionId(), path })).content;
            } catch {
              return local;
            }
          }
        : disk.read,
      write: fs.writeTextFile
        ? async (path, content) => {
            await client().request(acp.methods.client.fs.writeTextFile, { sessionId: sessionId(), path, content });
          }
        : undefined,
    };
  }

  private async open(o: { id?: string; cwd: string; mcpServers?: McpServer[]; history?: Message[]; systemPrompt?: string; parentId?: string; title?: string | null; policy?: EditPolicy }): Promise<LiveSession> {
    if (!o.cwd || !isAbsolute(o.cwd)) throw acp.RequestError.invalidParams({ cwd: o.cwd }, 'cwd must be an absolute path');
    if (!existsSync(o.cwd) || !statSync(o.cwd).isDirectory()) throw acp.RequestError.invalidParams({ cwd: o.cwd }, `cwd ${o.cwd} is not a directory`);
    const id = o.id ?? newSessionId();
    const notices: string[] = [];
    const configMcp = await this.configManager();
    const servers = o.mcpServers ?? [];
    const clientConfigs = this.clientServerConfigs(servers, new Set(configMcp?.connections.keys() ?? []), notices);
    let clientMcp: McpManager | null = null;
    if (clientConfigs.length) {
      clientMcp = new McpManager({ env: this.o.env, cwd: o.cwd, home: this.o.home, logDir: paths.logs(this.o.home), extra: clientConfigs, source: 'client', oauthInteractive: false }).configure({});
      await clientMcp.start(this.o.mcpWaitMs ?? 10_000);
    }
    const cfg = this.o.config as HermesConfig & { acp?: { edit_approval?: string }; platform_toolsets?: Record<string, string[]> };
    const configured = cfg.acp?.edit_approval;
    const policy: EditPolicy = o.policy ?? (EDIT_POLICIES.includes(configured as EditPolicy) ? (configured as EditPolicy) : 'ask');
    let liveRef: LiveSession | null = null;
    const edits: EditSession = { cwd: () => liveRef?.cwd ?? o.cwd, policy, files: this.fileAccess(() => id), done: new Map() };
    // The home's plugins and approved shell hooks (loaded once per process; problems go to the log).
    const { pluginPorts } = await import('../mcp/plugin-call.ts');
    await (await import('../plugins/load.ts')).loadSurfacePlugins({ home: this.o.home, config: this.o.config, env: this.o.env, cwd: o.cwd, ports: pluginPorts });
    const registry = builtinRegistry();
    installEditTools(registry, edits);
    configMcp?.syncInto(registry);
    clientMcp?.syncInto(registry);
    let session: Session;
    try {
      session = new Session({
        home: this.o.home,
        config: this.o.config,
        env: this.o.env,
        cwd: o.cwd,
        platform: 'acp',
        source: 'acp',
        interactive: true,
        explicit: { toolsets: cfg.platform_toolsets?.acp?.length ? cfg.platform_toolsets.acp : ['hermes-acp'] },
        sessionId: id,
        history: o.history,
        systemPrompt: o.systemPrompt,
        registry,
        store: this.o.store ?? undefined,
        dotenvNames: this.o.dotenvNames,
        ports: standalonePorts,
        parentSessionId: o.parentId,
        promptParts: { notes: [...(configMcp?.notes() ?? []), ...(clientMcp?.notes() ?? [])] },
      });
    } catch (e) {
      await clientMcp?.close();
      if (e instanceof ResolveError) throw acp.RequestError.authRequired(undefined, e.message);
      throw acp.RequestError.internalError(undefined, (e as Error).message);
    }
    if (configMcp) attachMcp(session, configMcp, { owned: false });
    if (clientMcp) attachMcp(session, clientMcp, { owned: true });
    for (const w of [...(configMcp?.warnings() ?? []), ...(clientMcp?.warnings() ?? [])]) notices.push(w);
    const live: LiveSession = {
      id,
      session,
      cwd: o.cwd,
      clientMcp,
      clientServers: servers,
      edits,
      title: o.title ?? null,
      updatedAt: Date.now(),
      turn: null,
      out: Promise.resolve(),
      running: new Map(),
      permissions: new Map(),
      notices,
    };
    liveRef = live;
    session.on((e) => this.onEvent(live, e));
    // Background work reports back into the conversation (see onNotice).
    session.inbox.listening = true;
    session.inbox.on(() => void this.onNotice(live));
    this.sessions.set(id, live);
    this.o.log(`session ${id}: ${o.history ? `restored (${o.history.length} messages)` : 'new'} in ${o.cwd} · ${session.tools.length} tools · ${session.runtime.model}`);
    return live;
  }

  /** The session to load or resume: the live one, or one stored in state.db. */
  private async restore(id: string, cwd: string, mcpServers?: McpServer[]): Promise<LiveSession> {
    const live = this.sessions.get(id);
    if (live) {
      if (cwd && isAbsolute(cwd) && cwd !== live.cwd) {
        live.cwd = cwd;
        live.session.services.cwd = cwd;
      }
      return live;
    }
    const row = await this.o.store?.getSession(id);
    if (!row) throw acp.RequestError.sessionNotFound(id);
    return this.open({ id, cwd: cwd || row.cwd || process.cwd(), mcpServers, history: await this.o.store!.getMessages(id), systemPrompt: row.system_prompt ?? undefined, title: row.title });
  }

  private async fork(sourceId: string, cwd: string, mcpServers?: McpServer[]): Promise<LiveSession> {
    const src = this.sessions.get(sourceId);
    let history: Message[];
    let title: string | null = null;
    let servers = mcpServers;
    let policy: EditPolicy | undefined;
    if (src) {
      history = structuredClone(src.session.history);
      title = src.title ? `${src.title} (fork)` : null;
      servers ??= src.clientServers;
      policy = src.edits.policy;
    } else {
      const row = await this.o.store?.getSession(sourceId);
      if (!row) throw acp.RequestError.sessionNotFound(sourceId);
      history = await this.o.store!.getMessages(sourceId);
      title = row.title ? `${row.title} (fork)` : null;
    }
    return this.open({ cwd: cwd || src?.cwd || process.cwd(), mcpServers: servers, history, parentId: sourceId, title, policy });
  }

  private async list(cwd?: string): Promise<acp.ListSessionsResponse> {
    const out = new Map<string, SessionInfo>();
    const stored = async (id: string) => {
      try {
        return (await this.o.store?.getSession(id))?.title ?? null;
      } catch {
        return null;
      }
    };
    for (const l of this.sessions.values())
      out.set(l.id, { sessionId: l.id, cwd: l.cwd, title: (await stored(l.session.id)) ?? l.title ?? firstUserText(l.session.history) ?? null, updatedAt: new Date(l.updatedAt).toISOString() });
    try {
      for (const r of (await this.o.store?.listSessions({ source: 'acp', limit: 100 })) ?? [])
        if (!out.has(r.id) && r.cwd)
          out.set(r.id, { sessionId: r.id, cwd: r.cwd, title: r.title ?? (r.preview || null), updatedAt: new Date(r.last_active * 1000).toISOString() });
    } catch (e) {
      this.o.log(`session/list: cannot read the session store: ${(e as Error).message}`);
    }
    const sessions = [...out.values()].filter((s) => !cwd || s.cwd === cwd).sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
    return { sessions };
  }

  /** After a session is opened: tell the editor which slash commands exist. */
  private afterOpen(live: LiveSession): void {
    setImmediate(() => this.send(live, { sessionUpdate: 'available_commands_update', availableCommands: this.availableCommands() }));
  }

  availableCommands(): acp.AvailableCommand[] {
    const out: acp.AvailableCommand[] = [];
    for (const name of ADVERTISED) {
      const r = this.commands.resolve(`/${name}`, 'acp');
      if ('error' in r || (r.def.name !== name && !r.def.aliases?.includes(name))) continue;
      out.push({ name, description: r.def.description, ...(r.def.args ? { input: { hint: r.def.args } } : {}) });
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // config options: model and edit approval

  private async configOptions(live: LiveSession): Promise<SessionConfigOption[]> {
    const rt = live.session.runtime;
    const current = `${rt.provider}:${rt.model}`;
    const values = new Map<string, string>([[current, `${rt.model} (${rt.provider})`]]);
    const c = this.o.config;
    if (c.model?.default) {
      const p = c.model.provider && c.model.provider !== 'auto' ? c.model.provider : rt.provider;
      values.set(`${p}:${c.model.default}`, `${c.model.default} (${p})`);
    }
    // What the provider serves (its /models list, remembered for a while), then the other choices.
    for (const id of ((await servedModels(rt).catch(() => null)) ?? []).slice(0, MODEL_OPTIONS_MAX)) values.set(`${rt.provider}:${id}`, `${id} (${rt.provider})`);
    for (const f of c.fallback_providers ?? []) if (f.provider && f.model) values.set(`${f.provider}:${f.model}`, `${f.model} (${f.provider})`);
    for (const e of namedEndpoints(c)) if (e.entry.model) values.set(`${e.id}:${e.entry.model}`, `${e.entry.model} (${e.name})`);
    return [
      {
        id: 'model',
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: current,
        options: [...values].map(([value, name]) => ({ value, name })),
      },
      {
        id: 'edit_approval',
        name: 'File edits',
        description: 'When Hermes may change files without asking (.git, .ssh, .env files and keys always ask).',
        category: 'mode',
        type: 'select',
        currentValue: live.edits.policy,
        options: EDIT_POLICIES.map((p) => ({ value: p, name: POLICY_NAMES[p] })),
      },
    ];
  }

  private setOption(live: LiveSession, id: string, value: unknown): void {
    if (id === 'edit_approval') {
      if (!EDIT_POLICIES.includes(value as EditPolicy)) throw acp.RequestError.invalidParams({ value }, `edit_approval must be one of ${EDIT_POLICIES.join(', ')}`);
      live.edits.policy = value as EditPolicy;
      return;
    }
    if (id !== 'model') throw acp.RequestError.invalidParams({ configId: id }, `unknown option "${id}"; Hermes has "model" and "edit_approval"`);
    if (typeof value !== 'string' || !value.trim()) throw acp.RequestError.invalidParams({ value }, 'the model must be a non-empty string (model or provider:model)');
    if (live.session.busy) throw acp.RequestError.invalidRequest(undefined, 'the model cannot change while a turn is running');
    const { change, error } = parseModelArg(value, live.session);
    if (!change) throw acp.RequestError.invalidParams({ value }, error ?? 'not a model');
    try {
      live.session.switchModel(change);
    } catch (e) {
      throw acp.RequestError.invalidParams({ value }, (e as Error).message);
    }
    this.o.log(`session ${live.id}: model → ${live.session.runtime.provider}:${live.session.runtime.model}`);
  }

  // -------------------------------------------------------------------------------------------
  // prompts

  private async prompt(live: LiveSession, blocks: ContentBlock[]): Promise<acp.PromptResponse> {
    let { message, text } = promptToMessage(blocks);
    const trimmed = text.trim();
    if (trimmed.startsWith('/') && blocks.length === 1) {
      const r = this.commands.resolve(trimmed, 'acp');
      if (!('error' in r)) {
        if (live.session.busy && !r.def.midTurn) await this.idle(live);
        const res = await runCommand(this.commands, trimmed, { session: live.session, surface: 'acp', hooks: {} });
        if (res?.output) this.send(live, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: res.output } });
        if (res?.action === 'new_session') this.o.log(`session ${live.id}: history cleared (/reset)`);
        if (!res?.send) {
          await live.out;
          return { stopReason: 'end_turn' };
        }
        message = { role: 'user', content: res.send };
        text = res.send;
      }
      // An unknown /command goes to the model as it was typed.
    }
    // Waited for inline: nothing may run between the last check and taking the turn (a notice turn could start).
    while (live.turn) await live.turn.catch(() => undefined);
    if (!live.title && text.trim()) live.title = text.trim().replace(/\s+/g, ' ').slice(0, 60);
    if (live.notices.length) {
      this.send(live, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: live.notices.map((n) => `⚠ ${n}`).join('\n') + '\n\n' } });
      live.notices = [];
    }
    let result: TurnResult;
    const turn = live.session.prompt(message);
    live.turn = turn;
    try {
      result = await turn;
    } catch (e) {
      throw acp.RequestError.internalError(undefined, (e as Error).message);
    } finally {
      live.turn = null;
      live.updatedAt = Date.now();
    }
    await live.out;
    const usage = {
      inputTokens: result.usage.input_tokens + result.usage.cache_read_tokens + result.usage.cache_write_tokens,
      outputTokens: result.usage.output_tokens,
      totalTokens: result.usage.input_tokens + result.usage.cache_read_tokens + result.usage.cache_write_tokens + result.usage.output_tokens,
      thoughtTokens: result.usage.reasoning_tokens || null,
      cachedReadTokens: result.usage.cache_read_tokens || null,
      cachedWriteTokens: result.usage.cache_write_tokens || null,
    };
    if (result.interrupted) return { stopReason: 'cancelled', usage };
    if (result.failed) {
      const err = result.error;
      const msg = err && 'provider' in err ? describeError(err, live.session.runtime) : (err?.message ?? 'The turn failed.');
      this.o.log(`session ${live.id}: turn failed: ${msg}`);
      if (err && 'kind' in err && err.kind === 'auth') throw acp.RequestError.authRequired(undefined, msg);
      throw acp.RequestError.internalError(undefined, msg);
    }
    const stopReason: StopReason = result.partial ? 'max_turn_requests' : 'end_turn';
    return { stopReason, usage };
  }

  /**
   * A background process or subagent reported (notify_on_complete, watch_patterns, delegate
   * background): once the session is idle the notices run as a turn of their own, streamed to the
   * editor with session/update like any turn (a 🔔 line first says what arrived). A prompt that comes
   * in meanwhile waits for it, and notices that arrive during a prompt run after it.
   */
  private async onNotice(live: LiveSession): Promise<void> {
    if (live.draining) return;
    live.draining = true;
    try {
      for (;;) {
        while (live.turn) await live.turn.catch(() => undefined);
        if (this.sessions.get(live.id) !== live) return;
        const notes = live.session.inbox.take();
        if (!notes.length) return;
        this.send(live, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${notes.map((n) => `🔔 ${n.title}`).join('\n')}\n\n` } });
        const turn = live.session.prompt(composeNotices(notes));
        live.turn = turn;
        try {
          const r = await turn;
          if (r.failed) this.o.log(`session ${live.id}: background notice turn failed: ${r.error?.message ?? 'unknown error'}`);
        } catch (e) {
          this.o.log(`session ${live.id}: background notice turn failed: ${(e as Error).message}`);
        } finally {
          live.turn = null;
          live.updatedAt = Date.now();
        }
        await live.out;
      }
    } finally {
      live.draining = false;
    }
  }

  private async idle(live: LiveSession): Promise<void> {
    while (live.turn) await live.turn.catch(() => undefined);
  }

  // -------------------------------------------------------------------------------------------
  // events → session/update

  private send(live: LiveSession, update: SessionUpdate): void {
    const client = this.client;
    if (!client) return;
    live.out = live.out
      .then(() => client.notify(acp.methods.client.session.update, { sessionId: live.id, update }))
      .catch((e: Error) => this.o.log(`session ${live.id}: cannot send ${update.sessionUpdate}: ${e.message}`));
  }

  private onEvent(live: LiveSession, e: AgentEvent): void {
    switch (e.type) {
      case 'text_delta':
        if (e.text) this.send(live, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.text } });
        break;
      case 'reasoning_delta':
        if (e.text) this.send(live, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: e.text } });
        break;
      case 'retract':
        // ACP has no way to take text back: say where the withdrawn part ends (state.db keeps only the final answer).
        if (e.shown) this.send(live, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '\n\n*(the answer above was cut off and is withdrawn; retrying)*\n\n' } });
        break;
      case 'tool_start':
        live.running.set(e.callId, { name: e.name, args: e.args });
        this.send(live, {
          sessionUpdate: 'tool_call',
          toolCallId: e.callId,
          title: toolTitle(e.name, e.args),
          kind: toolKind(e.name),
          status: 'in_progress',
          rawInput: e.args,
          locations: toolLocations(e.name, e.args, live.cwd),
        });
        break;
      case 'tool_end': {
        live.running.delete(e.callId);
        const edits = live.edits.done.get(e.callId);
        live.edits.done.delete(e.callId);
        this.send(live, {
          sessionUpdate: 'tool_call_update',
          toolCallId: e.callId,
          status: e.isError ? 'failed' : 'completed',
          content: resultContent(e.name, e.content, edits),
          rawOutput: e.content.length > 20_000 ? `${e.content.slice(0, 20_000)}…` : e.content,
        });
        break;
      }
      case 'request':
        void this.permission(live, e.id, e.request);
        break;
      case 'request_resolved':
        if (e.source !== 'person') live.permissions.get(e.id)?.abort();
        break;
      case 'warning':
        this.o.log(`session ${live.id}: ⚠ ${e.message}`);
        break;
      default:
        break;
    }
  }

  /** An approval request from a tool, asked in the editor as session/request_permission. */
  private async permission(live: LiveSession, id: string, req: AgentRequest): Promise<void> {
    if (req.kind !== 'approval') {
      // Clarify and secret prompts have no ACP form: they get their safe default at once.
      live.session.answer(id, req.kind === 'clarify' ? '' : null);
      return;
    }
    const client = this.client;
    if (!client) {
      live.session.answer(id, 'deny');
      return;
    }
    let toolCall: ToolCallUpdate;
    let options: PermissionOption[];
    if (req.edit) {
      const files = req.edit.files;
      toolCall = {
        toolCallId: req.edit.callId,
        title: `Edit ${req.command.replace(/^edit /, '')}`,
        kind: 'edit',
        status: 'pending',
        content: files.length ? files.map(diffContent) : [textContent(`${req.description}: ${req.command}`)],
        locations: files.map((f) => ({ path: f.path })),
      };
      options = [
        { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' },
        { optionId: 'allow_session', name: 'Allow all edits this session', kind: 'allow_always' },
        { optionId: 'reject', name: 'Deny', kind: 'reject_once' },
      ];
    } else {
      const running = [...live.running.entries()];
      const match = running.find(([, c]) => c.name === 'terminal' && c.args.command === req.command) ?? (running.length === 1 ? running[0] : undefined);
      toolCall = {
        toolCallId: match?.[0] ?? `approval-${id}`,
        title: req.command.length > 200 ? `${req.command.slice(0, 199)}…` : req.command,
        kind: 'execute',
        status: 'pending',
        content: [textContent(`⚠ Potentially dangerous: ${req.description}\n\n${req.command}`)],
      };
      const all: PermissionOption[] = [
        { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'allow_session', name: 'Allow for this session', kind: 'allow_always' },
        { optionId: 'allow_always', name: 'Always allow (saved to config.yaml)', kind: 'allow_always' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ];
      options = all.filter((o) => req.choices.includes(OPTION_TO_CHOICE[o.optionId]));
    }
    const ac = new AbortController();
    live.permissions.set(id, ac);
    let answer: ApprovalChoice = 'deny';
    try {
      await live.out; // the tool call card exists before its permission question
      const r = await client.request(acp.methods.client.session.requestPermission, { sessionId: live.id, toolCall, options }, { cancellationSignal: ac.signal, stopWaitingOnCancel: true });
      if (r.outcome.outcome === 'selected') answer = OPTION_TO_CHOICE[r.outcome.optionId] ?? 'deny';
    } catch (e) {
      if (!ac.signal.aborted) this.o.log(`session ${live.id}: permission request failed (${(e as Error).message}); denied`);
    } finally {
      live.permissions.delete(id);
    }
    live.session.answer(id, answer);
  }

  /** session/load: the conversation so far as session/update notifications, before the response. */
  private async replay(live: LiveSession): Promise<void> {
    const names = new Map<string, string>();
    for (const m of live.session.history) {
      const text = messageText(m.content);
      if (m.role === 'user') {
        if (text) this.send(live, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
      } else if (m.role === 'assistant') {
        if (m.reasoning) this.send(live, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: m.reasoning } });
        if (text) this.send(live, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
        for (const c of m.tool_calls ?? []) {
          let args: Record<string, unknown> = {};
          try {
            args = JSON.parse(c.function.arguments || '{}') as Record<string, unknown>;
          } catch {
            /* shown without arguments */
          }
          names.set(c.id, c.function.name);
          this.send(live, { sessionUpdate: 'tool_call', toolCallId: c.id, title: toolTitle(c.function.name, args), kind: toolKind(c.function.name), status: 'completed', rawInput: args, locations: toolLocations(c.function.name, args, live.cwd) });
        }
      } else if (m.role === 'tool' && m.tool_call_id) {
        const name = m.tool_name ?? names.get(m.tool_call_id) ?? '';
        this.send(live, { sessionUpdate: 'tool_call_update', toolCallId: m.tool_call_id, status: /^\s*\{"error"/.test(text) ? 'failed' : 'completed', content: resultContent(name, text, undefined) });
      }
    }
    await live.out;
  }
}

function firstUserText(history: Message[]): string | null {
  const m = history.find((x) => x.role === 'user');
  const t = m ? messageText(m.content).trim().replace(/\s+/g, ' ') : '';
  return t ? t.slice(0, 60) : null;
}
