// What `hermes setup` and `hermes model` share: the provider picker's list, resolving a choice to a
// runtime, listing its models, a one-line test call, and saving the choice (key to .env 0600, the
// rest to config.yaml).

import { messageText } from '../agent/repair.ts';
import {
  createLlmClient,
  describeError,
  envKeys,
  findProvider,
  isLocalUrl,
  listModels,
  ModelListError,
  poolIdOf,
  PROVIDERS,
  resolveRuntime,
  type ModelInfo,
  type ProviderRuntime,
  type ProviderSpec,
} from '../llm/index.ts';
import { setConfigKey, unsetConfigKey } from '../state/config.ts';
import { authResolveInputs } from '../auth/runtime.ts';
import { resolveInputFrom } from './session.ts';
import { defaultConfig, type HermesConfig } from '../state/defaults.ts';
import { autoEndpointName, endpointKeyEnv, findEndpoint, namedEndpoints, rememberEndpoint, type NamedEndpoint } from '../state/endpoints.ts';
import { updateEnvFile } from '../state/env.ts';
import { hermesHome, paths } from '../state/paths.ts';

/** Providers shown first in the picker, in this order; the rest follow alphabetically. */
const FIRST = ['openrouter', 'anthropic', 'openai', 'nous', 'gemini', 'deepseek', 'xai', 'zai', 'kimi-coding', 'minimax', 'mistral', 'groq', 'huggingface'];

/** How a provider signs in, where that is more than pasting an API key (`hermes auth add` does the OAuth). */
const SIGN_IN: Record<string, { hint: string; oauthOnly?: boolean }> = {
  'openai-codex': { hint: 'ChatGPT sign-in (OAuth): run `hermes auth add openai-codex` first', oauthOnly: true },
  'qwen-oauth': { hint: 'Qwen sign-in (OAuth): run `hermes auth add qwen-oauth` first', oauthOnly: true },
  nous: { hint: 'NOUS_API_KEY, or sign in with `hermes auth add nous`' },
  copilot: { hint: 'a GitHub token (COPILOT_GITHUB_TOKEN), or `hermes auth add copilot --type oauth`' },
  // An API key is the supported way; a Claude Pro/Max token is for Claude Code and claude.ai only (docs/security.md).
  anthropic: { hint: 'ANTHROPIC_API_KEY from console.anthropic.com (recommended; not a Claude Pro/Max sign-in)' },
};

/** Providers with credentials in auth.json (pools, OAuth sign-ins). */
export function signedIn(env: NodeJS.ProcessEnv): Set<string> {
  try {
    const pools = authResolveInputs(hermesHome(env), env).pools;
    return new Set(Object.entries(pools).filter(([, creds]) => creds.length).map(([id]) => id));
  } catch {
    return new Set();
  }
}

export interface ProviderOption {
  /** What goes in model.provider: a catalog id, 'custom', or a named endpoint's id. */
  value: string;
  label: string;
  hint: string;
  spec?: ProviderSpec;
  /** One of your named endpoints (custom_providers / providers:). */
  named?: NamedEndpoint;
  /** Signs in only with OAuth and you have not (`hermes auth add` first). */
  needsSignIn?: boolean;
  /** Extra words the type-to-filter list matches (aliases, env var). */
  search: string;
}

/**
 * Every catalog provider, your named endpoints, then a new custom endpoint. A provider that only
 * signs in with OAuth is marked until `hermes auth add` has signed you in.
 */
export function providerOptions(config?: HermesConfig, signedInTo: Set<string> = new Set()): ProviderOption[] {
  const listed = PROVIDERS.filter((p) => !p.isCustom);
  const rank = (id: string) => (FIRST.includes(id) ? FIRST.indexOf(id) : FIRST.length);
  const sorted = [...listed].sort((a, b) => rank(a.id) - rank(b.id) || a.name.localeCompare(b.name));
  const out: ProviderOption[] = sorted.map((p) => {
    const signIn = SIGN_IN[p.id];
    const oauthOnly = !!signIn?.oauthOnly || p.keyEnvs.length === 0;
    const ready = signedInTo.has(poolIdOf(p)) || signedInTo.has(p.id);
    return {
      value: p.id,
      label: p.name,
      hint: ready ? 'signed in (auth.json)' : (signIn?.hint ?? (p.quirks.noKeyRequired ? `local server at ${p.baseUrl}` : p.keyEnvs[0])),
      spec: p,
      needsSignIn: (oauthOnly && !ready) || undefined,
      search: [p.id, ...p.aliases, ...p.keyEnvs].join(' '),
    };
  });
  for (const e of config ? namedEndpoints(config) : []) {
    if (e.origin === 'providers' && findProvider(e.id)?.id === e.id.toLowerCase()) continue;
    out.push({ value: e.id, label: `${e.name} (your endpoint)`, hint: String(e.entry.base_url ?? ''), named: e, search: e.id });
  }
  const custom = findProvider('custom')!;
  out.push({ value: 'custom', label: 'Custom endpoint', hint: 'any OpenAI-compatible server: Ollama, vLLM, llama.cpp, LM Studio…', spec: custom, search: custom.aliases.join(' ') });
  return out;
}

