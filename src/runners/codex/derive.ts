// What a codex turn runs with, derived from Hermes's own settings every time the runtime is used
// (config.yaml or /codex-runtime; nothing has to be migrated first):
// - permissions from Hermes's approval mode: codex's sandbox keeps the working directory writable
//   (`workspace-write`) and commands there run without a question; anything beyond it is a codex
//   request (`on-request`) answered by Hermes's approvals — the person, or with --yolo /
//   approvals.mode off nobody: accepted unless a hardline rule blocks it (codex's own `never` would
//   refuse every such request outright and skip Hermes's hardline check). With approvals off the
//   sandbox also lets commands use the network. A `default_permissions` or `sandbox_mode` the user
//   wrote in config.toml is theirs and is kept.
// - the model endpoint: with provider `openai`, Hermes's base URL (model.base_url / OPENAI_BASE_URL)
//   and key become a codex model provider (`hermes`, Responses wire); the key reaches codex in its
//   environment, never in a request. `openai-codex` keeps codex's own ChatGPT login.
// - MCP servers: Hermes's mcp_servers and the hermes-tools server, as thread config.
// - the commands codex runs see the environment Hermes's own terminal would give them: secret-looking
//   variables and what HERMES_HOME/.env holds are excluded (`shell_environment_policy.exclude`),
//   Hermes's provider key included, unless `terminal.env_passthrough` names them.
// The runner passes these on thread/start, thread/resume and every turn/start; doctor prints them.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { filteredEnv } from '../../policy/secrets-env.ts';
import type { HermesConfig } from '../../state/defaults.ts';
import { packageRoot } from '../../state/paths.ts';
import type { JsonValue } from './protocol/serde_json/JsonValue.ts';
import type { AskForApproval } from './protocol/v2/AskForApproval.ts';
import type { SandboxMode } from './protocol/v2/SandboxMode.ts';
import type { SandboxPolicy } from './protocol/v2/SandboxPolicy.ts';
import { codexServerTables, userCodexConfig, type HermesToolsEntry } from './migrate.ts';

/** The codex model provider id Hermes's endpoint is given, and the variable carrying its key. */
export const HERMES_PROVIDER_ID = 'hermes';
export const HERMES_KEY_ENV = 'HERMES_CODEX_API_KEY';
const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1';
/** Keys that are not keys: a session without Hermes credentials for openai, keyless local servers. */
const PLACEHOLDER_KEYS = new Set(['', 'codex-app-server', 'no-key', 'none']);

/** The part of Hermes's resolved provider runtime codex needs. */
export interface HermesEndpoint {
  provider: string;
  model: string;
  baseUrl: string;
  apiKey: string;
  /** Where the key came from (`env:OPENAI_API_KEY`); never the key. */
  source?: string;
  extraHeaders?: Record<string, string>;
}

export interface DeriveInput {
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  /** HERMES_HOME (the hermes-tools server runs with it). */
  home: string;
  cwd: string;
  /** Approvals off: --yolo, HERMES_YOLO_MODE, approvals.mode off, /yolo. */
  yolo: boolean;
  /** Hermes's resolved runtime for the session (null: not resolvable). */
  endpoint: HermesEndpoint | null;
  codexHome: string;
  /** codex.model from config.yaml (wins over Hermes's model). */
  codexModel?: string;
  /** Names that came from HERMES_HOME/.env (kept from codex's commands, as from Hermes's terminal). */
  dotenvNames?: string[];
}

export interface DerivedCodex {
  model: string | null;
  approvalPolicy: AskForApproval;
  /** null: the user's config.toml chooses (default_permissions / sandbox_mode of their own). */
  sandbox: SandboxMode | null;
  sandboxPolicy: SandboxPolicy | null;
  /** Thread config overrides (dotted keys, as `codex -c`). */
  config: Record<string, JsonValue>;
  /** Added to codex's environment. */
  env: Record<string, string>;
  /** For people (doctor, /codex-runtime): one line each. */
  describe: { endpoint: string; permissions: string; mcp: string };
  /** Servers left out of the MCP config, with why. */
  skipped: { server: string; reason: string }[];
  /** What needs a new codex process when it changes (endpoint, key, MCP servers, config.toml). */
  processKey: string;
}

