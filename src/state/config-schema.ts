// What config.yaml may hold, read from the JSON Schema of the one config schema (src/state/config-zod.ts,
// precomputed into config-generated.ts, so nothing heavy loads): the types `loadConfig` checks (one
// problem per wrong value), the keys `hermes config check` knows (a key outside them is reported
// with the nearest real one), the settings as a flat list (the dashboard's form, the docs' key
// list, shell completion), and which values name providers.
import { CONFIG_JSON_SCHEMA } from './config-generated.ts';

/** The subset of JSON Schema zod's toJSONSchema writes for the config, plus our `meta` keys. */
export interface JsonSchema {
  type?: 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  exclusiveMinimum?: number;
  default?: unknown;
  description?: string;
  /** The usual values of a free string (the dashboard's choices). */
  options?: string[];
  /** Choices computed at run time: `providers` = the provider catalog. */
  optionsFrom?: string;
  /** A key Python Hermes reads that this version does not act on (`hermes()` in config-zod.ts). */
  unsupported?: boolean;
  /** The line a wrong value gets (instead of one derived from the type). */
  message?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const CONFIG_SCHEMA = CONFIG_JSON_SCHEMA as JsonSchema;

/** A key Python Hermes reads that this version accepts with any value (`{}`: no type, no keys). */
export const isAnything = (s: JsonSchema): boolean => !s.type && !s.anyOf && !s.enum && !('const' in s) && !s.properties;

/** Keys of your own below this node (servers, endpoints, tasks…), each checked against the returned schema. */
function extraKeys(s: JsonSchema): JsonSchema | null {
  if (isAnything(s)) return {};
  if (s.additionalProperties === undefined || s.additionalProperties === false) return s.properties ? null : {};
  return s.additionalProperties === true ? {} : s.additionalProperties;
}

/** The object branch of a node (a section that may also be null, or an optional one). */
function objectBranch(s: JsonSchema): JsonSchema | undefined {
  if (s.type === 'object') return s;
  return s.anyOf?.find((b) => b.type === 'object');
}

/** The schema of a dotted key's value, or undefined when the key is not a setting. */
export function schemaAt(keys: (string | number)[], root: JsonSchema = CONFIG_SCHEMA): JsonSchema | undefined {
  let cur: JsonSchema | undefined = root;
  for (const k of keys) {
    if (!cur) return undefined;
    if (typeof k === 'number') {
      cur = cur.items;
      continue;
    }
    const o = objectBranch(cur);
    if (!o) return isAnything(cur) ? {} : undefined;
    cur = o.properties?.[k] ?? extraKeys(o) ?? undefined;
  }
  return cur;
}

function typeName(s: JsonSchema): string {
  if (s.message) return s.message;
  if (s.enum) return `must be one of: ${s.enum.map((v) => (v === '' ? '""' : String(v))).join(', ')}`;
  if (s.anyOf) {
    const real = s.anyOf.filter((b) => b.type !== 'null');
    if (real.length === 1) return typeName(real[0]);
    return `must be ${real.map((b) => typeName(b).replace(/^must be /, '')).join(' or ')}`;
  }
  switch (s.type) {
    case 'number':
      return 'must be a number';
    case 'string':
      return 'must be a string';
    case 'boolean':
      return 'must be true or false';
    case 'array':
      return s.items?.type === 'string' ? 'must be a list of strings' : 'must be a list';
    case 'object':
      return 'must be a mapping';
    default:
      return 'is not valid';
  }
}

/** Whether a value fits a schema (the subset zod writes for the config). */
function fits(v: unknown, s: JsonSchema): boolean {
  if (s.anyOf) return s.anyOf.some((b) => fits(v, b));
  if ('const' in s && v !== s.const) return false;
  if (s.enum && !s.enum.includes(v)) return false;
  switch (s.type) {
    case 'null':
      return v === null;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) && (s.exclusiveMinimum === undefined || v > s.exclusiveMinimum);
    case 'string':
      return typeof v === 'string' && (!s.pattern || new RegExp(s.pattern).test(v));
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v) && (!s.items || v.every((x) => fits(x, s.items!)));
    case 'object':
      return isObj(v) && (s.required ?? []).every((k) => v[k] !== undefined);
    default:
      return true;
  }
}

export interface TypeProblem {
  key: string;
  keys: (string | number)[];
  message: string;
}

const dotted = (keys: (string | number)[]) => keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join('');

/**
 * The values of config.yaml that do not have their setting's type, one problem each (the deepest
 * place that is wrong: a section's wrong key, not the whole section). Unknown keys are not
 * problems here (`unknownKeys` reports them for `hermes config check`).
 */
