// The Config tab's form schema, generated from Hermes's DEFAULT_CONFIG (src/state/defaults.ts):
// every leaf setting with its type and default, the sections it groups into, choices where a
// setting has a fixed set of values, and which settings are secrets (shown masked, write-only).
import { PROVIDERS } from '../llm/catalog.ts';
import { isSecretKey } from '../state/config.ts';
import { defaultConfig } from '../state/defaults.ts';

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

const CHOICES: Record<string, string[]> = {
  'model.provider': ['auto', ...PROVIDERS.map((p) => p.id)],
  'model.api_mode': ['', 'chat_completions', 'anthropic_messages', 'codex_responses'],
  'model.tool_call_parser': ['auto', 'none', 'hermes', 'llama3', 'pythonic', 'mistral', 'deepseek', 'json'],
  'agent.reasoning_effort': ['', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  'agent.tool_use_enforcement': ['auto', 'on', 'off'],
  'terminal.backend': ['local', 'docker', 'ssh', 'modal', 'daytona', 'singularity'],
  'terminal.sandbox.mode': ['workspace-write', 'read-only', 'off'],
  'terminal.sandbox.network': ['on', 'off'],
  'display.tool_progress': ['off', 'new', 'all', 'verbose'],
  'display.busy_input_mode': ['interrupt', 'queue', 'steer'],
  'display.final_response_markdown': ['render', 'strip', 'raw'],
  'display.memory_notifications': ['on', 'off'],
  'approvals.mode': ['manual', 'smart', 'off'],
  'approvals.cron_mode': ['deny', 'approve'],
  'approvals.single_query_mode': ['deny', 'approve'],
  'approvals.unattended_mode': ['deny', 'approve'],
  'prompt_caching.cache_ttl': ['5m', '1h'],
  'session_reset.mode': ['both', 'idle', 'daily', 'none'],
  'unauthorized_dm_behavior': ['pair', 'ignore'],
  'logging.level': ['DEBUG', 'INFO', 'WARNING', 'ERROR'],
};

/** Settings that are null by default but hold numbers. */
const NULLABLE_NUMBERS = new Set(['model.context_length', 'agent.max_turns', 'kanban.max_in_progress']);

const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function configSchema(): ConfigField[] {
  const out: ConfigField[] = [];
  const walk = (obj: Record<string, unknown>, prefix: string[], section: string) => {
    for (const [k, v] of Object.entries(obj)) {
      if (k.startsWith('_')) continue;
      const path = [...prefix, k];
      const key = path.join('.');
      const sec = prefix.length ? section : isPlain(v) && Object.keys(v).length ? k : 'general';
      if (isPlain(v) && Object.keys(v).length && prefix.length < 3) {
        walk(v, path, sec);
        continue;
      }
      let type: FieldType;
      if (NULLABLE_NUMBERS.has(key)) type = 'number';
      else if (typeof v === 'boolean') type = 'boolean';
      else if (typeof v === 'number') type = 'number';
      else if (typeof v === 'string') type = 'string';
      else if (Array.isArray(v)) type = 'list';
      else type = 'object';
      out.push({
        key,
        section: sec,
        type,
        default: v,
        ...(NULLABLE_NUMBERS.has(key) ? { nullable: true } : {}),
        ...(CHOICES[key] ? { options: CHOICES[key] } : {}),
        ...(isSecretKey(key) || /(^|\.)(api_key|password|secret|token)$/.test(key) ? { secret: true } : {}),
        ...(type === 'object' || (type === 'list' && Array.isArray(v) && v.some(isPlain)) ? { readOnly: true } : {}),
      });
    }
  };
  walk(defaultConfig() as unknown as Record<string, unknown>, [], 'general');
  return out;
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
