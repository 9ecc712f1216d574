// OAuth 2.1 for remote MCP servers (`mcp_servers.<name>.auth: oauth`): Hermes's side of the SDK's
// `OAuthClientProvider`. The SDK does discovery (RFC 9728 protected-resource and RFC 8414 / OIDC
// authorization-server metadata), registration (pre-registered, CIMD or RFC 7591 DCR), scope
// selection and step-up, PKCE S256, the RFC 8707 `resource` parameter and refresh; this file keeps
// the state on disk (oauth-store.ts, bound to the issuer that granted it), picks the loopback
// redirect, opens the browser and waits for the code. Loaded only for servers that use OAuth.
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { canOpenBrowser, openBrowser, startCallbackServer, type CallbackServer } from './oauth-callback.ts';
import { McpTokenStore } from './oauth-store.ts';
import type { McpOAuthSettings } from './config.ts';

export type { McpOAuthSettings } from './config.ts';

/** Hermes's published Client ID Metadata Document and the loopback ports it declares. */
export const HERMES_CIMD_URL = 'https://nousresearch.github.io/hermes-agent/docs/oauth/client-metadata.json';
export const CIMD_PORTS = [27890, 27891, 27892, 27893, 27894];

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_S = 60;

export interface OAuthHost {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Whether a person is there to sign in in a browser (else: "run hermes mcp login"). */
  interactive: boolean;
  /** Lines for the person (the authorization URL, what happened); never tokens. */
  notify: (line: string) => void;
}

/** The server needs a sign-in and nobody is here to do it. */
export class McpAuthRequiredError extends Error {
  constructor(server: string, why = 'needs authorization') {
    super(`MCP server "${server}" ${why}. Run \`hermes mcp login ${server}\` in a terminal to sign in, then /reload-mcp (or restart).`);
    this.name = 'McpAuthRequiredError';
  }
}

const loopbackPort = (uri: unknown): number | undefined => {
  try {
    const u = new URL(String(uri));
    if (u.protocol === 'http:' && ['127.0.0.1', 'localhost'].includes(u.hostname) && u.port) return Number(u.port);
  } catch {
    /* not a URL */
  }
  return undefined;
};

export class HermesOAuthProvider implements OAuthClientProvider {
  readonly server: string;
  readonly store: McpTokenStore;
  private readonly settings: McpOAuthSettings;
  private readonly host: OAuthHost;
  private port = 0;
  private useCimd = false;
  private listener: CallbackServer | null = null;
  private verifier: string | undefined;
  private flowState: string | undefined;
  private pending: Promise<string> | null = null;

  constructor(server: string, settings: McpOAuthSettings, host: OAuthHost) {
    this.server = server;
    this.settings = settings;
    this.host = host;
    this.store = new McpTokenStore(host.home, server);
    // A configured client replacing another: tokens minted for the old one cannot be refreshed.
    const stored = this.store.clientInformation();
    if (settings.clientId && stored && (stored.client_id !== settings.clientId || (stored.client_secret ?? null) !== (settings.clientSecret ?? null))) {
      this.store.clearTokens();
      this.store.clearClient();
    }
  }

  get interactive(): boolean {
    return this.host.interactive;
  }

  /**
   * Settles the redirect port before anything registers a client: oauth.redirect_port, else the port
   * of the stored registration (a registered client is bound to its redirect URI), else one of the
   * CIMD document's ports, else a free one. An interactive flow holds its listener from here on.
   */
  async prepare(): Promise<void> {
    if (this.port) return;
    const s = this.settings;
    const stored = this.store.clientInformation() as { redirect_uris?: unknown[] } | undefined;
    const configured = s.redirectPort ?? loopbackPort(s.redirectUri);
    const cached = stored?.redirect_uris?.map(loopbackPort).find((p) => p !== undefined);
    const port = configured ?? cached;
    if (port) {
      this.port = port;
      return;
    }
    const cimdOk = s.cimd && !s.clientId && !s.clientSecret && !s.clientName && (s.tokenEndpointAuthMethod ?? 'none') === 'none' && !s.redirectUri && !stored && ['127.0.0.1', 'localhost'].includes(s.redirectHost ?? '127.0.0.1');
    if (!this.host.interactive) return; // no flow can run: the port is never used
    if (cimdOk) {
      for (const p of CIMD_PORTS) {
        try {
          this.listener = await startCallbackServer(p);
          this.port = p;
          this.useCimd = true;
          return;
        } catch {
          /* taken: the next one */
        }
      }
    }
    this.listener = await startCallbackServer(0);
    this.port = this.listener.port;
  }