/** How codex reaches Hermes's own tools: `hermes mcp serve --tools-only` with this HERMES_HOME. */
export function hermesToolsEntry(home: string, env: NodeJS.ProcessEnv): HermesToolsEntry {
  const e: Record<string, string> = { HERMES_HOME: home };
  if (env.HERMES_FROM_SOURCE) e.HERMES_FROM_SOURCE = env.HERMES_FROM_SOURCE;
  return { command: process.execPath, args: [join(packageRoot(), 'bin', 'hermes.mjs'), 'mcp', 'serve', '--tools-only'], env: e };
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');

function endpointConfig(i: DeriveInput): { config: Record<string, JsonValue>; env: Record<string, string>; describe: string } {
  const ep = i.endpoint;
  if (!ep || ep.provider !== 'openai') return { config: {}, env: {}, describe: `codex's own login and provider (codex login${i.codexHome ? `, CODEX_HOME ${i.codexHome}` : ''})` };
  const baseUrl = trimSlash(ep.baseUrl || OPENAI_DEFAULT_BASE);
  const hasKey = !PLACEHOLDER_KEYS.has(ep.apiKey.trim());
  if (!hasKey && baseUrl === OPENAI_DEFAULT_BASE) return { config: {}, env: {}, describe: `codex's own login (Hermes has no OpenAI key), ${baseUrl}` };
  const provider: Record<string, JsonValue> = { name: `Hermes (${baseUrl})`, base_url: baseUrl, wire_api: 'responses' };
  if (hasKey) provider.env_key = HERMES_KEY_ENV;
  else provider.requires_openai_auth = true;
  const headers = Object.fromEntries(Object.entries(ep.extraHeaders ?? {}).filter(([k]) => k.toLowerCase() !== 'authorization'));
  if (Object.keys(headers).length) provider.http_headers = headers;
  return {
    config: { [`model_providers.${HERMES_PROVIDER_ID}`]: provider, model_provider: HERMES_PROVIDER_ID },
    env: hasKey ? { [HERMES_KEY_ENV]: ep.apiKey } : {},
    describe: `Hermes's endpoint ${baseUrl} (Responses API) with ${hasKey ? `the key from ${ep.source?.replace(/^env:/, '') || 'Hermes'}` : "codex's own login"}`,
  };
}

export function deriveCodexConfig(i: DeriveInput): DerivedCodex {
  const user = userCodexConfig(i.codexHome);
  const ep = endpointConfig(i);
  const { servers, skipped } = codexServerTables(i.config.mcp_servers, i.env, hermesToolsEntry(i.home, i.env), user.servers);
  const config: Record<string, JsonValue> = { ...ep.config };
  for (const [name, table] of servers) config[`mcp_servers.${name}`] = table as JsonValue;
  // What Hermes's terminal keeps from a command, codex's shell keeps from its commands too.
  const everything = { ...i.env, ...ep.env };
  const passthrough = ((i.config.terminal as { env_passthrough?: unknown } | undefined)?.env_passthrough ?? []) as string[];
  const kept = filteredEnv(everything, { passthrough: Array.isArray(passthrough) ? passthrough.map(String) : [], dotenvNames: i.dotenvNames });
  const hidden = Object.keys(everything).filter((k) => everything[k] !== undefined && !(k in kept) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)).sort();
  if (hidden.length) config['shell_environment_policy.exclude'] = hidden;

  const userPerms = ['default_permissions', 'sandbox_mode'].find((k) => user.keys.has(k));
  const approvalPolicy: AskForApproval = 'on-request';
  const sandbox: SandboxMode | null = userPerms ? null : 'workspace-write';
  const sandboxPolicy: SandboxPolicy | null = userPerms ? null : { type: 'workspaceWrite', writableRoots: [], networkAccess: i.yolo, excludeTmpdirEnvVar: false, excludeSlashTmp: false };
  const where = `the working directory ${i.cwd}`;
  const permissions = userPerms
    ? `${userPerms} from your config.toml; going further ${i.yolo ? 'is accepted without asking (approvals off; hardline blocks still decline)' : "asks through Hermes's approvals"}`
    : i.yolo
      ? `writes in ${where} and uses the network without asking; going further is accepted without asking too (approvals off; hardline blocks still decline)`
      : `writes in ${where} without asking; going further asks through Hermes's approvals`;

  const toml = join(i.codexHome, 'config.toml');
  const tomlStamp = existsSync(toml) ? `${statSync(toml).mtimeMs}:${statSync(toml).size}` : 'none';
  const keyHash = ep.env[HERMES_KEY_ENV] ? createHash('sha256').update(ep.env[HERMES_KEY_ENV]).digest('hex').slice(0, 16) : '';
  const processKey = JSON.stringify([i.codexHome, config, keyHash, tomlStamp]);

  const model = i.codexModel?.trim() || i.endpoint?.model?.trim() || null;
  return {
    model,
    approvalPolicy,
    sandbox,
    sandboxPolicy,
    config,
    env: ep.env,
    describe: { endpoint: ep.describe, permissions, mcp: servers.length ? servers.map(([n]) => n).join(', ') : 'none' },
    skipped,
    processKey,
  };
}
