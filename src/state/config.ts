// config.yaml: parsed with line numbers, normalized, ${VAR}-expanded, merged over DEFAULT_CONFIG.
import { LOCALES, normalizeLocale, t } from '../i18n/index.ts';
import { existsSync, readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { readLegacyNames } from './config-migrations.ts';
import { typeProblems } from './config-schema.ts';
import { defaultConfig, type HermesConfig } from './defaults.ts';
import { writeFileAtomic } from './fsutil.ts';
import { paths } from './paths.ts';

export class ConfigError extends Error {
  readonly file: string;
  readonly line?: number;
  /** The catalog message (`errors.<key>` in src/i18n) a surface shows in the user's language. */
  readonly i18n?: { key: string; vars: Record<string, string> };
  constructor(message: string, file: string, line?: number, i18n?: { key: string; vars: Record<string, string> }) {
    super(message);
    this.name = 'ConfigError';
    this.file = file;
    this.line = line;
    if (i18n) this.i18n = i18n;
  }
}

export interface ConfigProblem {
  key: string;
  message: string;
  line?: number;
}

export interface LoadedConfig {
  config: HermesConfig;
  /** The user's own settings (before merging), normalized. */
  user: Record<string, unknown>;
  path: string;
  exists: boolean;
  /** The file exists but holds no settings (empty, or only comments): see emptyConfigFile. */
  empty?: boolean;
  problems: ConfigProblem[];
  /** The line of a key in config.yaml (for messages), when it is there. */
  lineOf(keys: (string | number)[]): number | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge: objects merge key by key, everything else (arrays included) replaces. */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isObj(base) || !isObj(over)) return (over === undefined ? base : over) as T;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = k in out && isObj(out[k]) && isObj(v) ? deepMerge(out[k], v) : v;
  }
  return out as T;
}

/** Replaces `${VAR}` (and `${VAR:-fallback}`) in every string with the environment's value. */
export function expandEnvRefs<T>(value: T, env: NodeJS.ProcessEnv = process.env): T {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fb?: string) => {
      const v = env[name];
      return v !== undefined && v !== '' ? v : (fb ?? '');
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v) => expandEnvRefs(v, env)) as T;
  if (isObj(value)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandEnvRefs(v, env);
    return out as T;
  }
  return value;
}

function parseYaml(text: string, file: string): { doc: Document; lines: LineCounter } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const err = doc.errors[0];
  if (!err) {
    // An alias inside the node it refers to (`a: &x {b: *x}`) would make an endless structure.
    let loop: number | undefined;
    visit(doc, {
      Alias(_key, node, path) {
        const target = node.resolve(doc);
        if (target && path.includes(target as never)) {
          loop = node.range ? lines.linePos(node.range[0]).line : undefined;
          return visit.BREAK;
        }
      },
    });
    if (loop !== undefined || doc.errors.length)
      throw new ConfigError(`${file}${loop ? ` line ${loop}` : ''}: invalid YAML (an alias refers to the mapping or list it is inside, which never ends). Fix the file (\`hermes config edit\`) or move it aside to start from defaults.`, file, loop);
  }
  if (err) {
    const line = err.linePos?.[0]?.line ?? (err.pos ? lines.linePos(err.pos[0]).line : undefined);
    const reason = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    const where = `${file}${line ? ` line ${line}` : ''}`;
    throw new ConfigError(`${where}: invalid YAML (${reason}). Fix the file (\`hermes config edit\`) or move it aside to start from defaults.`, file, line, { key: 'errors.invalid_yaml', vars: { where, reason } });
  }
  return { doc, lines };
}

/** Legacy shapes → current: `model: "name"`, `fallback_model: {…}`, and Hermes's renamed keys (config-migrations.ts). */
function normalize(user: Obj): Obj {
  const out: Obj = { ...user };
  if (typeof out.model === 'string') out.model = { default: out.model };
  if (isObj(out.fallback_model)) {
    const fm = out.fallback_model;
    const list = Array.isArray(out.fallback_providers) ? [...out.fallback_providers] : [];
    if (fm.provider && fm.model) list.push(fm);
    out.fallback_providers = list;
    delete out.fallback_model;
  }
  // Hermes's renamed keys (compression.summary_*, memory.write_mode, stt.model…) read with their new names.
  return readLegacyNames(out);
}

function getPath(obj: unknown, keys: string[]): unknown {
  let cur = obj;
  for (const k of keys) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function lineOf(doc: Document | undefined, lines: LineCounter | undefined, keys: (string | number)[]): number | undefined {
  if (!doc || !lines) return undefined;
  // The key's own line (a mapping's value starts on the next one).
  const parent = keys.length ? doc.getIn(keys.slice(0, -1), true) : undefined;
  if (isMap(parent)) {
    const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === keys.at(-1));
    const k = pair?.key as { range?: [number, number, number] } | undefined;
    if (k?.range) return lines.linePos(k.range[0]).line;
  }
  const node = doc.getIn(keys, true) as { range?: [number, number, number] } | undefined;
  return node?.range ? lines.linePos(node.range[0]).line : undefined;
}

