// How plugins and hooks are described to people: `/plugins`, `hermes plugins list`, the doctor.
import { FIRED_HOOKS } from './hooks.ts';
import { PluginHost, type LoadedPlugin } from './host.ts';
import type { PluginContributions } from './state.ts';

export function pluginSummary(p: LoadedPlugin): string {
  const parts = [
    p.tools.length && `tools: ${p.tools.join(', ')}`,
    p.hooks.length && `hooks: ${[...new Set(p.hooks)].join(', ')}`,
    p.commands.length && `commands: ${p.commands.map((c) => `/${c}`).join(', ')}`,
    p.cliCommands.length && `CLI: ${p.cliCommands.map((c) => `hermes ${c}`).join(', ')}`,
    p.skills.length && `skills: ${p.skills.join(', ')}`,
    p.extensions.length && `provides: ${p.extensions.join(', ')}`,
  ].filter(Boolean);
  return parts.join('; ') || 'registered nothing';
}

/** Hooks a plugin registered that this build never fires (accepted, but they will not run). */
export function unfiredHooks(p: LoadedPlugin): string[] {
  return [...new Set(p.hooks)].filter((h) => !FIRED_HOOKS.includes(h));
}

export function describeLoaded(host: PluginContributions): string {
  if (!(host instanceof PluginHost)) return 'No plugins are loaded.';
  const lines: string[] = [];
  const loaded = host.plugins.filter((p) => p.state === 'enabled');
  if (!loaded.length) lines.push('No plugins are enabled (`hermes plugins list` shows the ones found).');
  for (const p of loaded) {
    const v = p.manifest.version ? ` v${p.manifest.version}` : '';
    lines.push(p.loaded ? `✓ ${p.manifest.key}${v} — ${pluginSummary(p)}` : `✗ ${p.manifest.key}${v} — ${p.error ?? 'not loaded'}`);
  }
  const shell = host.shellHooks;
  if (shell.length) {
    lines.push('', 'Shell hooks:');
    for (const h of shell) lines.push(`${h.registered ? '✓' : '✗'} ${h.spec.event}${h.spec.matcher ? ` [${h.spec.matcher}]` : ''} → ${h.spec.command}${h.registered ? '' : ` (${h.reason})`}`);
  }
  return lines.join('\n');
}
