// Modal sandboxes. Hermes has two modes (terminal.modal_mode / TERMINAL_MODAL_MODE: auto | managed |
// direct). `managed` runs the sandbox through the Nous tool gateway's HTTP API (create, exec + poll,
// cancel, terminate with a snapshot), implemented here. `direct` needs Modal's own client: Modal's
// API is gRPC-only with no documented HTTP surface, and Modal's JavaScript client is not in the npm
// registry this project installs from (the `modal` name there is an unrelated browser widget), so
// direct mode reports that plainly instead of pretending. `auto` = managed when a gateway token is
// available. Gateway: MODAL_GATEWAY_URL, else TOOL_GATEWAY_SCHEME://modal-gateway.TOOL_GATEWAY_DOMAIN
// (default https, nousresearch.com); token: TOOL_GATEWAY_USER_TOKEN, else the Nous sign-in in auth.json.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { readJsonStore } from '../../state/json-store.ts';
import type { DriverRun, SandboxDriver } from './sandbox.ts';
import type { BackendKind } from './types.ts';

export interface ModalOptions {
  image: string;
  taskId: string;
  persistent: boolean;
  cpu: number;
  memoryMb: number;
  diskMb: number;
  timeoutS: number;
  mode: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

export function modalGateway(env: NodeJS.ProcessEnv, home: string): { origin: string; token: string | null } {
  const explicit = env.MODAL_GATEWAY_URL?.trim().replace(/\/+$/, '');
  const scheme = (env.TOOL_GATEWAY_SCHEME?.trim().toLowerCase() || 'https').replace(/[^a-z]/g, '');
  const origin = explicit || `${scheme}://modal-gateway.${env.TOOL_GATEWAY_DOMAIN?.trim().replace(/^\/+|\/+$/g, '') || 'nousresearch.com'}`;
  let token = env.TOOL_GATEWAY_USER_TOKEN?.trim() || null;
  if (!token) {
    const providers = (readJsonStore(join(home, 'auth.json')).providers ?? {}) as Record<string, { access_token?: string }>;
    token = providers.nous?.access_token?.trim() || null;
  }
  return { origin, token };
}

const DONE = new Set(['completed', 'failed', 'cancelled', 'timeout']);

export class ModalManagedDriver implements SandboxDriver {
  readonly kind: BackendKind = 'modal';
  readonly label: string;
  private readonly o: ModalOptions;
  private id: string | null = null;
  private readonly gw: { origin: string; token: string | null };

  constructor(o: ModalOptions) {
    this.o = o;
    this.gw = modalGateway(o.env, o.home);
    this.label = `modal ${o.image} (managed)`;
  }

  private async req<T>(method: string, path: string, body?: unknown, timeoutMs = 30_000, extra: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${this.gw.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.gw.token}`, 'content-type': 'application/json', ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      /* not JSON */
    }
    if (!res.ok) throw new Error(`Managed Modal ${method} ${path.replace(/\/[0-9a-f-]{16,}/g, '/…')} failed: ${String(json.error ?? json.message ?? (text.trim() || `HTTP ${res.status}`))}`);
    return json as T;
  }

  async start(): Promise<{ workdir: string }> {
    const mode = this.o.mode || 'auto';
    if (mode === 'direct' || (mode === 'auto' && !this.gw.token))
      throw new Error(
        'The modal backend in direct mode needs Modal\'s own client, which speaks gRPC and has no JavaScript package this build can use. ' +
          'Use managed mode (terminal.modal_mode: managed, with a Nous sign-in or TOOL_GATEWAY_USER_TOKEN), or another backend (docker, daytona, vercel_sandbox).',
      );
    if (!this.gw.token) throw new Error('Managed Modal needs a Nous sign-in (hermes auth add nous) or TOOL_GATEWAY_USER_TOKEN.');
    const snapshots = readJsonStore(join(this.o.home, 'modal_snapshots.json'));
    const r = await this.req<{ id?: string }>(
      'POST',
      '/v1/sandboxes',
      {
        image: this.o.image,
        cwd: '/root',
        cpu: this.o.cpu,
        memoryMiB: this.o.memoryMb,
        ...(this.o.diskMb ? { diskMiB: this.o.diskMb } : {}),
        timeoutMs: 3_600_000,
        idleTimeoutMs: Math.max(300_000, this.o.timeoutS * 1000),
        persistentFilesystem: this.o.persistent,
        logicalKey: this.o.taskId,
        ...(typeof snapshots[`managed:${this.o.taskId}`] === 'string' ? { snapshotId: snapshots[`managed:${this.o.taskId}`] } : {}),
      },
      60_000,
      { 'x-idempotency-key': randomUUID() },
    );
    if (!r.id) throw new Error('Managed Modal create did not return a sandbox id');
    this.id = r.id;
    const home = await this.run('printf %s "$HOME"', { timeoutMs: 30_000, signal: AbortSignal.timeout(35_000) }).catch(() => null);
    const dir = home?.output.trim();
    return { workdir: dir && dir.startsWith('/') ? dir : '/root' };
  }

  async run(script: string, o: { timeoutMs: number; signal: AbortSignal }): Promise<DriverRun> {
    if (!this.id) throw new Error('the Modal sandbox is not running');
    const execId = randomUUID();
    const base = `/v1/sandboxes/${this.id}/execs`;
    let st = await this.req<{ status?: string; output?: string; returncode?: number; execId?: string }>('POST', base, { execId, command: script, cwd: '/root', timeoutMs: o.timeoutMs }, 10_000);
    const cancel = () => void this.req('POST', `${base}/${execId}/cancel`, undefined, 5000).catch(() => {});
    o.signal.addEventListener('abort', cancel, { once: true });
    try {
      while (!DONE.has(String(st.status))) {
        if (o.signal.aborted) throw new Error('interrupted');
        await new Promise((r) => setTimeout(r, 250));
        st = await this.req('GET', `${base}/${execId}`, undefined, 10_000);
      }
      return { output: st.output ?? '', exitCode: typeof st.returncode === 'number' ? st.returncode : 1 };
    } finally {
      o.signal.removeEventListener('abort', cancel);
    }
  }

  async stop(): Promise<void> {
    const id = this.id;
    this.id = null;
    if (id) await this.req('POST', `/v1/sandboxes/${id}/terminate`, { snapshotBeforeTerminate: this.o.persistent }, 60_000);
  }
}