export interface EndpointChoice {
  /** A catalog id, 'custom' (a server at `baseUrl`), or a named endpoint's id (`custom:<slug>`, a providers: key). */
  provider: string;
  /** Custom endpoints: the base URL. */
  baseUrl?: string;
  /** Custom endpoints: the name it is remembered by (default: the remembered one, or from the URL). */
  name?: string;
  apiMode?: string;
  /** A key given now (typed, flag or stdin); undefined = use what the environment has. */
  apiKey?: string;
  /** How errors name a key given now (default: "the key passed with --api-key"). */
  keyLabel?: string;
}

/** The named endpoint a choice points at: a named one, or a remembered one with the same URL. */
export function endpointOf(choice: EndpointChoice, config?: HermesConfig): NamedEndpoint | undefined {
  if (!config) return undefined;
  if (findProvider(choice.provider)?.isCustom) {
    if (!choice.baseUrl) return undefined;
    const url = choice.baseUrl.replace(/\/+$/, '').toLowerCase();
    return namedEndpoints(config).find((e) => e.origin === 'custom_providers' && String(e.entry.base_url ?? '').replace(/\/+$/, '').toLowerCase() === url);
  }
  const builtin = findProvider(choice.provider);
  if (builtin && builtin.id === choice.provider.toLowerCase() && !choice.provider.startsWith('custom:')) return undefined;
  return findEndpoint(config, choice.provider);
}

/** A custom server (new or named), as opposed to a catalog provider. */
export function isEndpointChoice(choice: EndpointChoice, config?: HermesConfig): boolean {
  return !!findProvider(choice.provider)?.isCustom || !!endpointOf(choice, config);
}

/** The name a custom server is remembered by. */
function endpointName(choice: EndpointChoice, config?: HermesConfig): string {
  return choice.name?.trim() || endpointOf(choice, config)?.name || (choice.baseUrl ? autoEndpointName(choice.baseUrl) : choice.provider);
}

/**
 * The .env variable a key given now is saved under: the provider's own variable, or for your own
 * servers one per endpoint (never OPENAI_API_KEY, which belongs to OpenAI).
 */
export function keyEnvFor(choice: EndpointChoice, config?: HermesConfig): string {
  if (isEndpointChoice(choice, config)) {
    const keyEnv = String(endpointOf(choice, config)?.entry.key_env ?? '');
    const foreign = PROVIDERS.some((p) => p.keyEnvs.includes(keyEnv));
    return keyEnv && !foreign ? keyEnv : endpointKeyEnv(endpointName(choice, config));
  }
  return findProvider(choice.provider)?.keyEnvs[0] ?? endpointKeyEnv(choice.provider);
}

/** A usable key already set for this choice: the provider's env vars, or the endpoint's own key. */
export function existingKey(choice: EndpointChoice, env: NodeJS.ProcessEnv, config?: HermesConfig): { env: string; value: string } | undefined {
  if (isEndpointChoice(choice, config)) {
    const e = endpointOf(choice, config);
    const keyEnv = String(e?.entry.key_env ?? '');
    const keys = keyEnv ? envKeys(env, keyEnv) : [];
    if (keys.length) return { env: keyEnv, value: keys[0] };
    if (e && typeof e.entry.api_key === 'string' && e.entry.api_key.trim().length >= 4) return { env: `the key saved with ${e.name}`, value: e.entry.api_key.trim() };
    return undefined;
  }
  const spec = findProvider(choice.provider);
  for (const n of spec?.keyEnvs ?? []) {
    const keys = envKeys(env, n);
    if (keys.length) return { env: n, value: keys[0] };
  }
  if (spec && (signedIn(env).has(poolIdOf(spec)) || signedIn(env).has(spec.id))) return { env: 'the credentials in auth.json', value: '' };
  return undefined;
}

/** Whether this choice can work without any key (local servers, your own endpoints). */
export function keyOptional(choice: EndpointChoice, config?: HermesConfig): boolean {
  const spec = findProvider(choice.provider);
  if (spec?.quirks.noKeyRequired) return true;
  if (isEndpointChoice(choice, config)) return true;
  return !!choice.baseUrl && isLocalUrl(choice.baseUrl);
}

