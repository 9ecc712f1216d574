// The provider and model the default configuration resolves to now: kept on unpinned cron jobs
// (provider_snapshot / model_snapshot) so they keep running on them after the default changes.
import { resolveRuntime } from '../llm/resolve.ts';
import { resolveInputFrom } from '../session/session-client.ts';
import type { HermesConfig } from '../state/defaults.ts';
import type { InferenceSnapshot } from './jobs.ts';

export function inferenceSnapshot(config: HermesConfig, env: NodeJS.ProcessEnv): InferenceSnapshot | null {
  try {
    const rt = resolveRuntime(resolveInputFrom(config, env));
    return { provider: rt.provider, model: rt.model };
  } catch {
    return null;
  }
}