export function typeProblems(user: Obj, root: JsonSchema = CONFIG_SCHEMA): TypeProblem[] {
  const out: TypeProblem[] = [];
  const check = (v: unknown, s: JsonSchema, keys: (string | number)[]) => {
    if (v === undefined || isAnything(s)) return;
    const o = objectBranch(s);
    if (o && isObj(v) && (o.properties || o.additionalProperties)) {
      const missing = (o.required ?? []).filter((k) => v[k] === undefined || v[k] === '');
      if (missing.length) {
        out.push({ key: dotted(keys), keys, message: o.message ?? `needs ${missing.map((k) => `\`${k}\``).join(' and ')}` });
        return;
      }
      for (const [k, x] of Object.entries(v)) {
        const sub = o.properties?.[k] ?? extraKeys(o);
        if (sub) check(x, sub, [...keys, k]);
      }
      return;
    }
    const arr = s.type === 'array' ? s : s.anyOf?.find((b) => b.type === 'array');
    if (arr?.items && Array.isArray(v) && objectBranch(arr.items)) {
      v.forEach((x, i) => check(x, arr.items!, [...keys, i]));
      return;
    }
    if (!fits(v, s)) out.push({ key: dotted(keys), keys, message: o && !isObj(v) && !s.anyOf ? (o.message ?? typeName(o)) : typeName(s) });
  };
  check(user, root, []);
  return out;
}

/** One setting: a leaf of the schema (sections are walked into; maps of your own names are one leaf). */
export interface ConfigLeaf {
  key: string;
  schema: JsonSchema;
  /** A key Python Hermes reads that this version accepts without acting on it. */
  hermesOnly: boolean;
}

/** Every setting, in the schema's order, as dotted keys. */
export function configLeaves(root: JsonSchema = CONFIG_SCHEMA): ConfigLeaf[] {
  const out: ConfigLeaf[] = [];
  const walk = (s: JsonSchema, prefix: string) => {
    for (const [k, sub] of Object.entries(s.properties ?? {})) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (k.startsWith('_')) continue;
      const o = objectBranch(sub);
      if (o?.properties && Object.keys(o.properties).length) walk(o, key);
      else out.push({ key, schema: sub, hermesOnly: !!sub.unsupported });
    }
  };
  walk(root, '');
  return out;
}

export interface UnknownKey {
  /** Dotted path as written. */
  key: string;
  keys: string[];
  /** Real keys at the same place, closest first (may be empty). */
  near: string[];
}

/** Keys in a config that nothing reads, each with the closest real keys beside it. */
export function unknownKeys(user: Obj, nearest: (typed: string, known: string[]) => string[], root: JsonSchema = CONFIG_SCHEMA): UnknownKey[] {
  const out: UnknownKey[] = [];
  const walk = (value: Obj, s: JsonSchema, path: string[]) => {
    const o = objectBranch(s);
    if (!o) return;
    const extra = extraKeys(o);
    for (const [k, v] of Object.entries(value)) {
      const sub = o.properties?.[k] ?? extra;
      if (!sub) {
        const near = nearest(k, Object.keys(o.properties ?? {})).map((n) => [...path, n].join('.'));
        out.push({ key: [...path, k].join('.'), keys: [...path, k], near });
        continue;
      }
      if (isObj(v)) walk(v, sub, [...path, k]);
    }
  };
  walk(user, root, []);
  return out;
}

/** The values that name a provider, with their paths (`model.provider`, `fallback_providers[1].provider`…). */
export function providerRefs(user: Obj): { key: string; keys: (string | number)[]; value: string; allowMain: boolean }[] {
  const out: { key: string; keys: (string | number)[]; value: string; allowMain: boolean }[] = [];
  const add = (keys: (string | number)[], v: unknown, allowMain = false) => {
    if (typeof v !== 'string' || !v.trim()) return;
    out.push({ key: dotted(keys), keys, value: v.trim(), allowMain });
  };
  if (isObj(user.model)) add(['model', 'provider'], user.model.provider);
  if (Array.isArray(user.fallback_providers)) user.fallback_providers.forEach((f, i) => isObj(f) && add(['fallback_providers', i, 'provider'], f.provider));
  for (const section of ['delegation', 'cron'] as const) if (isObj(user[section])) add([section, 'provider'], (user[section] as Obj).provider);
  if (isObj(user.auxiliary)) for (const [task, cfg] of Object.entries(user.auxiliary)) if (isObj(cfg)) add(['auxiliary', task, 'provider'], cfg.provider, true);
  return out;
}

/** Keys a config sets that Python Hermes reads and this version does not act on (`hermes()` in config-zod.ts). */
export function unsupportedKeys(user: Obj, root: JsonSchema = CONFIG_SCHEMA): { key: string; keys: string[] }[] {
  const out: { key: string; keys: string[] }[] = [];
  const walk = (value: Obj, s: JsonSchema, path: string[]) => {
    const o = objectBranch(s);
    if (!o?.properties) return;
    for (const [k, v] of Object.entries(value)) {
      const sub = o.properties[k];
      if (!sub) continue;
      if (sub.unsupported) out.push({ key: [...path, k].join('.'), keys: [...path, k] });
      else if (isObj(v)) walk(v, sub, [...path, k]);
    }
  };
  walk(user, root, []);
  return out;
}
