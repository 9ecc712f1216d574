// `mcp_servers.<name>` in config.yaml: validated, `${VAR}`-expanded server descriptions. Pure apart
// from reading the environment it is given.
import { createHash } from 'node:crypto';
import { expandHome } from '../state/paths.ts';

export type McpTransportKind = 'stdio' | 'http' | 'sse';

export interface McpServerConfig {
  name: string;
  transport: McpTransportKind;
  /** stdio */
  command?: string;
  args: string[];
  /** Extra environment for a stdio server (on top of the safe base). */
  env: Record<string, string>;
  cwd?: string;
  /** http / sse */
  url?: string;
  headers: Record<string, string>;
  enabled: boolean;
  /** Per tool call. */
  timeoutMs: number;
  /** Initial connect (spawn + initialize + tool listing). */
  connectTimeoutMs: number;
  include: string[] | null;
  exclude: string[];
  /** Offer list_resources/read_resource when the server has resources. */
  resources: boolean;
  /** Offer list_prompts/get_prompt when the server has prompts. */
  prompts: boolean;
  /** The server's tools may run concurrently with other parallel-safe calls. */
  parallel: boolean;
  /** `auth: oauth` (HTTP/SSE): sign in with OAuth 2.1; the settings of the `oauth:` block. */
  oauth?: McpOAuthSettings;
}

/** `mcp_servers.<name>.oauth`, as Hermes names the keys (all optional). */
export interface McpOAuthSettings {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  redirectPort?: number;
  redirectHost?: string;
  redirectUri?: string;
  clientName?: string;
  tokenEndpointAuthMethod?: string;
  clientMetadataUrl?: string;
  /** false: never present a Client ID Metadata Document (register with DCR instead). */
  cimd: boolean;
  /** How long to wait for the browser sign-in. */
  timeoutMs: number;
}

export const DEFAULT_OAUTH_TIMEOUT_S = 300;

export interface McpConfigProblem {
  server: string;
  message: string;
}

