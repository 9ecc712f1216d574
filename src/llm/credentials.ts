// The credential pool: several credentials for one provider runtime, with Hermes's exhaustion rules.
//
// A credential is a plain key (env var, config) or an entry of HERMES_HOME/auth.json's
// `credential_pool` (an API key or an OAuth grant that can refresh itself). The layer above builds
// them (src/auth/) and passes `PoolHooks` to persist what happens to them; this file only decides.
//
// Selection (config `credential_pool_strategies.<provider>`, as Hermes): `fill_first` (default) keeps
// using one credential until it fails, which keeps the provider's prompt cache warm; `round_robin`
// moves on with every request; `least_used` picks the one used least; `random` any available one.
// A failing credential is benched ("exhausted") and the next available one takes over:
//   401 (and the OAuth refresh failed) → 5 min      429 → 1 h      402 / other → 1 h
// and a bench the provider dated (`reset_at`, "retry after N s") ends then. The only credential of
// a pool is benched for a minute at most for transient failures (nothing to rotate to), never for 401.
// When every credential is benched `select()` returns undefined and the caller falls back.

export type KeyStrategy = 'fill_first' | 'round_robin' | 'least_used' | 'random';
export type KeyFailure = 'rate_limit' | 'billing' | 'auth' | 'forbidden';

export const STRATEGIES: readonly KeyStrategy[] = ['fill_first', 'round_robin', 'least_used', 'random'];

const MIN = 60 * 1000;
export const EXHAUSTED_TTL_401_MS = 5 * MIN;
export const EXHAUSTED_TTL_429_MS = 60 * MIN;
export const EXHAUSTED_TTL_DEFAULT_MS = 60 * MIN;
export const EXHAUSTED_TTL_SOLE_MS = 1 * MIN;

/** The HTTP status Hermes records for each failure kind. */
export const FAILURE_CODES: Record<KeyFailure, number> = { rate_limit: 429, billing: 402, auth: 401, forbidden: 403 };

/** How long a credential stays benched after failing with `code` (Hermes's `_exhausted_ttl`). */
export function exhaustedTtlMs(code: number | null | undefined, opts: { sole?: boolean; billing?: boolean } = {}): number {
  if (code === 401) return EXHAUSTED_TTL_401_MS;
  const base = code === 429 ? EXHAUSTED_TTL_429_MS : EXHAUSTED_TTL_DEFAULT_MS;
  const billing = code === 402 || !!opts.billing;
  return opts.sole && !billing ? Math.min(base, EXHAUSTED_TTL_SOLE_MS) : base;
}

/** Exhaustion state as auth.json keeps it (`last_status`, `last_status_at`, …; times in seconds). */
export interface CredentialStatus {
  lastStatus: 'ok' | 'exhausted' | 'dead' | null;
  /** Unix seconds. */
  lastStatusAt: number | null;
  lastErrorCode: number | null;
  lastErrorReason: string | null;
  lastErrorMessage: string | null;
  /** Unix seconds: the provider said when it resets. */
  lastErrorResetAt: number | null;
}

export const OK_STATUS: CredentialStatus = {
  lastStatus: null,
  lastStatusAt: null,
  lastErrorCode: null,
  lastErrorReason: null,
  lastErrorMessage: null,
  lastErrorResetAt: null,
};

/** A fresh token for an OAuth credential (and its endpoint, when the grant names one). */
export interface RefreshedToken {
  key: string;
  /** ms epoch when the token expires (refreshed again shortly before). */
  expiresAt?: number;
  baseUrl?: string;
}

export interface PoolCredential {
  /** Stable id: the auth.json entry id, or `env:NAME` for an environment key. Never the secret. */
  id: string;
  label: string;
  /** Where it came from: `manual`, `env:OPENROUTER_API_KEY`, `device_code`, `config:model.api_key`, … */
  source: string;
  authType: 'api_key' | 'oauth';
  /** The bearer sent right now. */
  key: string;
  priority: number;
  /** ms epoch when `key` expires (OAuth); refreshed before that. */
  expiresAt?: number;
  /** An endpoint this credential must be used with (Nous inference URL, Copilot API host). */
  baseUrl?: string;
  status?: CredentialStatus;
  requestCount?: number;
  /** OAuth: returns a fresh token (`force`: even if the current one has not expired), or null when the grant is gone. */
  refresh?: (force: boolean) => Promise<RefreshedToken | null>;
}

