// The environment variables that stand for a config.yaml setting, in one table, and the one function
// that reads a setting through them. Most are Python Hermes's overrides (the variable wins over
// config.yaml); a few are fallbacks (config.yaml wins, the variable is used when the setting is
// empty). Variables that are not settings (HERMES_HOME, HERMES_DEBUG, the kanban worker's task ids…)
// stay with their readers. The foundation layer reads two of these itself, as it may not import
// state: HERMES_ALLOW_PRIVATE_URLS (src/policy/ssrf.ts privateUrlsAllowed) and HERMES_REDACT_SECRETS
// (src/policy/redact.ts); they are listed here too, so this table is the whole list.
import { getKey } from './config.ts';

export interface EnvSetting {
  env: string;
  /** The dotted config.yaml key it stands for. */
  key: string;
  /** `env`: the variable wins over config.yaml; `config`: config.yaml wins, the variable fills an empty setting. */
  wins: 'env' | 'config';
}

export const ENV_SETTINGS: readonly EnvSetting[] = [
  { env: 'HERMES_INFERENCE_MODEL', key: 'model.default', wins: 'env' },
  { env: 'HERMES_INFERENCE_PROVIDER', key: 'model.provider', wins: 'env' },
  { env: 'HERMES_MAX_ITERATIONS', key: 'agent.max_turns', wins: 'env' },
  { env: 'HERMES_PREFILL_MESSAGES_FILE', key: 'prefill_messages_file', wins: 'env' },
  { env: 'HERMES_LANGUAGE', key: 'display.language', wins: 'env' },
  { env: 'HERMES_GATEWAY_BUSY_INPUT_MODE', key: 'display.busy_input_mode', wins: 'env' },
  { env: 'HERMES_CRON_SCRIPT_TIMEOUT', key: 'cron.script_timeout_seconds', wins: 'env' },
  { env: 'HERMES_CRON_MAX_PARALLEL', key: 'cron.max_parallel', wins: 'env' },
  { env: 'HERMES_DATABASE_URL', key: 'state.url', wins: 'env' },
  { env: 'HERMES_ALLOW_PRIVATE_URLS', key: 'security.allow_private_urls', wins: 'env' },
  { env: 'HERMES_REDACT_SECRETS', key: 'security.redact_secrets', wins: 'env' },
  { env: 'HERMES_TIMEZONE', key: 'timezone', wins: 'config' },
];

const BY_KEY = new Map(ENV_SETTINGS.map((s) => [s.key, s]));

const empty = (v: unknown) => v === undefined || v === null || v === '';

/**
 * A setting as it applies: its environment variable's value where that wins (or where config.yaml
 * leaves the setting empty), else config.yaml's (or the default). The variable's value is a string;
 * the caller parses it as it parses the setting.
 */
export function configSetting(config: unknown, key: string, env: NodeJS.ProcessEnv = process.env): unknown {
  const s = BY_KEY.get(key);
  const fromConfig = getKey(config, key);
  if (!s) return fromConfig;
  const fromEnv = env[s.env]?.trim();
  if (s.wins === 'env') return fromEnv ? fromEnv : fromConfig;
  return empty(fromConfig) && fromEnv ? fromEnv : fromConfig;
}

/** The variable that stands for a setting, if any (for messages: "set state.url or HERMES_DATABASE_URL"). */
export function envFor(key: string): string | undefined {
  return BY_KEY.get(key)?.env;
}
