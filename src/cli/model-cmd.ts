// `hermes model`: the interactive provider/model picker, or `hermes model [provider:]<model>` to
// switch without prompts, or `--list` to print what the provider serves.

import { findProvider, ResolveError, resolveRuntime } from '../llm/index.ts';
import { resolveInputFrom } from '../runtime/session.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { existingKey, fetchModels, keyEnvFor, keyOptional, ModelListError, runtimeFor, saveChoice, testCall, type EndpointChoice } from './onboard.ts';
import { runWizard } from './setup.ts';

export interface ModelCmdOptions {
  provider?: string;
  baseUrl?: string;
  apiMode?: string;
  list?: boolean;
  test?: boolean;
}

const out = (s: string) => process.stdout.write(s + '\n');

export async function runModel(spec: string | undefined, o: ModelCmdOptions): Promise<void> {
  const ctx = loadContext();
  const config = ctx.loaded.config;

  if (o.list) {
    let choice: EndpointChoice;
    if (o.provider) choice = { provider: o.provider, baseUrl: o.baseUrl, apiMode: o.apiMode };
    else {
      let rt;
      try {
        rt = resolveRuntime(resolveInputFrom(config, ctx.env, { baseUrl: o.baseUrl }));
      } catch (e) {
        if (e instanceof ResolveError) throw new CliError(e.message);
        throw e;
      }
      choice = { provider: rt.provider.startsWith('custom:') ? rt.provider.slice(7) : rt.provider, baseUrl: rt.isCustom ? rt.baseUrl : undefined, apiMode: rt.apiMode };
    }
    try {
      const models = await fetchModels(choice, ctx.env, config);
      if (!models.length) out(`(${choice.provider} lists no models)`);
      for (const m of models) out(m.id);
    } catch (e) {
      if (e instanceof ModelListError || e instanceof ResolveError) throw new CliError(e.message);
      throw e;
    }
    return;
  }

  if (!spec) {
    if (process.stdin.isTTY && process.stdout.isTTY) return runWizard({ provider: o.provider, baseUrl: o.baseUrl, apiMode: o.apiMode, test: o.test }, 'model');
    try {
      const rt = resolveRuntime(resolveInputFrom(config, ctx.env));
      out(`${rt.model} via ${rt.provider} (${rt.apiMode}) ${rt.baseUrl}`);
    } catch (e) {
      if (e instanceof ResolveError) throw new CliError(e.message);
      throw e;
    }
    out('Switch with `hermes model <provider>:<model>` (or run `hermes model` in a terminal to pick from a list).');
    return;
  }

  // `provider:model` when the prefix names a provider; model ids may contain ':' and '/'.
  let provider = o.provider;
  let model = spec.trim();
  const colon = model.indexOf(':');
  if (!provider && colon > 0) {
    const head = model.slice(0, colon);
    if (findProvider(head) || config.providers?.[head]) {
      provider = head;
      model = model.slice(colon + 1);
    }
  }
  if (!provider) provider = o.baseUrl ? 'custom' : String(config.model?.provider || '') || undefined;
  if (!provider || provider === 'auto') {
    try {
      const rt = resolveRuntime(resolveInputFrom(config, ctx.env));
      provider = rt.provider.startsWith('custom:') ? rt.provider.slice(7) : rt.provider;
    } catch {
      throw new CliError('Which provider? Use `hermes model <provider>:<model>` (or run `hermes setup`).', 2);
    }
  }
  const catalog = findProvider(provider);
  if (!catalog && !config.providers?.[provider]) throw new CliError(`Unknown provider "${provider}". Run \`hermes model\` in a terminal to pick one from the list.`, 2);
  const id = config.providers?.[provider] ? provider : catalog!.id;
  const baseUrl = catalog?.isCustom ? (o.baseUrl ?? (String(config.model?.provider) === 'custom' ? String(config.model?.base_url ?? '') : '')) : undefined;
  if (catalog?.isCustom && !baseUrl) throw new CliError('A custom endpoint needs --base-url (e.g. http://localhost:11434/v1).', 2);
  const choice: EndpointChoice = { provider: id, baseUrl: baseUrl || undefined, apiMode: o.apiMode };
  const missingKey = !existingKey(id, ctx.env, config) && !keyOptional(choice) && !config.providers?.[id];
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
  for (const l of saveChoice(ctx.home, choice, model, ctx.loaded.exists ? config : undefined)) out(`Saved ${l}`);
  if (missingKey) {
    out(`Note: no API key is set for ${catalog?.name ?? id}: \`hermes config set ${keyEnvFor(id, config)} <key>\` (or run \`hermes setup\`).`);
  }
}