export const DEFAULT_TOOL_TIMEOUT_S = 120;
export const DEFAULT_CONNECT_TIMEOUT_S = 60;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const REF = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}`, `${env:VAR}` and `${VAR:-fallback}` in `text`. Names that are unset (and have no
 * fallback) are collected in `missing` and expand to ''.
 */
export function expandRefs(text: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return text.replace(REF, (_m, name: string, fb?: string) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fb !== undefined) return fb;
    missing.add(name);
    return '';
  });
}

function parseBool(v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(s)) return true;
    if (['false', 'no', 'off', '0'].includes(s)) return false;
  }
  if (typeof v === 'number') return v !== 0;
  return dflt;
}

function parseSeconds(v: unknown, dflt: number): number | null {
  if (v === undefined || v === null || v === '') return dflt;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) && n > 0 ? n : null;
}

function strMap(v: unknown): Record<string, string> | null {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined || x === null) continue;
    out[k] = typeof x === 'string' ? x : String(x);
  }
  return out;
}

function strList(v: unknown): string[] | null {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) return null;
  return v.map((x) => String(x));
}

/**
 * Parses one server entry. Returns the config, or a problem saying what is wrong and how to fix it.
 * A disabled server is parsed too (so `hermes mcp list` can show it) but never connected.
 */
export function parseServer(name: string, raw: unknown, env: NodeJS.ProcessEnv): { config?: McpServerConfig; problem?: string } {
  if (!isObj(raw)) return { problem: `mcp_servers.${name} must be a mapping with \`command\` (stdio) or \`url\` (HTTP).` };
  const missing = new Set<string>();
  const x = (s: string) => expandRefs(s, env, missing);
  const command = typeof raw.command === 'string' && raw.command.trim() ? x(raw.command.trim()) : undefined;
  const url = typeof raw.url === 'string' && raw.url.trim() ? x(raw.url.trim()) : undefined;
  if (!command && !url) return { problem: `mcp_servers.${name} needs \`command\` (a program to start, stdio) or \`url\` (an HTTP endpoint).` };
  if (command && url) return { problem: `mcp_servers.${name} has both \`command\` and \`url\`; keep one.` };
  const args = strList(raw.args);
  if (!args) return { problem: `mcp_servers.${name}.args must be a list of strings.` };
  const envMap = strMap(raw.env);
  if (!envMap) return { problem: `mcp_servers.${name}.env must be a mapping of NAME: value.` };
  const headers = strMap(raw.headers);
  if (!headers) return { problem: `mcp_servers.${name}.headers must be a mapping of Header-Name: value.` };
  const timeout = parseSeconds(raw.timeout, DEFAULT_TOOL_TIMEOUT_S);
  if (timeout === null) return { problem: `mcp_servers.${name}.timeout must be a positive number of seconds.` };
  const connectTimeout = parseSeconds(raw.connect_timeout, DEFAULT_CONNECT_TIMEOUT_S);
  if (connectTimeout === null) return { problem: `mcp_servers.${name}.connect_timeout must be a positive number of seconds.` };
  let transport: McpTransportKind = command ? 'stdio' : 'http';
  const t = typeof raw.transport === 'string' ? raw.transport.trim().toLowerCase() : '';
  if (t) {
    if (t === 'sse') transport = 'sse';
    else if (['http', 'streamable_http', 'streamable-http', 'streamablehttp'].includes(t)) transport = 'http';
    else if (t !== 'stdio') return { problem: `mcp_servers.${name}.transport must be "http" (Streamable HTTP) or "sse"; got "${raw.transport}".` };
    if (command && t !== 'stdio') return { problem: `mcp_servers.${name}.transport "${t}" needs \`url\`, not \`command\`.` };
  }
  if (url) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return { problem: `mcp_servers.${name}.url "${url}" is not a valid URL.` };
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { problem: `mcp_servers.${name}.url must start with http:// or https://.` };
  }
  const tools = isObj(raw.tools) ? raw.tools : {};
  const include = tools.include === undefined || tools.include === null ? null : strList(tools.include);
  const exclude = strList(tools.exclude);
  if (include === null && tools.include !== undefined && tools.include !== null) return { problem: `mcp_servers.${name}.tools.include must be a list of tool names.` };
  if (!exclude) return { problem: `mcp_servers.${name}.tools.exclude must be a list of tool names.` };
  const auth = typeof raw.auth === 'string' ? raw.auth.trim().toLowerCase() : raw.auth === undefined || raw.auth === null ? '' : '?';
  if (auth && auth !== 'oauth' && auth !== 'none') return { problem: `mcp_servers.${name}.auth must be "oauth" (sign in with OAuth) or left out; got "${String(raw.auth)}".` };
  let oauth: McpOAuthSettings | undefined;
  if (auth === 'oauth' || (isObj(raw.oauth) && auth !== 'none')) {
    if (!url) return { problem: `mcp_servers.${name}.auth: oauth needs \`url\` (OAuth is for HTTP servers).` };
    const o = isObj(raw.oauth) ? raw.oauth : raw.oauth === undefined || raw.oauth === null ? {} : null;
    if (!o) return { problem: `mcp_servers.${name}.oauth must be a mapping (client_id, client_secret, scope, redirect_port, …).` };
    const str = (k: string) => (typeof o[k] === 'string' && (o[k] as string).trim() ? x((o[k] as string).trim()) : typeof o[k] === 'number' ? String(o[k]) : undefined);
    const port = o.redirect_port === undefined || o.redirect_port === null ? undefined : Number(o.redirect_port);
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) return { problem: `mcp_servers.${name}.oauth.redirect_port must be a port number (1-65535).` };
    const timeoutS = parseSeconds(o.timeout, DEFAULT_OAUTH_TIMEOUT_S);
    if (timeoutS === null) return { problem: `mcp_servers.${name}.oauth.timeout must be a positive number of seconds.` };
    const scope = Array.isArray(o.scope) ? o.scope.map(String).join(' ') : Array.isArray(o.scopes) ? o.scopes.map(String).join(' ') : str('scope') ?? str('scopes');
    oauth = {
      clientId: str('client_id'),
      clientSecret: str('client_secret'),
      scope,
      redirectPort: port,
      redirectHost: str('redirect_host'),
      redirectUri: str('redirect_uri'),
      clientName: str('client_name'),
      tokenEndpointAuthMethod: str('token_endpoint_auth_method'),
      clientMetadataUrl: str('client_metadata_url'),
      cimd: parseBool(o.cimd, true),
      timeoutMs: timeoutS * 1000,
    };
  }
  const config: McpServerConfig = {
    name,
    transport,
    command,
    // No shell starts the server, so `~/…` is expanded here.
    args: args.map((a) => (a.startsWith('~/') ? expandHome(x(a)) : x(a))),
    env: Object.fromEntries(Object.entries(envMap).map(([k, v]) => [k, x(v)])),
    cwd: typeof raw.cwd === 'string' && raw.cwd.trim() ? expandHome(x(raw.cwd.trim())) : undefined,
    url,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, x(v)])),
    enabled: parseBool(raw.enabled, true),
    timeoutMs: timeout * 1000,
    connectTimeoutMs: connectTimeout * 1000,
    include,
    exclude,
    resources: parseBool(tools.resources, true),
    prompts: parseBool(tools.prompts, true),
    parallel: parseBool(raw.supports_parallel_tool_calls, false),
    ...(oauth ? { oauth } : {}),
  };
  if (missing.size && config.enabled)
    return {
      config,
      problem: `mcp_servers.${name} uses ${[...missing].map((m) => `\${${m}}`).join(', ')}, which ${missing.size > 1 ? 'are' : 'is'} not set. Add ${missing.size > 1 ? 'them' : 'it'} to ~/.hermes/.env (hermes config set ${[...missing][0]} …) or the environment.`,
    };
  return { config };
}

