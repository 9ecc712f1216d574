// `hermes auth …`: the credential pools of HERMES_HOME/auth.json, with Hermes's commands, flags and
// output (hermes_cli/auth_commands.py): add | list | remove | reset | priority | status | logout.
// Secrets are never printed: lists show labels, ids and sources, never keys or tokens.
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { authResolveInputs } from '../auth/runtime.ts';
import { ANTHROPIC_API_BASE_URL, ANTHROPIC_OAUTH_STATUS_WARNING, ANTHROPIC_OAUTH_WARNING, anthropicLogin, HERMES_PKCE_SOURCE } from '../auth/oauth/anthropic.ts';
import { codexDeviceLogin, codexState, DEFAULT_CODEX_BASE_URL } from '../auth/oauth/codex.ts';
import { OAuthError, labelFromToken, type LoginIo } from '../auth/oauth/common.ts';
import { copilotDeviceLogin, copilotTokenProblem } from '../auth/oauth/copilot.ts';
import { DEFAULT_NOUS_CLIENT_ID, DEFAULT_NOUS_SCOPE, nousDeviceLogin, nousInferenceUrl, refreshNous } from '../auth/oauth/nous.ts';
import { clearSharedNous, readSharedNous, sharedNousPath, sharedShape, writeSharedNous } from '../auth/oauth/nous-shared.ts';
import { qwenCredsPath, qwenDeviceLogin, readQwenCreds } from '../auth/oauth/qwen.ts';
import {
  addPoolEntry,
  formatExhausted,
  movePoolEntry,
  poolArray,
  poolEntries,
  removePoolEntry,
  resetPoolStatus,
  resolveTarget,
  type PoolEntry,
} from '../auth/pool.ts';
import { AuthStore, AuthStoreError, isObject, providerState, type AuthData, type JsonObject } from '../auth/store.ts';
import { findProvider, poolIdOf, PROVIDERS } from '../llm/catalog.ts';
import { CredentialPool, OK_STATUS, type KeyStrategy, type PoolCredential } from '../llm/credentials.ts';
import { envKeys } from '../llm/resolve.ts';
import { readEnvFile, updateEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Providers Hermes signs in to with OAuth (and makes OAuth the default type for). */
const OAUTH_DEFAULT = new Set(['nous', 'openai-codex', 'qwen-oauth']);
/** OAuth sign-ins this project adds beyond Hermes's `auth add` (Hermes does Copilot in `hermes model`). */
const OAUTH_CAPABLE = new Set([...OAUTH_DEFAULT, 'copilot', 'anthropic']);
const ALIASES: Record<string, string> = { or: 'openrouter', 'open-router': 'openrouter', openai: 'openai-api', codex: 'openai-codex', qwen: 'qwen-oauth' };

interface Ctx {
  cli: CliContext;
  store: AuthStore;
}

function context(): Ctx {
  const cli = loadContext();
  return { cli, store: new AuthStore(cli.home) };
}

function read(store: AuthStore): AuthData {
  try {
    return store.read();
  } catch (e) {
    if (e instanceof AuthStoreError) throw new CliError(e.message);
    throw e;
  }
}

async function update<T>(store: AuthStore, fn: (d: AuthData) => T): Promise<T> {
  try {
    return await store.update(fn);
  } catch (e) {
    if (e instanceof AuthStoreError) throw new CliError(e.message);
    throw e;
  }
}

/** `openrouter`, `custom:<name>`: the auth.json pool key for what the person typed. */
function normalizeProvider(raw: string | undefined, cli: CliContext): { id: string; name: string; baseUrl: string } | null {
  const typed = (raw ?? '').trim().toLowerCase().replace(/\s+/g, '-');
  if (!typed) return null;
  const named = cli.loaded.config.providers as Record<string, { base_url?: string }> | undefined;
  if (typed.startsWith('custom:')) {
    const key = Object.keys(named ?? {}).find((k) => k.toLowerCase().replace(/\s+/g, '-') === typed.slice(7));
    return key ? { id: `custom:${typed.slice(7)}`, name: key, baseUrl: String(named?.[key]?.base_url ?? '') } : null;
  }
  const alias = ALIASES[typed] ?? typed;
  const spec = findProvider(alias);
  if (spec && !spec.isCustom) return { id: poolIdOf(spec), name: spec.name, baseUrl: spec.baseUrl };
  const key = Object.keys(named ?? {}).find((k) => k.toLowerCase().replace(/\s+/g, '-') === typed);
  if (key) return { id: `custom:${typed}`, name: key, baseUrl: String(named?.[key]?.base_url ?? '') };
  return null;
}

function requireProvider(raw: string | undefined, cli: CliContext): { id: string; name: string; baseUrl: string } {
  const p = normalizeProvider(raw, cli);
  if (!p) throw new CliError(`Unknown provider: ${(raw ?? '').trim() || '(none)'}. Use a provider id such as openrouter, anthropic, nous, openai-codex, or custom:<name> for an endpoint under providers: in config.yaml.`);
  return p;
}

const shortId = (source: string) => createHash('sha256').update(source).digest('hex').slice(0, 6);

interface Shown {
  cred: PoolCredential;
  /** The auth.json entry, when the credential is stored there (the others come from env or sign-in files). */
  entry?: PoolEntry;
}

/** What a provider's pool holds, in the order the runtime uses it (stored, sign-ins, then env keys). */
function shownCredentials(ctx: Ctx, data: AuthData, provider: string): Shown[] {
  const auth = authResolveInputs(ctx.cli.home, ctx.cli.env);
  const stored = new Map(poolEntries(data, provider).map((e) => [String(e.id), e]));
  const creds = [...(auth.pools[provider] ?? [])].sort((a, b) => a.priority - b.priority);
  const shown: Shown[] = creds.map((cred) => ({ cred, entry: stored.get(cred.id) }));
  const spec = PROVIDERS.find((p) => poolIdOf(p) === provider);
  const suppressed = new Set(auth.suppressedSources[provider] ?? []);
  for (const name of spec && !spec.isCustom ? spec.keyEnvs : []) {
    const keys = envKeys(ctx.cli.env, name);
    if (!keys.length || suppressed.has(`env:${name}`)) continue;
    keys.forEach((key, i) => {
      if (shown.some((x) => x.cred.key === key)) return;
      const source = `env:${name}`;
      shown.push({ cred: { id: shortId(`${source}#${i}`), label: i ? `${name} #${i + 1}` : name, source, authType: 'api_key', key, priority: 1000 + i, status: { ...OK_STATUS } } });
    });
    break;
  }
  return shown;
}

const strategyOf = (cli: CliContext, provider: string): KeyStrategy => {
  const s = (cli.loaded.config as { credential_pool_strategies?: Record<string, string> }).credential_pool_strategies?.[provider];
  return (['fill_first', 'round_robin', 'least_used', 'random'].includes(String(s)) ? s : 'fill_first') as KeyStrategy;
};

const displaySource = (source: string) => (source.startsWith('manual:') ? source.slice(7) : source);

function printProvider(ctx: Ctx, provider: string, shown: Shown[]): void {
  if (!shown.length) return;
  const pool = new CredentialPool(shown.map((x) => x.cred), { strategy: strategyOf(ctx.cli, provider) });
  const current = pool.peek()?.cred.id;
  const sole = shown.length <= 1;
  out(`${provider} (${shown.length} credential${shown.length === 1 ? '' : 's'}):`);
  shown.forEach((x, i) => {
    const c = x.cred;
    const status = formatExhausted(c.status ?? OK_STATUS, Date.now(), sole);
    const marker = c.id === current ? '← ' : '  ';
    const priority = x.entry ? Number(x.entry.priority ?? i) : i;
    out(`  #${i + 1}  ${c.label.padEnd(20)} ${c.authType.padEnd(7)} id=${c.id} priority=${priority} ${displaySource(c.source)}${status} ${marker}`.trimEnd());
  });
  out();
}

function allProviders(ctx: Ctx, data: AuthData): string[] {
  const auth = authResolveInputs(ctx.cli.home, ctx.cli.env);
  const ids = new Set<string>([...Object.keys(auth.pools), ...(isObject(data.credential_pool) ? Object.keys(data.credential_pool) : [])]);
  for (const p of PROVIDERS) if (!p.isCustom && p.keyEnvs.some((k) => envKeys(ctx.cli.env, k).length)) ids.add(poolIdOf(p));
  return [...ids].sort();
}

export async function list(provider: string | undefined): Promise<void> {
  const ctx = context();
  const data = read(ctx.store);
  const ids = provider ? [requireProvider(provider, ctx.cli).id] : allProviders(ctx, data);
  let any = false;
  for (const id of ids) {
    const shown = shownCredentials(ctx, data, id);
    if (shown.length) any = true;
    printProvider(ctx, id, shown);
  }
  if (!any) out(provider ? `No credentials for ${ids[0]}. Add one with \`hermes auth add ${ids[0]}\`.` : 'No credentials yet. Add one with `hermes auth add <provider>` (for example `hermes auth add openrouter --api-key …`).');
}

/**
 * `hermes auth` with no subcommand: the pool status, then Hermes's menu (add, remove, reset
 * cooldowns, rotation strategy) in a terminal; elsewhere, the commands to run instead.
 */
export async function overview(): Promise<void> {
  out('Credential Pool Status');
  out('='.repeat(50));
  await list(undefined);
  out();
  if (process.stdin.isTTY && process.stdout.isTTY) return (await import('./auth-menu.ts')).authMenu();
  out('Not a terminal, so no menu. Manage credentials with:');
  out('  hermes auth add <provider> [--api-key KEY | --type oauth] [--label NAME]');
  out('  hermes auth remove <provider> <#|id|label>');
  out('  hermes auth reset <provider>              (clear cooldowns)');
  out('  hermes auth priority <provider> <#|id|label> <position>');
  out('  hermes config set credential_pool_strategies.<provider> fill_first|round_robin|least_used|random');
}

/** For the menu: providers that have credentials, and all a credential can be added for. */
export function menuProviders(): { withCredentials: string[]; known: { id: string; name: string; oauth: boolean }[] } {
  const ctx = context();
  const data = read(ctx.store);
  const withCredentials = allProviders(ctx, data).filter((id) => shownCredentials(ctx, data, id).length);
  const known = new Map<string, { id: string; name: string; oauth: boolean }>();
  for (const p of PROVIDERS) if (!p.isCustom) known.set(poolIdOf(p), { id: poolIdOf(p), name: p.name, oauth: OAUTH_CAPABLE.has(poolIdOf(p)) });
  return { withCredentials, known: [...known.values()].sort((a, b) => a.id.localeCompare(b.id)) };
}

/** For the menu: a provider's credentials as `hermes auth list` numbers them. */
export function menuCredentials(provider: string): { n: number; label: string }[] {
  const ctx = context();
  return shownCredentials(ctx, read(ctx.store), provider).map((x, i) => ({ n: i + 1, label: `${x.cred.label} · ${x.cred.authType} · ${displaySource(x.cred.source)}` }));
}

/** For the menu: the rotation strategy in use for a provider. */
export function menuStrategy(provider: string): KeyStrategy {
  return strategyOf(context().cli, provider);
}

async function readSecretLine(prompt: string): Promise<string> {
  if (process.stdin.isTTY) {
    const c = await import('@clack/prompts');
    const v = await c.password({ message: prompt, mask: '•' });
    if (c.isCancel(v)) throw new CliError('Cancelled; nothing was added.', 1);
    return String(v ?? '').trim();
  }
  // Piped: the first line of stdin (keeps the key out of the process list).
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    rl.close();
    return line.trim();
  }
  return '';
}