/** What the pool reports to the layer that owns the credentials (persistence in auth.json). */
export interface PoolHooks {
  onStatus?(cred: PoolCredential, status: CredentialStatus): void;
  onRefreshed?(cred: PoolCredential): void;
}

export interface SelectedKey {
  key: string;
  /** 0-based position in the pool (for messages: "key 2 of 3"; never print the key). */
  index: number;
  cred: PoolCredential;
}

/** Refresh an OAuth token this long before it expires. */
export const REFRESH_SKEW_MS = 2 * MIN;

export interface FailureInfo {
  code?: number;
  reason?: string;
  message?: string;
  /** ms epoch the provider gave for the end of the limit. */
  resetAt?: number;
}

function plainCredential(key: string, i: number): PoolCredential {
  return { id: `key:${i + 1}`, label: `key ${i + 1}`, source: 'runtime', authType: 'api_key', key, priority: i };
}

export class CredentialPool {
  readonly creds: PoolCredential[];
  readonly strategy: KeyStrategy;
  private cursor = 0;
  private readonly slowUntil = new Map<number, number>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly hooks: PoolHooks;
  private readonly refreshing = new Map<number, Promise<boolean>>();
  /** Until when (ms epoch) a credential is set aside elsewhere (provider health, shared by the process's clients). */
  private readonly sharedBench: (cred: PoolCredential) => number;

  constructor(
    creds: readonly (PoolCredential | string)[],
    opts: { strategy?: KeyStrategy; now?: () => number; random?: () => number; hooks?: PoolHooks; sharedBench?: (cred: PoolCredential) => number } = {},
  ) {
    const seen = new Set<string>();
    this.creds = [];
    creds.forEach((c, i) => {
      const cred = typeof c === 'string' ? plainCredential(c, i) : c;
      if (typeof cred.key !== 'string' || !cred.key || seen.has(cred.key)) return;
      seen.add(cred.key);
      this.creds.push({ ...cred, status: cred.status ? { ...cred.status } : { ...OK_STATUS }, requestCount: cred.requestCount ?? 0 });
    });
    this.strategy = opts.strategy ?? 'fill_first';
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.hooks = opts.hooks ?? {};
    this.sharedBench = opts.sharedBench ?? (() => 0);
  }

  get size(): number {
    return this.creds.length;
  }

  /** The keys, in order (for redaction of error messages). */
  get keys(): string[] {
    return this.creds.map((c) => c.key);
  }

  /** ms epoch until which credential `index` is benched (0 when it is available). */
  benchedUntil(index: number): number {
    const st = this.creds[index]?.status;
    if (!st) return Number.POSITIVE_INFINITY;
    if (st.lastStatus === 'dead') return Number.POSITIVE_INFINITY;
    if (st.lastStatus !== 'exhausted') return 0;
    if (st.lastErrorResetAt) return st.lastErrorResetAt * 1000;
    if (!st.lastStatusAt) return 0;
    const sole = this.creds.filter((c) => c.status?.lastStatus !== 'dead').length <= 1;
    return st.lastStatusAt * 1000 + exhaustedTtlMs(st.lastErrorCode, { sole, billing: st.lastErrorReason === 'billing' });
  }

  isAvailable(index: number): boolean {
    if (index < 0 || index >= this.creds.length) return false;
    const now = this.now();
    return this.benchedUntil(index) <= now && (this.slowUntil.get(index) ?? 0) <= now && this.sharedBench(this.creds[index]) <= now;
  }

  /**
   * Sets credential `index` aside until `untilMs` (ms epoch) because its requests went unanswered
   * (the first-byte deadline), and moves the cursor past it. Held in memory only: a silent endpoint
   * says nothing about the key, so nothing is written to auth.json.
   */
  markSlow(index: number, untilMs: number): void {
    if (index < 0 || index >= this.creds.length) return;
    this.slowUntil.set(index, untilMs);
    if (this.cursor === index) this.cursor = (index + 1) % this.creds.length;
  }

  availableCount(): number {
    return this.creds.reduce((n, _c, i) => n + (this.isAvailable(i) ? 1 : 0), 0);
  }

  /** When the earliest benched credential becomes usable again (ms epoch), or undefined if none will. */
  nextAvailableAt(): number | undefined {
    const finite = this.creds.map((c, i) => Math.max(this.benchedUntil(i), this.slowUntil.get(i) ?? 0, this.sharedBench(c))).filter((t) => Number.isFinite(t) && t > this.now());
    return finite.length ? Math.min(...finite) : undefined;
  }

