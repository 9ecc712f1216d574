// Plugin tabs: a plugin adds a tab (and optionally API routes) by shipping a `dashboard/` folder:
//
//   HERMES_HOME/plugins/<name>/dashboard/manifest.json   {name, label, tab: {path, position?, hidden?}, entry, css?, api?}
//   HERMES_HOME/plugins/<name>/dashboard/dist/index.js   an IIFE that calls window.__HERMES_PLUGINS__.register(name, Component)
//   HERMES_HOME/plugins/<name>/dashboard/api.mjs         optional: `export default function (app, ctx)` adding Hono routes
//
// The page loads `entry` as a same-origin script (the CSP allows nothing else) and gives it
// window.__HERMES_PLUGIN_SDK__ (React, fetchJSON). Routes are mounted under /api/plugins/<name>/
// behind the same token, same-origin and CSRF checks as the built-in ones. See docs/dashboard.md.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Hono } from 'hono';
import { safeFile } from './static.ts';
import type { DashboardContext } from './context.ts';

export interface PluginManifest {
  name: string;
  label: string;
  description: string;
  icon: string;
  version: string;
  tab: { path: string; position: string; hidden: boolean };
  entry: string;
  css: string | null;
  api: string | null;
  /** The plugin's dashboard/ folder. */
  dir: string;
}

export interface PluginContext {
  home: string;
  config: DashboardContext['config'];
  db: DashboardContext['db'];
  log(message: string): void;
}

const NAME = /^[a-z0-9][a-z0-9-]{0,40}$/;

/** Manifests found under HERMES_HOME/plugins/*\/dashboard, with problems for the ones that are wrong. */
export function discoverPlugins(home: string): { plugins: PluginManifest[]; problems: string[] } {
  const root = join(home, 'plugins');
  const plugins: PluginManifest[] = [];
  const problems: string[] = [];
  if (!existsSync(root)) return { plugins, problems };
  for (const e of readdirSync(root, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = join(root, e.name, 'dashboard');
    const file = join(dir, 'manifest.json');
    if (!existsSync(file)) continue;
    try {
      const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const name = String(m.name ?? '');
      if (!NAME.test(name)) throw new Error(`"name" must be lower-case letters, digits and hyphens (got "${name}")`);
      const tab = (m.tab ?? {}) as Record<string, unknown>;
      const path = String(tab.path ?? `/${name}`);
      if (!/^\/[a-z0-9-]+$/.test(path)) throw new Error(`"tab.path" must look like /${name}`);
      const entry = String(m.entry ?? 'dist/index.js');
      if (!safeFile(dir, entry)) throw new Error(`the entry script ${entry} is missing`);
      const api = m.api ? String(m.api) : null;
      if (api && !safeFile(dir, api) && !existsSync(join(dir, api))) throw new Error(`the api file ${api} is missing`);
      plugins.push({
        name,
        label: String(m.label ?? name),
        description: String(m.description ?? ''),
        icon: String(m.icon ?? 'Puzzle'),
        version: String(m.version ?? '0.0.0'),
        tab: { path, position: String(tab.position ?? 'end'), hidden: tab.hidden === true },
        entry,
        css: m.css ? String(m.css) : null,
        api,
        dir,
      });
    } catch (err) {
      problems.push(`${file}: ${(err as Error).message}`);
    }
  }
  return { plugins: plugins.sort((a, b) => a.name.localeCompare(b.name)), problems };
}

/** Mounts each plugin's API routes under /api/plugins/<name>/; returns the problems met. */
export async function mountPluginApis(app: Hono, ctx: DashboardContext, plugins: PluginManifest[]): Promise<string[]> {
  const problems: string[] = [];
  const { Hono } = await import('hono');
  for (const p of plugins) {
    if (!p.api) continue;
    try {
      const mod = (await import(pathToFileURL(join(p.dir, p.api)).href)) as { default?: (app: Hono, ctx: PluginContext) => unknown };
      if (typeof mod.default !== 'function') throw new Error('it has no default export function (app, ctx)');
      const sub = new Hono();
      await mod.default(sub, { home: ctx.home, config: ctx.config, db: ctx.db, log: (msg) => ctx.log?.write('INFO', `dashboard.plugins.${p.name}`, msg) });
      app.route(`/api/plugins/${p.name}`, sub);
    } catch (e) {
      problems.push(`${p.name}: API routes not loaded: ${(e as Error).message}`);
    }
  }
  return problems;
}