async function askLine(prompt: string, signal?: AbortSignal): Promise<string> {
  if (!process.stdin.isTTY) return '';
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(prompt, { signal: signal ?? new AbortController().signal })).trim();
  } catch (e) {
    if (signal?.aborted) return '';
    throw e;
  } finally {
    rl.close();
  }
}

/** The first line of piped stdin ('' at its end, or once `signal` aborts). */
function pipedLine(signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    const done = (v: string) => {
      resolve(v); // before close(): its 'close' event would settle the promise with ''
      rl.close();
      process.stdin.pause();
    };
    rl.once('line', (l) => done(l.trim()));
    rl.once('close', () => resolve(''));
    signal?.addEventListener('abort', () => done(''), { once: true });
  });
}

export interface AddOptions {
  type?: string;
  apiKey?: string;
  label?: string;
  priority?: string;
  portalUrl?: string;
  inferenceUrl?: string;
  clientId?: string;
  scope?: string;
  browser?: boolean;
  timeout?: string;
  acceptRisk?: boolean;
}

function loginIo(ctx: Ctx, o: AddOptions): LoginIo {
  const t = Number(o.timeout);
  return {
    print: (l) => process.stderr.write(`${l}\n`),
    openBrowser: o.browser !== false,
    env: ctx.cli.env,
    readLine: async (prompt, signal) => (process.stdin.isTTY ? askLine(prompt, signal) : (process.stderr.write(prompt), pipedLine(signal))),
    ...(Number.isFinite(t) && t > 0 ? { timeoutMs: t * 1000 } : {}),
  };
}

