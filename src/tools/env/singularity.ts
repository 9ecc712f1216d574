// Singularity / Apptainer (HPC): one hardened instance per session (--containall --no-home), a
// writable overlay directory per task when persistent (kept across sessions), a tmpfs otherwise;
// commands through `apptainer exec instance://…`. The binary: apptainer, else singularity, on PATH
// (HERMES_SINGULARITY_BINARY overrides). docker:// images are built once into a cached SIF.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonStore, writeJsonStore } from '../../state/json-store.ts';
import { runProgram } from './child.ts';
import { RemoteShellBackend, type Transport } from './remote-shell.ts';

export interface SingularityOptions {
  image: string;
  name: string;
  /** HERMES_HOME/sandboxes/singularity (overlays, SIF cache). */
  dir: string;
  home: string;
  taskId: string;
  persistent: boolean;
  cpu: number;
  memoryMb: number;
  binds: string[];
}

export function findSingularity(env: NodeJS.ProcessEnv): string | null {
  const explicit = env.HERMES_SINGULARITY_BINARY?.trim();
  if (explicit) return explicit;
  for (const exe of ['apptainer', 'singularity']) if (spawnSync(exe, ['version'], { env, stdio: 'ignore', timeout: 10_000 }).status === 0) return exe;
  return null;
}

/** The `instance start` arguments (pure, unit-tested). */
export function instanceStartArgs(o: SingularityOptions, image: string, overlay: string | null): string[] {
  const a = ['instance', 'start', '--containall', '--no-home'];
  if (overlay) a.push('--overlay', overlay);
  else a.push('--writable-tmpfs');
  for (const b of o.binds) a.push('--bind', b);
  if (o.memoryMb > 0) a.push('--memory', `${o.memoryMb}M`);
  if (o.cpu > 0) a.push('--cpus', String(o.cpu));
  a.push(image, o.name);
  return a;
}


export class SingularityTransport implements Transport {
  private readonly o: SingularityOptions;
  private readonly env: NodeJS.ProcessEnv;
  private bin: string | null;

  constructor(o: SingularityOptions, env: NodeJS.ProcessEnv, bin: string | null) {
    this.o = o;
    this.env = env;
    this.bin = bin;
  }

  /** A docker:// image becomes a SIF in the cache once; anything else is used as given. */
  private async image(bin: string): Promise<string> {
    const img = this.o.image;
    if (!img.startsWith('docker://')) return img;
    const cache = join(this.o.dir, '.apptainer');
    mkdirSync(cache, { recursive: true });
    const sif = join(cache, `${img.slice(9).replace(/[/:]/g, '-')}.sif`);
    if (existsSync(sif)) return sif;
    const r = await runProgram(bin, ['build', sif, img], { ...this.env, APPTAINER_CACHEDIR: cache, APPTAINER_TMPDIR: cache }, 600_000);
    return r.code === 0 && existsSync(sif) ? sif : img;
  }

  async prepare(): Promise<void> {
    this.bin ??= findSingularity(this.env);
    if (!this.bin)
      throw new Error('The singularity backend needs Apptainer or Singularity: neither `apptainer` nor `singularity` is on PATH. Install Apptainer, or set terminal.backend to another backend.');
    let overlay: string | null = null;
    if (this.o.persistent) {
      overlay = join(this.o.dir, 'hermes-overlays', `overlay-${this.o.taskId}`);
      mkdirSync(overlay, { recursive: true });
    }
    const r = await runProgram(this.bin, instanceStartArgs(this.o, await this.image(this.bin), overlay), this.env, 120_000);
    if (r.code !== 0) throw new Error(`Could not start the Singularity instance from ${this.o.image}: ${r.out.trim().split('\n').slice(-2).join(' ')}`);
    if (overlay) {
      const store = join(this.o.home, 'singularity_snapshots.json');
      writeJsonStore(store, { ...readJsonStore(store), [this.o.taskId]: overlay });
    }
  }

  command(script: string) {
    return { file: this.bin ?? 'apptainer', args: ['exec', `instance://${this.o.name}`, 'bash', '-c', script], env: this.env };
  }

  async dispose(): Promise<void> {
    if (this.bin) await runProgram(this.bin, ['instance', 'stop', this.o.name], this.env, 30_000);
  }
}

export function singularityBackend(o: SingularityOptions, env: NodeJS.ProcessEnv, persistentShell: boolean): RemoteShellBackend {
  return new RemoteShellBackend({
    kind: 'singularity',
    label: `singularity ${o.name} (${o.image})`,
    transport: new SingularityTransport(o, env, env.HERMES_SINGULARITY_BINARY?.trim() || null),
    isContainer: true,
    persistent: persistentShell,
  });
}