/** All servers of an `mcp_servers` mapping: the valid ones and the problems of the rest. */
export function parseMcpServers(raw: unknown, env: NodeJS.ProcessEnv): { servers: McpServerConfig[]; problems: McpConfigProblem[] } {
  const servers: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = [];
  if (raw === undefined || raw === null) return { servers, problems };
  if (!isObj(raw)) return { servers, problems: [{ server: '*', message: '`mcp_servers` must be a mapping of server names to settings.' }] };
  for (const [name, entry] of Object.entries(raw)) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      problems.push({ server: name, message: `MCP server name "${name}" may only contain letters, digits, "_", "-" and ".".` });
      continue;
    }
    const r = parseServer(name, entry, env);
    if (r.problem) problems.push({ server: name, message: r.problem });
    else if (r.config) servers.push(r.config);
  }
  return { servers, problems };
}

/** `*` and `?` globs (fnmatch-style) against a tool's original name. */
function globMatch(pattern: string, name: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === name;
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return re.test(name);
}

/** Whether a server tool passes `tools.include` / `tools.exclude` (include wins). */
export function toolAllowed(cfg: Pick<McpServerConfig, 'include' | 'exclude'>, tool: string): boolean {
  if (cfg.include) return cfg.include.some((p) => globMatch(p, tool));
  return !cfg.exclude.some((p) => globMatch(p, tool));
}

const MAX_NAME = 64;

/** `mcp_<server>_<tool>`, with anything outside [A-Za-z0-9_] turned into `_`, at most 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_');
  const full = `mcp_${clean(server)}_${clean(tool)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_NAME - 9)}_${hash}`;
}

export const mcpToolset = (server: string): string => `mcp-${server}`;

/** Variables a stdio server inherits from Hermes's environment (plus its own `env`). */
const SAFE_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'SHELL', 'TMPDIR', 'TZ', 'SYSTEMROOT', 'APPDATA', 'LOCALAPPDATA', 'USERPROFILE'];

/** The environment of a stdio server: the safe variables of `env` plus the server's own `env`. */
export function stdioEnv(env: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (SAFE_ENV.includes(k) || k.startsWith('XDG_')) out[k] = v;
  }
  return { ...out, ...extra };
}

/** A one-line description of where a server lives, for lists and errors (no secrets). */
export function describeTarget(cfg: McpServerConfig): string {
  if (cfg.transport === 'stdio') return [cfg.command, ...cfg.args].join(' ');
  try {
    const u = new URL(cfg.url!);
    u.username = '';
    u.password = '';
    u.search = '';
    return `${cfg.transport === 'sse' ? 'SSE' : 'HTTP'} ${u.toString()}`;
  } catch {
    return cfg.url ?? '?';
  }
}