/** Resolves a choice and a model to a runtime (throws ResolveError with a one-line fix). */
export function runtimeFor(choice: EndpointChoice, model: string, env: NodeJS.ProcessEnv, config?: HermesConfig): ProviderRuntime {
  const named = !findProvider(choice.provider)?.isCustom ? endpointOf(choice, config) : undefined;
  // A server already remembered by its URL gets its own key.
  const remembered = !named && choice.baseUrl ? existingKey(choice, env, config)?.value : undefined;
  // auth.json's pools and sign-ins count, as they do when the choice is used.
  const base = resolveInputFrom(config ?? defaultConfig(), env, { apiKey: choice.apiKey ?? remembered });
  const rt = resolveRuntime({
    ...base,
    model: { default: model, provider: named?.id ?? choice.provider, base_url: named ? '' : (choice.baseUrl ?? ''), api_key: '', api_mode: choice.apiMode ?? '' },
  });
  if (choice.apiKey && choice.keyLabel && rt.source === 'flag:--api-key') rt.source = `given:${choice.keyLabel}`;
  else if (!choice.apiKey && remembered && rt.source === 'flag:--api-key') rt.source = `given:the key saved for ${endpointName(choice, config)}`;
  return rt;
}

/** The provider's models in the order it lists them; throws ModelListError (one line) when they cannot be listed. */
export async function fetchModels(choice: EndpointChoice, env: NodeJS.ProcessEnv, config?: HermesConfig): Promise<ModelInfo[]> {
  return listModels(runtimeFor(choice, 'list-models', env, config));
}

/** Model ids sorted for a list a person reads. */
export const sortedIds = (models: ModelInfo[]): string[] => models.map((m) => m.id).sort((a, b) => a.localeCompare(b));

export { ModelListError };

export type TestResult = { ok: true; reply: string; ms: number } | { ok: false; message: string };

/** One short request through the real client: does this provider, key and model answer? */
export async function testCall(rt: ProviderRuntime, timeoutMs = 30_000): Promise<TestResult> {
  const started = Date.now();
  const llm = createLlmClient({ primary: rt, maxRetries: 0, timeoutMs, staleMs: timeoutMs });
  const stream = llm.stream({
    model: rt.model,
    system: 'You are checking that a connection works.',
    messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
    tools: [],
    maxTokens: 64,
  });
  for await (const ev of stream) void ev;
  const r = await stream.result();
  if (r.stopReason === 'error' || r.stopReason === 'aborted') {
    return { ok: false, message: r.error ? describeError(r.error, rt) : 'The test request did not complete.' };
  }
  return { ok: true, reply: messageText(r.message.content).trim(), ms: Date.now() - started };
}

/** How a server returns a tool call: in the API's field, written as text (in some format), or not at all. */
export type ToolCallProbe = { kind: 'native' } | { kind: 'text'; format: string } | { kind: 'none' } | { kind: 'error'; message: string };

const PROBE_TOOL = {
  name: 'get_current_time',
  description: 'Returns the current date and time in a time zone.',
  parameters: { type: 'object', properties: { timezone: { type: 'string', description: 'IANA time zone, e.g. UTC or Europe/Paris' } }, required: ['timezone'] },
};

/** Local and custom endpoints: where tool calls may come back as text. */
export function mayWriteTextCalls(rt: ProviderRuntime): boolean {
  return rt.isCustom || rt.quirks.noKeyRequired === true || isLocalUrl(rt.baseUrl);
}

/** One request offering one harmless tool: how does this server hand back the call? */
export async function probeToolCalls(rt: ProviderRuntime, timeoutMs = 30_000): Promise<ToolCallProbe> {
  const llm = createLlmClient({ primary: rt, maxRetries: 0, timeoutMs, staleMs: timeoutMs });
  const stream = llm.stream({
    model: rt.model,
    system: 'You are a helpful assistant. Use the tools you are given.',
    messages: [{ role: 'user', content: 'What time is it in UTC right now? Call the get_current_time tool to find out.' }],
    tools: [PROBE_TOOL],
    maxTokens: 1024,
  });
  for await (const ev of stream) void ev;
  const r = await stream.result();
  if (r.stopReason === 'error' || r.stopReason === 'aborted') return { kind: 'error', message: r.error ? describeError(r.error, rt) : 'The request did not complete.' };
  if (r.message.tool_calls?.length) return { kind: 'native' };
  const { extractTextCalls } = await import('../agent/textcalls/index.ts');
  const found = extractTextCalls(messageText(r.message.content), 'auto', [PROBE_TOOL]);
  return found ? { kind: 'text', format: found.format } : { kind: 'none' };
}

