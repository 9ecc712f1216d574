// Keeps each platform connected: a per-platform connect timeout, and a platform that fails (at
// start or later) reconnects in the background with exponential backoff (5 s doubling to 5 min,
// with jitter) while the others keep serving. Status goes to HERMES_HOME/gateway_state.json for
// `hermes gateway status`; a platform failing for 2 hours is marked `needs_attention`. A platform
// whose configuration cannot work (PlatformSetupError) is marked `failed` and not retried.
import { join } from 'node:path';
import { writeJson } from './json-file.ts';
import type { GatewayRunner } from './runner.ts';
import { PlatformSetupError, type PlatformAdapter } from './types.ts';

/** `failed`: the platform's configuration can never work (PlatformSetupError); it is not retried. */
export type PlatformState = 'connecting' | 'connected' | 'reconnecting' | 'needs_attention' | 'paused' | 'failed' | 'stopped';

export interface PlatformStatus {
  state: PlatformState;
  since: string;
  attempts: number;
  last_error?: string;
  next_retry_at?: string;
}

export const BACKOFF_START_MS = 5000;
export const BACKOFF_MAX_MS = 300_000;
const ATTENTION_AFTER_MS = 2 * 3600_000;

export function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export function statePath(home: string): string {
  return join(home, 'gateway_state.json');
}

export class Supervisor {
  readonly status = new Map<string, PlatformStatus>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failingSince = new Map<string, number>();
  private readonly runner: GatewayRunner;
  private readonly connectTimeoutMs: number;
  private readonly startedAt = new Date().toISOString();
  private stopped = false;
  private readonly adapters = new Map<string, PlatformAdapter>();
  private readonly backoff: (attempt: number) => number;
  /** The delivery ledger's counts, written into gateway_state.json with the rest (status pages read them). */
  ledger: import('../state/delivery-ledger.ts').LedgerCounts | null = null;

  constructor(runner: GatewayRunner, opts: { connectTimeoutMs: number; backoff?: (attempt: number) => number }) {
    this.runner = runner;
    this.connectTimeoutMs = opts.connectTimeoutMs;
    this.backoff = opts.backoff ?? ((a) => backoffMs(a));
  }

  private set(name: string, s: Partial<PlatformStatus> & { state: PlatformState }): void {
    const prev = this.status.get(name);
    this.status.set(name, { since: prev?.state === s.state ? prev.since : new Date().toISOString(), attempts: 0, ...prev, ...s });
    this.writeState();
  }

  writeState(extra: Record<string, unknown> = {}): void {
    try {
      writeJson(statePath(this.runner.home), { pid: process.pid, started_at: this.startedAt, updated_at: new Date().toISOString(), platforms: Object.fromEntries(this.status), ...(this.ledger ? { ledger: this.ledger } : {}), ...extra }, 0o644);
    } catch {
      /* status is informational */
    }
  }

  /** Connects every adapter (in parallel); resolves when each has connected or failed once. */
  async start(adapters: PlatformAdapter[]): Promise<void> {
    await Promise.all(adapters.map((a) => this.connect(a, 1)));
  }

  private async connect(adapter: PlatformAdapter, attempt: number): Promise<void> {
    if (this.stopped) return;
    const name = adapter.name;
    this.adapters.set(name, adapter);
    this.set(name, { state: attempt === 1 ? 'connecting' : 'reconnecting', attempts: attempt });
    let timer: NodeJS.Timeout | undefined;
    try {
      const handlers = this.runner.handlersFor(adapter);
      await Promise.race([
        adapter.connect({
          ...handlers,
          disconnected: (e) => {
            if (this.stopped) return;
            this.runner.log(`${name}: connection lost: ${e.message}; reconnecting in the background`);
            this.runner.detached(name);
            void adapter.disconnect().catch(() => undefined);
            this.retry(adapter, 1, e);
          },
        }),
        new Promise<never>((_, rej) => {
          timer = setTimeout(() => rej(new Error(`no connection within ${Math.round(this.connectTimeoutMs / 1000)}s`)), this.connectTimeoutMs);
        }),
      ]);
      if (timer) clearTimeout(timer);
      if (this.stopped) {
        await adapter.disconnect().catch(() => undefined);
        return;
      }
      this.failingSince.delete(name);
      this.set(name, { state: 'connected', attempts: attempt, last_error: undefined, next_retry_at: undefined });
      this.runner.log(`${name}: connected${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`);
      this.runner.attached(adapter);
    } catch (e) {
      if (timer) clearTimeout(timer);
      await adapter.disconnect().catch(() => undefined);
      if (e instanceof PlatformSetupError) {
        this.fail(name, e.message);
        return;
      }
      this.runner.log(`${name}: could not connect: ${(e as Error).message}`);
      this.retry(adapter, attempt + 1, e as Error);
    }
  }

