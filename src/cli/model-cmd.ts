// `hermes model`: the interactive provider/model picker, or `hermes model [provider:]<model>` to
// switch without prompts, or `--list` to print what the provider serves.
//
// Your own servers are remembered by name (custom_providers): `hermes model custom:<name>` switches
// back to one with its saved model, `custom:<name>:<model>` with another model, and
// `hermes model custom:<model> --base-url <url>` points at a new one (remembered from then on).

import { findProvider, providerIds } from '../llm/catalog.ts';
import { ResolveError, resolveRuntime } from '../llm/resolve.ts';
import { resolveInputFrom } from '../session/session-client.ts';
import { endpointNameProblem, findEndpoint, namedEndpoints, splitEndpointModel, type NamedEndpoint } from '../state/endpoints.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { existingKey, fetchModels, keyEnvFor, keyOptional, ModelListError, runtimeFor, saveChoice, sortedIds, testCall, type EndpointChoice } from '../session/onboard.ts';
import { runWizard } from './setup.ts';
import { didYouMean } from '../commands/suggest.ts';

export interface ModelCmdOptions {
  provider?: string;
  baseUrl?: string;
  apiMode?: string;
  name?: string;
  list?: boolean;
  test?: boolean;
}

const out = (s: string) => process.stdout.write(s + '\n');

function resolveOrExit<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ResolveError) throw new CliError(e.message);
    throw e;
  }
}

/** The choice the current configuration makes (for --list and for a bare model name). */
function currentChoice(config: HermesConfig, env: NodeJS.ProcessEnv, baseUrl?: string): EndpointChoice {
  const rt = resolveOrExit(() => resolveRuntime(resolveInputFrom(config, env, { baseUrl })));
  return { provider: rt.provider, baseUrl: rt.isCustom && !rt.provider.startsWith('custom:') ? rt.baseUrl : undefined, apiMode: rt.apiMode };
}

function endpointNames(config: HermesConfig): string {
  const names = namedEndpoints(config).map((e) => e.id);
  return names.length ? names.join(', ') : 'none yet';
}

interface Target {
  choice: EndpointChoice;
  model: string;
  endpoint?: NamedEndpoint;
}

/** Reads `custom:<name>`, `custom:<name>:<model>`, `custom:<model>`, `<provider>:<model>`, `<model>`. */
function parseSpec(spec: string, o: ModelCmdOptions, config: HermesConfig, env: NodeJS.ProcessEnv): Target {
  const text = spec.trim();
  const lower = text.toLowerCase();
  if (!o.provider && lower.startsWith('custom:')) {
    const rest = text.slice('custom:'.length);
    const whole = o.baseUrl ? undefined : findEndpoint(config, rest);
    if (whole) {
      const model = String(whole.entry.model ?? '');
      if (!model) throw new CliError(`${whole.name} has no saved model: use \`hermes model ${whole.id}:<model>\` (\`hermes model --provider ${whole.id} --list\` lists them).`, 2);
      return { choice: { provider: whole.id, apiMode: o.apiMode }, model, endpoint: whole };
    }
    const split = o.baseUrl ? undefined : splitEndpointModel(config, rest);
    if (split) return { choice: { provider: split.endpoint.id, apiMode: o.apiMode }, model: split.model, endpoint: split.endpoint };
    // A model on a custom server: the one given, or the one in use.
    const baseUrl = o.baseUrl ?? currentCustomUrl(config);
    if (!baseUrl) {
      throw new CliError(
        `No endpoint named "${rest}" (yours: ${endpointNames(config)}).${didYouMean(rest, namedEndpoints(config).map((e) => e.id.replace(/^custom:/, '')), (n) => `\`custom:${n}\``)} For a model on a new server, add --base-url <url>.`,
        2,
      );
    }
    return { choice: { provider: 'custom', baseUrl, name: o.name, apiMode: o.apiMode }, model: rest };
  }
  let provider = o.provider;
  let model = text;
  const colon = text.indexOf(':');
  if (!provider && colon > 0) {
    const head = text.slice(0, colon);
    if (findProvider(head) || findEndpoint(config, head)) {
      provider = head;
      model = text.slice(colon + 1);
    }
  }
  if (!provider && o.baseUrl) provider = 'custom';
  if (!provider) provider = currentChoice(config, env).provider;
  const endpoint = findProvider(provider)?.id === provider.toLowerCase() ? undefined : findEndpoint(config, provider);
  if (endpoint) return { choice: { provider: endpoint.id, apiMode: o.apiMode }, model, endpoint };
  const catalog = findProvider(provider);
  if (!catalog) throw new CliError(`Unknown provider "${provider}".${didYouMean(provider, [...namedEndpoints(config).map((e) => e.id), ...providerIds()])} Run \`hermes model\` in a terminal to pick one from the list.`, 2);
  if (catalog.isCustom) {
    const baseUrl = o.baseUrl ?? currentCustomUrl(config);
    if (!baseUrl) throw new CliError('A custom endpoint needs --base-url (e.g. http://localhost:11434/v1).', 2);
    return { choice: { provider: 'custom', baseUrl, name: o.name, apiMode: o.apiMode }, model };
  }
  return { choice: { provider: catalog.id, apiMode: o.apiMode }, model };
}

