// Daytona cloud sandboxes through the official SDK (@daytonaio/sdk, loaded on first use). One
// sandbox per task, named hermes-<task> and labelled hermes_task_id; persistent mode stops it on
// cleanup and resumes it next time (filesystem kept), otherwise it is deleted. DAYTONA_API_KEY
// (DAYTONA_API_URL / DAYTONA_TARGET for self-hosted or another region), terminal.daytona_image,
// container_cpu / container_memory / container_disk (GiB, disk capped at Daytona's 10).
import { shq, type BackendKind } from './types.ts';
import type { DriverRun, SandboxDriver } from './sandbox.ts';

type Sdk = typeof import('@daytonaio/sdk');
type Daytona = InstanceType<Sdk['Daytona']>;
type Sandbox = Awaited<ReturnType<Daytona['create']>>;

export interface DaytonaOptions {
  image: string;
  taskId: string;
  persistent: boolean;
  cpu: number;
  memoryMb: number;
  diskMb: number;
  env: NodeJS.ProcessEnv;
}

export class DaytonaDriver implements SandboxDriver {
  readonly kind: BackendKind = 'daytona';
  readonly label: string;
  private readonly o: DaytonaOptions;
  private client: Daytona | null = null;
  private sandbox: Sandbox | null = null;

  constructor(o: DaytonaOptions) {
    this.o = o;
    this.label = `daytona hermes-${o.taskId} (${o.image})`;
  }

  private get name(): string {
    return `hermes-${this.o.taskId}`.slice(0, 63);
  }

  async start(): Promise<{ workdir: string }> {
    const key = this.o.env.DAYTONA_API_KEY?.trim();
    if (!key) throw new Error('The daytona backend needs DAYTONA_API_KEY (from app.daytona.io) in ~/.hermes/.env, or set terminal.backend to another backend.');
    const { Daytona } = await import('@daytonaio/sdk');
    this.client ??= new Daytona({ apiKey: key, apiUrl: this.o.env.DAYTONA_API_URL?.trim() || undefined, target: this.o.env.DAYTONA_TARGET?.trim() || undefined });
    const client = this.client;
    let sb: Sandbox | null = null;
    if (this.o.persistent) {
      try {
        sb = await client.get(this.name);
        if (sb.state !== 'started') await sb.start();
      } catch {
        sb = null; // not found: create below
      }
    }
    if (!sb) {
      const gib = (mb: number) => Math.max(1, Math.ceil(mb / 1024));
      sb = await client.create({
        image: this.o.image,
        name: this.name,
        labels: { hermes_task_id: this.o.taskId },
        autoStopInterval: 0,
        resources: { cpu: Math.max(1, Math.round(this.o.cpu)), memory: gib(this.o.memoryMb), disk: Math.min(10, gib(this.o.diskMb)) },
      } as never);
    }
    this.sandbox = sb;
    const home = await this.run('printf %s "$HOME"', { timeoutMs: 30_000, signal: AbortSignal.timeout(35_000) }).catch(() => null);
    return { workdir: home?.output.trim() || '/home/daytona' };
  }

  async run(script: string, o: { timeoutMs: number; signal: AbortSignal }): Promise<DriverRun> {
    if (!this.sandbox) throw new Error('the Daytona sandbox is not running');
    const sb = this.sandbox;
    const call = sb.process.executeCommand(`bash -c ${shq(script)}`, undefined, undefined, Math.ceil(o.timeoutMs / 1000));
    const aborted = new Promise<never>((_, reject) => {
      if (o.signal.aborted) reject(new Error('interrupted'));
      o.signal.addEventListener('abort', () => reject(new Error('interrupted')), { once: true });
    });
    const r = (await Promise.race([call, aborted])) as { exitCode?: number; result?: string };
    return { output: r.result ?? '', exitCode: typeof r.exitCode === 'number' ? r.exitCode : null };
  }

  async stop(): Promise<void> {
    const sb = this.sandbox;
    const client = this.client;
    this.sandbox = null;
    this.client = null;
    if (!client) return;
    try {
      if (sb) {
        if (this.o.persistent) await sb.stop();
        else await client.delete(sb);
      }
    } finally {
      // The client keeps a Socket.IO connection to Daytona's event gateway (and, where that gateway
      // cannot be reached, retries it for minutes with timers that hold the process open): release
      // it with the sandbox; the next start makes a new client.
      await client[Symbol.asyncDispose]().catch(() => {});
    }
  }
}