function unsuppress(data: AuthData, provider: string): void {
  if (!isObject(data.suppressed_sources)) return;
  delete (data.suppressed_sources as JsonObject)[provider];
  if (!Object.keys(data.suppressed_sources).length) delete data.suppressed_sources;
}

async function placePriority(ctx: Ctx, provider: string, entryId: string, wanted: string | undefined): Promise<void> {
  if (wanted === undefined) return;
  const p = Number(wanted);
  if (!Number.isInteger(p)) throw new CliError(`--priority expects a whole number, got "${wanted}".`, 2);
  const { moved, size } = await update(ctx.store, (d) => ({ moved: movePoolEntry(d, provider, entryId, p), size: poolArray(d, provider).length }));
  if (!moved) return;
  out(`Placed ${provider} credential "${moved.label}" at priority ${moved.priority} (#${Number(moved.priority) + 1} in \`hermes auth list ${provider}\`)`);
  if (moved.priority !== p) process.stderr.write(`note: requested priority ${p}; effective priority is ${moved.priority} because the pool has ${size} credentials, so it was clamped.\n`);
}

/**
 * The Claude Pro/Max sign-in is against Anthropic's consumer terms outside Claude Code and claude.ai:
 * the warning is always shown; a terminal asks (default no); without one, --accept-risk is needed.
 */
