// `hermes config …`
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { nearest } from '../commands/suggest.ts';
import { findProvider, PROVIDERS } from '../llm/catalog.ts';
import { coerceConfigVersion, legacyKeys, planMigration } from '../state/config-migrations.ts';
import { providerRefs, unknownKeys, unsupportedKeys } from '../state/config-schema.ts';
import { findEndpoint, namedEndpoints } from '../state/endpoints.ts';
import {
  ConfigError,
  type ConfigProblem,
  type LoadedConfig,
  formatProblem,
  getKey,
  isEnvKey,
  isSecretKey,
  loadConfig,
  parseCliValue,
  setConfigKey,
  setConfigKeys,
  splitKey,
  unsetConfigKey,
} from '../state/config.ts';
import { defaultConfig } from '../state/defaults.ts';
import { isDeniedEnvName, readEnvFile, updateEnvFile } from '../state/env.ts';
import { ensureHome, hermesHome, paths } from '../state/paths.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

/** A secret for a person to recognise: at most its last 4 characters (none when shorter than 12). */
export function mask(value: string): string {
  if (!value) return '';
  if (value.length < 12) return '****';
  return `…${value.slice(-4)}`;
}

function maskDeep(v: unknown, key = ''): unknown {
  if (typeof v === 'string') return isSecretKey(key) && v ? mask(v) : v;
  if (Array.isArray(v)) return v.map((x) => maskDeep(x, key));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskDeep(x, k)]));
  return v;
}

export function show(): void {
  const ctx = loadContext();
  process.stdout.write(`# ${ctx.loaded.path}${ctx.loaded.exists ? '' : ' (not created yet: showing defaults)'}\n`);
  process.stdout.write(stringify(maskDeep(ctx.loaded.config)));
}

export function get(key: string, opts: { json?: boolean; reveal?: boolean }): void {
  const ctx = loadContext();
  let value: unknown;
  if (isEnvKey(key)) {
    value = ctx.env[key];
    if (value === undefined) throw new CliError(`${key} is not set (in ${paths.env(ctx.home)} or the environment).`);
    if (isSecretKey(key) && !opts.reveal) value = mask(String(value));
  } else {
    value = getKey(ctx.loaded.config, key);
    if (value === undefined) throw new CliError(`"${key}" is not a setting. See \`hermes config show\`.`);
    if (!opts.reveal) value = maskDeep(value, splitKey(key).at(-1));
  }
  if (opts.json) process.stdout.write(JSON.stringify(value) + '\n');
  else if (value !== null && typeof value === 'object') process.stdout.write(stringify(value));
  else process.stdout.write(`${value ?? ''}\n`);
}

export function set(key: string, raw: string): void {
  const home = ensureHome(hermesHome());
  if (isEnvKey(key)) {
    if (isDeniedEnvName(key)) throw new CliError(`${key} cannot be set through Hermes (it would change how programs start). Set it in your shell instead.`);
    updateEnvFile(paths.env(home), { [key]: raw });
    process.stdout.write(`Saved ${key} to ${paths.env(home)}${isSecretKey(key) ? ` (${mask(raw)})` : ''}\n`);
    return;
  }
  const value = parseCliValue(raw);
  // Check the change before writing it.
  const before = loadContext();
  const typo = unknownKeys(setAt(splitKey(key), value), (typed, known) => nearest(typed, known, 2)).find((u) => u.near.length);
  if (typo) throw new CliError(`Not saved: \`${typo.key}\` is not a setting. Did you mean ${typo.near.map((n) => `\`${n}\``).join(' or ')}?`, 2);
  setConfigKey(home, key, value);
  const after = loadConfig(home, process.env);
  const introduced = after.problems.filter((p) => !before.loaded.problems.some((b) => b.key === p.key));
  if (introduced.length) {
    // Put the old value back: the file must stay valid.
    const old = getKey(before.loaded.user, key);
    if (old === undefined) unsetConfigKey(home, key);
    else setConfigKey(home, key, old);
    throw new CliError(`Not saved: \`${introduced[0].key}\` ${introduced[0].message} (got ${JSON.stringify(value)}).`);
  }
  process.stdout.write(`Set ${key} = ${isSecretKey(key) ? mask(String(value)) : JSON.stringify(value)} in ${paths.config(home)}\n`);
}

/** `{a: {b: value}}` for the key path a.b (to check one key against the schema). */
function setAt(keys: string[], value: unknown): Record<string, unknown> {
  let out: unknown = value;
  for (const k of [...keys].reverse()) out = { [k]: out };
  return out as Record<string, unknown>;
}