  private pick(): number | undefined {
    const n = this.creds.length;
    const avail = this.creds.map((_c, i) => i).filter((i) => this.isAvailable(i));
    if (!avail.length) return undefined;
    if (this.strategy === 'random') return avail[Math.floor(this.random() * avail.length) % avail.length];
    if (this.strategy === 'least_used') return avail.reduce((best, i) => ((this.creds[i].requestCount ?? 0) < (this.creds[best].requestCount ?? 0) ? i : best), avail[0]);
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      if (this.isAvailable(i)) return i;
    }
    return undefined;
  }

  /** The credential for the next request, or undefined when every one is benched. */
  select(): SelectedKey | undefined {
    const i = this.pick();
    if (i === undefined) return undefined;
    const n = this.creds.length;
    this.cursor = this.strategy === 'round_robin' ? (i + 1) % n : i;
    const cred = this.creds[i];
    cred.requestCount = (cred.requestCount ?? 0) + 1;
    return { key: cred.key, index: i, cred };
  }

  /** The credential `select()` would return next, without selecting it. */
  peek(): SelectedKey | undefined {
    if (this.strategy === 'random' || this.strategy === 'least_used') {
      const i = this.pick();
      return i === undefined ? undefined : { key: this.creds[i].key, index: i, cred: this.creds[i] };
    }
    const n = this.creds.length;
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      if (this.isAvailable(i)) return { key: this.creds[i].key, index: i, cred: this.creds[i] };
    }
    return undefined;
  }

  /** Is there an available credential other than `index`? */
  hasAlternative(index: number): boolean {
    return this.creds.some((_c, i) => i !== index && this.isAvailable(i));
  }

  private setStatus(index: number, status: CredentialStatus): void {
    const cred = this.creds[index];
    cred.status = status;
    this.hooks.onStatus?.(cred, status);
  }

  /** Benches credential `index` after a failure and moves the cursor past it. */
  markFailed(index: number, failure: KeyFailure, info: FailureInfo = {}): void {
    if (index < 0 || index >= this.creds.length) return;
    const resetAt = info.resetAt && info.resetAt > this.now() ? info.resetAt / 1000 : null;
    this.setStatus(index, {
      lastStatus: 'exhausted',
      lastStatusAt: this.now() / 1000,
      lastErrorCode: info.code ?? FAILURE_CODES[failure],
      lastErrorReason: info.reason ?? (failure === 'billing' ? 'billing' : failure),
      lastErrorMessage: info.message ? info.message.slice(0, 500) : null,
      lastErrorResetAt: resetAt,
    });
    if (this.cursor === index) this.cursor = (index + 1) % this.creds.length;
  }

  /** A success keeps `fill_first` on this credential and clears a stale bench. */
  markSuccess(index: number): void {
    const cred = this.creds[index];
    if (!cred) return;
    this.slowUntil.delete(index);
    if (this.strategy === 'fill_first' && this.isAvailable(index)) this.cursor = index;
    if (cred.status?.lastStatus === 'exhausted') this.setStatus(index, { ...OK_STATUS, lastStatus: 'ok', lastStatusAt: this.now() / 1000 });
  }

  /** Refreshes an OAuth credential that is about to expire. Resolves to false when it cannot be used. */
  async ensureFresh(index: number): Promise<boolean> {
    const cred = this.creds[index];
    if (!cred?.refresh) return true;
    if (cred.expiresAt === undefined || cred.expiresAt - REFRESH_SKEW_MS > this.now()) return true;
    return this.refresh(index, false);
  }

  /** Forces a refresh (after a 401). True when a new token is in place. */
  async refresh(index: number, force = true): Promise<boolean> {
    const cred = this.creds[index];
    if (!cred?.refresh) return false;
    let p = this.refreshing.get(index);
    if (!p) {
      p = (async () => {
        try {
          const t = await cred.refresh!(force);
          if (!t || !t.key) return false;
          const changed = t.key !== cred.key;
          cred.key = t.key;
          cred.expiresAt = t.expiresAt;
          if (t.baseUrl) cred.baseUrl = t.baseUrl;
          if (changed) this.hooks.onRefreshed?.(cred);
          return true;
        } catch {
          return false;
        } finally {
          this.refreshing.delete(index);
        }
      })();
      this.refreshing.set(index, p);
    }
    return p;
  }

  /** How many requests each credential was selected for (diagnostics). */
  usage(): readonly number[] {
    return this.creds.map((c) => c.requestCount ?? 0);
  }
}
