// Picks and caches the session's execution backend (terminal.backend / TERMINAL_ENV).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { filteredEnv } from '../../policy/secrets-env.ts';
import { expandHome } from '../../state/paths.ts';
import { onSessionClose } from '../cleanup.ts';
import { defineSlot } from '../../state/slots.ts';
import type { ToolSession } from '../types.ts';
import { dockerBackend } from './docker.ts';
import { LocalFileOps, ShellFileOps, type FileOps } from './files.ts';
import { LocalBackend } from './local.ts';
import { localPersistentBackend } from './local-shell.ts';
import { DaytonaDriver } from './daytona.ts';
import { ModalManagedDriver } from './modal.ts';
import { SandboxBackend } from './sandbox.ts';
import { dotenvNamesSlot, persistentShell, sandboxOverrideSlot, TerminalSettings } from './settings.ts';
import { singularityBackend } from './singularity.ts';
import { VercelDriver } from './vercel.ts';
import { sshBackend, sshConfigFrom } from './ssh.ts';
import type { ExecutionBackend } from './types.ts';
import { makeSandbox, type Sandbox } from '../../sandbox/index.ts';
import { pluginExtension, pluginExtensions } from '../../plugins/extensions.ts';

/**
 * A terminal backend from a plugin (ctx.register_terminal_backend; kept in src/plugins/extensions.ts):
 * `create` builds the session's ExecutionBackend from the session's services when
 * `terminal.backend` names it. Synchronous, like the built-in backends (connect lazily on the first
 * command).
 */
export interface PluginTerminalBackend {
  name: string;
  create(services: ToolSession): ExecutionBackend;
}

export type { ExecutionBackend } from './types.ts';
export type { FileOps, FileStat } from './files.ts';

export const SUPPORTED = ['local', 'ssh', 'docker', 'singularity', 'modal', 'daytona', 'vercel_sandbox'];

export class BackendConfigError extends Error {}

const sandboxSlot = defineSlot<{ key: string; sb: Sandbox }>('sandbox');
const backendSlot = defineSlot<ExecutionBackend>('backend');
const fileOpsSlot = defineSlot<FileOps>('file_ops');

/** local | ssh | docker, from TERMINAL_ENV or terminal.backend. */
export function backendKind(services: ToolSession): string {
  return (services.env.TERMINAL_ENV?.trim() || services.config.terminal?.backend || 'local').toLowerCase();
}

/**
 * The directory commands start in. CLI: the launch directory. Other surfaces (gateway, cron, …):
 * TERMINAL_CWD or terminal.cwd when set, else the session's directory.
 */
export function terminalCwd(services: ToolSession): string {
  if (services.platform === 'cli') return services.cwd;
  const configured = services.env.TERMINAL_CWD?.trim() || (services.config.terminal?.cwd && services.config.terminal.cwd !== '.' ? services.config.terminal.cwd : '');
  return configured ? expandHome(configured) : services.cwd;
}

/**
 * The session's OS sandbox for local commands (terminal, execute_code): terminal.sandbox with the
 * session's /sandbox override; the working directory is terminalCwd.
 */
export function sessionSandbox(services: ToolSession): Sandbox {
  const override = services.slots.peek(sandboxOverrideSlot);
  // A config edit (terminal.sandbox) or a /sandbox change makes a new sandbox (and so a new
  // sandboxed process server and persistent shell).
  const key = JSON.stringify([override ?? null, (services.config.terminal as { sandbox?: unknown } | undefined)?.sandbox ?? null, services.env.HERMES_SANDBOX ?? null]);
  const cached = services.slots.peek(sandboxSlot);
  if (cached?.key === key) return cached.sb;
  const sb = makeSandbox({ config: services.config, env: services.env, hermesHome: services.home, cwd: terminalCwd(services), override });
  services.slots.set(sandboxSlot, { key, sb });
  return sb;
}

/** The environment a local child process gets: Hermes's secrets removed unless passed through. */
export function childEnv(services: ToolSession): NodeJS.ProcessEnv {
  return filteredEnv(services.env, {
    passthrough: services.config.terminal?.env_passthrough ?? [],
    dotenvNames: services.slots.peek(dotenvNamesSlot),
  });
}

