// Which runner a session's turns use: `model.openai_runtime: codex_app_server` hands turns to the
// Codex app-server, but only for the providers Codex serves (openai, openai-codex); every other
// provider keeps Hermes's own loop whatever the setting says.
import type { HermesConfig } from '../state/defaults.ts';
import type { RunnerKind } from './types.ts';

export const CODEX_PROVIDERS = ['openai', 'openai-codex'];

/** The configured runtime: `codex_app_server`, or `auto` (Hermes's loop) for anything else. */
export function configuredRuntime(config: HermesConfig): 'auto' | 'codex_app_server' {
  const v = String(config.model.openai_runtime ?? '')
    .trim()
    .toLowerCase();
  return v === 'codex_app_server' ? 'codex_app_server' : 'auto';
}

export function runnerKindFor(config: HermesConfig, provider: string): RunnerKind {
  return configuredRuntime(config) === 'codex_app_server' && CODEX_PROVIDERS.includes(provider) ? 'codex_app_server' : 'loop';
}

/** The provider a config (plus an explicit --provider) asks for, before resolution. */
export function requestedProvider(config: HermesConfig, explicit?: { provider?: string }): string {
  const p = (explicit?.provider || config.model.provider || '').trim().toLowerCase();
  return p === 'codex' ? 'openai-codex' : p;
}
