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
  PROVIDERS,
  resolveRuntime,
  type ModelInfo,
  type ProviderRuntime,
  type ProviderSpec,
} from '../llm/index.ts';
import { getKey, setConfigKey, unsetConfigKey } from '../state/config.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { updateEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';

/** Providers shown first in the picker, in this order; the rest follow alphabetically. */
const FIRST = ['openrouter', 'anthropic', 'openai', 'nous', 'gemini', 'deepseek', 'xai', 'zai', 'kimi-coding', 'minimax', 'mistral', 'groq', 'huggingface'];

export interface ProviderOption {
  /** What goes in model.provider: a catalog id, 'custom', or a name under `providers:`. */
  value: string;
  label: string;
  hint: string;
  spec?: ProviderSpec;
  /** A named endpoint from config.yaml `providers:`. */
  named?: boolean;
}

/** Catalog providers a key can set up (sign-in-only ones are left out), your named endpoints, then custom. */
export function providerOptions(config?: HermesConfig): ProviderOption[] {
  const usable = PROVIDERS.filter((p) => !p.isCustom && p.keyEnvs.length > 0);
  const rank = (id: string) => (FIRST.includes(id) ? FIRST.indexOf(id) : FIRST.length);
  const sorted = [...usable].sort((a, b) => rank(a.id) - rank(b.id) || a.name.localeCompare(b.name));
  const out: ProviderOption[] = sorted.map((p) => ({
    value: p.id,
    label: p.name,
    hint: p.quirks.noKeyRequired ? `local server at ${p.baseUrl}` : p.keyEnvs[0],
    spec: p,
  }));
  for (const [name, entry] of Object.entries(config?.providers ?? {})) {
    if (findProvider(name)?.id === name.toLowerCase()) continue;
    out.push({ value: name, label: `${name} (your endpoint)`, hint: String(entry?.base_url ?? ''), named: true });
  }
  out.push({ value: 'custom', label: 'Custom endpoint', hint: 'any OpenAI-compatible server: Ollama, vLLM, llama.cpp, LM Studio…', spec: findProvider('custom') });
  return out;
}

export interface EndpointChoice {
  provider: string;
  /** Custom endpoints: the base URL. */
  baseUrl?: string;
  apiMode?: string;
  /** A key given now (typed, flag or stdin); undefined = use what the environment has. */
  apiKey?: string;
}

/** The env var a provider's key is saved under (custom endpoints: OPENAI_API_KEY, as Hermes does). */
export function keyEnvFor(provider: string, config?: HermesConfig): string | undefined {
  const named = config?.providers?.[provider];
  if (named && !(findProvider(provider)?.id === provider)) return typeof named.key_env === 'string' && named.key_env ? named.key_env : undefined;
  return findProvider(provider)?.keyEnvs[0];
}

/** A usable key already in the environment (or .env) for this provider, if any. */
export function existingKey(provider: string, env: NodeJS.ProcessEnv, config?: HermesConfig): { env: string; value: string } | undefined {
  const named = config?.providers?.[provider];
  const names = named && typeof named.key_env === 'string' && named.key_env ? [named.key_env] : (findProvider(provider)?.keyEnvs ?? []);
  for (const n of names) {
    const keys = envKeys(env, n);
    if (keys.length) return { env: n, value: keys[0] };
  }
  return undefined;
}

/** Whether this choice can work without any key (local servers, custom endpoints). */
export function keyOptional(choice: EndpointChoice): boolean {
  const spec = findProvider(choice.provider);
  if (spec?.quirks.noKeyRequired) return true;
  if (spec?.isCustom) return true;
  return !!choice.baseUrl && isLocalUrl(choice.baseUrl);
}

/** Resolves a choice and a model to a runtime (throws ResolveError with a one-line fix). */
export function runtimeFor(choice: EndpointChoice, model: string, env: NodeJS.ProcessEnv, config?: HermesConfig): ProviderRuntime {
  return resolveRuntime({
    model: { default: model, provider: choice.provider, base_url: choice.baseUrl ?? '', api_key: '', api_mode: choice.apiMode ?? '' },
    providers: config?.providers,
    explicit: { apiKey: choice.apiKey },
    env,
  });
}

/** The provider's models, sorted; throws ModelListError (one line) when they cannot be listed. */
export async function fetchModels(choice: EndpointChoice, env: NodeJS.ProcessEnv, config?: HermesConfig): Promise<ModelInfo[]> {
  const rt = runtimeFor(choice, 'list-models', env, config);
  const models = await listModels(rt);
  return models.sort((a, b) => a.id.localeCompare(b.id));
}

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
 * Saves a choice: a new key to HERMES_HOME/.env (0600), provider/model/endpoint to config.yaml
 * (other settings untouched). Returns lines saying what was written.
 */
export function saveChoice(home: string, choice: EndpointChoice, model: string, current: HermesConfig | undefined): string[] {
  const lines: string[] = [];
  const named = !!current?.providers?.[choice.provider] && findProvider(choice.provider)?.id !== choice.provider;
  const isCustom = !named && !!findProvider(choice.provider)?.isCustom;
  if (choice.apiKey) {
    const keyEnv = keyEnvFor(choice.provider, current) ?? 'OPENAI_API_KEY';
    updateEnvFile(paths.env(home), { [keyEnv]: choice.apiKey });
    lines.push(`${keyEnv} → ${paths.env(home)} (mode 0600)`);
  }
  const previousProvider = current ? String(getKey(current, 'model.provider') ?? '') : '';
  setConfigKey(home, 'model.provider', choice.provider);
  setConfigKey(home, 'model.default', model);
  if (isCustom && choice.baseUrl) setConfigKey(home, 'model.base_url', choice.baseUrl);
  else unsetConfigKey(home, 'model.base_url');
  if (choice.apiMode) setConfigKey(home, 'model.api_mode', choice.apiMode);
  else unsetConfigKey(home, 'model.api_mode');
  // A key in config.yaml belongs to the endpoint it was written for.
  if (choice.apiKey || previousProvider !== choice.provider) unsetConfigKey(home, 'model.api_key');
  lines.push(`model.provider: ${choice.provider}, model.default: ${model}${isCustom && choice.baseUrl ? `, model.base_url: ${choice.baseUrl}` : ''} → ${paths.config(home)}`);
  return lines;
}
