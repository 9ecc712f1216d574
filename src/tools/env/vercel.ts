// Vercel Sandbox through the official SDK (@vercel/sandbox, loaded on first use). Runtimes node24,
// node22, python3.13 (TERMINAL_VERCEL_RUNTIME); VERCEL_TOKEN + VERCEL_PROJECT_ID + VERCEL_TEAM_ID
// (or VERCEL_OIDC_TOKEN). With persistence the filesystem is snapshotted when the sandbox ends and
// the next sandbox for the task starts from that snapshot ($HERMES_HOME/vercel_sandbox_snapshots.json,
// Hermes's store). The SDK has no setting for its API origin, so VERCEL_SANDBOX_API_BASE_URL (for a
// proxy or a test server) is applied through the SDK's own `fetch` option.
import { join } from 'node:path';
import { readJsonStore, writeJsonStore } from '../../state/json-store.ts';
import type { DriverRun, SandboxDriver } from './sandbox.ts';
import type { BackendKind } from './types.ts';

export const VERCEL_RUNTIMES = ['node24', 'node22', 'python3.13'];
const DEFAULT_CWD = '/vercel/sandbox';

type Sdk = typeof import('@vercel/sandbox');
type Sandbox = Awaited<ReturnType<Sdk['Sandbox']['create']>>;

export interface VercelOptions {
  runtime: string;
  taskId: string;
  persistent: boolean;
  cpu: number;
  timeoutS: number;
  home: string;
  env: NodeJS.ProcessEnv;
}

export class VercelDriver implements SandboxDriver {
  readonly kind: BackendKind = 'vercel_sandbox';
  readonly label: string;
  private readonly o: VercelOptions;
  private sandbox: Sandbox | null = null;

  constructor(o: VercelOptions) {
    this.o = o;
    this.label = `vercel_sandbox ${o.runtime}`;
  }

  private get store(): string {
    return join(this.o.home, 'vercel_sandbox_snapshots.json');
  }

  private credentials(): Record<string, unknown> {
    const e = this.o.env;
    const token = e.VERCEL_TOKEN?.trim();
    if (token) {
      if (!e.VERCEL_PROJECT_ID?.trim() || !e.VERCEL_TEAM_ID?.trim()) throw new Error('VERCEL_TOKEN needs VERCEL_PROJECT_ID and VERCEL_TEAM_ID too (Vercel project settings).');
      return { token, projectId: e.VERCEL_PROJECT_ID.trim(), teamId: e.VERCEL_TEAM_ID.trim() };
    }
    if (e.VERCEL_OIDC_TOKEN?.trim()) return {};
    throw new Error('The vercel_sandbox backend needs VERCEL_TOKEN, VERCEL_PROJECT_ID and VERCEL_TEAM_ID (or VERCEL_OIDC_TOKEN) in ~/.hermes/.env.');
  }

  private fetcher(): typeof fetch | undefined {
    const base = this.o.env.VERCEL_SANDBOX_API_BASE_URL?.trim().replace(/\/+$/, '');
    if (!base) return undefined;
    return (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      return fetch(url.replace(/^https:\/\/vercel\.com\/api/, base), init);
    };
  }

  async start(): Promise<{ workdir: string }> {
    if (!VERCEL_RUNTIMES.includes(this.o.runtime)) throw new Error(`terminal.vercel_runtime "${this.o.runtime}" is not supported (use ${VERCEL_RUNTIMES.join(', ')}).`);
    const creds = this.credentials();
    process.env.VERCEL_TELEMETRY_DISABLED ??= '1'; // the SDK's telemetry is opt-in for Hermes
    const { Sandbox } = await import('@vercel/sandbox');
    const base = {
      ...creds,
      fetch: this.fetcher(),
      runtime: this.o.runtime,
      timeout: Math.max(this.o.timeoutS * 1000, 300_000),
      ...(this.o.cpu > 0 ? { resources: { vcpus: Math.max(1, Math.floor(this.o.cpu)) } } : {}),
    };
    const snapshotId = this.o.persistent ? (readJsonStore(this.store)[this.o.taskId] as string | undefined) : undefined;
    let sb: Sandbox | null = null;
    if (snapshotId) {
      try {
        sb = await Sandbox.create({ ...base, source: { type: 'snapshot', snapshotId } } as never);
      } catch {
        const s = readJsonStore(this.store);
        if (s[this.o.taskId] === snapshotId) delete s[this.o.taskId];
        writeJsonStore(this.store, s); // a stale snapshot: start fresh
      }
    }
    sb ??= await Sandbox.create(base as never);
    this.sandbox = sb;
    const cwd = (sb as unknown as { cwd?: string }).cwd;
    return { workdir: typeof cwd === 'string' && cwd.startsWith('/') ? cwd : DEFAULT_CWD };
  }

  async run(script: string, o: { timeoutMs: number; signal: AbortSignal }): Promise<DriverRun> {
    if (!this.sandbox) throw new Error('the Vercel sandbox is not running');
    const r = await this.sandbox.runCommand({ cmd: 'bash', args: ['-c', script], signal: o.signal } as never);
    const out = await (r as unknown as { output(s?: string): Promise<string> }).output('both');
    return { output: out, exitCode: (r as unknown as { exitCode: number }).exitCode };
  }

  async stop(): Promise<void> {
    const sb = this.sandbox;
    this.sandbox = null;
    if (!sb) return;
    if (this.o.persistent) {
      try {
        const snap = (await sb.snapshot()) as unknown as { snapshotId?: string; id?: string };
        const id = snap.snapshotId ?? snap.id;
        if (id) writeJsonStore(this.store, { ...readJsonStore(this.store), [this.o.taskId]: id });
        return; // a snapshot stops the sandbox
      } catch {
        /* fall through to a plain stop */
      }
    }
    await sb.stop();
  }
}
