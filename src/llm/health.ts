// Provider health: what each provider target (provider + endpoint + model) and each of its keys
// did lately — requests, errors, time to the first byte, stalls, first-byte timeouts — and whether
// it is tripped: left for the fallback chain because it went silent (first-byte deadline), stalled
// twice, or failed past its retries. A tripped target is probed in the background with a one-token
// request (the probe the client gives when it trips it) at growing intervals, and is healthy again as
// soon as a probe, or any real request, is answered. Per key, a key that was rate limited, rejected
// or silent is set aside (`benchKey`) for every client of the process, which take the provider's
// next healthy key before falling back; an answered request lifts it.
//
// One registry per process (`sharedHealth()`): the main conversation, auxiliary tasks and every
// gateway session share it, so one session's silent provider is left at once by the next. A store
// (injected by the runtime: a small JSON file under HERMES_HOME) lets `hermes status`, the
// dashboard and other processes see it; trips another process recorded in the last ten minutes are
// honoured when the store is attached. Nothing here touches the file system itself.

import type { ProviderError, StreamFault } from './types.ts';

export interface HealthTarget {
  provider: string;
  baseUrl: string;
  model: string;
}

export interface KeyHealth {
  requests: number;
  errors: number;
  firstByteTimeouts: number;
  stalls: number;
  /** Milliseconds from sending to the first byte: the last one and a moving average. */
  lastTtfbMs?: number;
  avgTtfbMs?: number;
  /**
   * Keys only: set aside until then (ms epoch) because it was rate limited, rejected or silent —
   * every client of the process skips it for the next healthy key of the same provider.
   */
  benchedUntil?: number;
  benchReason?: string;
}

export interface TargetHealth extends KeyHealth {
  provider: string;
  baseUrl: string;
  model: string;
  state: 'ok' | 'tripped';
  /** Why it was tripped (one line). */
  reason?: string;
  /** ms epoch. */
  trippedAt?: number;
  recoveredAt?: number;
  /** Errors since the last success. */
  consecutiveErrors: number;
  lastError?: { at: number; kind: string; fault?: StreamFault; message: string };
  /** Probes sent in the current trip. */
  probes: number;
  lastProbe?: { at: number; ok: boolean; error?: string };
  nextProbeAt?: number;
  /** Counts the trips: a client announces a trip once per episode. */
  episode: number;
  /** Per credential id (never the secret). */
  keys: Record<string, KeyHealth>;
  updatedAt: number;
  /** The process that recorded this (a trip by another process is honoured only while recent). */
  pid?: number;
}

export interface HealthStore {
  load(): Record<string, TargetHealth> | null;
  /**
   * `all()` gives every target (called only when the store writes). `now`: a state change (trip,
   * recovery) to write at once; otherwise the store may wait.
   */
  save(all: () => Record<string, TargetHealth>, now: boolean): void;
}

export interface HealthOptions {
  now?: () => number;
  /** First probe this long after a trip, doubling up to `probeMaxMs` (default HERMES_PROVIDER_PROBE_INTERVAL, 15 s). */
  probeIntervalMs?: number;
  probeMaxMs?: number;
}

/** A trip recorded by another process is honoured this long. */
export const FOREIGN_TRIP_TTL_MS = 10 * 60_000;
const EWMA = 0.3;