async function confirmClaudeSubscription(o: AddOptions): Promise<void> {
  for (const line of ANTHROPIC_OAUTH_WARNING) process.stderr.write(`${line}\n`);
  process.stderr.write('\n');
  if (o.acceptRisk) return;
  if (!process.stdin.isTTY) throw new CliError('Not signing in to Claude without a yes: add --accept-risk to go ahead after the warning above, or use an API key (hermes auth add anthropic --api-key <key>).', 2);
  const yes = /^(y|yes)$/i.test(await askLine('Sign in with your Claude subscription anyway? [y/N] '));
  if (!yes) throw new CliError('Not signed in; nothing was added. An API key is the supported way: hermes auth add anthropic --api-key <key>.', 1);
}

export async function add(providerArg: string, o: AddOptions): Promise<void> {
  const ctx = context();
  const p = requireProvider(providerArg, ctx.cli);
  const raw = (o.type ?? '').trim().toLowerCase();
  const type = raw === 'api-key' || raw === 'api_key' ? 'api_key' : raw === 'oauth' ? 'oauth' : raw ? null : OAUTH_DEFAULT.has(p.id) ? 'oauth' : 'api_key';
  if (!type) throw new CliError(`--type expects api-key or oauth, got "${o.type}".`, 2);
  read(ctx.store); // a broken auth.json stops here, before any sign-in
  if (type === 'oauth') return addOAuth(ctx, p, o);

  const token = (o.apiKey ?? '').trim() || (await readSecretLine('Paste your API key: '));
  if (!token) throw new CliError('No API key provided.', 2);
  if (p.id === 'copilot') {
    const problem = copilotTokenProblem(token);
    if (problem) throw new CliError(problem, 2);
  }
  const count = poolEntries(read(ctx.store), p.id).length;
  const label = (o.label ?? '').trim() || (await askLine(`Label (optional, default: api-key-${count + 1}): `)) || `api-key-${count + 1}`;
  const { entry, n } = await update(ctx.store, (d) => {
    unsuppress(d, p.id);
    const e = addPoolEntry(d, p.id, { label, auth_type: 'api_key', source: 'manual', access_token: token, base_url: p.baseUrl || null });
    return { entry: e, n: poolArray(d, p.id).length };
  });
  out(`Added ${p.id} credential #${n}: "${label}"`);
  await placePriority(ctx, p.id, String(entry.id), o.priority);
}

