// `hermes setup` and `hermes model`: choose a provider, give its key (masked, saved to .env 0600),
// pick a model from the provider's own /models list, make a test call, save config.yaml.
// Interactive (a wizard) or `--non-interactive` with flags.

import { readFileSync } from 'node:fs';
import type { ProviderRuntime } from '../llm/index.ts';
import { findProvider, poolIdOf, providerIds } from '../llm/catalog.ts';
import { ResolveError } from '../llm/resolve.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { paths } from '../state/paths.ts';
import { ANTHROPIC_OAUTH_STATUS_WARNING } from '../auth/oauth/anthropic.ts';
import { mask } from './config-cmd.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { autoEndpointName, endpointNameProblem, findEndpoint, namedEndpoints } from '../state/endpoints.ts';
import { didYouMean } from '../commands/suggest.ts';
import {
  endpointOf,
  existingKey,
  fetchModels,
  keyEnvFor,
  keyOptional,
  mayWriteTextCalls,
  ModelListError,
  probeToolCalls,
  providerOptions,
  runtimeFor,
  saveChoice,
  signedIn,
  sortedIds,
  testCall,
  textCallAdvice,
  type EndpointChoice,
} from '../session/onboard.ts';

export interface SetupOptions {
  nonInteractive?: boolean;
  provider?: string;
  apiKey?: string;
  model?: string;
  baseUrl?: string;
  apiMode?: string;
  /** The name a custom endpoint is remembered by. */
  name?: string;
  /** commander's --no-test */
  test?: boolean;
}

const out = (s: string) => process.stdout.write(s + '\n');

function readKeyFromStdin(): string {
  try {
    return readFileSync(0, 'utf8').trim();
  } catch {
    throw new CliError('Could not read the API key from stdin.', 2);
  }
}

/** A provider id the wizard and `--provider` accept: a catalog id, or one of your named endpoints. */
function checkProvider(name: string, config: HermesConfig, env: NodeJS.ProcessEnv): string {
  const p = name.trim();
  const spec = findProvider(p);
  const endpoint = spec?.id === p.toLowerCase() ? undefined : findEndpoint(config, p);
  if (endpoint) return endpoint.id;
  if (!spec) {
    const yours = namedEndpoints(config).map((e) => e.id);
    throw new CliError(`Unknown provider "${p}".${didYouMean(p, [...providerIds(), ...yours])} Use one of: ${providerIds().join(', ')}${yours.length ? `, or one of your endpoints: ${yours.join(', ')}` : ''}.`, 2);
  }
  const ready = signedIn(env);
  if (!spec.isCustom && spec.keyEnvs.length === 0 && !ready.has(poolIdOf(spec)) && !ready.has(spec.id))
    throw new CliError(`${spec.name} signs in with OAuth: run \`hermes auth add ${spec.id}\` first, then pick it again.`, 2);
  return spec.id;
}

function resolveOrFail(choice: EndpointChoice, model: string, env: NodeJS.ProcessEnv, config: HermesConfig): ProviderRuntime {
  try {
    return runtimeFor(choice, model, env, config);
  } catch (e) {
    if (e instanceof ResolveError) throw new CliError(e.message, 2);
    throw e;
  }
}

// -------------------------------------------------------------------------------------------------
// Non-interactive

