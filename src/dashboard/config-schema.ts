// The Config tab's form fields, from the one config schema (src/state/config-zod.ts, through its
// precomputed JSON Schema): every setting with a default, its type and default, the section it
// groups into, its choices (an enum's values, or the usual values the schema names), and which
// settings are secrets (shown masked, write-only). The server sends them; the web app renders them.
import { PROVIDERS } from '../llm/catalog.ts';
import { isSecretKey } from '../state/config.ts';
import { configLeaves, type JsonSchema } from '../state/config-schema.ts';

export type FieldType = 'boolean' | 'number' | 'string' | 'list' | 'object';

export interface ConfigField {
  key: string;
  section: string;
  type: FieldType;
  default: unknown;
  /** null is a valid value (e.g. model.context_length: auto). */
  nullable?: boolean;
  options?: string[];
  secret?: boolean;
  /** Edited as YAML in config.yaml (maps of named entries), shown read-only here. */
  readOnly?: boolean;
}

const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function choices(s: JsonSchema, real: JsonSchema[]): string[] | undefined {
  if (s.optionsFrom === 'providers') return ['auto', ...PROVIDERS.map((p) => p.id)];
  if (s.options) return s.options;
  if (real.length === 1 && real[0].enum) return real[0].enum.map(String);
  return undefined;
}

function fieldOf(key: string, s: JsonSchema): ConfigField {
  const branches = s.anyOf ?? [s];
  const real = branches.filter((b) => b.type !== 'null');
  const nullable = real.length < branches.length;
  const options = choices(s, real);
  const t = real[0]?.type;
  const type: FieldType = options ? 'string' : t === 'number' || t === 'boolean' || t === 'string' ? t : t === 'array' ? 'list' : 'object';
  const v = s.default;
  return {
    key,
    section: key.includes('.') ? key.split('.')[0] : 'general',
    type,
    default: v,
    ...(nullable ? { nullable: true } : {}),
    ...(options ? { options } : {}),
    ...(isSecretKey(key) || /(^|\.)(api_key|password|secret|token)$/.test(key) ? { secret: true } : {}),
    ...(type === 'object' || (type === 'list' && (real[0]?.items?.type === 'object' || (Array.isArray(v) && v.some(isPlain)))) ? { readOnly: true } : {}),
  };
}

/** The settings the form offers: every one with a default (keys Python Hermes reads and we only accept are left to config.yaml). */
export function configSchema(): ConfigField[] {
  return configLeaves()
    .filter((l) => !l.hermesOnly && l.schema.default !== undefined)
    .map((l) => fieldOf(l.key, l.schema));
}

export class FieldError extends Error {}

/** Checks and converts a value from the form to what config.yaml stores. Throws FieldError. */
export function coerceField(f: ConfigField, value: unknown): unknown {
  if (f.readOnly) throw new FieldError(`${f.key} is edited in config.yaml (\`hermes config edit\`), not here.`);
  if (value === null || value === '') {
    if (f.nullable || value === '') {
      if (f.type === 'string' || f.nullable) return f.type === 'string' ? '' : null;
    }
    if (value === null) throw new FieldError(`${f.key} needs a value.`);
  }
  switch (f.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new FieldError(`${f.key} is on or off (true/false).`);
    case 'number': {
      const n = typeof value === 'number' ? value : Number(String(value).trim());
      if (!Number.isFinite(n)) throw new FieldError(`${f.key} needs a number (got "${String(value)}").`);
      if (n < 0) throw new FieldError(`${f.key} cannot be negative.`);
      return n;
    }
    case 'string': {
      const s = String(value);
      if (f.options && !f.options.includes(s)) throw new FieldError(`${f.key} must be one of: ${f.options.filter(Boolean).join(', ')}${f.options.includes('') ? ' (or empty)' : ''}.`);
      return s;
    }
    case 'list': {
      const list = Array.isArray(value) ? value : String(value).split(/[\n,]/);
      return list.map((x) => String(x).trim()).filter(Boolean);
    }
    default:
      throw new FieldError(`${f.key} cannot be set here.`);
  }
}
