// The credential pool: several keys for one provider runtime, with cooldowns.
//
// Selection: `fill_first` (default, as Hermes) keeps using one key until it fails, which keeps the
// provider's prompt cache warm; `round_robin` moves to the next key on every request. Either way a
// failing key hands over to the next available one in order (wrapping around):
//   429 rate limit → cooldown 1 h     402 billing → cooldown 24 h
//   401 auth → marked bad for the life of the pool     403 forbidden → cooldown 1 h
// When every key is bad or cooling down, `select()` returns undefined and the caller falls back.

export type KeyStrategy = 'fill_first' | 'round_robin';
export type KeyFailure = 'rate_limit' | 'billing' | 'auth' | 'forbidden';

export const COOLDOWN_MS: Record<KeyFailure, number> = {
  rate_limit: 60 * 60 * 1000,
  billing: 24 * 60 * 60 * 1000,
  forbidden: 60 * 60 * 1000,
  auth: Number.POSITIVE_INFINITY,
};

export interface SelectedKey {
  key: string;
  /** 0-based position in the pool (for messages: "key 2 of 3"; never print the key). */
  index: number;
}

export class CredentialPool {
  readonly keys: readonly string[];
  readonly strategy: KeyStrategy;
  private readonly until: number[];
  private readonly uses: number[];
  private cursor = 0;
  private readonly now: () => number;

  constructor(keys: readonly string[], opts: { strategy?: KeyStrategy; now?: () => number } = {}) {
    this.keys = [...new Set(keys.filter((k) => typeof k === 'string' && k.length > 0))];
    this.strategy = opts.strategy ?? 'fill_first';
    this.now = opts.now ?? Date.now;
    this.until = this.keys.map(() => 0);
    this.uses = this.keys.map(() => 0);
  }

  get size(): number {
    return this.keys.length;
  }

  isAvailable(index: number): boolean {
    return index >= 0 && index < this.keys.length && this.until[index] <= this.now();
  }

  availableCount(): number {
    return this.keys.reduce((n, _k, i) => n + (this.isAvailable(i) ? 1 : 0), 0);
  }

  /** When the earliest cooling key becomes usable again (ms epoch), or undefined if none will. */
  nextAvailableAt(): number | undefined {
    const finite = this.until.filter((t) => Number.isFinite(t) && t > this.now());
    return finite.length ? Math.min(...finite) : undefined;
  }

  /** The key for the next request, or undefined when every key is bad or cooling down. */
  select(): SelectedKey | undefined {
    const n = this.keys.length;
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      if (!this.isAvailable(i)) continue;
      this.cursor = this.strategy === 'round_robin' ? (i + 1) % n : i;
      this.uses[i]++;
      return { key: this.keys[i], index: i };
    }
    return undefined;
  }

  /** The key `select()` would return next, without selecting it. */
  peek(): SelectedKey | undefined {
    const n = this.keys.length;
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      if (this.isAvailable(i)) return { key: this.keys[i], index: i };
    }
    return undefined;
  }

  /** Is there an available key other than `index`? */
  hasAlternative(index: number): boolean {
    return this.keys.some((_k, i) => i !== index && this.isAvailable(i));
  }

  /** Puts key `index` out of service for the failure's cooldown and moves the cursor past it. */
  markFailed(index: number, failure: KeyFailure): void {
    if (index < 0 || index >= this.keys.length) return;
    this.until[index] = this.now() + COOLDOWN_MS[failure];
    if (this.cursor === index) this.cursor = (index + 1) % this.keys.length;
  }

  /** A success clears nothing but keeps `fill_first` on this key. */
  markSuccess(index: number): void {
    if (this.strategy === 'fill_first' && this.isAvailable(index)) this.cursor = index;
  }

  /** How many requests each key was selected for (diagnostics). */
  usage(): readonly number[] {
    return [...this.uses];
  }
}
