// Where plugins come from, in Hermes's order (a later source replaces an earlier one of the same key):
// bundled (`<package>/plugins/`, or HERMES_BUNDLED_PLUGINS), the user's `HERMES_HOME/plugins/`, the
// project's `./.hermes/plugins/` (only with HERMES_ENABLE_PROJECT_PLUGINS=true) and npm packages
// installed with `hermes plugins install` (HERMES_HOME/plugins/node_modules). Category folders
// (`platforms/`, `image_gen/`, `memory/`, …) hold one more level. Nothing is imported here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../state/paths.ts';
import { readManifest, type PluginManifest, type PluginSource } from './manifest.ts';

/** Sub-folders whose children are plugins of one family (`platforms/irc` → key `platforms/irc`). */
export const CATEGORY_DIRS = ['platforms', 'image_gen', 'memory', 'context_engine', 'model-providers', 'terminal', 'video_gen'];

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
export const truthy = (v: unknown) => (typeof v === 'string' ? TRUTHY.has(v.trim().toLowerCase()) : v === true);

export interface DiscoverOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const userPluginsDir = (home: string) => join(home, 'plugins');
/** Where `hermes plugins install npm:<pkg>` puts packages. */
export const npmPluginsDir = (home: string) => join(home, 'plugins');

export function bundledPluginsDir(env: NodeJS.ProcessEnv): string | null {
  const o = env.HERMES_BUNDLED_PLUGINS?.trim();
  if (o) return resolve(o);
  try {
    return join(packageRoot(), 'plugins');
  } catch {
    return null;
  }
}

export function pluginSources(o: DiscoverOptions): { dir: string; source: PluginSource }[] {
  const out: { dir: string; source: PluginSource }[] = [];
  const bundled = bundledPluginsDir(o.env);
  if (bundled) out.push({ dir: bundled, source: 'bundled' });
  out.push({ dir: userPluginsDir(o.home), source: 'user' });
  if (truthy(o.env.HERMES_ENABLE_PROJECT_PLUGINS)) out.push({ dir: join(o.cwd, '.hermes', 'plugins'), source: 'project' });
  return out;
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const hasManifest = (dir: string) => existsSync(join(dir, 'plugin.yaml')) || existsSync(join(dir, 'plugin.yml'));

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.') && e.name !== 'node_modules' && e.name !== '__pycache__')
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Plugin folders of one source: `[key, dir]`. */
function scan(root: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of listDirs(root)) {
    const dir = join(root, name);
    if (!isDir(dir)) continue;
    if (hasManifest(dir)) out.push([name, dir]);
    else if (CATEGORY_DIRS.includes(name)) for (const child of listDirs(dir)) if (hasManifest(join(dir, child))) out.push([`${name}/${child}`, join(dir, child)]);
  }
  return out;
}

/** npm packages under HERMES_HOME/plugins/node_modules that declare themselves Hermes plugins. */
function scanNpm(home: string): [string, string][] {
  const nm = join(npmPluginsDir(home), 'node_modules');
  const out: [string, string][] = [];
  const consider = (name: string, dir: string) => {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { hermes?: unknown; keywords?: unknown };
      const kw = Array.isArray(pkg.keywords) && pkg.keywords.includes('hermes-plugin');
      if (pkg.hermes || kw || hasManifest(dir)) out.push([name, dir]);
    } catch {
      /* not a package */
    }
  };
  for (const name of listDirs(nm)) {
    if (name.startsWith('@')) for (const sub of listDirs(join(nm, name))) consider(`${name}/${sub}`, join(nm, name, sub));
    else consider(name, join(nm, name));
  }
  return out;
}

/** A bundled plugin that loads on its own (platform, backend, exclusive kinds): read cheaply, no YAML parser. */
function selfEnabling(dir: string): boolean {
  for (const f of ['plugin.yaml', 'plugin.yml']) {
    try {
      return /^kind:\s*['"]?(platform|backend|exclusive)\b/m.test(readFileSync(join(dir, f), 'utf8'));
    } catch {
      /* next name */
    }
  }
  return false;
}

/**
 * Whether any plugin that could load exists (a cheap check before loading the YAML parser and the
 * host). With `config`, the bundled plugins count only when enabled or self-enabling, so shipping
 * plugins costs nothing to a user who never enabled one.
 */
export function anyPluginDirs(o: DiscoverOptions, config?: unknown): boolean {
  const s = config === undefined ? null : pluginSettings(config);
  return (
    pluginSources(o).some((src) => {
      const dirs = listDirs(src.dir);
      if (!s || src.source !== 'bundled') return dirs.length > 0;
      return dirs.some((d) => (s.enabled.includes(d) && !s.disabled.includes(d)) || selfEnabling(join(src.dir, d)));
    }) || existsSync(join(npmPluginsDir(o.home), 'node_modules'))
  );
}

/** Every plugin found, one per key (later sources win), with its manifest read. */
export function discoverPlugins(o: DiscoverOptions, parse: (text: string) => unknown): PluginManifest[] {
  const byKey = new Map<string, PluginManifest>();
  for (const s of pluginSources(o)) for (const [key, dir] of scan(s.dir)) byKey.set(key, readManifest(dir, key, s.source, parse));
  for (const [key, dir] of scanNpm(o.home)) byKey.set(key, readManifest(dir, key, 'npm', parse));
  return [...byKey.values()];
}

export type PluginState = 'enabled' | 'disabled' | 'not enabled';

export interface PluginSettings {
  enabled: string[];
  disabled: string[];
}

export function pluginSettings(config: unknown): PluginSettings {
  const p = (config as { plugins?: { enabled?: unknown; disabled?: unknown } } | undefined)?.plugins ?? {};
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return { enabled: list(p.enabled), disabled: list(p.disabled) };
}

const named = (list: string[], m: PluginManifest) => list.includes(m.key) || list.includes(m.name);

/**
 * Whether a plugin loads: `plugins.disabled` always wins; bundled platform and backend plugins and
 * memory providers load on their own (config selects them); everything else — all third-party code —
 * only when listed in `plugins.enabled`.
 */
export function pluginState(m: PluginManifest, s: PluginSettings): PluginState {
  if (named(s.disabled, m)) return 'disabled';
  if (named(s.enabled, m)) return 'enabled';
  if (m.source === 'bundled' && (m.kind === 'platform' || m.kind === 'backend' || m.kind === 'exclusive')) return 'enabled';
  return 'not enabled';
}
