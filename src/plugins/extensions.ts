// What plugins add to the core's provider families — messaging platforms, memory providers, terminal
// backends, image-generation providers — kept by name until the family's registry asks. Each family's
// registry looks here (`pluginExtension(kind, name)` / `pluginExtensions(kind)`) beside its built-ins,
// so the gateway, `memory.provider`, `terminal.backend` and `image_gen.provider` treat a plugin's entry
// like a built-in one. The entry shapes are the families' own interfaces; this module only checks
// what it needs (a name) so it stays independent of them (a terminal backend's shape is
// `PluginTerminalBackend` in src/tools/env/index.ts).

export type ExtensionKind = 'platform' | 'memory_provider' | 'terminal_backend' | 'image_provider';

export interface ExtensionEntry<T = unknown> {
  kind: ExtensionKind;
  name: string;
  /** The plugin that registered it. */
  owner: string;
  value: T;
}

/**
 * A memory provider from a plugin has the built-in factories' shape (src/memory/types.ts
 * MemoryProviderFactory: `create(env)` returning the provider; description, fields and saveConfig
 * optional), and is chosen by `memory.provider: <name>` like a built-in one.
 */

const entries = new Map<string, ExtensionEntry>();
const keyOf = (kind: ExtensionKind, name: string) => `${kind}:${name}`;
const NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** Registers one entry; a second plugin taking the same name is refused with both named. */
export function addExtension<T>(kind: ExtensionKind, name: string, owner: string, value: T): void {
  const n = String(name ?? '').trim().toLowerCase();
  if (!NAME.test(n)) throw new Error(`${kind.replace('_', ' ')} name "${name}" must be 1-64 lower-case letters, digits, ".", "_" or "-"`);
  const existing = entries.get(keyOf(kind, n));
  if (existing && existing.owner !== owner) throw new Error(`${kind.replace('_', ' ')} "${n}" is already registered by ${existing.owner}`);
  entries.set(keyOf(kind, n), { kind, name: n, owner, value });
}

export function pluginExtension<T>(kind: ExtensionKind, name: string): ExtensionEntry<T> | undefined {
  return entries.get(keyOf(kind, String(name).trim().toLowerCase())) as ExtensionEntry<T> | undefined;
}

export function pluginExtensions<T>(kind?: ExtensionKind): ExtensionEntry<T>[] {
  return [...entries.values()].filter((e) => !kind || e.kind === kind) as ExtensionEntry<T>[];
}

export function removeExtensionsOf(owner: string): void {
  for (const [k, e] of entries) if (e.owner === owner) entries.delete(k);
}