  get redirectUrl(): string {
    return this.settings.redirectUri ?? `http://${this.settings.redirectHost ?? '127.0.0.1'}:${this.port}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.useCimd ? (this.settings.clientMetadataUrl ?? HERMES_CIMD_URL) : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const s = this.settings;
    return {
      client_name: s.clientName ?? 'Hermes Agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: s.tokenEndpointAuthMethod ?? (s.clientSecret ? 'client_secret_post' : 'none'),
      ...(s.scope ? { scope: s.scope } : {}),
    };
  }

  state(): string {
    this.flowState = randomBytes(24).toString('base64url');
    return this.flowState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const s = this.settings;
    if (s.clientId) {
      const stored = this.store.clientInformation();
      return {
        client_id: s.clientId,
        ...(s.clientSecret ? { client_secret: s.clientSecret } : {}),
        ...(s.tokenEndpointAuthMethod ? { token_endpoint_auth_method: s.tokenEndpointAuthMethod } : s.clientSecret ? {} : { token_endpoint_auth_method: 'none' }),
        redirect_uris: [this.redirectUrl],
        ...(stored?.client_id === s.clientId && stored.issuer ? { issuer: stored.issuer } : {}),
      } as OAuthClientInformationMixed;
    }
    return this.store.clientInformation();
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // Without a person no sign-in follows, and a registration without a callback port is useless.
    if (!this.host.interactive && !this.port) return;
    this.store.saveClientInformation(info);
  }

  tokens(): OAuthTokens | undefined {
    return this.store.tokens();
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store.saveTokens(tokens);
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error(`no sign-in for MCP server "${this.server}" is under way (no PKCE verifier)`);
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.store.clearTokens();
    if (scope === 'all' || scope === 'client') if (!this.settings.clientId) this.store.clearClient();
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  /** Prints the URL (always), opens the browser, and starts waiting for the redirect. */
  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.host.interactive) throw new McpAuthRequiredError(this.server);
    if (!this.port) await this.prepare();
    if (!this.listener) this.listener = await startCallbackServer(this.settings.redirectPort ?? this.port);
    const listener = this.listener;
    const state = this.flowState ?? url.searchParams.get('state') ?? '';
    this.pending = listener
      .wait(state, this.settings.timeoutMs)
      .then((r) => r.code)
      .finally(() => {
        if (this.listener === listener) this.listener = null;
      });
    this.pending.catch(() => {}); // awaited by takeAuthorization; never an unhandled rejection
    const opened = await openBrowser(url.toString(), this.host.env);
    const scope = url.searchParams.get('scope');
    const why = this.store.tokens() ? `asks you to sign in again${scope ? ` (it wants the scopes: ${scope})` : ''}` : 'needs you to sign in';
    this.host.notify(
      `MCP server "${this.server}" ${why}. ${opened ? 'Your browser was opened at' : canOpenBrowser(this.host.env) ? 'Could not open a browser; open' : 'Open'} this URL${opened ? ' (open it yourself if it did not appear)' : ' in a browser'}:\n  ${url.toString()}\nWaiting up to ${Math.round(this.settings.timeoutMs / 1000)}s for the sign-in (redirect to ${this.redirectUrl}).`,
    );
  }

  /** The code of the sign-in started by redirectToAuthorization, or null when none was started. */
  async takeAuthorization(): Promise<string | null> {
    const p = this.pending;
    if (!p) return null;
    this.pending = null;
    return p;
  }

  /** Whether the stored access token is within a minute of expiring and can be refreshed. */
  expiringSoon(): boolean {
    const t = this.store.tokens();
    return !!t?.refresh_token && typeof t.expires_at === 'number' && t.expires_at - Date.now() / 1000 < REFRESH_MARGIN_S;
  }

  /**
   * Refreshes ahead of expiry (the SDK only refreshes after a 401). The refresh token goes only to the
   * authorization server that granted it: a server that now names another keeps the access token
   * until it expires, and the next sign-in replaces both. Failures are left to the 401 path.
   */
  async refreshAhead(serverUrl: string, fetchFn: typeof fetch): Promise<void> {
    const t = this.store.tokens();
    const client = this.clientInformation();
    if (!t?.refresh_token || !client) return;
    try {
      const { discoverOAuthServerInfo, refreshAuthorization, selectResourceURL } = await import('@modelcontextprotocol/sdk/client/auth.js');
      const info = await discoverOAuthServerInfo(serverUrl, { fetchFn });
      const issuer = String(info.authorizationServerUrl);
      if (t.issuer && t.issuer.replace(/\/$/, '') !== issuer.replace(/\/$/, '')) return;
      const selected = await selectResourceURL(serverUrl, this, info.resourceMetadata);
      const resource = selected && info.resourceMetadata ? info.resourceMetadata.resource : selected;
      const fresh = await refreshAuthorization(issuer, { metadata: info.authorizationServerMetadata, clientInformation: client, refreshToken: t.refresh_token, resource, fetchFn });
      this.store.saveTokens({ ...fresh, issuer });
      if (info.authorizationServerMetadata) this.store.saveMetadata(info.authorizationServerMetadata as unknown as Record<string, unknown>);
    } catch {
      /* the request goes out with the current token; a 401 runs the SDK's own refresh or sign-in */
    }
  }

  /** Stops listening for a redirect (after a connect, or on close). */
  close(): void {
    this.listener?.close();
    this.listener = null;
  }
}

/** Whether the OAuth flow of this process may open a browser: a person at a terminal. */
export function interactiveByDefault(): boolean {
  return !!process.stdin.isTTY && !!process.stderr.isTTY;
}
