// plugin.yaml, as Hermes writes it (name, version, description, author, kind, requires_env,
// optional_env, provides_tools, hooks/provides_hooks, …) plus one field of ours: `entry`, the ES module
// exporting `register(ctx)` (default: package.json's `main`, else index.mjs / index.js / index.ts).
// Validation warns and never fails a load, as Hermes's does.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type PluginKind = 'standalone' | 'backend' | 'exclusive' | 'platform' | 'model-provider';
export type PluginSource = 'bundled' | 'user' | 'project' | 'npm';

export const PLUGIN_KINDS: readonly PluginKind[] = ['standalone', 'backend', 'exclusive', 'platform', 'model-provider'];

export interface EnvRequirement {
  name: string;
  description?: string;
  url?: string;
  secret?: boolean;
}

export interface PluginManifest {
  /** The manifest's `name`. */
  name: string;
  /** The id `plugins.enabled` / `disabled` use: the folder name, or `<category>/<name>` (`platforms/irc`). */
  key: string;
  version: string;
  description: string;
  author: string;
  kind: PluginKind;
  requiresEnv: EnvRequirement[];
  optionalEnv: EnvRequirement[];
  providesTools: string[];
  providesHooks: string[];
  source: PluginSource;
  dir: string;
  /** The module to import, when one was found. */
  entry?: string;
  /** Why the plugin cannot load as it stands (a Python plugin, no entry module, a bad manifest). */
  problem?: string;
  warnings: string[];
  /** The raw manifest, for fields this build does not model. */
  raw: Record<string, unknown>;
}

const ENTRY_CANDIDATES = ['index.mjs', 'index.js', 'index.ts', 'plugin.mjs', 'plugin.js', 'plugin.ts'];

function envList(v: unknown, field: string, warnings: string[]): EnvRequirement[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    warnings.push(`${field} must be a list; ignored`);
    return [];
  }
  const out: EnvRequirement[] = [];
  for (const item of v) {
    if (typeof item === 'string' && item.trim()) out.push({ name: item.trim() });
    else if (item && typeof item === 'object' && typeof (item as EnvRequirement).name === 'string') {
      const e = item as Record<string, unknown>;
      out.push({ name: String(e.name), description: e.description ? String(e.description) : undefined, url: e.url ? String(e.url) : undefined, secret: e.secret === undefined ? undefined : !!e.secret });
    } else warnings.push(`${field} entry ${JSON.stringify(item)} is neither a name nor {name: …}; skipped`);
  }
  return out;
}

const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string' || typeof x === 'number').map(String) : []);

/** The module a plugin folder runs: plugin.yaml `entry`, package.json `main`, or a conventional name. */
export function findEntry(dir: string, raw: Record<string, unknown>): { entry?: string; problem?: string } {
  if (typeof raw.entry === 'string' && raw.entry.trim()) {
    const p = join(dir, raw.entry.trim());
    return existsSync(p) ? { entry: p } : { problem: `plugin.yaml names entry "${raw.entry}", which does not exist in ${dir}` };
  }
  const pkgPath = join(dir, 'package.json');
  if (existsSync(pkgPath)) {
    try {
      const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { main?: unknown };
      if (typeof pkg.main === 'string' && existsSync(join(dir, pkg.main))) return { entry: join(dir, pkg.main) };
    } catch {
      /* a broken package.json: fall through to the conventional names */
    }
  }
  const found = ENTRY_CANDIDATES.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (found) return { entry: found };
  if (existsSync(join(dir, '__init__.py')))
    return {
      problem:
        'this is a Python plugin (__init__.py). Hermes in TypeScript loads ES modules: port register(ctx) to index.mjs ' +
        '(same ctx calls: ctx.register_tool, ctx.register_hook, …; see `hermes plugins --help`), then run `hermes plugins doctor`',
    };
  return { problem: `no entry module (add index.mjs exporting register(ctx), or name one with \`entry:\` in plugin.yaml)` };
}

/**
 * Parses `<dir>/plugin.yaml` (or a package.json `hermes` block for npm packages). `parse` is the YAML
 * parser, passed in so this module does not load `yaml` for folders without plugins.
 */
export function readManifest(dir: string, key: string, source: PluginSource, parse: (text: string) => unknown): PluginManifest {
  const warnings: string[] = [];
  let raw: Record<string, unknown> = {};
  let problem: string | undefined;
  const yamlPath = join(dir, 'plugin.yaml');
  const ymlPath = join(dir, 'plugin.yml');
  const file = existsSync(yamlPath) ? yamlPath : existsSync(ymlPath) ? ymlPath : null;
  try {
    if (file) {
      const v = parse(readFileSync(file, 'utf8'));
      if (v && typeof v === 'object' && !Array.isArray(v)) raw = v as Record<string, unknown>;
      else problem = `${file} is not a mapping`;
    } else {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      const h = pkg.hermes && typeof pkg.hermes === 'object' ? (pkg.hermes as Record<string, unknown>) : {};
      raw = { name: pkg.name, version: pkg.version, description: pkg.description, author: pkg.author, ...h };
    }
  } catch (e) {
    problem = `cannot read the manifest: ${(e as Error).message}`;
  }
  const name = typeof raw.name === 'string' && raw.name.trim() ? raw.name.trim() : key.split('/').pop()!;
  let kind = (typeof raw.kind === 'string' ? raw.kind : 'standalone') as PluginKind;
  if (!PLUGIN_KINDS.includes(kind)) {
    warnings.push(`kind "${String(raw.kind)}" is not one of ${PLUGIN_KINDS.join(', ')}; treated as standalone`);
    kind = 'standalone';
  }
  const author = raw.author && typeof raw.author === 'object' ? Object.values(raw.author as object).filter(Boolean).join(', ') : String(raw.author ?? '');
  const m: PluginManifest = {
    name,
    key,
    version: raw.version === undefined ? '' : String(raw.version),
    description: String(raw.description ?? ''),
    author,
    kind,
    requiresEnv: envList(raw.requires_env, 'requires_env', warnings),
    optionalEnv: envList(raw.optional_env, 'optional_env', warnings),
    providesTools: strList(raw.provides_tools),
    providesHooks: [...strList(raw.provides_hooks), ...strList(raw.hooks)],
    source,
    dir,
    warnings,
    raw,
  };
  if (problem) m.problem = problem;
  else {
    const e = findEntry(dir, raw);
    if (e.entry) m.entry = e.entry;
    else m.problem = e.problem;
  }
  return m;
}
