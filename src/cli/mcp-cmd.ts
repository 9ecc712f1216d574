// `hermes mcp add|remove|list|test`: manage mcp_servers in config.yaml. Secrets given on the command
// line go to HERMES_HOME/.env (0600) and config.yaml refers to them as ${NAME}.
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { setConfigKey, unsetConfigKey, writeConfig } from '../state/config.ts';
import { isDeniedEnvName, readEnvFile, updateEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';
import { describeTarget, parseServer, type McpServerConfig } from '../mcp/config.ts';
import { McpConnection } from '../mcp/connection.ts';
import { statusLine } from '../commands/mcp.ts';
import { rawMcpServers } from '../mcp/session.ts';
import { McpTokenStore } from '../mcp/oauth-store.ts';

export interface AddOptions {
  url?: string;
  command?: string;
  args?: string[];
  env?: string[];
  header?: string[];
  transport?: string;
  auth?: string;
  timeout?: string;
  connectTimeout?: string;
  include?: string;
  exclude?: string;
  test?: boolean;
  force?: boolean;
}

const out = (s: string) => process.stdout.write(s + '\n');
const escapeKey = (name: string) => name.replace(/\./g, '\\.');

function serversOf(ctx: ReturnType<typeof loadContext>): Record<string, unknown> {
  const raw = rawMcpServers(ctx.loaded);
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/** `MCP_<NAME>_API_KEY` */
export function secretEnvName(server: string, suffix = 'API_KEY'): string {
  return `MCP_${server.toUpperCase().replace(/[^A-Z0-9_]/g, '_').replace(/^_+|_+$/g, '')}_${suffix}`;
}

const SECRET_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|apikey)$|token|secret|key/i;
const SECRET_ENV = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
const hasRef = (v: string) => /\$\{[^}]+\}/.test(v);

function parsePairs(list: string[] | undefined, sep: '=' | ':', what: string): [string, string][] {
  return (list ?? []).map((item) => {
    const i = item.indexOf(sep);
    if (i <= 0) throw new CliError(`${what} "${item}" must look like ${sep === '=' ? 'NAME=value' : '"Header-Name: value"'}.`, 2);
    return [item.slice(0, i).trim(), item.slice(i + 1).trim()];
  });
}

const split = (s: string | undefined) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : undefined);

export async function add(name: string, trailing: string[], o: AddOptions): Promise<void> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new CliError(`"${name}" is not a valid server name: use letters, digits, "_", "-" and ".".`, 2);
  let command = o.command;
  let args = o.args ?? [];
  if (trailing.length) {
    if (command || o.url) throw new CliError('Give the server either after `--` or with --command/--url, not both.', 2);
    [command, ...args] = trailing;
  }
  if (!command && !o.url)
    throw new CliError('Say how to reach the server: --url <endpoint> (HTTP), or --command <program> [--args …] / `-- <program> <args…>` (stdio).', 2);
  if (command && o.url) throw new CliError('Use either --url or --command, not both.', 2);
  const ctx = loadContext();
  const existing = serversOf(ctx);
  if (name in existing && !o.force) throw new CliError(`An MCP server named "${name}" already exists. Use --force to replace it, or \`hermes mcp remove ${name}\` first.`);

  const entry: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  if (command) {
    entry.command = command;
    if (args.length) entry.args = args;
    const env: Record<string, string> = {};
    for (const [k, v] of parsePairs(o.env, '=', '--env')) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new CliError(`--env name "${k}" is not a valid variable name.`, 2);
      if (SECRET_ENV.test(k) && v && !hasRef(v) && !isDeniedEnvName(k)) {
        secrets[k] = v;
        env[k] = `\${${k}}`;
      } else env[k] = v;
    }
    if (Object.keys(env).length) entry.env = env;
    if (o.header?.length) throw new CliError('--header is for HTTP servers (--url); stdio servers take --env.', 2);
    if (o.auth) throw new CliError('--auth oauth is for HTTP servers (--url).', 2);
  } else {
    entry.url = o.url;
    if (o.env?.length) throw new CliError('--env is for stdio servers (--command); HTTP servers take --header.', 2);
    const headers: Record<string, string> = {};
    for (const [k, v] of parsePairs(o.header, ':', '--header')) {
      if (SECRET_HEADER.test(k) && v && !hasRef(v)) {
        const bearer = /^(bearer|token|basic)\s+(.+)$/i.exec(v);
        const envName = Object.keys(secrets).length ? secretEnvName(name, k.toUpperCase().replace(/[^A-Z0-9]/g, '_')) : secretEnvName(name);
        secrets[envName] = bearer ? bearer[2] : v;
        headers[k] = bearer ? `${bearer[1]} \${${envName}}` : `\${${envName}}`;
      } else headers[k] = v;
    }
    if (Object.keys(headers).length) entry.headers = headers;
    if (o.transport) entry.transport = o.transport;
    if (o.auth) {
      if (o.auth.toLowerCase() !== 'oauth') throw new CliError(`--auth takes "oauth"; got "${o.auth}".`, 2);
      entry.auth = 'oauth';
    }
  }
  if (o.timeout) entry.timeout = Number(o.timeout);
  if (o.connectTimeout) entry.connect_timeout = Number(o.connectTimeout);
  const include = split(o.include);
  const exclude = split(o.exclude);
  if (include || exclude) entry.tools = { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) };

  // Check the entry the way Hermes will read it, with the secrets it will find in .env.
  const env = { ...ctx.env, ...secrets };
  const parsed = parseServer(name, entry, env);
  if (parsed.problem || !parsed.config) throw new CliError(parsed.problem ?? 'invalid server settings', 2);

  if (o.test !== false) {
    out(`Connecting to "${name}" (${describeTarget(parsed.config)})…`);
    const r = await probe(parsed.config, env, ctx.home);
    if (!r.ok) throw new CliError(`Not saved: could not connect to "${name}": ${r.error}. Fix the command/URL, or save it unchecked with --no-test.`);
    await r.conn.close();
    out(`✓ Connected: ${r.tools.length} tool${r.tools.length === 1 ? '' : 's'}${r.tools.length ? ` (${r.tools.slice(0, 8).join(', ')}${r.tools.length > 8 ? ', …' : ''})` : ''}`);
  }
  if (Object.keys(secrets).length) {
    updateEnvFile(paths.env(ctx.home), secrets);
    out(`Saved ${Object.keys(secrets).join(', ')} to ${paths.env(ctx.home)} (config.yaml refers to ${Object.keys(secrets).length > 1 ? 'them' : 'it'} as \${…}).`);
  }
  if (ctx.loaded.exists) setConfigKey(ctx.home, `mcp_servers.${escapeKey(name)}`, entry);
  else writeConfig(ctx.home, { mcp_servers: { [name]: entry } });
  out(`Added MCP server "${name}" to ${paths.config(ctx.home)}. New sessions get its tools as mcp_${name.replace(/[^A-Za-z0-9_]/g, '_')}_*; in a running session, /reload-mcp.`);
}

