// Config tab: config.yaml as forms (schema from the defaults), the provider/model picker (the same
// catalog, /models lookup, test call and save as `hermes model`), and the .env keys (write-only:
// only whether a key is set and a masked preview ever leave the server).
import type { Hono } from 'hono';
import { findProvider, ResolveError, resolveRuntime } from '../../llm/index.ts';
import { maskSecret } from '../../policy/redact.ts';
import { ConfigError, getKey, isSecretKey, setConfigKeys, unsetConfigKey } from '../../state/config.ts';
import type { HermesConfig } from '../../state/defaults.ts';
import { isDeniedEnvName, readEnvFile, updateEnvFile } from '../../state/env.ts';
import { paths } from '../../state/paths.ts';
import { findEndpoint } from '../../state/endpoints.ts';
import { existingKey, fetchModels, keyEnvFor, keyOptional, ModelListError, providerOptions, runtimeFor, saveChoice, signedIn, testCall } from '../../session/onboard.ts';
import { body, fail, str, type DashboardContext } from '../context.ts';
import { coerceField, configSchema, FieldError, type ConfigField } from '../config-schema.ts';
import type { ConfigResponse, EnvKey, EnvResponse, ModelResponse, ModelsResponse } from '../api-types.ts';

const MASK = '••••••••';

/** Secret-looking values anywhere in a config tree, masked. */
function maskDeep(v: unknown, key = ''): unknown {
  if (typeof v === 'string') return v && (isSecretKey(key) || /(^|_)(password|secret|token)$/i.test(key)) && !/^\$\{/.test(v) ? MASK : v;
  if (Array.isArray(v)) return v.map((x) => maskDeep(x, key));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskDeep(x, k)]));
  return v;
}

/** Env names worth offering: every provider's key, the gateway's tokens, tool keys, and whatever .env holds. */
const TOOL_KEYS = [
  ['TAVILY_API_KEY', 'Tools', 'web_search via Tavily'],
  ['FIRECRAWL_API_KEY', 'Tools', 'web_extract via Firecrawl'],
  ['EXA_API_KEY', 'Tools', 'web_search via Exa'],
  ['BRAVE_API_KEY', 'Tools', 'web_search via Brave'],
  ['TELEGRAM_BOT_TOKEN', 'Messaging', 'Telegram bot (gateway)'],
  ['DISCORD_BOT_TOKEN', 'Messaging', 'Discord bot (gateway)'],
  ['SLACK_BOT_TOKEN', 'Messaging', 'Slack bot token (gateway)'],
  ['SLACK_APP_TOKEN', 'Messaging', 'Slack app token, socket mode (gateway)'],
  ['API_SERVER_KEY', 'Messaging', 'OpenAI-compatible API server bearer key'],
] as const;

function envCatalog(config: HermesConfig): { name: string; group: string; description: string }[] {
  const seen = new Set<string>();
  const out: { name: string; group: string; description: string }[] = [];
  const add = (name: string, group: string, description: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    out.push({ name, group, description });
  };
  for (const o of providerOptions(config)) if (o.spec && !o.spec.isCustom) for (const k of o.spec.keyEnvs.slice(0, 1)) add(k, 'LLM providers', o.spec.name);
  for (const [name, group, d] of TOOL_KEYS) add(name, group, d);
  return out;
}

