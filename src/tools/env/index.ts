// Picks and caches the session's execution backend (terminal.backend / TERMINAL_ENV).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { filteredEnv } from '../../policy/secrets-env.ts';
import { expandHome } from '../../state/paths.ts';
import { onSessionClose } from '../cleanup.ts';
import type { ToolServices } from '../types.ts';
import { dockerBackend } from './docker.ts';
import { LocalBackend } from './local.ts';
import { sshBackend, sshConfigFrom } from './ssh.ts';
import type { ExecutionBackend } from './types.ts';
import { pluginExtension, pluginExtensions, type PluginTerminalBackend } from '../../plugins/extensions.ts';

export type { ExecutionBackend } from './types.ts';

const SUPPORTED = ['local', 'ssh', 'docker'];

export class BackendConfigError extends Error {}

/** local | ssh | docker, from TERMINAL_ENV or terminal.backend. */
export function backendKind(services: ToolServices): string {
  return (services.env.TERMINAL_ENV?.trim() || services.config.terminal?.backend || 'local').toLowerCase();
}

/**
 * The directory commands start in. CLI: the launch directory. Other surfaces (gateway, cron, …):
 * TERMINAL_CWD or terminal.cwd when set, else the session's directory.
 */
export function terminalCwd(services: ToolServices): string {
  if (services.platform === 'cli') return services.cwd;
  const configured = services.env.TERMINAL_CWD?.trim() || (services.config.terminal?.cwd && services.config.terminal.cwd !== '.' ? services.config.terminal.cwd : '');
  return configured ? expandHome(configured) : services.cwd;
}

/** The environment a local child process gets: Hermes's secrets removed unless passed through. */
export function childEnv(services: ToolServices): NodeJS.ProcessEnv {
  return filteredEnv(services.env, {
    passthrough: services.config.terminal?.env_passthrough ?? [],
    dotenvNames: services.state.get('dotenv_names') as string[] | undefined,
  });
}

function createBackend(services: ToolServices): ExecutionBackend {
  const kind = backendKind(services);
  const t = (services.config.terminal ?? {}) as Record<string, unknown> & typeof services.config.terminal;
  if (kind === 'local') return new LocalBackend({ cwd: terminalCwd(services), env: childEnv(services) });
  if (kind === 'ssh') {
    const cfg = sshConfigFrom(services.env, t, services.home);
    if ('error' in cfg) throw new BackendConfigError(cfg.error);
    return sshBackend({ ...cfg, persistent: t.persistent_shell !== false });
  }
  if (kind === 'docker') {
    const task = services.taskId.replace(/[^A-Za-z0-9_.-]/g, '_');
    const forward = (t.docker_forward_env ?? []).filter((n: string) => services.env[n] !== undefined);
    return dockerBackend(
      {
        image: t.docker_image,
        name: `hermes-${task.slice(0, 40)}-${createHash('sha1').update(services.home + services.taskId + process.pid).digest('hex').slice(0, 6)}`,
        taskDir: join(services.home, 'sandboxes', 'docker', task),
        persistent: t.container_persistent !== false,
        cpu: Number(t.container_cpu) || 1,
        memoryMb: Number(t.container_memory) || 5120,
        shmSize: t.docker_shm_size || '1g',
        network: t.docker_network !== false,
        volumes: t.docker_volumes ?? [],
        forwardEnv: forward,
      },
      services.env,
      services.env.HERMES_DOCKER_BINARY?.trim() || 'docker',
    );
  }
  // A backend a plugin registered (ctx.register_terminal_environment_provider) under this name.
  const plugin = pluginExtension<PluginTerminalBackend>('terminal_backend', kind);
  if (plugin) return plugin.value.create(services) as ExecutionBackend;
  throw new BackendConfigError(
    `terminal.backend "${kind}" is not available in this build (supported: ${[...SUPPORTED, ...pluginExtensions('terminal_backend').map((e) => e.name)].join(', ')}). Set terminal.backend (or TERMINAL_ENV) to one of those.`,
  );
}

/** The session's backend, created on first use and closed with the session. */
export function getBackend(services: ToolServices): ExecutionBackend {
  let b = services.state.get('backend') as ExecutionBackend | undefined;
  if (!b) {
    b = createBackend(services);
    services.state.set('backend', b);
    const created = b;
    onSessionClose(services, async () => {
      if (services.state.get('backend') === created) services.state.delete('backend');
      await created.close();
    });
  }
  return b;
}
