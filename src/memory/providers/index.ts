// The memory providers Hermes documents, each in its own file, loaded only when selected
// (`memory.provider` in config.yaml). One is active at a time beside the built-in memory.
import { pluginExtension } from '../../plugins/extensions.ts';
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
  const load = Object.hasOwn(LOADERS, key) ? LOADERS[key] : undefined;
  // A memory provider a plugin registered (ctx.register_memory_provider) under this name: an object
  // with the factory's shape (name, create(env), optionally description, fields, saveConfig).
  const plugin = load !== undefined ? undefined : pluginExtension<Partial<MemoryProviderFactory>>('memory_provider', key);
  if (plugin && typeof plugin.value.create === 'function')
    return { name: key, description: plugin.value.description ?? `from ${plugin.owner}`, fields: plugin.value.fields ?? [], create: plugin.value.create.bind(plugin.value), saveConfig: plugin.value.saveConfig?.bind(plugin.value) ?? (() => {}) };
  if (!load) throw new Error(`Unknown memory provider "${name}". Choose one of: ${PROVIDER_NAMES.join(', ')} (or run hermes memory setup).`);
  return (await load()).default;
}