export function remove(name: string): void {
  const ctx = loadContext();
  const servers = serversOf(ctx);
  if (!(name in servers)) {
    const names = Object.keys(servers);
    throw new CliError(`No MCP server named "${name}" in ${paths.config(ctx.home)}.${names.length ? ` Configured: ${names.join(', ')}.` : ''}`);
  }
  unsetConfigKey(ctx.home, `mcp_servers.${escapeKey(name)}`);
  if (new McpTokenStore(ctx.home, name).remove()) out(`Removed the stored OAuth tokens of "${name}".`);
  const secret = secretEnvName(name);
  if (readEnvFile(paths.env(ctx.home)).has(secret)) {
    updateEnvFile(paths.env(ctx.home), { [secret]: null });
    out(`Removed ${secret} from ${paths.env(ctx.home)}.`);
  }
  out(`Removed MCP server "${name}".`);
}

export function list(): void {
  const ctx = loadContext();
  const servers = serversOf(ctx);
  const names = Object.keys(servers);
  if (!names.length) {
    out('No MCP servers configured.\nAdd one with:\n  hermes mcp add <name> --url <endpoint>\n  hermes mcp add <name> -- <command> <args…>');
    return;
  }
  const rows = names.map((n) => {
    const r = parseServer(n, servers[n], ctx.env);
    if (!r.config) return [n, '?', '', `✗ ${r.problem}`];
    const c = r.config;
    const tools = c.include ? `${c.include.length} selected` : c.exclude.length ? `all but ${c.exclude.length}` : 'all';
    const signIn = c.oauth ? (new McpTokenStore(ctx.home, n).tokens() ? ' (OAuth: signed in)' : ` (OAuth: not signed in — hermes mcp login ${n})`) : '';
    const status = (!c.enabled ? '○ disabled' : r.problem ? `✗ ${r.problem}` : '✓ enabled') + signIn;
    const target = describeTarget(c);
    return [n, target.length > 48 ? target.slice(0, 47) + '…' : target, tools, status];
  });
  const w = [0, 1, 2].map((i) => Math.max(['Name', 'Transport', 'Tools'][i].length, ...rows.map((r) => r[i].length)));
  out(`${'Name'.padEnd(w[0])}  ${'Transport'.padEnd(w[1])}  ${'Tools'.padEnd(w[2])}  Status`);
  for (const r of rows) out(`${r[0].padEnd(w[0])}  ${r[1].padEnd(w[1])}  ${r[2].padEnd(w[2])}  ${r[3]}`);
}