async function addOAuth(ctx: Ctx, p: { id: string; name: string }, o: AddOptions): Promise<void> {
  if (!OAUTH_CAPABLE.has(p.id)) throw new CliError(`\`hermes auth add ${p.id}\` is not implemented for auth type oauth yet. Add an API key instead: hermes auth add ${p.id} --api-key <key>`, 2);
  const io = loginIo(ctx, o);
  try {
    if (p.id === 'nous') {
      const state = (await importSharedNous(ctx, io)) ?? (await nousDeviceLogin({ portalUrl: o.portalUrl, inferenceUrl: o.inferenceUrl, clientId: o.clientId, scope: o.scope, label: o.label?.trim() || undefined }, io));
      await writeSharedNous(state, ctx.cli.env);
      const label = (o.label ?? '').trim() || labelFromToken(state.access_token, 'nous-oauth-1');
      await update(ctx.store, (d) => {
        unsuppress(d, 'nous');
        Object.assign(providerState(d, 'nous', true)!, state);
        d.active_provider = 'nous';
      });
      out(`Saved nous OAuth device-code credentials: "${label}"`);
      out(`  Inference endpoint: ${nousInferenceUrl(state, ctx.cli.env)} (client ${String(state.client_id ?? DEFAULT_NOUS_CLIENT_ID)}, scope ${String(state.scope ?? DEFAULT_NOUS_SCOPE)})`);
      return;
    }
    if (p.id === 'anthropic') {
      // Hermes's Claude Pro/Max PKCE sign-in: a pool entry of its own (source manual:hermes_pkce).
      // Opt-in: the warning about Anthropic's consumer terms, then a yes (or --accept-risk).
      await confirmClaudeSubscription(o);
      const tokens = await anthropicLogin(io);
      const { n, entry } = await update(ctx.store, (d) => {
        unsuppress(d, 'anthropic');
        const count = poolArray(d, 'anthropic').length;
        const e = addPoolEntry(d, 'anthropic', {
          label: (o.label ?? '').trim() || labelFromToken(tokens.access_token, `anthropic-oauth-${count + 1}`),
          auth_type: 'oauth',
          source: `manual:${HERMES_PKCE_SOURCE}`,
          access_token: tokens.access_token,
          refresh_token: tokens.refresh_token,
          expires_at_ms: tokens.expires_at_ms,
          base_url: ANTHROPIC_API_BASE_URL,
        });
        return { n: count + 1, entry: e };
      });
      out(`Added anthropic OAuth credential #${n}: "${String(entry.label)}"`);
      await placePriority(ctx, 'anthropic', String(entry.id), o.priority);
      return;
    }
    if (p.id === 'openai-codex') {
      const tokens = await codexDeviceLogin(io);
      const label = (o.label ?? '').trim() || labelFromToken(tokens.access_token, '');
      const { n, shownLabel, entryId } = await update(ctx.store, (d) => {
        unsuppress(d, 'openai-codex');
        const single = providerState(d, 'openai-codex');
        const hasSingle = !!single && isObject(single.tokens) && !!single.tokens.access_token;
        const count = poolArray(d, 'openai-codex').filter((e) => e.source !== 'device_code').length + 1;
        if (!hasSingle) {
          // The first account is the sign-in every Hermes version reads (`providers.openai-codex`).
          Object.assign(providerState(d, 'openai-codex', true)!, codexState(tokens));
          if (!d.active_provider) d.active_provider = 'openai-codex';
          return { n: count, shownLabel: label || 'openai-codex-oauth-1', entryId: '' };
        }
        // More accounts: independent pool entries with their own grant, as Hermes adds them.
        const e = addPoolEntry(d, 'openai-codex', {
          label: label || `openai-codex-oauth-${count + 1}`,
          auth_type: 'oauth',
          source: 'manual:device_code',
          access_token: tokens.access_token,
          refresh_token: tokens.refresh_token,
          base_url: DEFAULT_CODEX_BASE_URL,
        });
        return { n: count + 1, shownLabel: String(e.label), entryId: String(e.id) };
      });
      out(`Added openai-codex OAuth credential #${n}: "${shownLabel}"`);
      if (entryId) await placePriority(ctx, 'openai-codex', entryId, o.priority);
      return;
    }
    if (p.id === 'qwen-oauth') {
      const existing = readQwenCreds(ctx.cli.env);
      if (existing) out(`Using the Qwen CLI sign-in at ${qwenCredsPath(ctx.cli.env)}.`);
      else await qwenDeviceLogin(io);
      await update(ctx.store, (d) => {
        unsuppress(d, 'qwen-oauth');
        providerState(d, 'qwen-oauth', true);
        d.active_provider = 'qwen-oauth';
      });
      out(`Added qwen-oauth OAuth credential #1: "qwen-cli"`);
      return;
    }
    // copilot: GitHub's device flow; the token goes where `hermes model` saves it.
    const token = await copilotDeviceLogin(io);
    updateEnvFile(paths.env(ctx.cli.home), { COPILOT_GITHUB_TOKEN: token });
    await update(ctx.store, (d) => unsuppress(d, 'copilot'));
    out(`Added copilot OAuth credential #1: "COPILOT_GITHUB_TOKEN" (saved to ${paths.env(ctx.cli.home)})`);
  } catch (e) {
    if (e instanceof OAuthError) throw new CliError(e.message);
    throw e;
  }
}

