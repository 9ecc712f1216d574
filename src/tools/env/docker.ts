// The Docker backend: one hardened, long-lived container per session (`sleep infinity`), commands
// through `docker exec`, /workspace and /root bind-mounted from HERMES_HOME/sandboxes so work
// survives the container. HERMES_DOCKER_BINARY picks docker or podman.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runProgram } from './child.ts';
import { RemoteShellBackend, type Transport } from './remote-shell.ts';

export interface DockerOptions {
  image: string;
  name: string;
  /** HERMES_HOME/sandboxes/docker/<task> — holds workspace/ and home/ when persistent. */
  taskDir: string;
  persistent: boolean;
  cpu: number;
  memoryMb: number;
  shmSize: string;
  network: boolean;
  volumes: string[];
  /** Names of host variables forwarded into the container (values travel in the CLI's env). */
  forwardEnv: string[];
}

/** The `docker run` arguments: hardening flags, limits, mounts. Pure, so it is unit-tested. */
export function dockerRunArgs(o: DockerOptions): string[] {
  const args = [
    'run', '-d',
    '--name', o.name,
    '--label', 'hermes.sandbox=1',
    '--init',
    '--cap-drop', 'ALL',
    '--cap-add', 'DAC_OVERRIDE',
    '--cap-add', 'CHOWN',
    '--cap-add', 'FOWNER',
    '--security-opt', 'no-new-privileges',
    '--pids-limit', '256',
    '--tmpfs', '/tmp:rw,nosuid,size=512m',
    '--tmpfs', '/var/tmp:rw,noexec,nosuid,size=256m',
    '--cpus', String(o.cpu),
    '--memory', `${o.memoryMb}m`,
    '--shm-size', o.shmSize,
  ];
  if (!o.network) args.push('--network', 'none');
  if (o.persistent) args.push('-v', `${join(o.taskDir, 'workspace')}:/workspace`, '-v', `${join(o.taskDir, 'home')}:/root`);
  for (const v of o.volumes) args.push('-v', v);
  for (const name of o.forwardEnv) args.push('-e', name);
  args.push('-w', '/workspace', o.image, 'sleep', 'infinity');
  return args;
}


export class DockerTransport implements Transport {
  private readonly o: DockerOptions;
  private readonly bin: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(o: DockerOptions, env: NodeJS.ProcessEnv, bin = 'docker') {
    this.o = o;
    this.env = env;
    this.bin = bin;
  }

  async prepare(): Promise<void> {
    if (this.o.persistent) for (const d of ['workspace', 'home']) mkdirSync(join(this.o.taskDir, d), { recursive: true, mode: 0o700 });
    const r = await runProgram(this.bin, dockerRunArgs(this.o), this.env, 120_000);
    if (r.code !== 0) {
      const why = r.out.trim().split('\n').slice(-2).join(' ');
      if (/Cannot connect to the Docker daemon|docker daemon/i.test(why) || r.code === 127)
        throw new Error(`The docker backend needs a running Docker engine (${this.bin}: ${why || 'not found'}). Start Docker, or set terminal.backend to local.`);
      throw new Error(`Could not start the sandbox container from ${this.o.image}: ${why}`);
    }
  }

  command(script: string, o: { tty: boolean }) {
    return { file: this.bin, args: ['exec', '-i', ...(o.tty ? ['-t'] : []), this.o.name, 'bash', '-c', script], env: this.env };
  }

  async dispose(): Promise<void> {
    await runProgram(this.bin, ['rm', '-f', this.o.name], this.env, 30_000);
  }
}

export function dockerBackend(o: DockerOptions, env: NodeJS.ProcessEnv, bin?: string): RemoteShellBackend {
  return new RemoteShellBackend({
    kind: 'docker',
    label: `docker ${o.name} (${o.image})`,
    transport: new DockerTransport(o, env, bin),
    isContainer: true,
    defaultCwd: '/workspace',
  });
}
