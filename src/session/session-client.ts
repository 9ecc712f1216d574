// Provider resolution for sessions: config + .env + auth.json into a ResolveInput, and the resilient
// LLM client (primary runtime + fallback chain) a Session talks to.
import { pluginErrorClassifier } from '../plugins/error-classification.ts';
import {
  createLlmClient,
  envFirstByteMs,
  ResolveError,
  resolveFallbackRuntimes,
  resolveRuntime,
  type LlmClient,
  type ResolveInput,
} from '../llm/index.ts';
import { emptyConfigFile, emptyConfigProblem } from '../state/config.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { authResolveInputs } from '../auth/runtime.ts';
import { resolvableProviders } from '../state/endpoints.ts';
import { hermesHome } from '../state/paths.ts';
import { CODEX_PROVIDERS, configuredRuntime, requestedProvider } from '../runners/select.ts';
import { healthFor } from './provider-health.ts';
import type { ExplicitChoices, SessionOptions } from './session-types.ts';
import { resolveAuxiliaryRuntime, type ProviderRuntime } from '../llm/index.ts';
import type { StreamFn } from '../llm/types.ts';
import type { AuxiliaryModel } from '../tools/types.ts';
import { spendMeter, type MeterHost } from './budgets.ts';
import type { SessionPlugins } from './session-plugins.ts';

export function resolveInputFrom(config: HermesConfig, env: NodeJS.ProcessEnv, explicit: ExplicitChoices = {}, home = hermesHome(env)): ResolveInput {
  // An emptied config.yaml never switches the provider to whichever API key is set (config.ts).
  const empty = emptyConfigFile(config);
  if (empty && !explicit.provider?.trim() && !explicit.baseUrl?.trim() && !env.HERMES_INFERENCE_PROVIDER?.trim()) {
    const { problem, hint } = emptyConfigProblem(empty);
    throw new ResolveError(problem, hint);
  }
  // auth.json's credential pools and OAuth sign-ins (see src/auth/runtime.ts).
  const auth = authResolveInputs(home, env);
  return {
    model: config.model,
    providers: resolvableProviders(config),
    explicit: { provider: explicit.provider, model: explicit.model, baseUrl: explicit.baseUrl, apiKey: explicit.apiKey, apiMode: explicit.apiMode },
    env,
    pools: auth.pools,
    suppressedSources: auth.suppressedSources,
    activeProvider: auth.activeProvider,
    poolHooks: auth.poolHooks,
    poolStrategies: config.credential_pool_strategies,
  };
}

/** Builds the resilient LLM client for a config: primary runtime + fallback chain. */
export function createClientFor(config: HermesConfig, env: NodeJS.ProcessEnv, explicit: ExplicitChoices = {}, home?: string): { llm: LlmClient; warnings: string[] } {
  const input = resolveInputFrom(config, env, explicit, home);
  const primary = resolveRuntime(input);
  const fb = resolveFallbackRuntimes(config.fallback_providers ?? [], input);
  const timeoutS = Number(env.HERMES_API_TIMEOUT);
  const staleS = Number(env.HERMES_STREAM_STALE_TIMEOUT);
  const llm = createLlmClient({
    primary,
    fallbacks: fb.runtimes,
    maxRetries: config.agent.api_max_retries ?? 3,
    timeoutMs: Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS * 1000 : undefined,
    staleMs: Number.isFinite(staleS) && staleS > 0 ? staleS * 1000 : undefined,
    firstByteMs: envFirstByteMs(env),
    classifyError: pluginErrorClassifier(home),
    // Provider health is shared by the sessions of this home in this process (and, through
    // provider_health.json, seen by other processes): see src/llm/health.ts.
    health: healthFor(home ?? hermesHome(env)),
  });
  const warnings = fb.skipped.map((s) => `Fallback provider "${s.entry.provider ?? "?"}" skipped: ${s.reason}`);
  const empty = emptyConfigFile(config);
  if (empty) warnings.push(`${empty} is empty (no settings): running on the built-in defaults with the provider you named. Run \`hermes setup\` to save your settings.`);
  return { llm, warnings };
}

/**
 * The session's client. With the Codex app-server runtime the turns use codex's own login, so a
 * missing Hermes key for openai / openai-codex is not fatal: only auxiliary tasks need it.
 */
export function clientForSession(config: HermesConfig, env: NodeJS.ProcessEnv, explicit: ExplicitChoices = {}, home?: string): { llm: LlmClient; warnings: string[] } {
  try {
    return createClientFor(config, env, explicit, home);
  } catch (e) {
    if (!(e instanceof ResolveError) || configuredRuntime(config) !== 'codex_app_server' || !CODEX_PROVIDERS.includes(requestedProvider(config, explicit))) throw e;
    const c = createClientFor(config, env, { ...explicit, apiKey: 'codex-app-server' }, home);
    c.warnings.push(`Hermes itself has no ${requestedProvider(config, explicit)} credentials (${e.message.split('\n')[0]}): turns run through codex's own login, but titles, compression and memory review need Hermes to reach a model too.`);
    return c;
  }
}

/** The model for an auxiliary task (`auxiliary.<task>` in config; default: the main model). Moved from Session.auxiliaryModel. */
export function auxiliaryModelFor(o: SessionOptions, llm: LlmClient, spend: MeterHost, plugins: SessionPlugins | null, task: string): AuxiliaryModel | null {
  const cfg = (o.config.auxiliary ?? {})[task];
  let rt: ProviderRuntime | null;
  try {
    rt = resolveAuxiliaryRuntime(task, cfg, llm.active, resolveInputFrom(o.config, o.env, o.explicit, o.home));
  } catch {
    return null;
  }
  if (!rt) return null;
  // Auxiliary tasks fall back through fallback_providers as the conversation does (Hermes's `auto`
  // chain), and share its provider health: a provider the conversation left is not waited on here.
  const client = createLlmClient({ primary: rt, fallbacks: llm.fallbacks ? [...llm.fallbacks] : [], maxRetries: 2, timeoutMs: (Number(cfg?.timeout) || 120) * 1000, classifyError: pluginErrorClassifier(o.home), cacheBodies: false, health: healthFor(o.home), meter: spendMeter(spend, task) });
  const stream: StreamFn = (req) => client.stream(req);
  return { stream: plugins ? plugins.auxStream(task, rt, stream) : stream, model: rt.model, provider: rt.provider };
}