/**
 * The values config.yaml holds that do not have their setting's type (the config schema,
 * src/state/config-zod.ts, through its precomputed JSON Schema: no zod loads), one problem each.
 * Unknown keys are allowed here (plugins, newer Hermes); `hermes config check` reports them.
 */
function validate(user: Obj, doc?: Document, lines?: LineCounter): ConfigProblem[] {
  const problems: ConfigProblem[] = typeProblems(user).map((p) => ({ key: p.key, message: p.message, line: lineOf(doc, lines, p.keys) }));
  // What JSON Schema cannot say: the language names normalizeLocale knows.
  const language = getPath(user, ['display', 'language']);
  if (language !== undefined && !normalizeLocale(language))
    problems.push({ key: 'display.language', message: `must be one of: ${LOCALES.join(', ')} (or a name such as french, japanese)`, line: lineOf(doc, lines, ['display', 'language']) });
  return problems;
}

/**
 * config.yaml's text, or a ConfigError that names the file, says why it cannot be read and what to
 * do (never a bare EACCES/EISDIR).
 */
function readConfigText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory, not a file'
          : code === 'EIO'
            ? 'an input/output error: the disk or the mount may be failing'
            : (e as Error).message;
    const fix =
      code === 'EACCES' || code === 'EPERM'
        ? `make it readable by the user running Hermes (\`chmod 600 ${path}\` as its owner)`
        : code === 'EISDIR'
          ? 'move the directory aside and write your settings to a file of that name (`hermes setup`)'
          : 'check the disk, then fix the file (`hermes config edit`)';
    throw new ConfigError(`Cannot read ${path} (${why}): ${fix}. Nothing was changed.`, path);
  }
}

/** The config.yaml a merged config was loaded from when that file held no settings (see loadConfig). */
const EMPTY_FILES = new WeakMap<object, string>();

/**
 * The path of config.yaml when `config` was loaded from a file that exists but holds no settings.
 * Such a file is read as no settings, as Hermes reads it; but Hermes then picks a provider from
 * whatever API keys are set, which silently switches a user whose config.yaml was emptied (a full
 * disk, an editor crash) to another provider. Provider resolution asks this and refuses to guess
 * (session-client.ts): a provider must be named (`hermes setup`, `hermes model`, --provider).
 */
export function emptyConfigFile(config: unknown): string | undefined {
  return config && typeof config === 'object' ? EMPTY_FILES.get(config) : undefined;
}

/** A copy of a loaded config (a Session's own settings) keeps what is known of the file it came from. */
export function carryConfigMarks(from: object, to: object): void {
  const empty = EMPTY_FILES.get(from);
  if (empty) EMPTY_FILES.set(to, empty);
}

/** What is wrong with an empty config.yaml, and what to do (one line, joined with ": "). */
export function emptyConfigProblem(path: string): { problem: string; hint: string } {
  return {
    problem: `${path} is empty (no settings), so no provider is chosen`,
    hint: 'Hermes does not guess one from your API keys while your settings are missing. Run `hermes setup` (or `hermes model`) to choose one, or restore the file from a backup',
  };
}

/** Reads HERMES_HOME/config.yaml. Throws ConfigError (with file and line) on invalid YAML or an unreadable file. */
export function loadConfig(home: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const path = paths.config(home);
  const defaults = defaultConfig();
  if (!existsSync(path)) return { config: defaults, user: {}, path, exists: false, problems: [], lineOf: () => undefined };
  const text = readConfigText(path);
  const { doc, lines } = parseYaml(text, path);
  const raw = doc.toJS() as unknown;
  if (raw !== null && raw !== undefined && !isObj(raw))
    throw new ConfigError(`${path} line 1: the top level must be a mapping of settings (key: value). Fix it with \`hermes config edit\`.`, path, 1);
  const empty = raw === null || raw === undefined;
  const user = normalize(isObj(raw) ? raw : {});
  const problems = validate(user, doc, lines);
  const config = deepMerge(defaults, expandEnvRefs(user, env));
  if (empty) EMPTY_FILES.set(config, path);
  return { config, user, path, exists: true, ...(empty ? { empty } : null), problems, lineOf: (keys) => lineOf(doc, lines, keys) };
}

// The English messages of the checks above → their catalog keys, so `hermes config check` and the
// strict load speak the display language.
const PROBLEM_KEYS: [RegExp, string][] = [
  [/^must be a number$/, 'must_number'],
  [/^must be a string$/, 'must_string'],
  [/^must be true or false$/, 'must_bool'],
  [/^must be a list of strings$/, 'must_string_list'],
  [/^must be one of: (.*)$/s, 'must_one_of'],
  [/^must be a positive number \(or null for unlimited\)$/, 'must_positive'],
  [/^must be a model name or a mapping$/, 'must_model'],
  [/^must be a mapping of provider names$/, 'must_providers'],
  [/^must be a list$/, 'must_list'],
  [/^needs both `provider` and `model`$/, 'needs_provider_model'],
];