async function probe(cfg: McpServerConfig, env: NodeJS.ProcessEnv, home: string, oauthInteractive?: boolean): Promise<{ ok: true; tools: string[]; conn: McpConnection; ms: number } | { ok: false; error: string }> {
  const conn = new McpConnection({ ...cfg, enabled: true }, { env, cwd: process.cwd(), home, logDir: paths.logs(home), backoffMs: [], oauthInteractive });
  const t0 = Date.now();
  await conn.connect();
  if (conn.state !== 'ready') {
    const error = conn.error ?? 'unknown error';
    await conn.close();
    return { ok: false, error };
  }
  return { ok: true, tools: conn.tools.map((t) => t.name), conn, ms: Date.now() - t0 };
}

export async function test(name: string): Promise<void> {
  const ctx = loadContext();
  const servers = serversOf(ctx);
  if (!(name in servers)) {
    const names = Object.keys(servers);
    throw new CliError(`No MCP server named "${name}".${names.length ? ` Configured: ${names.join(', ')}.` : ' Add one with `hermes mcp add`.'}`);
  }
  const r = parseServer(name, servers[name], ctx.env);
  if (!r.config || r.problem) throw new CliError(r.problem ?? 'invalid settings');
  const cfg = r.config;
  out(`Testing "${name}": ${describeTarget(cfg)}${cfg.enabled ? '' : ' (disabled in config; testing anyway)'}`);
  for (const [k, v] of Object.entries(cfg.headers)) if (SECRET_HEADER.test(k)) out(`  ${k}: ${v.length > 12 ? `${v.slice(0, 4)}…${v.slice(-4)}` : '***'}`);
  const p = await probe(cfg, ctx.env, ctx.home);
  if (!p.ok) throw new CliError(`Connection to "${name}" failed: ${p.error}`);
  try {
    const info = p.conn.serverInfo;
    out(`✓ Connected in ${p.ms} ms${info ? ` to ${info.name} ${info.version}` : ''}`);
    const shown = p.conn.tools;
    out(`✓ ${shown.length} tool${shown.length === 1 ? '' : 's'}${cfg.include || cfg.exclude.length ? ' (before tools.include/exclude)' : ''}:`);
    for (const t of shown) {
      const d = (t.description ?? '').replace(/\s+/g, ' ').trim();
      out(`  ${t.name}${d ? `  —  ${d.length > 70 ? d.slice(0, 69) + '…' : d}` : ''}`);
    }
    if (p.conn.hasResources) out('✓ offers resources (mcp_' + name.replace(/[^A-Za-z0-9_]/g, '_') + '_list_resources / _read_resource)');
    if (p.conn.hasPrompts) out('✓ offers prompts (mcp_' + name.replace(/[^A-Za-z0-9_]/g, '_') + '_list_prompts / _get_prompt)');
  } finally {
    await p.conn.close();
  }
}

export { statusLine };

function oauthServer(name: string): { ctx: ReturnType<typeof loadContext>; cfg: McpServerConfig } {
  const ctx = loadContext();
  const servers = serversOf(ctx);
  if (!(name in servers)) {
    const names = Object.keys(servers);
    throw new CliError(`No MCP server named "${name}".${names.length ? ` Configured: ${names.join(', ')}.` : ' Add one with `hermes mcp add <name> --url <endpoint> --auth oauth`.'}`);
  }
  const r = parseServer(name, servers[name], ctx.env);
  if (!r.config || r.problem) throw new CliError(r.problem ?? 'invalid settings');
  if (!r.config.oauth)
    throw new CliError(
      r.config.transport === 'stdio'
        ? `MCP server "${name}" runs a local command (stdio); OAuth is for HTTP servers.`
        : `MCP server "${name}" does not use OAuth. Set \`auth: oauth\` under mcp_servers.${name} in ${paths.config(ctx.home)} (or re-add it with --auth oauth).`,
    );
  return { ctx, cfg: r.config };
}

/** `hermes mcp login <name>`: a fresh sign-in (the old tokens come back if it fails). */
export async function login(name: string): Promise<void> {
  const { ctx, cfg } = oauthServer(name);
  const store = new McpTokenStore(ctx.home, name);
  const saved = store.tokens();
  store.clearTokens();
  out(`Signing in to "${name}" (${describeTarget(cfg)})…`);
  const r = await probe(cfg, ctx.env, ctx.home, true);
  if (!r.ok) {
    if (saved && !store.tokens()) store.saveTokens(saved);
    throw new CliError(`Sign-in to "${name}" failed: ${r.error}`);
  }
  await r.conn.close();
  out(`✓ Signed in to "${name}": ${r.tools.length} tool${r.tools.length === 1 ? '' : 's'}. Tokens are in ${store.tokensPath} (0600). Running sessions pick them up with /reload-mcp.`);
}

/** `hermes mcp logout <name>`: forgets the tokens and the client registration. */
export function logout(name: string): void {
  const { ctx } = oauthServer(name);
  const store = new McpTokenStore(ctx.home, name);
  out(store.remove() ? `Signed out of "${name}": its tokens and client registration are deleted.` : `"${name}" had no stored sign-in.`);
}
