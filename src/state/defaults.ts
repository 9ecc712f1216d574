// Hermes's DEFAULT_CONFIG: config.yaml is deep-merged over this. The defaults and the type come from
// the one config schema (src/state/config-zod.ts); the defaults are precomputed plain data
// (config-generated.ts), so reading them loads no zod.
import { CONFIG_DEFAULTS } from './config-generated.ts';
import type { HermesConfig } from './config-zod.ts';

export type { HermesConfig } from './config-zod.ts';

export type ModelConfig = HermesConfig['model'];
export type NamedProviderConfig = HermesConfig['providers'][string];
export type FallbackProviderConfig = HermesConfig['fallback_providers'][number];
export type AuxiliaryTaskConfig = HermesConfig['auxiliary'][string];

/** A fresh copy of the defaults (callers may change it). */
export function defaultConfig(): HermesConfig {
  return structuredClone(CONFIG_DEFAULTS);
}
