// One MCP server: connect (stdio child, Streamable HTTP or SSE), list its tools, call them, and
// reconnect with backoff when the connection drops. The MCP SDK loads on the first connect.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets } from '../policy/redact.ts';
import { hermesHome } from '../state/paths.ts';
import { describeTarget, stdioEnv, type McpServerConfig } from './config.ts';
import { elicitThroughPerson, type Ask, type ElicitParams } from './elicitation.ts';
import type { HermesOAuthProvider } from './oauth.ts';

export type McpState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'failed' | 'closed';

export interface McpConnectionEvent {
  type: 'state' | 'tools';
  server: string;
  state: McpState;
  error?: string;
}

export interface McpConnectionOptions {
  env: NodeJS.ProcessEnv;
  /** Working directory for stdio servers without their own `cwd`. */
  cwd?: string;
  /** Where the servers' stderr is appended (HERMES_HOME/logs); omitted: kept in memory only. */
  logDir?: string;
  /** Delays between reconnect attempts (ms); the first attempt is immediate. */
  backoffMs?: number[];
  clientName?: string;
  clientVersion?: string;
  /** HERMES_HOME, where OAuth tokens live (mcp-tokens/); needed by servers with `auth: oauth`. */
  home?: string;
  /** Whether an OAuth sign-in may open a browser and wait (default: a person at a terminal). */
  oauthInteractive?: boolean;
  /** Where sign-in instructions go (default: stderr). */
  notify?: (line: string) => void;
  /** Who answers a server's elicitation outside a tool call (a tool call's own asker comes first). */
  ask?: Ask;
}

/** 0 s, then 1 s doubling to 60 s: six attempts in all before the server counts as failed. */
export const DEFAULT_BACKOFF_MS = [0, 1000, 2000, 4000, 8000, 16000];

const STDERR_TAIL = 2000;

