// JSON-RPC 2.0 over stdio JSONL with `codex app-server`: spawn, the initialize handshake,
// request/response correlation, notifications to listeners, and server-initiated requests answered
// as they arrive (codex blocks on them, so they never wait behind anything of ours). Unknown server
// methods get -32601. stderr goes to a log callback and a short tail kept for error messages.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { InitializeParams } from './protocol/InitializeParams.ts';
import type { InitializeResponse } from './protocol/InitializeResponse.ts';
import type { ServerRequest } from './protocol/ServerRequest.ts';
import type { ThreadCompactStartParams } from './protocol/v2/ThreadCompactStartParams.ts';
import type { ThreadResumeParams } from './protocol/v2/ThreadResumeParams.ts';
import type { ThreadResumeResponse } from './protocol/v2/ThreadResumeResponse.ts';
import type { ThreadStartParams } from './protocol/v2/ThreadStartParams.ts';
import type { ThreadStartResponse } from './protocol/v2/ThreadStartResponse.ts';
import type { TurnInterruptParams } from './protocol/v2/TurnInterruptParams.ts';
import type { TurnStartParams } from './protocol/v2/TurnStartParams.ts';
import type { TurnStartResponse } from './protocol/v2/TurnStartResponse.ts';
import type { UserInput } from './protocol/v2/UserInput.ts';

/** The client requests this runtime makes, with their params and results (from the generated protocol). */
export interface ClientMethods {
  initialize: [InitializeParams, InitializeResponse];
  'thread/start': [ThreadStartParams, ThreadStartResponse];
  'thread/resume': [ThreadResumeParams, ThreadResumeResponse];
  'turn/start': [TurnStartParams, TurnStartResponse];
  'turn/interrupt': [TurnInterruptParams, Record<string, never>];
  'turn/steer': [{ threadId: string; input: UserInput[]; expectedTurnId: string }, { turnId: string }];
  'thread/compact/start': [ThreadCompactStartParams, Record<string, never>];
}

export interface Notification {
  method: string;
  params: Record<string, unknown>;
}

export class CodexRpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export interface CodexClientOptions {
  /** The codex executable. */
  bin: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Each stderr line of the subprocess (for the log). */
  log?: (line: string) => void;
  /**
   * Answers a server-initiated request. Return undefined for a method this client does not handle
   * (answered with JSON-RPC error -32601).
   */
  onServerRequest?: (req: ServerRequest) => Promise<unknown> | undefined;
  /** Default per-request timeout (ms). */
  requestTimeoutMs?: number;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}

const STDERR_TAIL = 40;