/**
 * Hermes's one-tap import: a Nous sign-in another profile left in shared/nous_auth.json is renewed
 * (its refresh token is single-use, so this profile gets its own fresh pair) instead of a new
 * device-code sign-in. Null when there is none, the person declines, or it no longer works.
 */
async function importSharedNous(ctx: Ctx, io: LoginIo): Promise<JsonObject | null> {
  const shared = readSharedNous(ctx.cli.env);
  if (!shared) return null;
  io.print(`Found existing Nous OAuth credentials at ${sharedNousPath(ctx.cli.env)}`);
  const answer = (await io.readLine!('Import them instead of signing in again? [Y/n] ')).trim().toLowerCase();
  if (answer && !['y', 'yes'].includes(answer)) return null;
  try {
    const state = await refreshNous({ ...sharedShape(shared), agent_key: null, agent_key_expires_at: null, tls: { insecure: false, ca_bundle: null } }, ctx.cli.env);
    io.print('Imported nous OAuth credentials');
    return state;
  } catch (e) {
    if (e instanceof OAuthError && e.relogin) await clearSharedNous(ctx.cli.env, String(shared.refresh_token));
    io.print(`The shared sign-in no longer works (${(e as Error).message}); signing in again.`);
    return null;
  }
}

function resolveShown(ctx: Ctx, data: AuthData, provider: string, target: string | undefined): { index: number; shown: Shown } {
  const shown = shownCredentials(ctx, data, provider);
  if (!shown.length) throw new CliError(`No credentials for ${provider}. Provider: ${provider}.`);
  const asEntries = shown.map((x) => ({ id: x.cred.id, label: x.cred.label }) as PoolEntry);
  const r = resolveTarget(asEntries, target);
  if ('error' in r) throw new CliError(`${r.error} Provider: ${provider}.`);
  return { index: r.index, shown: shown[r.index - 1] };
}

export async function remove(providerArg: string, target: string | undefined): Promise<void> {
  const ctx = context();
  const p = requireProvider(providerArg, ctx.cli);
  const { index, shown } = resolveShown(ctx, read(ctx.store), p.id, target);
  const c = shown.cred;
  if (shown.entry) {
    await update(ctx.store, (d) => removePoolEntry(d, p.id, c.id));
    out(`Removed ${p.id} credential #${index} (${c.label})`);
    return;
  }
  if (c.source.startsWith('env:')) {
    const name = c.source.slice(4);
    const envPath = paths.env(ctx.cli.home);
    const inFile = readEnvFile(envPath).has(name);
    if (inFile) updateEnvFile(envPath, { [name]: null });
    await update(ctx.store, (d) => suppress(d, p.id, c.source));
    out(`Removed ${p.id} credential #${index} (${c.label})`);
    if (inFile) out(`Cleared ${name} from ${envPath}`);
    out(`${name} is ignored for ${p.id} until you add a credential again (\`hermes auth add ${p.id}\`).`);
    return;
  }
  // An OAuth sign-in: forget it (Nous, Codex), or stop using the Qwen CLI's.
  await update(ctx.store, (d) => {
    if (p.id === 'qwen-oauth') suppress(d, p.id, c.source);
    else clearProvider(d, p.id);
  });
  out(`Removed ${p.id} credential #${index} (${c.label})`);
  if (p.id === 'qwen-oauth') out(`The Qwen CLI keeps its sign-in in ${qwenCredsPath(ctx.cli.env)}; it is ignored until you run \`hermes auth add qwen-oauth\` again.`);
}