/** Secrets out of anything an MCP server or transport said, before a person or model sees it. */
export function cleanError(text: string): string {
  return redactSecrets(text)
    .replace(/\b(token|key|api_key|apikey|password|secret|access_token)=([^\s&"']+)/gi, '$1=[REDACTED]')
    .trim();
}

function errText(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (code === 'ENOENT' && /^spawn /.test((e as Error).message ?? ''))
    return `cannot start "${(e as Error).message.replace(/^spawn (.*) ENOENT$/, '$1')}": command not found (is it installed and on PATH?)`;
  if (code === 'EACCES' && /^spawn /.test((e as Error).message ?? ''))
    return `cannot start "${(e as Error).message.replace(/^spawn (.*) EACCES$/, '$1')}": permission denied (is it executable?)`;
  if (e instanceof Error) {
    const cause = (e as Error & { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : '';
    const code = (cause as { code?: string } | undefined)?.code ?? (e as { code?: string | number }).code;
    let msg = e.message;
    if (causeText && !msg.includes(causeText)) msg += ` (${causeText})`;
    else if (typeof code === 'string' && !msg.includes(code)) msg += ` (${code})`;
    return msg;
  }
  return String(e);
}

export class McpConnection {
  readonly config: McpServerConfig;
  private readonly opts: McpConnectionOptions;
  private client: Client | null = null;
  private transport: Transport | null = null;
  private _state: McpState = 'idle';
  private _tools: Tool[] = [];
  private _error: string | undefined;
  private stderrTail = '';
  /** The stderr tail when the connection last dropped (the reconnect starts a fresh tail). */
  private dropTail = '';
  private listeners = new Set<(e: McpConnectionEvent) => void>();
  private connecting: Promise<void> | null = null;
  private reconnectLoop: Promise<void> | null = null;
  private closing = false;
  private generation = 0;
  private capabilities: { resources: boolean; prompts: boolean } = { resources: false, prompts: false };
  private _serverInfo: { name: string; version: string } | undefined;
  private oauth: HermesOAuthProvider | null = null;
  /** The askers of the tool calls under way, newest last: an elicitation goes to the newest. */
  private askers: Ask[] = [];

  constructor(config: McpServerConfig, opts: McpConnectionOptions) {
    this.config = config;
    this.opts = opts;
  }

  get name(): string {
    return this.config.name;
  }

  get state(): McpState {
    return this._state;
  }

  /** The last connection error (redacted), when the server is not ready. */
  get error(): string | undefined {
    return this._error;
  }

  get tools(): readonly Tool[] {
    return this._tools;
  }

  get hasResources(): boolean {
    return this.capabilities.resources;
  }

  get hasPrompts(): boolean {
    return this.capabilities.prompts;
  }

  get serverInfo(): { name: string; version: string } | undefined {
    return this._serverInfo;
  }

  on(fn: (e: McpConnectionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(type: McpConnectionEvent['type']): void {
    for (const l of this.listeners) {
      try {
        l({ type, server: this.name, state: this._state, error: this._error });
      } catch {
        /* listeners must not break the connection */
      }
    }
  }

  private setState(s: McpState, error?: string): void {
    this._state = s;
    this._error = error;
    this.emit('state');
  }

  /** Connects (once; concurrent callers share the attempt). Never throws: see `state` and `error`. */
  connect(): Promise<void> {
    if (this._state === 'ready' || this._state === 'closed') return Promise.resolve();
    if (!this.connecting) {
      if (this._state !== 'reconnecting') this.setState('connecting');
      this.connecting = this.attempt().finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    const gen = ++this.generation;
    const cfg = this.config;
    this.stderrTail = '';
    let timer: NodeJS.Timeout | undefined;
    let client: Client | null = null;
    let transport: Transport | null = null;
    try {
      const [{ Client: ClientCtor }, { ElicitRequestSchema }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/types.js')]);
      if (cfg.oauth) await this.prepareOAuth();
      const newClient = () => {
        const c = new ClientCtor(
        { name: this.opts.clientName ?? 'hermes-agent', version: this.opts.clientVersion ?? '0' },
        {
          capabilities: { elicitation: { form: { applyDefaults: true } } },
          listChanged: {
            tools: {
              onChanged: (err, tools) => {
                if (err || !tools || gen !== this.generation) return;
                this._tools = tools;
                this.emit('tools');
              },
            },
          },
        },
        );
        c.setRequestHandler(ElicitRequestSchema, (req) => this.elicit(req.params as unknown as ElicitParams & { mode?: string }));
        return c;
      };
      let rejectTimeout: (e: Error) => void = () => {};
      const timeout = new Promise<never>((_, reject) => {
        rejectTimeout = reject;
      });
      const arm = () => {
        timer = setTimeout(() => rejectTimeout(new Error(`no answer within ${cfg.connectTimeoutMs / 1000}s (connect_timeout)`)), cfg.connectTimeoutMs);
        timer.unref?.();
      };
      arm();
      const work = (async () => {
        for (let round = 0; ; round++) {
          const t = await this.buildTransport();
          const c = newClient();
          transport = t;
          client = c;
          try {
            await c.connect(t, { timeout: cfg.connectTimeoutMs });
            const caps = c.getServerCapabilities() ?? {};
            const tools: Tool[] = [];
            if (caps.tools) {
              let cursor: string | undefined;
              do {
                const page = await c.listTools(cursor ? { cursor } : undefined, { timeout: cfg.connectTimeoutMs });
                tools.push(...page.tools);
                cursor = page.nextCursor;
              } while (cursor);
            }
            return { caps, tools, c, t };
          } catch (e) {
            // An OAuth sign-in started in the browser (at initialize, or at the first request the
            // server protects): wait for it, the connect timeout paused, then connect again with
            // the tokens it brought.
            const code = round < 2 && this.oauth ? await this.oauthCode(() => clearTimeout(timer)) : null;
            if (!code) throw e;
            await (t as { finishAuth?: (c: string) => Promise<void> }).finishAuth?.(code);
            await c.close().catch(() => {});
            arm();
          }
        }
      })();
      const { caps, tools, c, t } = await Promise.race([work, timeout]);
      this.oauth?.close();
      if (gen !== this.generation || this.closing) {
        await c.close().catch(() => {});
        return;
      }
      this.client = c;
      this.transport = t;
      this._tools = tools;
      this.capabilities = { resources: !!caps.resources, prompts: !!caps.prompts };
      const info = c.getServerVersion();
      this._serverInfo = info ? { name: info.name, version: info.version } : undefined;
      c.onclose = () => this.onUnexpectedClose(gen);
      this.setState('ready');
      this.emit('tools');
    } catch (e) {
      const tail = this.stderrTail.trim();
      const msg = cleanError(`${errText(e)}${tail ? ` — server stderr: ${tail.split('\n').slice(-5).join(' | ')}` : ''}`);
      this.oauth?.close();
      if (client) await (client as Client).close().catch(() => {});
      else if (transport) await (transport as Transport).close().catch(() => {});
      if (gen !== this.generation || this.closing) return;
      this.client = null;
      this.transport = null;
      this._state = this._state === 'reconnecting' ? 'reconnecting' : 'failed';
      this._error = msg;
      if (this._state === 'failed') this.emit('state');
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private async buildTransport(): Promise<Transport> {
    const cfg = this.config;
    if (cfg.transport === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      // Node-based servers run on this Node (the one Hermes was provisioned with), not whatever
      // `node` is first on PATH.
      const command = cfg.command === 'node' || cfg.command === 'nodejs' ? process.execPath : cfg.command!;
      const t = new StdioClientTransport({
        command,
        args: cfg.args,
        env: stdioEnv(this.opts.env, cfg.env),
        cwd: cfg.cwd ?? this.opts.cwd,
        stderr: 'pipe',
      });
      t.stderr?.on('data', (d: Buffer) => this.onStderr(d.toString('utf8')));
      return t;
    }
    const url = new URL(cfg.url!);
    const requestInit: RequestInit = { headers: cfg.headers };
    const auth = this.oauth ? { authProvider: this.oauth, fetch: this.refreshingFetch(this.oauth, url) } : {};
    if (cfg.transport === 'sse') {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return new SSEClientTransport(url, { requestInit, ...auth });
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(url, { requestInit, ...auth, reconnectionOptions: { maxReconnectionDelay: 30_000, initialReconnectionDelay: 1000, reconnectionDelayGrowFactor: 2, maxRetries: 2 } });
  }

  /** The OAuth provider of an `auth: oauth` server (made once; its tokens persist on disk). */
  private async prepareOAuth(): Promise<void> {
    const cfg = this.config;
    if (!this.oauth) {
      const { HermesOAuthProvider, interactiveByDefault } = await import('./oauth.ts');
      this.oauth = new HermesOAuthProvider(cfg.name, cfg.oauth!, {
        home: this.opts.home ?? hermesHome(this.opts.env),
        env: this.opts.env,
        interactive: this.opts.oauthInteractive ?? interactiveByDefault(),
        notify: this.opts.notify ?? ((line) => process.stderr.write(`${line}\n`)),
      });
    }
    if (!this.oauth.interactive && !this.oauth.tokens()) {
      const { McpAuthRequiredError } = await import('./oauth.ts');
      throw new McpAuthRequiredError(cfg.name, 'is not signed in (auth: oauth)');
    }
    await this.oauth.prepare();
  }

  /** The code of a sign-in the SDK started, or null. `pause` runs before the (long) wait. */
  private async oauthCode(pause: () => void): Promise<string | null> {
    const pending = this.oauth?.takeAuthorization();
    if (!pending) return null;
    pause();
    return await pending;
  }

  /** fetch for an OAuth server: the access token is refreshed shortly before it expires. */
  private refreshingFetch(provider: HermesOAuthProvider, serverUrl: URL): typeof fetch {
    let refreshing: Promise<void> | null = null;
    return async (input, init) => {
      const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const headers = new Headers(init?.headers);
      if (target.startsWith(serverUrl.origin) && headers.has('authorization') && provider.expiringSoon()) {
        refreshing ??= provider.refreshAhead(serverUrl.href, fetch).finally(() => (refreshing = null));
        await refreshing;
        const t = provider.tokens();
        if (t) headers.set('authorization', `Bearer ${t.access_token}`);
        return fetch(input, { ...init, headers });
      }
      return fetch(input, init);
    };
  }

  /** A server's elicitation/create: to the person of the newest tool call (or the surface's asker). */
  private async elicit(params: ElicitParams & { mode?: string }) {
    if (params.mode === 'url') return { action: 'decline' as const };
    const ask = this.askers[this.askers.length - 1] ?? this.opts.ask;
    return elicitThroughPerson(this.name, params, ask);
  }

  private onStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
    if (!this.opts.logDir) return;
    try {
      const lines = text.split('\n').filter((l) => l.trim());
      if (lines.length) appendFileSync(join(this.opts.logDir, 'mcp-stderr.log'), lines.map((l) => `[${new Date().toISOString()}] ${this.name}: ${redactSecrets(l)}\n`).join(''), { mode: 0o600 });
    } catch {
      /* logging is best effort */
    }
  }

  private onUnexpectedClose(gen: number): void {
    if (gen !== this.generation || this.closing || this._state !== 'ready') return;
    const tail = this.stderrTail.trim();
    this.dropTail = tail;
    this.client = null;
    this.transport = null;
    this.setState('reconnecting', cleanError(`the connection closed${tail ? ` — server stderr: ${tail.split('\n').slice(-3).join(' | ')}` : ''}`));
    this.startReconnect();
  }

  /** Reconnects with backoff in the background (one loop at a time). */
  private startReconnect(): Promise<void> {
    if (this.reconnectLoop) return this.reconnectLoop;
    const delays = this.opts.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.reconnectLoop = (async () => {
      for (const delay of delays) {
        if (this.closing) return;
        if (delay) await new Promise((r) => setTimeout(r, delay).unref?.());
        if (this.closing) return;
        this._state = 'reconnecting';
        await this.connect();
        if (this.state === 'ready' || this.closing) return;
      }
      if (!this.closing) this.setState('failed', this._error);
    })().finally(() => {
      this.reconnectLoop = null;
    });
    return this.reconnectLoop;
  }

  /** Waits until the server is ready (or `ms` pass, or it fails for good). */
  private async whenReady(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this._state === 'ready') return true;
    if (this._state === 'closed') return false;
    if (this._state === 'failed' && !this.reconnectLoop) {
      // A failed server gets one fresh attempt when it is needed again (it may have been fixed).
      this._state = 'reconnecting';
      void this.startReconnectOnce();
    }
    return new Promise<boolean>((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const timer = setTimeout(() => done(this._state === 'ready'), ms);
      const onAbort = () => done(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      const off = this.on((e) => {
        if (e.type !== 'state') return;
        if (e.state === 'ready') done(true);
        else if (e.state === 'failed' || e.state === 'closed') done(false);
      });
    });
  }

  private startReconnectOnce(): Promise<void> {
    if (this.reconnectLoop) return this.reconnectLoop;
    this.reconnectLoop = this.connect()
      .then(() => {
        if (this._state !== 'ready' && !this.closing) this.setState('failed', this._error);
      })
      .finally(() => {
        this.reconnectLoop = null;
      });
    return this.reconnectLoop;
  }

  private async ready(signal?: AbortSignal): Promise<Client> {
    if (this._state !== 'ready') {
      // Waiting for a (re)connect is bounded by the connect timeout; the call timeout starts after.
      const ok = await this.whenReady(this.config.connectTimeoutMs, signal);
      if (!ok || !this.client) {
        const why = this._state === 'closed' ? 'has been shut down' : this._error ? `is not connected (${this._error})` : 'is not connected';
        throw new McpCallError(`MCP server "${this.name}" ${why}.${this._state === 'closed' ? '' : ' Hermes keeps retrying; /reload-mcp reconnects now, `hermes mcp test ' + this.name + '` shows why it fails.'}`);
      }
    }
    return this.client!;
  }

  /** Calls a tool. Throws McpCallError with a message for the model when the call cannot complete. */
  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal, onProgress?: (text: string) => void, ask?: Ask): Promise<CallToolResult> {
    const client = await this.ready(signal);
    if (ask) this.askers.push(ask);
    const call = () =>
      client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.config.timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: onProgress
          ? (p) => onProgress(p.message ?? (p.total ? `${p.progress}/${p.total}` : String(p.progress)))
          : undefined,
      });
    try {
      try {
        return (await call()) as CallToolResult;
      } catch (e) {
        // Step-up: the server wants more scopes and the SDK started a sign-in for them.
        const code = await this.oauthCode(() => {}).catch((err: Error) => {
          throw new McpCallError(cleanError(`MCP server "${this.name}" asked for a new sign-in (more permissions) while calling ${tool}, and it did not complete: ${err.message}`));
        });
        if (!code) throw e;
        await (this.transport as { finishAuth?: (c: string) => Promise<void> } | null)?.finishAuth?.(code);
        this.oauth?.close();
        return (await call()) as CallToolResult;
      }
    } catch (e) {
      throw this.callFailure(e, `calling ${tool}`);
    } finally {
      if (ask) this.askers.splice(this.askers.lastIndexOf(ask), 1);
    }
  }

  async listResources(signal?: AbortSignal): Promise<unknown> {
    const client = await this.ready(signal);
    try {
      const out: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor ? { cursor } : undefined, { signal, timeout: this.config.timeoutMs });
        out.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor && out.length < 1000);
      let templates: unknown[] = [];
      try {
        templates = (await client.listResourceTemplates(undefined, { signal, timeout: this.config.timeoutMs })).resourceTemplates;
      } catch {
        /* templates are optional */
      }
      return { resources: out, ...(templates.length ? { resource_templates: templates } : {}) };
    } catch (e) {
      throw this.callFailure(e, 'listing resources');
    }
  }

  async readResource(uri: string, signal?: AbortSignal) {
    const client = await this.ready(signal);
    try {
      return await client.readResource({ uri }, { signal, timeout: this.config.timeoutMs });
    } catch (e) {
      throw this.callFailure(e, `reading ${uri}`);
    }
  }

  async listPrompts(signal?: AbortSignal) {
    const client = await this.ready(signal);
    try {
      return await client.listPrompts(undefined, { signal, timeout: this.config.timeoutMs });
    } catch (e) {
      throw this.callFailure(e, 'listing prompts');
    }
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal) {
    const client = await this.ready(signal);
    try {
      return await client.getPrompt({ name, arguments: args }, { signal, timeout: this.config.timeoutMs });
    } catch (e) {
      throw this.callFailure(e, `getting prompt ${name}`);
    }
  }

  /** Turns a failed request into a message for the model; a dropped connection starts a reconnect. */
  private callFailure(e: unknown, what: string): McpCallError {
    if (e instanceof McpCallError) return e;
    const code = (e as { code?: number }).code;
    const text = errText(e);
    if ((e as Error)?.name === 'AbortError' || /aborted/i.test(text)) return new McpCallError(`The call was cancelled (${what} on MCP server "${this.name}").`, true);
    if (code === -32001) return new McpCallError(`MCP server "${this.name}" did not answer within ${this.config.timeoutMs / 1000}s (${what}); the call was abandoned. Raise mcp_servers.${this.name}.timeout if it needs longer.`);
    const dropped = code === -32000 || /closed|ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|terminated|EPIPE/i.test(text);
    if (dropped && !this.closing) {
      const tail = (this._state === 'ready' ? this.stderrTail : this.dropTail || this.stderrTail).trim();
      if (this._state === 'ready') {
        this.client = null;
        const old = this.transport;
        this.transport = null;
        void old?.close().catch(() => {});
        this.setState('reconnecting', cleanError(text));
        this.startReconnect();
      }
      return new McpCallError(
        cleanError(`MCP server "${this.name}" dropped the connection while ${what} (${text}${tail ? `; server stderr: ${tail.split('\n').slice(-3).join(' | ')}` : ''}). Hermes is reconnecting; the call may be retried once it is back.`),
      );
    }
    return new McpCallError(cleanError(`MCP server "${this.name}" failed ${what}: ${text}`));
  }

  /** Closes for good (the child process is stopped). */
  async close(): Promise<void> {
    this.closing = true;
    this.generation++;
    const c = this.client;
    const t = this.transport;
    this.client = null;
    this.transport = null;
    this.setState('closed');
    this.oauth?.close();
    if (c) await c.close().catch(() => {});
    else if (t) await t.close().catch(() => {});
  }

  describe(): string {
    return describeTarget(this.config);
  }
}

export class McpCallError extends Error {
  readonly cancelled: boolean;
  constructor(message: string, cancelled = false) {
    super(message);
    this.name = 'McpCallError';
    this.cancelled = cancelled;
  }
}