export class CodexAppServerClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly o: CodexClientOptions;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(n: Notification) => void>();
  private readonly tail: string[] = [];
  private nextId = 0;
  private exitInfo: { code: number | null; signal: string | null } | null = null;
  private spawnError: Error | null = null;
  /** Resolves when the subprocess has exited. */
  readonly exited: Promise<void>;

  private constructor(o: CodexClientOptions) {
    this.o = o;
    this.child = spawn(o.bin, ['app-server'], { env: o.env, cwd: o.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (e) => {
        this.spawnError = e;
        this.exitInfo ??= { code: null, signal: null };
        this.failAll(this.deathError());
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.failAll(this.deathError());
        resolve();
      });
    });
    this.child.stdin.on('error', () => {
      /* a dead subprocess: reported through 'exit' */
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.tail.push(line);
      if (this.tail.length > STDERR_TAIL) this.tail.shift();
      o.log?.(line);
    });
  }

  /** Spawns `codex app-server` and completes the initialize handshake. */
  static async start(o: CodexClientOptions, clientInfo: { name: string; title: string; version: string }): Promise<{ client: CodexAppServerClient; info: InitializeResponse }> {
    const client = new CodexAppServerClient(o);
    try {
      const info = await client.request('initialize', { clientInfo, capabilities: { experimentalApi: true, requestAttestation: false } }, 30_000);
      client.notify('initialized', {});
      return { client, info };
    } catch (e) {
      await client.close();
      throw e;
    }
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last stderr lines (for error messages; the caller redacts). */
  stderrTail(n = 12): string[] {
    return this.tail.slice(-n);
  }

  onNotification(fn: (n: Notification) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  request<M extends keyof ClientMethods>(method: M, params: ClientMethods[M][0], timeoutMs = this.o.requestTimeoutMs ?? 60_000): Promise<ClientMethods[M][1]> {
    if (!this.alive) return Promise.reject(this.deathError());
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const p: Pending = { resolve: resolve as (v: unknown) => void, reject };
      if (timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new CodexRpcError(-32000, `codex app-server did not answer ${method} within ${Math.round(timeoutMs / 1000)}s`));
        }, timeoutMs);
        p.timer.unref?.();
      }
      this.pending.set(id, p);
      this.write({ id, method, params });
    });
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.write({ method, params });
  }

  /** Ends the subprocess: stdin closed, then SIGTERM, then SIGKILL. */
  async close(graceMs = 2000): Promise<void> {
    if (!this.alive) return this.exited;
    this.child.stdin.end();
    const wait = (ms: number) => Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref?.())]);
    if (await wait(graceMs)) return;
    this.child.kill('SIGTERM');
    if (await wait(graceMs)) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  private write(msg: Record<string, unknown>): void {
    if (!this.alive || this.child.stdin.destroyed) return;
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.o.log?.(`(unparsable stdout line) ${line.slice(0, 200)}`);
      return;
    }
    const hasId = msg.id !== undefined && msg.id !== null;
    if (typeof msg.method === 'string' && hasId) {
      void this.answer(msg as unknown as ServerRequest & { id: number | string });
      return;
    }
    if (typeof msg.method === 'string') {
      const n: Notification = { method: msg.method, params: (msg.params ?? {}) as Record<string, unknown> };
      for (const l of [...this.listeners]) {
        try {
          l(n);
        } catch (e) {
          this.o.log?.(`notification listener failed on ${n.method}: ${(e as Error).message}`);
        }
      }
      return;
    }
    if (hasId) {
      const p = this.pending.get(Number(msg.id));
      if (!p) return;
      this.pending.delete(Number(msg.id));
      if (p.timer) clearTimeout(p.timer);
      const err = msg.error as { code?: number; message?: string } | undefined;
      if (err) p.reject(new CodexRpcError(err.code ?? -32603, err.message ?? 'codex app-server error'));
      else p.resolve(msg.result ?? {});
    }
  }

  private async answer(req: ServerRequest & { id: number | string }): Promise<void> {
    let handled: Promise<unknown> | undefined;
    try {
      handled = this.o.onServerRequest?.(req);
    } catch (e) {
      this.write({ id: req.id, error: { code: -32603, message: (e as Error).message } });
      return;
    }
    if (!handled) {
      this.o.log?.(`unsupported server request ${req.method}: answered -32601`);
      this.write({ id: req.id, error: { code: -32601, message: `Unsupported method: ${req.method}` } });
      return;
    }
    try {
      this.write({ id: req.id, result: await handled });
    } catch (e) {
      this.write({ id: req.id, error: { code: -32603, message: (e as Error).message } });
    }
  }

  private deathError(): Error {
    if (this.spawnError) {
      const code = (this.spawnError as NodeJS.ErrnoException).code;
      return new CodexRpcError(-32000, code === 'ENOENT' ? `codex was not found at "${this.o.bin}"` : `codex could not start: ${this.spawnError.message}`);
    }
    const e = this.exitInfo;
    return new CodexRpcError(-32000, `codex app-server exited${e?.code !== null && e?.code !== undefined ? ` with code ${e.code}` : e?.signal ? ` on ${e.signal}` : ''}`);
  }

  private failAll(e: Error): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (p.timer) clearTimeout(p.timer);
      p.reject(e);
    }
  }
}
