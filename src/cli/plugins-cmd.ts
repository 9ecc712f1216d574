// `hermes plugins list|enable|disable|install|update|remove|doctor`.
import { createInterface } from 'node:readline/promises';
import { CliError } from './errors.ts';
import { loadContext } from './context.ts';
import { setConfigKey } from '../state/config.ts';
import { discoverPlugins, pluginSettings, pluginState, truthy, type PluginState } from '../plugins/discovery.ts';
import { loadPlugins, unloadPlugins } from '../plugins/host.ts';
import { installPlugin, InstallError, readMetadata, removePlugin, updatePlugin } from '../plugins/install.ts';
import type { PluginManifest } from '../plugins/manifest.ts';
import { pluginSummary, unfiredHooks } from '../plugins/report.ts';
import { parse } from 'yaml';

async function found(): Promise<{ home: string; config: unknown; manifests: PluginManifest[] }> {
  const ctx = loadContext();
  return { home: ctx.home, config: ctx.loaded.config, manifests: discoverPlugins({ home: ctx.home, env: ctx.env, cwd: process.cwd() }, (t) => parse(t)) };
}

function find(manifests: PluginManifest[], name: string): PluginManifest {
  const m = manifests.find((x) => x.key === name || x.name === name);
  if (m) return m;
  const known = manifests.map((x) => x.key);
  throw new CliError(`No plugin named "${name}" was found.${known.length ? ` Found: ${known.join(', ')}.` : ' Install one with `hermes plugins install <source>`.'}`);
}

export async function list(opts: { json?: boolean }): Promise<void> {
  const { home, config, manifests } = await found();
  const s = pluginSettings(config);
  const meta = readMetadata(home);
  const rows = manifests.map((m) => ({ name: m.key, state: pluginState(m, s), version: m.version, source: m.source, kind: m.kind, description: m.description, problem: m.problem ?? null, installed: meta[m.key] ?? null }));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (!rows.length) {
    process.stdout.write(`No plugins found (looked in ${home}/plugins${truthy(process.env.HERMES_ENABLE_PROJECT_PLUGINS) ? ' and ./.hermes/plugins' : ''}). Install one with \`hermes plugins install <source>\`.\n`);
    return;
  }
  const mark: Record<PluginState, string> = { enabled: '✓ enabled', disabled: '✗ disabled', 'not enabled': '· not enabled' };
  const w = Math.max(...rows.map((r) => r.name.length), 4);
  for (const r of rows) {
    const src = r.installed?.kind === 'git' ? `git${r.installed.pinned ? ` pinned@${r.installed.revision?.slice(0, 8)}` : ''}` : r.installed?.kind ?? r.source;
    process.stdout.write(`${r.name.padEnd(w)}  ${mark[r.state].padEnd(13)}  ${(r.version || '-').padEnd(8)}  ${src.padEnd(10)}  ${r.description}\n`);
    if (r.problem) process.stdout.write(`${' '.repeat(w)}  ⚠ ${r.problem}\n`);
  }
  if (rows.some((r) => r.state === 'not enabled')) process.stdout.write('\nPlugins that are not enabled never run. Enable one with `hermes plugins enable <name>`.\n');
}

function setLists(home: string, enabled: string[], disabled: string[]): void {
  setConfigKey(home, 'plugins.enabled', enabled);
  setConfigKey(home, 'plugins.disabled', disabled);
}

export async function enable(name: string): Promise<void> {
  const { home, config, manifests } = await found();
  const m = find(manifests, name);
  const s = pluginSettings(config);
  setLists(home, [...new Set([...s.enabled.filter((x) => x !== m.name), m.key])], s.disabled.filter((x) => x !== m.key && x !== m.name));
  process.stdout.write(`✓ ${m.key} enabled: it loads in the next session${m.problem ? `\n⚠ but it cannot load as it stands: ${m.problem}` : ''}.\n`);
  const missing = m.requiresEnv.filter((e) => !process.env[e.name]);
  if (missing.length) process.stdout.write(`⚠ it needs ${missing.map((e) => e.name).join(', ')}: set ${missing.length > 1 ? 'them' : 'it'} in ${home}/.env (\`hermes config set <NAME> <value>\`).\n`);
}

