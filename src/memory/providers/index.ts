// The memory providers Hermes documents, each in its own file, loaded only when selected
// (`memory.provider` in config.yaml). One is active at a time beside the built-in memory.
import type { MemoryProviderFactory } from '../types.ts';

const LOADERS: Record<string, () => Promise<{ default: MemoryProviderFactory }>> = {
  honcho: () => import('./honcho.ts'),
  openviking: () => import('./openviking.ts'),
  mem0: () => import('./mem0.ts'),
  hindsight: () => import('./hindsight.ts'),
  holographic: () => import('./holographic.ts'),
  retaindb: () => import('./retaindb.ts'),
  byterover: () => import('./byterover.ts'),
  supermemory: () => import('./supermemory.ts'),
};

export const PROVIDER_NAMES = Object.keys(LOADERS);

export async function loadProviderFactory(name: string): Promise<MemoryProviderFactory> {
  const key = name.trim().toLowerCase();
  const load = LOADERS[key];
  if (!load) throw new Error(`Unknown memory provider "${name}". Choose one of: ${PROVIDER_NAMES.join(', ')} (or run hermes memory setup).`);
  return (await load()).default;
}
