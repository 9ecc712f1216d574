// The one call every surface makes before it builds sessions: load the HERMES_HOME's plugins and
// shell hooks. Cheap when there is nothing to load (no plugin folder, no `hooks:` block): nothing
// else is imported and sessions run exactly as without plugin support.
import { createInterface } from 'node:readline/promises';
import { anyPluginDirs, truthy } from './discovery.ts';
import type { PluginHost } from './host.ts';
import { lendPluginPorts, pluginHost, type PluginPorts } from './state.ts';

export interface SurfacePluginOptions {
  home: string;
  config: unknown;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** `--accept-hooks`. */
  acceptHooks?: boolean;
  /** A person at a terminal can approve new shell hooks (interactive CLI runs). */
  canAsk?: boolean;
  warn?: (message: string) => void;
  /** What plugins may ask of the layers above them (src/mcp/plugin-call.ts `pluginPorts`). */
  ports?: PluginPorts;
}

function hooksConfigured(config: unknown): boolean {
  const h = (config as { hooks?: unknown } | undefined)?.hooks;
  return !!h && typeof h === 'object' && Object.entries(h).some(([k, v]) => (k === 'outbound' ? Array.isArray(v) && v.length > 0 : k !== 'output_spill'));
}

/** Whether anything plugin-related exists for this home (without reading a manifest). */
export function pluginsPresent(o: { home: string; config: unknown; env: NodeJS.ProcessEnv; cwd?: string }): boolean {
  if (truthy(o.env.HERMES_SAFE_MODE)) return false;
  return hooksConfigured(o.config) || anyPluginDirs({ home: o.home, env: o.env, cwd: o.cwd ?? process.cwd() }, o.config);
}

/** Hermes's first-use consent question for a shell hook, on the terminal. */
export async function askShellHookConsent(event: string, command: string): Promise<boolean> {
  process.stderr.write(
    `\n⚠ Hermes is about to register a shell hook that will run a\n  command on your behalf.\n\n    Event:   ${event}\n    Command: ${command}\n\n` +
      `  Commands run with your full user credentials.  Only approve\n  commands you trust.\n`,
  );
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const a = (await rl.question('Allow this hook to run? [y/N]: ')).trim().toLowerCase();
    return a === 'y' || a === 'yes';
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

/**
 * Loads plugins and shell hooks for a surface. Returns the host, or null when there was nothing to
 * load. Problems are logged and passed to `warn`; they never stop the surface.
 */
export async function loadSurfacePlugins(o: SurfacePluginOptions): Promise<PluginHost | null> {
  if (o.ports) lendPluginPorts(o.ports);
  const existing = pluginHost(o.home);
  if (existing) return existing as PluginHost;
  if (!pluginsPresent(o)) return null;
  const { loadPlugins } = await import('./host.ts');
  return loadPlugins({
    home: o.home,
    config: o.config,
    env: o.env,
    cwd: o.cwd ?? process.cwd(),
    acceptHooks: o.acceptHooks,
    askHookConsent: o.canAsk ? askShellHookConsent : undefined,
    warn: o.warn,
  });
}