export async function disable(name: string): Promise<void> {
  const { home, config, manifests } = await found();
  const m = manifests.find((x) => x.key === name || x.name === name);
  const key = m?.key ?? name;
  const s = pluginSettings(config);
  setLists(home, s.enabled.filter((x) => x !== key && x !== m?.name), [...new Set([...s.disabled, key])]);
  process.stdout.write(`✓ ${key} disabled.\n`);
}

async function askYesNo(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function install(source: string, opts: { ref?: string; enable?: boolean; force?: boolean }): Promise<void> {
  const ctx = loadContext();
  let r;
  try {
    r = installPlugin(ctx.home, source, { ref: opts.ref, force: opts.force, parse: (t) => parse(t) });
  } catch (e) {
    if (e instanceof InstallError) throw new CliError(e.message);
    throw e;
  }
  process.stdout.write(`✓ installed ${r.key} (${r.record.kind}${r.record.revision ? ` @ ${r.record.revision.slice(0, 8)}` : ''}) into ${r.dir}\n`);
  const wantEnable = opts.enable ?? (await askYesNo(`Enable '${r.key}' now? [y/N] `));
  if (wantEnable) await enable(r.key);
  else process.stdout.write(`It is not enabled: review its code, then run \`hermes plugins enable ${r.key}\`.\n`);
}

export async function update(name?: string): Promise<void> {
  const ctx = loadContext();
  const keys = name ? [name] : Object.keys(readMetadata(ctx.home));
  if (!keys.length) {
    process.stdout.write('No plugin was installed with `hermes plugins install`; nothing to update.\n');
    return;
  }
  let failed = false;
  for (const k of keys) {
    try {
      process.stdout.write(`${updatePlugin(ctx.home, k)}\n`);
    } catch (e) {
      failed = true;
      process.stdout.write(`${k}: ${(e as Error).message}\n`);
    }
  }
  if (failed) process.exitCode = 1;
}

export async function remove(name: string, opts: { yes?: boolean }): Promise<void> {
  const { home, config, manifests } = await found();
  const m = find(manifests, name);
  if (m.source !== 'user' && m.source !== 'npm') throw new CliError(`${m.key} is a ${m.source} plugin (${m.dir}); only plugins in ${home}/plugins can be removed here. Disable it with \`hermes plugins disable ${m.key}\`.`);
  if (!opts.yes && process.stdin.isTTY && !(await askYesNo(`Remove ${m.key} (${m.dir})? [y/N] `))) {
    process.stdout.write('Cancelled.\n');
    return;
  }
  removePlugin(home, m.key, m.dir);
  const s = pluginSettings(config);
  if (s.enabled.includes(m.key)) setConfigKey(home, 'plugins.enabled', s.enabled.filter((x) => x !== m.key));
  process.stdout.write(`✓ removed ${m.key}\n`);
}

export async function doctor(): Promise<void> {
  const ctx = loadContext();
  unloadPlugins(ctx.home);
  const host = await loadPlugins({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, cwd: process.cwd() });
  let problems = 0;
  if (!host.plugins.length) process.stdout.write('No plugins found.\n');
  for (const p of host.plugins) {
    const label = `${p.manifest.key}${p.manifest.version ? ` v${p.manifest.version}` : ''} (${p.manifest.source})`;
    for (const w of p.manifest.warnings) process.stdout.write(`⚠ ${label}: plugin.yaml: ${w}\n`);
    if (p.state !== 'enabled') {
      process.stdout.write(`· ${label}: ${p.state}${p.manifest.problem ? ` — and it could not load: ${p.manifest.problem}` : ''}\n`);
      continue;
    }
    if (!p.loaded) {
      problems++;
      process.stdout.write(`✗ ${label}: ${p.error}\n`);
      continue;
    }
    process.stdout.write(`✓ ${label}: ${pluginSummary(p)}\n`);
    const unfired = unfiredHooks(p);
    if (unfired.length) process.stdout.write(`  ⚠ registered hooks this build never fires: ${unfired.join(', ')}\n`);
    const undeclared = p.manifest.providesTools.filter((t) => !p.tools.includes(t));
    if (undeclared.length) process.stdout.write(`  ⚠ plugin.yaml lists tools it did not register: ${undeclared.join(', ')}\n`);
  }
  for (const w of host.warnings.filter((x) => !/^plugin /.test(x))) process.stdout.write(`⚠ ${w}\n`);
  if (problems) {
    process.stdout.write(`\n${problems} enabled plugin(s) cannot load (details in ${ctx.home}/logs/agent.log).\n`);
    process.exitCode = 1;
  }
}