function problemMessage(message: string): string {
  for (const [re, key] of PROBLEM_KEYS) {
    const m = re.exec(message);
    if (m) return t(`config.${key}`, { values: m[1] ?? '' });
  }
  return message;
}

export function formatProblem(p: ConfigProblem, file: string): string {
  const where = p.line ? t('config.at_line', { file, line: p.line }) : file;
  return t('config.problem', { where, key: p.key, message: problemMessage(p.message) });
}

// ---------------------------------------------------------------------------------------------
// Dotted keys: `a.b.c`; a literal dot inside a key is written `\.`.

export function splitKey(key: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < key.length; i++) {
    if (key[i] === '\\' && key[i + 1] === '.') {
      cur += '.';
      i++;
    } else if (key[i] === '.') {
      parts.push(cur);
      cur = '';
    } else cur += key[i];
  }
  parts.push(cur);
  if (parts.some((p) => !p)) throw new Error(`"${key}" is not a valid key (empty segment).`);
  return parts;
}

export function getKey(config: unknown, key: string): unknown {
  return getPath(config, splitKey(key));
}

/** Keys written to .env rather than config.yaml: environment-variable names (ALL_CAPS). */
export function isEnvKey(key: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(key);
}

/** Keys whose values are secrets: shown masked. */
export function isSecretKey(key: string): boolean {
  return /(_API_KEY|_TOKEN|_SECRET|_PASSWORD|_KEY)$/i.test(key) || /(^|\.)api_key$/.test(key);
}

/** Parses a CLI value as a YAML scalar/flow value: `true`, `3`, `[a, b]`, `null`, else the string. */
export function parseCliValue(text: string): unknown {
  try {
    const doc = parseDocument(text);
    if (doc.errors.length) return text;
    const v = doc.toJS() as unknown;
    return v === undefined ? text : v;
  } catch {
    return text;
  }
}

/** An empty document that writes block-style YAML (`key: value` lines, not `{ key: value }`). */
function emptyDoc(): Document {
  const doc = parseDocument('{}');
  if (isMap(doc.contents)) doc.contents.flow = false;
  return doc;
}

function readDoc(path: string): Document {
  if (!existsSync(path)) return emptyDoc();
  const doc = parseYaml(readConfigText(path), path).doc;
  if (doc.contents === null || isScalar(doc.contents)) return emptyDoc();
  return doc;
}

/** Sets a key in config.yaml keeping comments and formatting, writing atomically. */
export function setConfigKey(home: string, key: string, value: unknown): void {
  setConfigKeys(home, [[key, value]]);
}

/** Sets several keys (`undefined` removes one) in one atomic write, keeping comments and formatting. */
export function setConfigKeys(home: string, entries: [string, unknown][]): void {
  const path = paths.config(home);
  const doc = readDoc(path);
  for (const [key, value] of entries) {
    if (value === undefined) doc.deleteIn(splitKey(key));
    else setIn(doc, key, value);
  }
  writeFileAtomic(path, String(doc), 0o600);
}

function setIn(doc: Document, key: string, value: unknown): void {
  const keys = splitKey(key);
  // `model: "name"` (string form) must become a mapping before setting model.x
  if (keys.length > 1) {
    for (let i = 1; i < keys.length; i++) {
      const node = doc.getIn(keys.slice(0, i), true);
      if (node !== undefined && !isMap(node) && !isSeq(node)) {
        if (keys[0] === 'model' && i === 1) doc.setIn(['model'], doc.createNode({ default: doc.getIn(['model']) }));
        else doc.setIn(keys.slice(0, i), doc.createNode({}));
      }
    }
  }
  doc.setIn(keys, quoteYaml11(doc.createNode(value)));
}

/** Strings YAML 1.1 (Python Hermes's PyYAML) reads as booleans: written quoted, so `off` stays a string there too. */
const YAML11_BOOL = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;

function quoteYaml11<T>(node: T): T {
  const fix = (n: unknown) => {
    if (isScalar(n) && typeof n.value === 'string' && YAML11_BOOL.test(n.value)) n.type = 'QUOTE_DOUBLE';
  };
  fix(node);
  if (isMap(node) || isSeq(node)) visit(node as never, { Scalar: (_k, n) => fix(n) });
  return node;
}

/** Removes a key from config.yaml. Returns false when it was not set. */
export function unsetConfigKey(home: string, key: string): boolean {
  const path = paths.config(home);
  if (!existsSync(path)) return false;
  const doc = readDoc(path);
  const keys = splitKey(key);
  if (!doc.hasIn(keys)) return false;
  doc.deleteIn(keys);
  writeFileAtomic(path, String(doc), 0o600);
  return true;
}

/** Writes a whole config object (used by setup wizards). Keeps nothing of the old file. */
export function writeConfig(home: string, user: Record<string, unknown>): void {
  const doc = parseDocument('{}');
  doc.contents = doc.createNode(user) as typeof doc.contents;
  writeFileAtomic(paths.config(home), String(doc), 0o600);
}