export function unset(key: string): void {
  const home = ensureHome(hermesHome());
  if (isEnvKey(key)) {
    const file = paths.env(home);
    if (!readEnvFile(file).has(key)) throw new CliError(`${key} is not set in ${file}.`);
    updateEnvFile(file, { [key]: null });
    process.stdout.write(`Removed ${key} from ${file}\n`);
    return;
  }
  if (!unsetConfigKey(home, key)) throw new CliError(`"${key}" is not set in ${paths.config(home)}.`);
  process.stdout.write(`Removed ${key} (now the default)\n`);
}

export function path(): void {
  process.stdout.write(paths.config(hermesHome()) + '\n');
}

export function envPath(): void {
  process.stdout.write(paths.env(hermesHome()) + '\n');
}

const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Default settings config.yaml does not name, as dotted keys (dots inside a name escaped). Only
 * mappings the user wrote as mappings are looked into: `model: "name"` keeps its short form.
 */
function missingKeys(defaults: unknown, user: unknown, prefix = ''): string[] {
  if (!isPlain(defaults)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(defaults)) {
    if (k.startsWith('_')) continue;
    const u = isPlain(user) ? user[k] : undefined;
    const key = `${prefix}${k.replace(/\./g, '\\.')}`;
    if (u === undefined) out.push(key);
    else if (isPlain(v) && isPlain(u) && Object.keys(v).length) out.push(...missingKeys(v, u, `${key}.`));
  }
  return out;
}

const joinKey = (path: string[]): string => path.map((k) => k.replace(/\./g, '\\.')).join('.');

/**
 * `hermes config migrate`: runs Python Hermes's version steps above the file's `_config_version`
 * (src/state/config-migrations.ts: renames, moves, one-time value changes), writes the settings
 * config.yaml lacks with their defaults and the current version, keeping comments. A newer version
 * (written by a newer Hermes) is kept.
 */
export function migrate(opts: { dryRun?: boolean }): void {
  const ctx = loadContext();
  const { loaded } = ctx;
  if (loaded.problems.length) throw new CliError(`${loaded.path} has problems; fix them first (\`hermes config check\` lists them).`);
  const defaults: Record<string, unknown> = defaultConfig();
  // What the file itself says (the loader turns `model: "name"` into a mapping; the short form is kept).
  const parsed = existsSync(loaded.path) ? (parse(readFileSync(loaded.path, 'utf8')) as unknown) : {};
  const raw = isPlain(parsed) ? parsed : {};
  const want = coerceConfigVersion(defaults._config_version);
  const have = coerceConfigVersion(raw._config_version);
  const envFile = paths.env(ctx.home);
  // Steps run on an existing file only (Hermes: a missing config.yaml is at the latest version).
  const plan = loaded.exists ? planMigration(raw, have, { home: ctx.home, env: readEnvFile(envFile) }) : { result: raw, edits: { config: [], envCleared: [], dirs: [], notes: [] }, steps: [] };
  const missing = missingKeys(defaults, plan.result);
  const entries: [string, unknown][] = plan.edits.config.map(([path, value]) => [joinKey(path), value]);
  entries.push(...missing.map((k): [string, unknown] => [k, getKey(defaults, k)]));
  if (have < want) entries.push(['_config_version', want]);
  const changes = entries.length + plan.edits.envCleared.length + plan.edits.dirs.length;
  if (!changes && !plan.edits.notes.length) {
    process.stdout.write(`${loaded.path} is up to date (config version ${have}).\n`);
    return;
  }
  for (const n of plan.edits.notes) process.stdout.write(`  ${n}\n`);
  for (const k of missing) process.stdout.write(`  + ${k}\n`);
  const version = have < want ? `; config version ${have || 'unset'} → ${want}` : '';
  const renamed = plan.edits.config.length ? ` and ${plan.edits.config.length} change(s) of Hermes's version steps (${plan.steps.join(', ')})` : '';
  if (opts.dryRun) {
    process.stdout.write(`Would add ${missing.length} setting(s) with their defaults${renamed}${version}. Nothing was changed.\n`);
    return;
  }
  if (entries.length) setConfigKeys(ctx.home, entries);
  if (plan.edits.envCleared.length) updateEnvFile(envFile, Object.fromEntries(plan.edits.envCleared.map((n) => [n, ''])));
  for (const d of plan.edits.dirs) mkdirSync(d, { recursive: true });
  process.stdout.write(`Added ${missing.length} setting(s) with their defaults${renamed} to ${loaded.path}${version}. Your values and comments are kept.\n`);
}