export async function runNonInteractive(o: SetupOptions, what: 'setup' | 'model' = 'setup'): Promise<void> {
  const ctx = loadContext();
  const config = ctx.loaded.config;
  const raw = o.provider ?? (o.baseUrl ? 'custom' : undefined);
  if (!raw) throw new CliError(`--provider is required with --non-interactive (one of ${providerIds().join(', ')}; custom with --base-url).`, 2);
  const provider = checkProvider(raw, config, ctx.env);
  const spec = findProvider(provider);
  if (spec?.isCustom && !o.baseUrl) throw new CliError('A custom endpoint needs --base-url (e.g. http://localhost:11434/v1).', 2);
  if (o.baseUrl && !/^https?:\/\/\S+$/i.test(o.baseUrl)) throw new CliError(`--base-url must be an http(s) URL (got "${o.baseUrl}").`, 2);

  let apiKey = o.apiKey === '-' ? readKeyFromStdin() : o.apiKey;
  if (apiKey !== undefined && !apiKey.trim()) throw new CliError('--api-key is empty.', 2);
  apiKey = apiKey?.trim();
  const choice: EndpointChoice = { provider, baseUrl: spec?.isCustom ? o.baseUrl : undefined, name: o.name, apiMode: o.apiMode, apiKey };
  if (!apiKey && !existingKey(choice, ctx.env, config) && !keyOptional(choice, config)) {
    const env = keyEnvFor(choice, config);
    throw new CliError(`No API key for ${spec?.name ?? provider}: pass --api-key <key> (or --api-key - to read it from stdin), or set ${env} in the environment.`, 2);
  }

  let model = o.model?.trim();
  if (!model) {
    model = spec?.defaultModel;
    if (!model) {
      try {
        const models = await fetchModels(choice, ctx.env, config);
        model = models[0]?.id;
        if (model) out(`Model: ${model} (the first of ${models.length} served by the endpoint; pass --model to choose)`);
      } catch (e) {
        if (e instanceof ModelListError) throw new CliError(`${e.message} Pass --model <name> to skip the model list.`);
        throw e;
      }
    }
    if (!model) throw new CliError('No model given and the endpoint lists none: pass --model <name>.', 2);
  }
  const rt = resolveOrFail(choice, model, ctx.env, config);
  if (o.test !== false) {
    const r = await testCall(rt);
    if (!r.ok) throw new CliError(`The test call failed, nothing was saved: ${r.message}`);
    out(`✓ ${rt.model} via ${rt.provider} answered in ${(r.ms / 1000).toFixed(1)}s`);
    if (mayWriteTextCalls(rt)) {
      const p = await probeToolCalls(rt);
      if (p.kind === 'text') out(`! ${rt.model} writes tool calls as text (${p.format} format). ${textCallAdvice(p.format, config.model?.tool_call_parser)}`);
    }
    const { localServerLine } = await import('./setup-local.ts');
    const local = await localServerLine(rt, config, ctx.env, ctx.home).catch(() => null);
    if (local) out(local.line);
  }
  for (const l of saveChoice(ctx.home, choice, model, ctx.loaded.exists ? config : undefined, ctx.loaded.user)) out(`Saved ${l}`);
  if (what === 'setup') out('Done. Start chatting with `hermes`.');
}

// -------------------------------------------------------------------------------------------------
// Interactive

type Clack = typeof import('@clack/prompts');

class Cancelled extends Error {}

function unwrap<T>(c: Clack, v: T): Exclude<T, symbol> {
  if (c.isCancel(v)) throw new Cancelled();
  return v as Exclude<T, symbol>;
}

