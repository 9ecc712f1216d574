// Warm session runtimes, by session key: a conversation that continues keeps its Session (tools
// built, prompt cache warm at the provider). Least recently used first out past `maxSize`; idle
// longer than `idleTtlMs` out on the next sweep. A busy runtime is never evicted. Evicting releases
// resources only: the conversation stays in the store and comes back on the next message.

import { totalmem } from 'node:os';

/** A warm runtime's memory, generously (its Session, tools, history): a generous upper estimate. */
const WARM_BYTES = 32 * 1024 * 1024;
/**
 * The default warm-cache size when agent.agent_cache.max_size is not set: what 1/32 of the machine's
 * memory holds at WARM_BYTES a runtime's worth, never under Hermes's 128 and never over 1024 (a 4 GB
 * machine keeps 128, 8 GB 256, 24 GB about 750). A runtime rebuilt from state.db costs a turn far more than
 * a warm hit, so a gateway with the memory to spare keeps every active chat warm.
 */
export function defaultCacheSize(memBytes: number = totalmem()): number {
  return Math.max(128, Math.min(1024, Math.floor(memBytes / WARM_BYTES)));
}

export interface Evictable {
  readonly busy: boolean;
}

export class WarmCache<T extends Evictable> {
  private readonly map = new Map<string, { value: T; usedAt: number }>();
  readonly maxSize: number;
  readonly idleTtlMs: number;
  private readonly onEvict: (key: string, value: T, why: 'lru' | 'idle' | 'clear') => void;
  private readonly now: () => number;

  constructor(opts: { maxSize: number; idleTtlMs: number; onEvict: (key: string, value: T, why: 'lru' | 'idle' | 'clear') => void; now?: () => number }) {
    this.maxSize = Math.max(1, opts.maxSize);
    this.idleTtlMs = opts.idleTtlMs;
    this.onEvict = opts.onEvict;
    this.now = opts.now ?? Date.now;
  }

  get(key: string): T | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    e.usedAt = this.now();
    this.map.set(key, e);
    return e.value;
  }

  peek(key: string): T | undefined {
    return this.map.get(key)?.value;
  }

  set(key: string, value: T): void {
    this.map.delete(key);
    this.map.set(key, { value, usedAt: this.now() });
    this.trim();
  }

  delete(key: string): T | undefined {
    const e = this.map.get(key);
    this.map.delete(key);
    return e?.value;
  }

  private trim(): void {
    if (this.map.size <= this.maxSize) return;
    for (const [k, e] of this.map) {
      if (this.map.size <= this.maxSize) break;
      if (e.value.busy) continue;
      this.map.delete(k);
      this.onEvict(k, e.value, 'lru');
    }
  }

  /** Evicts runtimes idle longer than the TTL. Returns how many went. */
  sweep(): number {
    const cutoff = this.now() - this.idleTtlMs;
    let n = 0;
    for (const [k, e] of [...this.map]) {
      if (e.usedAt < cutoff && !e.value.busy) {
        this.map.delete(k);
        this.onEvict(k, e.value, 'idle');
        n++;
      }
    }
    return n;
  }

  clear(): void {
    for (const [k, e] of [...this.map]) {
      this.map.delete(k);
      this.onEvict(k, e.value, 'clear');
    }
  }

  keys(): string[] {
    return [...this.map.keys()];
  }

  values(): T[] {
    return [...this.map.values()].map((e) => e.value);
  }

  get size(): number {
    return this.map.size;
  }
}