/** Keys nothing reads, each with the nearest real key, and values naming providers that do not exist. */
export function schemaProblems(loaded: LoadedConfig): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const u of unknownKeys(loaded.user, (typed, known) => nearest(typed, known, 2))) {
    out.push({ key: u.key, message: `is not a setting${u.near.length ? ` (did you mean ${u.near.map((n) => `\`${n}\``).join(' or ')}?)` : ''}`, line: loaded.lineOf(u.keys) });
  }
  const endpoints = namedEndpoints(loaded.config).map((e) => e.id);
  for (const ref of providerRefs(loaded.user)) {
    const v = ref.value.toLowerCase();
    if (v === 'auto' || (ref.allowMain && v === 'main') || findProvider(v) || findEndpoint(loaded.config, v)) continue;
    const custom = v.startsWith('custom:');
    const known = [...PROVIDERS.flatMap((p) => [p.id, ...p.aliases]), ...endpoints];
    const near = nearest(ref.value, known, 2);
    out.push({
      key: ref.key,
      message: custom
        ? `names "${ref.value}", but no custom_providers entry or providers: key has that name${endpoints.length ? ` (yours: ${endpoints.join(', ')})` : ''}`
        : `names "${ref.value}", which is not a provider${near.length ? ` (did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?)` : ' (`hermes model` lists them)'}`,
      line: loaded.lineOf(ref.keys),
    });
  }
  return out;
}

function lineSuffix(loaded: LoadedConfig, keys: string[]): string {
  const line = loaded.lineOf(keys);
  return line ? ` (line ${line})` : '';
}

export function check(): void {
  const ctx = loadContext();
  const { loaded } = ctx;
  let bad = 0;
  if (!loaded.exists) process.stdout.write(`· ${loaded.path} does not exist yet: defaults apply (run \`hermes setup\`).\n`);
  else process.stdout.write(`✓ ${loaded.path} parses\n`);
  for (const p of [...loaded.problems, ...schemaProblems(loaded)].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))) {
    bad++;
    process.stdout.write(`✗ ${formatProblem(p, loaded.path)}\n`);
  }
  if (loaded.exists) {
    const parsed = parse(readFileSync(loaded.path, 'utf8')) as unknown;
    const raw = isPlain(parsed) ? parsed : {};
    for (const l of legacyKeys(raw))
      process.stdout.write(`· ${l.key}${lineSuffix(loaded, l.key.split('.'))}: Hermes's old name (before config version ${l.version}), read as ${l.to}; \`hermes config migrate\` renames it\n`);
    for (const u of unsupportedKeys(loaded.user)) process.stdout.write(`· ${u.key}${lineSuffix(loaded, u.keys)}: not supported here (Python Hermes reads it; this version ignores it)\n`);
  }
  const envFile = paths.env(ctx.home);
  if (existsSync(envFile)) {
    const mode = statSync(envFile).mode & 0o777;
    process.stdout.write(mode & 0o077 ? `✗ ${envFile} is readable by others (mode ${mode.toString(8)}); run \`chmod 600 ${envFile}\`\n` : `✓ ${envFile} is private (0600)\n`);
    if (mode & 0o077) bad++;
  }
  if (loaded.exists) {
    const missing = missingKeys(defaultConfig(), loaded.user);
    if (missing.length) process.stdout.write(`· ${missing.length} setting(s) not in your config.yaml use defaults: ${missing.slice(0, 12).join(', ')}${missing.length > 12 ? ', …' : ''}\n`);
  }
  if (bad) throw new CliError(`${bad} problem(s) found.`);
  process.stdout.write('Configuration OK.\n');
}

async function askYesNo(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const a = (await rl.question(question)).trim().toLowerCase();
    return a === '' || a === 'y' || a === 'yes';
  } finally {
    rl.close();
  }
}

/**
 * Opens config.yaml in $VISUAL/$EDITOR, then checks it. On a terminal, a broken file (invalid
 * YAML, a wrongly typed setting) can be reopened at once instead of being left broken.
 */
export async function edit(): Promise<void> {
  const home = ensureHome(hermesHome());
  const file = paths.config(home);
  if (!existsSync(file)) setConfigKey(home, 'model.default', defaultConfig().model.default);
  const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
  const interactive = !!process.stdin.isTTY && !!process.stderr.isTTY;
  for (;;) {
    const r = spawnSync(`${editor} "${file.replace(/"/g, '\\"')}"`, { stdio: 'inherit', shell: true });
    if (r.status !== 0) throw new CliError(`The editor (${editor}) exited with status ${r.status}. Set $EDITOR to your editor.`);
    let problems: string[];
    try {
      problems = loadConfig(home, process.env).problems.map((p) => formatProblem(p, file));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      if (interactive && (await askYesNo(`${e.message.replace(/ Fix the file.*$/, '')}\nOpen the editor again to fix it? [Y/n] `))) continue;
      throw new CliError(e.message);
    }
    if (!problems.length) {
      process.stderr.write(`✓ ${file} is valid.\n`);
      return;
    }
    for (const p of problems) process.stderr.write(`⚠ ${p}\n`);
    if (interactive && (await askYesNo('Open the editor again to fix it? [Y/n] '))) continue;
    return;
  }
}