export function registerConfig(app: Hono, ctx: DashboardContext): void {
  const schema = configSchema();
  const byKey = new Map(schema.map((f) => [f.key, f]));

  app.get('/api/config', (c) => {
    let loaded;
    try {
      loaded = ctx.config();
    } catch (e) {
      if (e instanceof ConfigError) return fail(c, 422, e.message, 'Fix the file with `hermes config edit`; the form needs valid YAML.');
      throw e;
    }
    const values: Record<string, unknown> = {};
    const set: string[] = [];
    for (const f of schema) {
      const v = getKey(loaded.config, f.key);
      values[f.key] = f.secret ? (v ? MASK : '') : maskDeep(v, f.key.split('.').at(-1));
      if (getKey(loaded.user, f.key) !== undefined) set.push(f.key);
    }
    return c.json({ path: loaded.path, exists: loaded.exists, schema, values, set, problems: loaded.problems, mask: MASK } satisfies ConfigResponse);
  });

  // {changes: {"display.show_cost": true, …}, reset: ["agent.max_turns"]}: one atomic write.
  app.put('/api/config', async (c) => {
    const b = await body(c);
    const changes = b?.changes;
    const reset = Array.isArray(b?.reset) ? (b!.reset as unknown[]).map(String) : [];
    if (!b || (changes !== undefined && (typeof changes !== 'object' || changes === null || Array.isArray(changes))))
      return fail(c, 400, 'Send {"changes": {"section.key": value}} (and optionally "reset": ["section.key"]).');
    const entries: [string, unknown][] = [];
    const errors: Record<string, string> = {};
    for (const [key, value] of Object.entries((changes ?? {}) as Record<string, unknown>)) {
      const f: ConfigField | undefined = byKey.get(key);
      if (!f) {
        errors[key] = `"${key}" is not a setting this form knows; edit config.yaml for it (\`hermes config edit\`).`;
        continue;
      }
      // A secret left masked is unchanged; an empty one is removed.
      if (f.secret && value === MASK) continue;
      try {
        entries.push([key, f.secret && value === '' ? undefined : coerceField(f, value)]);
      } catch (e) {
        if (e instanceof FieldError) errors[key] = e.message;
        else throw e;
      }
    }
    for (const key of reset) {
      if (!byKey.has(key)) errors[key] = `"${key}" is not a setting this form knows.`;
      else entries.push([key, undefined]);
    }
    if (Object.keys(errors).length) return c.json({ error: 'Some values are not valid; nothing was saved.', errors }, 422);
    if (!entries.length) return c.json({ ok: true, saved: [] });
    try {
      setConfigKeys(ctx.home, entries);
    } catch (e) {
      return fail(c, 500, `Could not write ${paths.config(ctx.home)}: ${(e as Error).message}`);
    }
    ctx.log?.write('INFO', 'dashboard.config', `config.yaml: ${entries.map(([k, v]) => (v === undefined ? `${k} reset` : k)).join(', ')}`);
    let problems: unknown[] = [];
    try {
      problems = ctx.config().problems;
    } catch {
      /* reported on the next read */
    }
    return c.json({ ok: true, saved: entries.map(([k]) => k), problems });
  });

  // ---- provider and model ------------------------------------------------------------------

  app.get('/api/model', async (c) => {
    const { resolveInputFrom } = await import('../../session/session.ts');
    const loaded = ctx.config();
    const env = ctx.env();
    const config = loaded.config;
    let current: ModelResponse['current'] = { provider: config.model.provider, model: config.model.default, baseUrl: config.model.base_url, apiMode: config.model.api_mode };
    let problem: string | null = null;
    try {
      const rt = resolveRuntime(resolveInputFrom(config, env, {}, ctx.home));
      current = { provider: rt.provider, model: rt.model, baseUrl: rt.baseUrl, apiMode: rt.apiMode, configured: config.model.provider };
    } catch (e) {
      if (e instanceof ResolveError) problem = e.message;
      else throw e;
    }
    // Providers that sign in only with OAuth are listed once `hermes auth add` has signed you in.
    const providers = providerOptions(config, signedIn(env)).filter((o) => !o.needsSignIn).map((o) => ({
      value: o.value,
      label: o.label,
      hint: o.hint,
      named: !!o.named,
      custom: !!o.spec?.isCustom,
      keyEnv: keyEnvFor({ provider: o.value }, config) ?? null,
      hasKey: !!existingKey({ provider: o.value }, env, config),
      keyOptional: keyOptional({ provider: o.value }, config),
      defaultModel: o.spec?.defaultModel ?? null,
    }));
    return c.json({ current, problem, providers } satisfies ModelResponse);
  });

  app.get('/api/model/models', async (c) => {
    const provider = c.req.query('provider') ?? '';
    const baseUrl = c.req.query('base_url') || undefined;
    if (!provider) return fail(c, 400, 'Pick a provider first.');
    const config = ctx.config().config;
    if (!findProvider(provider) && !findEndpoint(config, provider)) return fail(c, 404, `Unknown provider "${provider}".`);
    if (findProvider(provider)?.isCustom && !baseUrl) return fail(c, 400, 'A custom endpoint needs its base URL (e.g. http://localhost:11434/v1).');
    try {
      const models = await fetchModels({ provider, baseUrl, apiMode: c.req.query('api_mode') || undefined }, ctx.env(), config);
      return c.json({ models: models.map((m) => ({ id: m.id, contextLength: m.contextLength ?? null })) } satisfies ModelsResponse);
    } catch (e) {
      if (e instanceof ModelListError || e instanceof ResolveError) return fail(c, 502, e.message, 'Check the key and base URL, or type the model name yourself.');
      throw e;
    }
  });

  // {provider, model, base_url?, api_mode?, api_key?, test?}
  app.put('/api/model', async (c) => {
    const b = await body(c);
    const provider = str(b?.provider).trim();
    const model = str(b?.model).trim();
    if (!provider || !model) return fail(c, 400, 'Send {"provider": "…", "model": "…"}.');
    const loaded = ctx.config();
    const config = loaded.config;
    const spec = findProvider(provider);
    // One of your named endpoints (a providers: key, or custom:<name> from custom_providers).
    const endpoint = config.providers?.[provider] || !spec ? findEndpoint(config, provider) : undefined;
    if (!spec && !endpoint) return fail(c, 404, `Unknown provider "${provider}".`);
    const id = endpoint?.id ?? spec!.id;
    const baseUrl = str(b?.base_url).trim() || undefined;
    if (spec?.isCustom && !baseUrl) return fail(c, 400, 'A custom endpoint needs its base URL (e.g. http://localhost:11434/v1).');
    const choice = { provider: id, baseUrl, apiMode: str(b?.api_mode) || undefined, apiKey: str(b?.api_key) || undefined };
    if (b?.test === true) {
      let rt;
      try {
        rt = runtimeFor(choice, model, ctx.env(), config);
      } catch (e) {
        if (e instanceof ResolveError) return fail(c, 400, e.message);
        throw e;
      }
      const r = await testCall(rt);
      if (!r.ok) return fail(c, 502, `The test call failed, nothing was saved: ${r.message}`);
    }
    const saved = saveChoice(ctx.home, choice, model, loaded.exists ? config : undefined).map((l) => l.replace(choice.apiKey ?? '\u0000', '…'));
    ctx.log?.write('INFO', 'dashboard.config', `model: ${id}:${model}`);
    const missingKey = !choice.apiKey && !existingKey(choice, ctx.env(), config) && !keyOptional(choice, config) && !endpoint;
    return c.json({ ok: true, saved, warning: missingKey ? `No API key is set for ${spec?.name ?? id}: add ${keyEnvFor(choice, config)} under Keys.` : null });
  });

  // ---- .env keys (write-only) --------------------------------------------------------------

  app.get('/api/env', (c) => {
    const file = readEnvFile(paths.env(ctx.home));
    const config = ctx.config().config;
    const catalog = envCatalog(config);
    const names = new Set([...catalog.map((k) => k.name), ...file.keys()]);
    const keys = [...names].map((name): EnvKey => {
      const known = catalog.find((k) => k.name === name);
      const inFile = file.get(name);
      const inEnv = ctx.baseEnv[name];
      const value = inFile ?? inEnv ?? '';
      return {
        name,
        group: known?.group ?? 'Other (.env)',
        description: known?.description ?? '',
        set: !!value,
        where: inFile !== undefined ? 'file' : inEnv ? 'environment' : null,
        preview: value ? (isSecretKey(name) || value.length >= 12 ? maskSecret(value) : value.replace(/./g, '•')) : '',
      };
    });
    return c.json({ path: paths.env(ctx.home), keys } satisfies EnvResponse);
  });

  app.put('/api/env', async (c) => {
    const b = await body(c);
    const name = str(b?.name).trim();
    const value = str(b?.value);
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return fail(c, 400, 'A key name is upper-case letters, digits and _ (e.g. OPENROUTER_API_KEY).');
    if (isDeniedEnvName(name)) return fail(c, 403, `${name} cannot be set from here: it would change how programs start.`);
    if (!value || /[\r\n]/.test(value)) return fail(c, 400, 'The value is empty or has a line break; paste the key on one line.');
    updateEnvFile(paths.env(ctx.home), { [name]: value });
    ctx.log?.write('INFO', 'dashboard.env', `${name} set in .env`);
    return c.json({ ok: true, name, preview: maskSecret(value) });
  });

  app.delete('/api/env/:name', (c) => {
    const name = c.req.param('name');
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return fail(c, 400, 'Not a key name.');
    const file = readEnvFile(paths.env(ctx.home));
    if (!file.has(name)) return fail(c, 404, `${name} is not in ${paths.env(ctx.home)}${ctx.baseEnv[name] ? ' (it comes from the environment the dashboard started in)' : ''}.`);
    updateEnvFile(paths.env(ctx.home), { [name]: null });
    ctx.log?.write('INFO', 'dashboard.env', `${name} removed from .env`);
    return c.json({ ok: true });
  });

  app.post('/api/config/unset', async (c) => {
    const b = await body(c);
    const key = str(b?.key);
    if (!byKey.has(key)) return fail(c, 400, `"${key}" is not a setting this form knows.`);
    return c.json({ ok: true, removed: unsetConfigKey(ctx.home, key) });
  });
}