function suppress(d: AuthData, provider: string, source: string): void {
  if (!isObject(d.suppressed_sources)) d.suppressed_sources = {};
  const all = d.suppressed_sources as JsonObject;
  const list = Array.isArray(all[provider]) ? (all[provider] as string[]) : [];
  if (!list.includes(source)) all[provider] = [...list, source];
}

/** Forgets a provider's sign-in state (and its pool mirror); true when there was any. */
function clearProvider(d: AuthData, provider: string): boolean {
  let had = false;
  if (isObject(d.providers) && provider in d.providers) {
    delete (d.providers as JsonObject)[provider];
    had = true;
  }
  if (isObject(d.credential_pool)) {
    const arr = poolArray(d, provider);
    const keep = arr.filter((e) => e.source !== 'device_code');
    if (keep.length !== arr.length) {
      had = true;
      if (keep.length) (d.credential_pool as JsonObject)[provider] = keep;
      else delete (d.credential_pool as JsonObject)[provider];
    }
  }
  if (d.active_provider === provider) d.active_provider = null;
  return had;
}

export async function reset(providerArg: string, target: string | undefined): Promise<void> {
  const ctx = context();
  const p = requireProvider(providerArg, ctx.cli);
  if (!target?.trim()) {
    const n = await update(ctx.store, (d) => resetPoolStatus(d, p.id));
    out(`Reset status on ${n} ${p.id} credentials`);
    return;
  }
  const { index, shown } = resolveShown(ctx, read(ctx.store), p.id, target);
  if (!shown.entry) throw new CliError(`${p.id} credential #${index} (${shown.cred.label}) is not stored in auth.json, so it has no saved status to reset.`);
  await update(ctx.store, (d) => resetPoolStatus(d, p.id, shown.cred.id));
  out(`Reset status on ${p.id} credential #${index} (${shown.cred.label})`);
}

/** `hermes auth refresh <provider> [target]`: renews OAuth credentials now and clears their cooldown. */
export async function refresh(providerArg: string, target: string | undefined): Promise<void> {
  const ctx = context();
  const p = requireProvider(providerArg, ctx.cli);
  const data = read(ctx.store);
  const picked = target?.trim()
    ? [resolveShown(ctx, data, p.id, target)]
    : shownCredentials(ctx, data, p.id)
        .map((shown, i) => ({ index: i + 1, shown }))
        .filter((x) => x.shown.cred.refresh);
  if (!picked.length) throw new CliError(`${p.id} has no OAuth credential to refresh (API keys do not expire). Sign in with \`hermes auth add ${p.id}\`.`);
  const failed: string[] = [];
  for (const { index, shown } of picked) {
    const c = shown.cred;
    if (!c.refresh) {
      failed.push(`#${index} (${c.label}) is an API key, not an OAuth sign-in; there is nothing to refresh`);
      continue;
    }
    let why = 'the provider gave no token';
    const t = await c.refresh(true).catch((e: unknown) => {
      why = (e as Error).message;
      return null;
    });
    if (!t?.key) {
      failed.push(`#${index} (${c.label}): ${why}`);
      continue;
    }
    if (shown.entry) await update(ctx.store, (d) => resetPoolStatus(d, p.id, c.id));
    out(`Refreshed ${p.id} credential #${index} (${c.label})${t.expiresAt ? `; valid until ${new Date(t.expiresAt).toISOString()}` : ''}`);
  }
  if (failed.length) throw new CliError(`Could not refresh ${p.id} credential ${failed.join('; ')}. Sign in again with \`hermes auth add ${p.id}\` if it keeps failing.`);
}

export async function priority(providerArg: string, target: string, wanted: string): Promise<void> {
  const ctx = context();
  const p = requireProvider(providerArg, ctx.cli);
  const n = Number(wanted);
  if (!Number.isInteger(n)) throw new CliError(`The priority must be a whole number, got "${wanted}".`, 2);
  const entries = poolEntries(read(ctx.store), p.id);
  const r = resolveTarget(entries, target);
  if ('error' in r) throw new CliError(`${r.error} Provider: ${p.id}.`);
  const { moved, size } = await update(ctx.store, (d) => ({ moved: movePoolEntry(d, p.id, String(r.entry.id), n), size: poolArray(d, p.id).length }));
  if (!moved) throw new CliError(`No credential matching "${target}" for provider ${p.id}.`);
  out(`Set ${p.id} credential "${moved.label}" to priority ${moved.priority} (#${Number(moved.priority) + 1} in \`hermes auth list ${p.id}\`)`);
  if (moved.priority !== n) process.stderr.write(`note: requested priority ${n}; effective priority is ${moved.priority} because the pool has ${size} credentials, so it was clamped.\n`);
  const strategy = strategyOf(ctx.cli, p.id);
  if (strategy !== 'fill_first') process.stderr.write(`note: ${p.id} uses the ${strategy} strategy; priority only orders fill_first selection.\n`);
}