/** vLLM's name for the same format (`--tool-call-parser`). */
const VLLM_PARSER: Record<string, string> = { hermes: 'hermes', llama3: 'llama3_json', json: 'llama3_json', pythonic: 'pythonic', mistral: 'mistral', deepseek: 'deepseek_v3' };

/** What to do about a server that writes tool calls as text, given the current setting. */
export function textCallAdvice(format: string, setting: string | undefined): string {
  const s = String(setting ?? 'auto').trim().toLowerCase() || 'auto';
  if (s === 'none') return `Hermes does not run them while model.tool_call_parser is none: \`hermes config set model.tool_call_parser ${format}\` (or auto).`;
  const vllm = VLLM_PARSER[format];
  const server = `or let the server parse them (${vllm ? `vLLM: --enable-auto-tool-choice --tool-call-parser ${vllm}; ` : ''}llama.cpp: --jinja)`;
  return s === format
    ? `Hermes reads them (model.tool_call_parser: ${format}); ${server}.`
    : `Hermes reads them (model.tool_call_parser: ${s}); to pin the format: \`hermes config set model.tool_call_parser ${format}\`, ${server}.`;
}

/**
 * Saves a choice: a new key to HERMES_HOME/.env (0600), provider/model to config.yaml (other
 * settings untouched). Your own server is remembered in `custom_providers` (URL, model, the name of
 * its key's variable) and chosen as `custom:<name>`, so switching away and back finds it again.
 * Returns lines saying what was written.
 */
export function saveChoice(home: string, choice: EndpointChoice, model: string, current: HermesConfig | undefined, user: Record<string, unknown> = {}): string[] {
  const lines: string[] = [];
  const endpoint = isEndpointChoice(choice, current);
  let keyEnv: string | undefined;
  if (choice.apiKey) {
    keyEnv = keyEnvFor(choice, current);
    updateEnvFile(paths.env(home), { [keyEnv]: choice.apiKey });
    lines.push(`${keyEnv} → ${paths.env(home)} (mode 0600)`);
  }
  let provider = choice.provider;
  const named = endpointOf(choice, current);
  // A key written in the old model block for this same server moves to .env with it.
  const old = (user.model && typeof user.model === 'object' ? user.model : {}) as Record<string, unknown>;
  const oldKey = typeof old.api_key === 'string' ? old.api_key.trim() : '';
  const sameServer = !!choice.baseUrl && String(old.provider ?? '') === 'custom' && String(old.base_url ?? '').replace(/\/+$/, '') === choice.baseUrl.replace(/\/+$/, '');
  if (!keyEnv && sameServer && oldKey) {
    const ref = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(oldKey);
    keyEnv = ref ? ref[1] : keyEnvFor(choice, current);
    if (!ref) {
      updateEnvFile(paths.env(home), { [keyEnv]: oldKey });
      lines.push(`model.api_key → ${keyEnv} in ${paths.env(home)} (mode 0600)`);
    }
  }
  if (endpoint && (findProvider(choice.provider)?.isCustom || named?.origin === 'custom_providers')) {
    const baseUrl = choice.baseUrl ?? String(named?.entry.base_url ?? '');
    const saved = rememberEndpoint(home, user, { baseUrl, name: choice.name ?? named?.name, model, apiMode: choice.apiMode, keyEnv });
    provider = saved.id;
    lines.push(`custom_providers: ${saved.name} (${baseUrl}${keyEnv ? `, key in ${keyEnv}` : ''}) → ${paths.config(home)}`);
  } else if (named && keyEnv) {
    setConfigKey(home, `providers.${named.id.replace(/\./g, '\\.')}.key_env`, keyEnv);
  }
  setConfigKey(home, 'model.provider', provider);
  setConfigKey(home, 'model.default', model);
  // The endpoint, wire and key now live with the provider (or its custom_providers item).
  unsetConfigKey(home, 'model.base_url');
  if (choice.apiMode && !endpoint) setConfigKey(home, 'model.api_mode', choice.apiMode);
  else unsetConfigKey(home, 'model.api_mode');
  // A key in the model block belongs to the endpoint it was written for.
  if (endpoint || choice.apiKey || String(old.provider ?? '') !== provider) unsetConfigKey(home, 'model.api_key');
  lines.push(`model.provider: ${provider}, model.default: ${model} → ${paths.config(home)}`);
  return lines;
}
