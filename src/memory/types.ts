// What a memory provider file exports: the provider factory plus what `hermes memory setup`
// asks for and where the answers go (Hermes's per-provider config files and .env keys).
import type { HermesConfig } from '../state/defaults.ts';
import type { MemoryProvider } from '../state/memory-provider.ts';

export interface ConfigField {
  key: string;
  description: string;
  /** Secrets go to HERMES_HOME/.env under `env`, never into a config file. */
  secret?: boolean;
  required?: boolean;
  /** The environment variable that holds (or overrides) this value. */
  env?: string;
  default?: string;
  choices?: string[];
}

export interface ProviderEnv {
  home: string;
  /** The process environment with HERMES_HOME/.env merged in. */
  env: NodeJS.ProcessEnv;
  config: HermesConfig;
}

/** A provider as `hermes memory status` and the wizard see it. */
export interface ExternalMemoryProvider extends MemoryProvider {
  /** One network round trip (or local open) proving the provider works; resolves to a short description. */
  healthCheck(): Promise<string>;
  /** Non-secret settings in effect, for `hermes memory status`. */
  describe(): Record<string, string>;
}

export interface MemoryProviderFactory {
  readonly name: string;
  readonly description: string;
  readonly fields: ConfigField[];
  create(e: ProviderEnv): ExternalMemoryProvider;
  /** Saves the wizard's non-secret answers where Hermes keeps this provider's settings. */
  saveConfig(values: Record<string, string>, home: string, config: HermesConfig): void;
}