export async function status(providerArg: string | undefined): Promise<void> {
  const ctx = context();
  if (!providerArg?.trim()) throw new CliError('Provider is required. Example: `hermes auth status nous`.', 2);
  const p = requireProvider(providerArg, ctx.cli);
  const data = read(ctx.store);
  const lines: [string, string][] = [];
  let loggedIn = false;
  let reason = '';
  let subscription = false;
  const st = providerState(data, p.id);
  if (p.id === 'nous') {
    loggedIn = !!st && !!(st.access_token || st.refresh_token);
    if (st && loggedIn) {
      lines.push(['auth_type', 'oauth_device_code'], ['client_id', String(st.client_id ?? DEFAULT_NOUS_CLIENT_ID)], ['scope', String(st.scope ?? '')], ['expires_at', String(st.expires_at ?? '')], ['api_base_url', nousInferenceUrl(st, ctx.cli.env)]);
    } else reason = 'no Nous Portal sign-in; run `hermes auth add nous`';
  } else if (p.id === 'openai-codex') {
    const single = !!st && isObject(st.tokens) && !!st.tokens.access_token;
    loggedIn = single || poolEntries(data, p.id).length > 0;
    if (loggedIn) lines.push(['auth_type', 'oauth_device_code'], ['api_base_url', ctx.cli.env.HERMES_CODEX_BASE_URL?.trim() || DEFAULT_CODEX_BASE_URL]);
    else reason = 'no Codex sign-in; run `hermes auth add openai-codex`';
  } else if (p.id === 'qwen-oauth') {
    const q = readQwenCreds(ctx.cli.env);
    loggedIn = !!q;
    if (q) lines.push(['auth_type', 'oauth_external'], ['expires_at', q.expiry_date ? new Date(q.expiry_date).toISOString() : ''], ['api_base_url', ctx.cli.env.HERMES_QWEN_BASE_URL?.trim() || 'https://portal.qwen.ai/v1']);
    else reason = `no Qwen sign-in at ${qwenCredsPath(ctx.cli.env)}; run \`hermes auth add qwen-oauth\``;
  } else {
    const shown = shownCredentials(ctx, data, p.id);
    loggedIn = shown.length > 0;
    if (loggedIn) lines.push(['auth_type', shown[0].cred.authType], ['api_base_url', p.baseUrl]);
    else reason = `no credentials; run \`hermes auth add ${p.id}\``;
    // A Claude subscription credential (a sign-in, .anthropic_oauth.json, or an sk-ant-oat token in the env).
    if (p.id === 'anthropic' && shown.some((x) => x.cred.authType === 'oauth' || String(x.cred.key ?? '').startsWith('sk-ant-oat'))) subscription = true;
  }
  if (!loggedIn) return out(`${p.id}: logged out${reason ? ` (${reason})` : ''}`);
  out(`${p.id}: logged in`);
  for (const [k, v] of lines) if (v) out(`  ${k}: ${v}`);
  if (subscription) out(`  ${ANTHROPIC_OAUTH_STATUS_WARNING}`);
}

export async function logout(providerArg: string | undefined): Promise<void> {
  const ctx = context();
  const data = read(ctx.store);
  const target = providerArg?.trim() ? requireProvider(providerArg, ctx.cli) : typeof data.active_provider === 'string' && data.active_provider ? requireProvider(data.active_provider, ctx.cli) : null;
  if (!target) return out('No provider is currently logged in.');
  const had = await update(ctx.store, (d) => {
    const cleared = clearProvider(d, target.id);
    if (target.id === 'qwen-oauth' && readQwenCreds(ctx.cli.env)) {
      suppress(d, 'qwen-oauth', 'qwen_cli');
      return true;
    }
    return cleared;
  });
  out(had ? `Logged out of ${target.name}.` : `No auth state found for ${target.name}.`);
}