  private retry(adapter: PlatformAdapter, attempt: number, err: Error): void {
    if (this.stopped) return;
    const name = adapter.name;
    if (!this.failingSince.has(name)) this.failingSince.set(name, Date.now());
    const delay = this.backoff(attempt - 1);
    const attention = Date.now() - this.failingSince.get(name)! > ATTENTION_AFTER_MS;
    this.set(name, { state: attention ? 'needs_attention' : 'reconnecting', attempts: attempt - 1, last_error: err.message, next_retry_at: new Date(Date.now() + delay).toISOString() });
    const t = setTimeout(() => {
      this.timers.delete(name);
      void this.connect(adapter, attempt);
    }, delay);
    t.unref?.();
    this.timers.set(name, t);
  }

  /** A platform that cannot start as configured (not retried). */
  fail(name: string, reason: string): void {
    this.runner.log(`${name}: cannot start: ${reason}`);
    this.set(name, { state: 'failed', last_error: reason, next_retry_at: undefined });
  }

  /** Platforms that failed for good, with the reason. */
  failed(): { name: string; reason: string }[] {
    return [...this.status].filter(([, s]) => s.state === 'failed').map(([name, s]) => ({ name, reason: s.last_error ?? 'cannot start' }));
  }

  /** /platform pause: a platform in the retry queue stops being retried until resumed. */
  pause(name: string): string {
    const st = this.status.get(name);
    if (!st || !this.adapters.has(name)) return `Unknown platform: ${name}`;
    if (st.state === 'paused') return `${name} is already paused.`;
    if (st.state !== 'reconnecting' && st.state !== 'needs_attention') return `${name} is not in the retry queue (it is ${st.state}).`;
    const t = this.timers.get(name);
    if (t) clearTimeout(t);
    this.timers.delete(name);
    this.set(name, { state: 'paused', next_retry_at: undefined });
    this.runner.log(`${name}: paused via /platform pause`);
    return `✓ ${name} paused. Resume with /platform resume ${name}, or restart the gateway.`;
  }

  /** /platform resume: a paused platform is retried at once. */
  resume(name: string): string {
    const st = this.status.get(name);
    const adapter = this.adapters.get(name);
    if (!st || !adapter) return `Unknown platform: ${name}`;
    if (st.state !== 'paused') return `${name} is not paused (it is ${st.state}); nothing to resume.`;
    this.runner.log(`${name}: resumed via /platform resume`);
    void this.connect(adapter, (st.attempts ?? 0) + 1);
    return `✓ ${name} resumed: retrying now.`;
  }

  connected(): PlatformAdapter[] {
    return [...this.adapters.values()].filter((a) => this.status.get(a.name)?.state === 'connected');
  }

  /**
   * Another gateway of the cluster owns `name` now: this one stops taking its messages (no retry);
   * sending keeps working for the replies of turns still running. `start` connects it again.
   */
  async release(name: string): Promise<void> {
    const t = this.timers.get(name);
    if (t) clearTimeout(t);
    this.timers.delete(name);
    const a = this.adapters.get(name);
    if (!a) return;
    this.set(name, { state: 'stopped', next_retry_at: undefined });
    await (a.stopIntake ? a.stopIntake() : a.disconnect()).catch(() => undefined);
  }

  /** Stops reconnecting and stops intake on every platform (sending keeps working for the drain). */
  async stopIntake(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.adapters.values()].map((a) => a.stopIntake?.().catch(() => undefined)));
  }

  async disconnectAll(): Promise<void> {
    await Promise.all(
      [...this.adapters.values()].map(async (a) => {
        await a.disconnect().catch(() => undefined);
        this.set(a.name, { state: 'stopped' });
      }),
    );
  }
}
