// Builds the adapter of a configured platform through the registry. Each platform module imports
// its SDK only when it starts. `deps` reach each platform's factory (tests pass fake SDK seams).
import '../config.ts';
import type { GatewayRunner } from '../runner.ts';
import type { PlatformAdapter } from '../types.ts';
import { getPlatform } from './registry.ts';

/** Per-platform test seams, keyed by platform name (`{ telegram: { createBot } }`). */
export type PlatformDeps = Record<string, unknown>;

export async function createAdapter(name: string, runner: GatewayRunner, deps: PlatformDeps = {}): Promise<PlatformAdapter> {
  const def = getPlatform(name);
  if (!def) throw new Error(`unknown platform "${name}"`);
  return def.create({ env: runner.env, config: runner.config, home: runner.home, log: (l) => runner.log(l), runner, deps: deps[name] });
}