export async function runWizard(o: SetupOptions, what: 'setup' | 'model' = 'setup'): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError(`\`hermes ${what}\` is interactive and needs a terminal. Without one, use \`hermes setup --non-interactive --provider <id> --api-key <key> --model <name>\`.`, 2);
  }
  const c = await import('@clack/prompts');
  const ctx = loadContext();
  const config = ctx.loaded.config;
  try {
    c.intro(what === 'setup' ? '⚕ Hermes setup' : '⚕ Choose a model');
    if (what === 'setup') {
      c.note(`Settings go to ${paths.config(ctx.home)}\nAPI keys go to ${paths.env(ctx.home)} (readable only by you)`, 'Where things are saved');
    }
    const current = String(config.model?.provider ?? '');
    const options = providerOptions(config, signedIn(ctx.env));
    const currentValue = findEndpoint(config, current)?.id ?? current;
    let provider = o.provider ? checkProvider(o.provider, config, ctx.env) : '';
    while (!provider) {
      const picked = unwrap(
        c,
        await c.autocomplete({
          message: `Which inference provider? (${options.length}; type to filter)`,
          // The hint shows only on the highlighted entry, so one that needs a sign-in says so in its label.
          options: options.map((p) => ({ value: p.value, label: p.needsSignIn ? `${p.label} — ${p.hint}` : p.label, hint: p.needsSignIn ? undefined : p.hint })),
          filter: (search, opt) => {
            const p = options.find((x) => x.value === opt.value)!;
            return `${p.label} ${p.hint} ${p.search}`.toLowerCase().includes(search.trim().toLowerCase());
          },
          initialValue: options.some((p) => p.value === currentValue && !p.needsSignIn) ? currentValue : options[0].value,
          maxItems: 12,
        }),
      );
      const opt = options.find((p) => p.value === picked);
      if (opt && !opt.needsSignIn) provider = opt.value;
      else if (opt) c.log.warn(`${opt.label} signs in with OAuth: run \`hermes auth add ${opt.value}\` first (or pick one that takes an API key).`);
    }
    const spec = findProvider(provider);
    const choice: EndpointChoice = { provider, keyLabel: 'the key you entered' };
    const named = endpointOf(choice, config);

    if (spec?.isCustom) {
      const initial = o.baseUrl ?? (current === 'custom' ? String(config.model?.base_url ?? '') : '');
      choice.baseUrl = unwrap(
        c,
        await c.text({
          message: 'Base URL of the OpenAI-compatible endpoint',
          placeholder: 'http://localhost:11434/v1',
          initialValue: initial || undefined,
          validate: (v) => (/^https?:\/\/\S+$/i.test((v ?? '').trim()) ? undefined : 'Enter an http(s) URL, e.g. http://localhost:11434/v1'),
        }),
      ).trim();
      const known = endpointOf(choice, config);
      choice.name = o.name?.trim() || unwrap(
        c,
        await c.text({
          message: 'A name for this endpoint (switch back to it later with `hermes model custom:<name>`)',
          initialValue: known?.name ?? autoEndpointName(choice.baseUrl),
          // A name this URL already has (an older Hermes's "Local (…)") stays; a new one must be a slug.
          validate: (v) => ((v ?? '').trim() === known?.name ? undefined : (endpointNameProblem(v ?? '') ?? undefined)),
        }),
      ).trim();
    }
    if (o.apiMode) choice.apiMode = o.apiMode;
    const label = named?.name ?? choice.name ?? spec?.name ?? provider;

    // Anthropic: an API key is the way; a Claude Pro/Max token is for Claude Code and claude.ai only.
    if (spec?.id === 'anthropic') c.log.info('Anthropic: use an API key from https://console.anthropic.com (recommended). Signing in with a Claude Pro/Max subscription is against Anthropic\'s consumer terms outside Claude Code and claude.ai (docs/security.md).');
    // Key, then the model list (which also proves the key), repeated until the list loads or the person moves on.
    let models: string[] = [];
    let ignoreExisting = false;
    for (;;) {
      const have = ignoreExisting ? undefined : existingKey(choice, ctx.env, config);
      const optional = keyOptional(choice, config);
      let useExisting = false;
      if (have && !choice.apiKey) {
        const what = have.env.startsWith('the ') ? have.env : `the ${have.env} already set`;
        const subscription = spec?.id === 'anthropic' && (!!have.value?.startsWith('sk-ant-oat') || /oauth/i.test(have.env));
        if (subscription) c.log.warn(ANTHROPIC_OAUTH_STATUS_WARNING);
        useExisting = unwrap(c, await c.confirm({ message: `Use ${what}${have.value ? ` (${mask(have.value)})` : ''}?`, initialValue: !subscription }));
      }
      if (!useExisting && !choice.apiKey) {
        const keyEnv = keyEnvFor(choice, config);
        const key = unwrap(
          c,
          await c.password({
            message: `API key for ${label}${optional ? ' (leave empty if the server needs none)' : ''} — saved as ${keyEnv}`,
            mask: '•',
            validate: (v) => (optional || (v ?? '').trim() ? undefined : 'The key is required (Ctrl+C to cancel).'),
          }),
        ).trim();
        if (key) choice.apiKey = key;
      }
      const sp = c.spinner();
      sp.start('Fetching the model list');
      try {
        models = sortedIds(await fetchModels(choice, ctx.env, config));
        sp.stop(`${models.length} model(s) available`);
        break;
      } catch (e) {
        const msg = e instanceof ModelListError || e instanceof ResolveError ? e.message : (e as Error).message;
        sp.error('Could not list models');
        c.log.warn(msg);
        const auth = e instanceof ModelListError && (e.error.kind === 'auth' || e.error.kind === 'forbidden');
        const next = unwrap(
          c,
          await c.select({
            message: 'What now?',
            options: [
              ...(auth || choice.apiKey ? [{ value: 'key', label: 'Enter the key again' }] : []),
              { value: 'type', label: 'Type the model name myself' },
              { value: 'retry', label: 'Try again' },
            ],
          }),
        );
        if (next === 'key') {
          choice.apiKey = undefined;
          ignoreExisting = true;
          continue;
        }
        if (next === 'retry') continue;
        models = [];
        break;
      }
    }

    const suggested = o.model ?? (named?.entry.model ? String(named.entry.model) : currentValue === provider ? String(config.model?.default ?? '') : '');
    let model = '';
    let tested: ProviderRuntime | null = null;
    for (;;) {
      if (!model) {
        if (models.length) {
          const OTHER = '\u0000other';
          const picked = unwrap(
            c,
            await c.autocomplete({
              message: `Model (${models.length} from ${label}; type to filter)`,
              options: [...models.map((m) => ({ value: m, label: m })), { value: OTHER, label: 'Other… (type a model name)' }],
              initialValue: models.includes(suggested) ? suggested : spec?.defaultModel && models.includes(spec.defaultModel) ? spec.defaultModel : undefined,
              maxItems: 10,
            }),
          );
          model = picked === OTHER ? '' : String(picked);
        }
        if (!model) {
          model = unwrap(
            c,
            await c.text({
              message: 'Model name',
              initialValue: suggested || spec?.defaultModel || undefined,
              validate: (v) => ((v ?? '').trim() ? undefined : 'Enter a model name'),
            }),
          ).trim();
        }
      }
      let rt: ProviderRuntime;
      try {
        rt = runtimeFor(choice, model, ctx.env, config);
      } catch (e) {
        if (e instanceof ResolveError) throw new CliError(e.message);
        throw e;
      }
      if (o.test === false) break;
      const sp = c.spinner();
      sp.start(`Testing ${model}`);
      const r = await testCall(rt);
      if (r.ok) {
        const reply = r.reply.replace(/\s+/g, ' ').trim();
        sp.stop(`${model} answered in ${(r.ms / 1000).toFixed(1)}s${reply ? `: “${reply.length > 40 ? `${reply.slice(0, 39)}…` : reply}”` : ''}`);
        if (mayWriteTextCalls(rt)) await wizardToolCallCheck(c, rt, config);
        tested = rt;
        break;
      }
      sp.error('The test call failed');
      c.log.error(r.message);
      const next = unwrap(
        c,
        await c.select({
          message: 'What now?',
          options: [
            { value: 'model', label: 'Choose another model' },
            { value: 'retry', label: 'Try again' },
            { value: 'save', label: 'Save anyway' },
          ],
        }),
      );
      if (next === 'model') model = '';
      if (next === 'save') break;
    }

    const written = saveChoice(ctx.home, choice, model, ctx.loaded.exists ? config : undefined, ctx.loaded.user);
    c.log.success(written.map((l) => `Saved ${l}`).join('\n'));
    // A local server: what it serves, and the self-test on offer (settings written only on a yes).
    if (tested && mayWriteTextCalls(tested)) {
      const { localServerLine, wizardSelfTest } = await import('./setup-local.ts');
      const local = await localServerLine(tested, config, ctx.env, ctx.home).catch(() => null);
      if (local) c.log.info(local.line);
      if (local?.known) await wizardSelfTest(c, tested, config, ctx.home);
    }
    c.outro(what === 'setup' ? 'Ready. Start chatting with `hermes` (type /help inside for commands).' : `Now using ${model} via ${label}.`);
  } catch (e) {
    if (e instanceof Cancelled) {
      c.cancel('Cancelled: nothing was changed.');
      process.exitCode = 1;
      return;
    }
    throw e;
  }
}

/** Local servers: one request offering a tool, to say how the model hands back its calls. */
async function wizardToolCallCheck(c: Clack, rt: ProviderRuntime, config: HermesConfig): Promise<void> {
  const sp = c.spinner();
  sp.start('Checking how the model returns tool calls');
  const p = await probeToolCalls(rt);
  if (p.kind === 'text') {
    sp.stop(`${rt.model} writes tool calls as text (${p.format} format)`);
    c.log.info(textCallAdvice(p.format, config.model?.tool_call_parser));
  } else if (p.kind === 'native') sp.stop(`${rt.model} returns tool calls in the API's field`);
  else if (p.kind === 'none') sp.stop(`${rt.model} did not call the tool it was offered: it may not support tools`);
  else sp.stop('Could not check tool calls');
}

export async function runSetup(o: SetupOptions): Promise<void> {
  const bad = o.name !== undefined ? endpointNameProblem(o.name) : null;
  if (bad) throw new CliError(`--name ${bad}`, 2);
  if (o.nonInteractive) return runNonInteractive(o, 'setup');
  return runWizard(o, 'setup');
}