/** An endpoint as health keeps it: without user info or a query, which may carry credentials. */
const cleanUrl = (u: string): string => u.replace(/^([a-z]+:\/\/)[^/@]*@/i, '$1').replace(/[?#].*$/, '');
export const targetId = (t: HealthTarget): string => `${t.provider}\u0000${cleanUrl(t.baseUrl)}\u0000${t.model}`;
export const targetLabel = (t: Pick<HealthTarget, 'provider' | 'model'>): string => `${t.provider}:${t.model}`;

function envProbeMs(): number | undefined {
  const raw = typeof process !== 'undefined' ? process.env.HERMES_PROVIDER_PROBE_INTERVAL : undefined;
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n * 1000 : undefined;
}

const blankKey = (): KeyHealth => ({ requests: 0, errors: 0, firstByteTimeouts: 0, stalls: 0 });

function addSample(h: KeyHealth, ok: boolean, ttfbMs: number | undefined, error: ProviderError | undefined): void {
  h.requests++;
  if (!ok) h.errors++;
  if (error?.fault === 'first_byte') h.firstByteTimeouts++;
  if (error?.fault === 'stall') h.stalls++;
  if (ttfbMs !== undefined) {
    h.lastTtfbMs = Math.round(ttfbMs);
    h.avgTtfbMs = Math.round(h.avgTtfbMs === undefined ? ttfbMs : h.avgTtfbMs + EWMA * (ttfbMs - h.avgTtfbMs));
  }
}

export class ProviderHealth {
  private readonly targets = new Map<string, TargetHealth>();
  private readonly probes = new Map<string, () => Promise<boolean>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<(t: TargetHealth) => void>();
  private store: HealthStore | null = null;
  private readonly o: HealthOptions;

  constructor(o: HealthOptions = {}) {
    this.o = o;
  }

  private get now(): number {
    return (this.o.now ?? Date.now)();
  }

  /**
   * Where health is kept for other processes; the first store attached wins. Trips another process
   * recorded recently are taken over (and probed here once a client registers a probe).
   */
  attachStore(store: HealthStore): void {
    if (this.store) return;
    this.store = store;
    let loaded: Record<string, TargetHealth> | null = null;
    try {
      loaded = store.load();
    } catch {
      loaded = null;
    }
    for (const [id, t] of Object.entries(loaded ?? {})) {
      if (this.targets.has(id) || !t || typeof t !== 'object') continue;
      const fresh = t.state === 'tripped' && typeof t.trippedAt === 'number' && this.now - t.trippedAt < FOREIGN_TRIP_TTL_MS;
      // Key benches are this process's: another process may number its keys differently.
      const keys = Object.fromEntries(Object.entries(t.keys ?? {}).map(([k, v]) => [k, { ...v, benchedUntil: undefined, benchReason: undefined }]));
      this.targets.set(id, { ...t, keys, state: fresh ? 'tripped' : 'ok', probes: fresh ? (t.probes ?? 0) : 0, nextProbeAt: undefined });
    }
  }

  /** Called on every trip and recovery (the gateway's log, tests). Returns the unsubscribe. */
  onChange(fn: (t: TargetHealth) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private entry(t: HealthTarget): TargetHealth {
    const id = targetId(t);
    let e = this.targets.get(id);
    if (!e) {
      e = { provider: t.provider, baseUrl: cleanUrl(t.baseUrl), model: t.model, state: 'ok', consecutiveErrors: 0, probes: 0, episode: 0, keys: {}, updatedAt: this.now, ...blankKey() };
      this.targets.set(id, e);
    }
    return e;
  }

  get(t: HealthTarget): TargetHealth | undefined {
    return this.targets.get(targetId(t));
  }

  isTripped(t: HealthTarget): boolean {
    return this.targets.get(targetId(t))?.state === 'tripped';
  }

  /** Every target seen, most recently updated first. */
  snapshot(): TargetHealth[] {
    return [...this.targets.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /**
   * Sets key `keyId` of `t` aside until `untilMs` for every client of this process (a 429, a
   * rejected key, a key whose request went unanswered): they use the next healthy key of the same
   * provider before anything falls back to another provider. An answered request lifts it.
   */
  benchKey(t: HealthTarget, keyId: string, untilMs: number, reason: string): void {
    const e = this.entry(t);
    const k = (e.keys[keyId] ??= blankKey());
    k.benchedUntil = Math.round(Math.min(untilMs, this.now + 24 * 3600_000));
    k.benchReason = reason.slice(0, 200);
    e.updatedAt = this.now;
    this.save(true);
  }

  /** Until when (ms epoch) key `keyId` of `t` is set aside; 0 when it is usable. */
  keyBenchedUntil(t: HealthTarget, keyId: string): number {
    const until = this.targets.get(targetId(t))?.keys[keyId]?.benchedUntil ?? 0;
    return until > this.now ? until : 0;
  }

  /** One attempt's outcome. A success of a tripped target recovers it. */
  record(t: HealthTarget, keyId: string, outcome: { ok: boolean; ttfbMs?: number; error?: ProviderError }): void {
    const e = this.entry(t);
    addSample(e, outcome.ok, outcome.ttfbMs, outcome.error);
    const key = (e.keys[keyId] ??= blankKey());
    addSample(key, outcome.ok, outcome.ttfbMs, outcome.error);
    if (outcome.ok && key.benchedUntil !== undefined) {
      key.benchedUntil = undefined;
      key.benchReason = undefined;
    }
    e.updatedAt = this.now;
    e.pid = typeof process !== 'undefined' ? process.pid : undefined;
    if (outcome.ok) {
      e.consecutiveErrors = 0;
      if (e.state === 'tripped') return this.recover(e, 'a request was answered');
    } else if (outcome.error) {
      e.consecutiveErrors++;
      e.lastError = { at: this.now, kind: outcome.error.kind, message: outcome.error.message.slice(0, 300), ...(outcome.error.fault ? { fault: outcome.error.fault } : {}) };
    }
    this.save(false);
  }

  /**
   * Leaves `t` for the fallback chain until it answers again; `probe` sends one cheap request and
   * resolves true when it was answered. Tripping a tripped target only updates its reason.
   */
  trip(t: HealthTarget, reason: string, probe: () => Promise<boolean>): void {
    const e = this.entry(t);
    const id = targetId(t);
    this.probes.set(id, probe);
    e.reason = reason;
    e.updatedAt = this.now;
    if (e.state !== 'tripped') {
      e.state = 'tripped';
      e.trippedAt = this.now;
      e.probes = 0;
      e.episode++;
      this.changed(e);
    }
    this.schedule(id);
    this.save(true);
  }

  /** Registers how to probe `t` (a trip another process recorded gets probed from here too). */
  probeWith(t: HealthTarget, probe: () => Promise<boolean>): void {
    const id = targetId(t);
    if (this.probes.has(id)) return;
    this.probes.set(id, probe);
    if (this.targets.get(id)?.state === 'tripped') this.schedule(id);
  }

  private schedule(id: string): void {
    const e = this.targets.get(id);
    if (!e || e.state !== 'tripped' || this.timers.has(id) || !this.probes.has(id)) return;
    const base = this.o.probeIntervalMs ?? envProbeMs() ?? 15_000;
    const wait = Math.min(this.o.probeMaxMs ?? 5 * 60_000, base * 2 ** Math.min(e.probes, 10));
    e.nextProbeAt = this.now + wait;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      void this.runProbe(id);
    }, wait);
    timer.unref?.();
    this.timers.set(id, timer);
  }

  private async runProbe(id: string): Promise<void> {
    const e = this.targets.get(id);
    const probe = this.probes.get(id);
    if (!e || !probe || e.state !== 'tripped') return;
    e.probes++;
    let ok = false;
    let error: string | undefined;
    try {
      ok = await probe();
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    e.lastProbe = { at: this.now, ok, ...(error ? { error } : {}) };
    e.updatedAt = this.now;
    if (e.state !== 'tripped') return;
    if (ok) this.recover(e, 'the probe was answered');
    else {
      this.save(false);
      this.schedule(id);
    }
  }

  private recover(e: TargetHealth, _why: string): void {
    e.state = 'ok';
    e.recoveredAt = this.now;
    e.nextProbeAt = undefined;
    e.consecutiveErrors = 0;
    const id = targetId(e);
    const timer = this.timers.get(id);
    if (timer) clearTimeout(timer);
    this.timers.delete(id);
    this.changed(e);
    this.save(true);
  }

  private changed(e: TargetHealth): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {
        /* a listener's problem is its own */
      }
    }
  }

  private save(now: boolean): void {
    if (!this.store) return;
    try {
      this.store.save(() => Object.fromEntries(this.targets), now);
    } catch {
      /* health is advisory: a full disk must not fail a request */
    }
  }

  /** Stops the probes (tests, shutdown). */
  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

const shared = new Map<string, ProviderHealth>();
/**
 * The process's registry for `scope` (the runtime uses the HERMES_HOME: sessions of one home share
 * it, another home in the same process has its own); clients without a registry of their own use
 * the unscoped one.
 */
export function sharedHealth(scope = ''): ProviderHealth {
  let h = shared.get(scope);
  if (!h) shared.set(scope, (h = new ProviderHealth()));
  return h;
}
