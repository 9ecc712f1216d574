// `hermes status`: provider, model, which keys are set (names and where from, never values),
// toolsets and tools, terminal backend, approvals, sessions (state.db, or PostgreSQL).

import pkg from '../../package.json' with { type: 'json' };
import { resolveRuntime, ResolveError } from '../llm/resolve.ts';
import { healthLine, healthJson, readProviderHealth } from '../session/provider-health.ts';
import { resolveInputFrom } from '../session/session-client.ts';
import { localModelsJson } from '../state/local-models.ts';
import { paths } from '../state/paths.ts';
import { sandboxReport } from '../sandbox/report.ts';
import { loadContext } from './context.ts';
import { keyStatuses, sessionCount, toolReport } from './inspect.ts';
import { colorEnabled, makeStyle } from './repl/style.ts';

export async function runStatus(o: { all?: boolean; json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const { config } = ctx.loaded;
  const s = makeStyle(!o.json && colorEnabled(process.env, !!process.stdout.isTTY));
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${s.bold(label.padEnd(10))} ${value}`);

  let runtime: ReturnType<typeof resolveRuntime> | null = null;
  let providerError = '';
  try {
    runtime = resolveRuntime(resolveInputFrom(config, ctx.env));
  } catch (e) {
    if (!(e instanceof ResolveError)) throw e;
    providerError = e.message;
  }
  // Plugins load first (as for a chat): their providers (images, memory, platforms) count as provided.
  const plugins = await statusPlugins(ctx.home, config, ctx.env);
  const keys = keyStatuses(ctx.env, ctx.dotenvNames);
  const tools = toolReport(ctx.home, config, ctx.env);
  const sessions = await sessionCount(ctx.home, ctx.loaded.config, ctx.env).catch((e: Error) => ({ error: e.message }) as const);
  const health = readProviderHealth(ctx.home);
  // What local servers serve (local_models.json: the last probe and self-test; no request is made here).
  const local = localModelsJson(ctx.home);

  if (o.json) {
    const data = {
      version: pkg.version,
      home: ctx.home,
      config: { path: ctx.loaded.path, exists: ctx.loaded.exists, problems: ctx.loaded.problems.length },
      provider: runtime ? { provider: runtime.provider, model: runtime.model, api_mode: runtime.apiMode, base_url: runtime.baseUrl, key_source: runtime.source } : { error: providerError },
      keys: keys.filter((k) => k.set || o.all).map((k) => ({ name: k.name, set: k.set, from: k.from })),
      toolsets: tools.toolsets,
      tools: tools.enabled,
      unavailable_tools: tools.unavailable.map((u) => ({ name: u.name, reason: u.reason })),
      terminal: config.terminal?.backend ?? 'local',
      sandbox: (() => {
        const r = sandboxReport(config, ctx.env, ctx.home);
        return { state: r.state, mode: r.mode, network: r.network ? 'on' : 'off', detail: r.line, ...(r.hint ? { fix: r.hint } : {}) };
      })(),
      plugins: plugins.list,
      image_gen: plugins.image,
      sessions: sessions && 'count' in sessions ? sessions.count : 0,
      provider_health: health.map(healthJson),
      local_models: local.map(({ line: _line, ...rest }) => rest),
    };
    process.stdout.write(JSON.stringify(data, null, 2) + '\n');
    return;
  }

  lines.push(`${s.gold('⚕')} ${s.bold('Hermes Agent')} v${pkg.version}`);
  row('Home', ctx.home);
  row(
    'Config',
    `${ctx.loaded.path} ${ctx.loaded.exists ? ctx.loaded.empty ? s.yellow('(empty: no settings; run `hermes setup`)') : (ctx.loaded.problems.length ? s.yellow(`(${ctx.loaded.problems.length} problem(s): run \`hermes config check\`)`) : s.dim('(ok)')) : s.yellow('(not created yet: run `hermes setup`)')}`,
  );
  if (runtime) {
    row('Provider', `${runtime.provider} ${s.dim(`· ${runtime.apiMode} · ${runtime.baseUrl}`)}`);
    row('Model', runtime.model);
    const src = runtime.source;
    const keyLine = src.startsWith('env:')
      ? `${src.slice(4)} ${s.dim(`(from ${ctx.dotenvNames.includes(src.slice(4)) ? paths.env(ctx.home) : 'the environment'})`)}`
      : src === 'none'
        ? s.dim('none needed')
        : src;
    row('Key', `${keyLine}${runtime.keys.length > 1 ? s.dim(` · ${runtime.keys.length} keys in rotation`) : ''}`);
  } else row('Provider', s.red(`not ready: ${providerError}`));
  const fb = config.fallback_providers ?? [];
  row('Fallbacks', fb.length ? fb.map((f) => `${f.provider}:${f.model}`).join(', ') : s.dim('none'));
  // What the providers did lately (provider_health.json: faults, first-byte times, trips and probes).
  if (!health.length) row('Health', s.dim('no provider faults recorded'));
  else health.forEach((t, i) => (i ? lines.push(`           ${t.state === 'tripped' ? s.yellow(healthLine(t)) : healthLine(t)}`) : row('Health', t.state === 'tripped' ? s.yellow(healthLine(t)) : healthLine(t))));

  local.forEach((l, i) => (i ? lines.push(`           ${l.line} ${s.dim(`· ${l.base_url}`)}`) : row('Local', `${l.line} ${s.dim(`· ${l.base_url}`)}`)));

  const shown = keys.filter((k) => k.set || o.all);
  lines.push(s.bold('API keys') + s.dim(o.all ? '' : '  (set ones; --all lists every key Hermes reads)'));
  if (!shown.length) lines.push(`  ${s.dim('none set')}`);
  for (const k of shown) lines.push(`  ${k.set ? s.green('✓') : s.dim('·')} ${k.name.padEnd(24)} ${s.dim(k.set ? `${k.from} · ${k.for}` : `not set · ${k.for}`)}`);

  if (tools.error) row('Toolsets', s.red(tools.error));
  else {
    row('Toolsets', `${tools.toolsets.join(', ')} ${s.dim(`→ ${tools.enabled.length} tools`)}`);
    lines.push(`           ${s.dim(tools.enabled.join(', '))}`);
    for (const u of tools.unavailable) lines.push(`           ${s.yellow('○')} ${u.name} ${s.dim(`unavailable: ${u.reason}`)}`);
  }
  row('Plugins', plugins.list.length ? plugins.list.map((p) => (p.loaded ? p.name : s.red(`${p.name} (failed: ${p.error})`))).join(', ') : s.dim('none enabled'));
  row('Images', plugins.image.unavailable ? `${plugins.image.provider} ${s.yellow(`· unavailable: ${plugins.image.unavailable}`)}` : `${plugins.image.provider}${plugins.image.plugin ? s.dim(` · provided by ${plugins.image.plugin}`) : ''}`);
  row('Terminal', `${config.terminal?.backend ?? 'local'} ${s.dim(`· timeout ${config.terminal?.timeout ?? 180}s`)}`);
  const sb = sandboxReport(config, ctx.env, ctx.home);
  row('Sandbox', sb.state === 'none' || sb.state === 'off' ? s.yellow(sb.line) + (sb.hint ? s.dim(` · to fix: ${sb.hint}`) : '') : sb.line);
  const yolo = ['1', 'true', 'yes', 'on'].includes(String(ctx.env.HERMES_YOLO_MODE ?? '').toLowerCase()) || config.approvals?.mode === 'off';
  row('Approvals', yolo ? s.yellow('off (dangerous commands run without asking)') : `${config.approvals?.mode ?? 'manual'} ${s.dim(`· asks before dangerous commands, ${config.approvals?.timeout ?? 300}s to answer`)}`);
  if (sessions && 'error' in sessions) row('Sessions', s.red(`cannot read the sessions: ${sessions.error}`));
  else row('Sessions', sessions ? `${sessions.count} in ${sessions.where}${sessions.last ? s.dim(` · last started ${sessions.last}`) : ''}` : s.dim('none yet'));
  process.stdout.write(lines.join('\n') + '\n');
}

/** The enabled plugins (loaded as a chat would) and the image provider image_generate would use. */
async function statusPlugins(home: string, config: unknown, env: NodeJS.ProcessEnv) {
  const { loadSurfacePlugins } = await import('../plugins/load.ts');
  const host = await loadSurfacePlugins({ home, config, env, cwd: process.cwd() }).catch(() => null);
  const list = (host?.plugins ?? []).filter((p) => p.state === 'enabled').map((p) => ({ name: p.manifest.key, loaded: p.loaded, error: p.error ?? null, provides: p.extensions }));
  const { imageConfig, imageProviderName, imageUnavailable } = await import('../media/image/registry.ts');
  const { pluginExtension } = await import('../plugins/extensions.ts');
  const provider = imageProviderName(imageConfig(config));
  const owner = pluginExtension('image_provider', provider)?.owner.replace(/^plugin:/, 'plugin ') ?? null;
  return { list, image: { provider, plugin: owner, unavailable: imageUnavailable(env, config) } };
}