function createBackend(services: ToolSession): ExecutionBackend {
  const kind = backendKind(services);
  const t = (services.config.terminal ?? {}) as Record<string, unknown> & typeof services.config.terminal;
  if (kind === 'local') {
    const o = { cwd: terminalCwd(services), env: childEnv(services), sandbox: () => sessionSandbox(services) };
    return persistentShell(services, 'local') ? localPersistentBackend(o) : new LocalBackend(o);
  }
  if (kind === 'ssh') {
    const cfg = sshConfigFrom(services.env, t, services.home);
    if ('error' in cfg) throw new BackendConfigError(cfg.error);
    return sshBackend({ ...cfg, persistent: persistentShell(services, 'ssh') });
  }
  if (kind === 'docker') {
    const task = services.taskId.replace(/[^A-Za-z0-9_.-]/g, '_');
    const forward = (t.docker_forward_env ?? []).filter((n: string) => services.env[n] !== undefined);
    return dockerBackend(
      {
        image: services.env.TERMINAL_DOCKER_IMAGE?.trim() || t.docker_image,
        name: `hermes-${task.slice(0, 40)}-${createHash('sha1').update(services.home + services.taskId + process.pid).digest('hex').slice(0, 6)}`,
        taskDir: join(services.home, 'sandboxes', 'docker', task),
        persistent: new TerminalSettings(services).bool('container_persistent', true),
        cpu: new TerminalSettings(services).num('container_cpu', 1) || 1,
        memoryMb: new TerminalSettings(services).num('container_memory', 5120) || 5120,
        shmSize: t.docker_shm_size || '1g',
        network: t.docker_network !== false,
        volumes: t.docker_volumes ?? [],
        forwardEnv: forward,
      },
      services.env,
      services.env.HERMES_DOCKER_BINARY?.trim() || 'docker',
    );
  }
  const ts = new TerminalSettings(services);
  const task = services.taskId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 48);
  const sandboxDir = expandHome(ts.str('sandbox_dir') || join(services.home, 'sandboxes'));
  const resources = {
    cpu: ts.num('container_cpu', 1),
    memoryMb: ts.num('container_memory', 5120),
    diskMb: ts.num('container_disk', 51200),
    persistent: ts.bool('container_persistent', true),
  };
  const lifetime = { lifetimeSeconds: ts.num('lifetime_seconds', 300) };
  if (kind === 'singularity') {
    return singularityBackend(
      {
        image: ts.str('singularity_image'),
        name: `hermes_${task.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 30)}_${createHash('sha1').update(services.home + services.taskId + process.pid).digest('hex').slice(0, 6)}`,
        dir: join(sandboxDir, 'singularity'),
        home: services.home,
        taskId: task,
        persistent: resources.persistent,
        cpu: resources.cpu,
        memoryMb: resources.memoryMb,
        binds: (t.docker_volumes ?? []).filter((v: string) => typeof v === 'string' && v.includes(':')),
      },
      services.env,
      persistentShell(services, 'singularity'),
    );
  }
  if (kind === 'daytona')
    return new SandboxBackend(new DaytonaDriver({ image: ts.str('daytona_image'), taskId: task, ...resources, env: services.env }), lifetime);
  if (kind === 'vercel_sandbox') {
    if (resources.diskMb !== 51200 && resources.diskMb !== 0)
      throw new BackendConfigError('Vercel Sandbox has no configurable disk size: remove terminal.container_disk (or TERMINAL_CONTAINER_DISK) for this backend.');
    return new SandboxBackend(
      new VercelDriver({ runtime: ts.str('vercel_runtime', 'node24'), taskId: task, persistent: resources.persistent, cpu: resources.cpu, timeoutS: ts.num('timeout', 180), home: services.home, env: services.env }),
      lifetime,
    );
  }
  if (kind === 'modal')
    return new SandboxBackend(
      new ModalManagedDriver({ image: ts.str('modal_image'), taskId: task, ...resources, timeoutS: ts.num('timeout', 180), mode: ts.str('modal_mode', 'auto'), home: services.home, env: services.env }),
      lifetime,
    );
  // A backend a plugin registered (ctx.register_terminal_environment_provider) under this name.
  const plugin = pluginExtension<PluginTerminalBackend>('terminal_backend', kind);
  if (plugin) return plugin.value.create(services) as ExecutionBackend;
  throw new BackendConfigError(
    `terminal.backend "${kind}" is not available in this build (supported: ${[...SUPPORTED, ...pluginExtensions('terminal_backend').map((e) => e.name)].join(', ')}). Set terminal.backend (or TERMINAL_ENV) to one of those.`,
  );
}

/** The session's backend, created on first use and closed with the session. */
export function getBackend(services: ToolSession): ExecutionBackend {
  let b = services.slots.peek(backendSlot);
  if (!b) {
    b = createBackend(services);
    services.slots.set(backendSlot, b);
    const created = b;
    onSessionClose(services, async () => {
      if (services.slots.peek(backendSlot) === created) services.slots.delete(backendSlot);
      await created.close();
    });
  }
  return b;
}

/**
 * Where the file tools read and write: this machine's files for the local backend (relative paths
 * against the terminal's directory once a persistent local shell has moved it, else the session's),
 * the backend's machine for every other backend.
 */
export function fileOps(services: ToolSession): FileOps {
  let ops = services.slots.peek(fileOpsSlot);
  if (ops) return ops;
  if (backendKind(services) === 'local') {
    ops = new LocalFileOps(() => {
      const b = services.slots.peek(backendSlot);
      return b && b.kind === 'local' && b.label.includes('persistent') ? b.currentCwd() : services.cwd;
    }, services.env.HOME || undefined);
  } else {
    const backend = getBackend(services);
    ops = new ShellFileOps(backend);
    onSessionClose(services, async () => {
      services.slots.delete(fileOpsSlot);
    });
  }
  services.slots.set(fileOpsSlot, ops);
  return ops;
}