/** The URL of the custom server in use (a legacy model.base_url, or the named endpoint's). */
function currentCustomUrl(config: HermesConfig): string | undefined {
  const p = String(config.model?.provider ?? '');
  if (p === 'custom' && config.model?.base_url) return String(config.model.base_url);
  const e = p ? findEndpoint(config, p) : undefined;
  return e && !findProvider(p) ? String(e.entry.base_url ?? '') || undefined : undefined;
}

export async function runModel(spec: string | undefined, o: ModelCmdOptions): Promise<void> {
  const bad = o.name !== undefined ? endpointNameProblem(o.name) : null;
  if (bad) throw new CliError(`--name ${bad}`, 2);
  const ctx = loadContext();
  const config = ctx.loaded.config;

  if (o.list) {
    const choice: EndpointChoice = o.provider ? { provider: o.provider, baseUrl: o.baseUrl, apiMode: o.apiMode } : currentChoice(config, ctx.env, o.baseUrl);
    try {
      const models = sortedIds(await fetchModels(choice, ctx.env, config));
      if (!models.length) out(`(${choice.provider} lists no models)`);
      for (const m of models) out(m);
    } catch (e) {
      if (e instanceof ModelListError || e instanceof ResolveError) throw new CliError(e.message);
      throw e;
    }
    return;
  }

  if (!spec) {
    if (process.stdin.isTTY && process.stdout.isTTY) return runWizard({ provider: o.provider, baseUrl: o.baseUrl, apiMode: o.apiMode, name: o.name, test: o.test }, 'model');
    const rt = resolveOrExit(() => resolveRuntime(resolveInputFrom(config, ctx.env)));
    out(`${rt.model} via ${rt.provider} (${rt.apiMode}) ${rt.baseUrl}`);
    const { localServerLine } = await import('./setup-local.ts');
    const local = await localServerLine(rt, config, ctx.env, ctx.home).catch(() => null);
    if (local) out(local.line);
    out('Switch with `hermes model <provider>:<model>` (or run `hermes model` in a terminal to pick from a list).');
    return;
  }

  const { choice, model } = parseSpec(spec, o, config, ctx.env);
  const missingKey = !existingKey(choice, ctx.env, config) && !keyOptional(choice, config);
  let rt;
  try {
    rt = runtimeFor(choice, model, ctx.env, config);
  } catch (e) {
    // A missing key does not stop the switch (it can be set afterwards); anything else does.
    if (!(e instanceof ResolveError)) throw e;
    if (!missingKey || o.test) throw new CliError(e.message);
  }
  if (o.test && rt) {
    const r = await testCall(rt);
    if (!r.ok) throw new CliError(`The test call failed, nothing was saved: ${r.message}`);
    out(`✓ ${model} answered in ${(r.ms / 1000).toFixed(1)}s`);
  }
  for (const l of saveChoice(ctx.home, choice, model, ctx.loaded.exists ? config : undefined, ctx.loaded.user)) out(`Saved ${l}`);
  if (rt) {
    // A local server: what it serves for this model (probed, cached for the sessions).
    const { localServerLine } = await import('./setup-local.ts');
    const local = await localServerLine(rt, config, ctx.env, ctx.home).catch(() => null);
    if (local) out(local.line);
  }
  if (missingKey) {
    out(`Note: no API key is set for ${findProvider(choice.provider)?.name ?? choice.provider}: \`hermes config set ${keyEnvFor(choice, config)} <key>\` (or run \`hermes setup\`).`);
  }
}
