// Memory providers: the built-in MEMORY.md/USER.md store is always on; at most one external provider
// (a vector store, a hosted memory service…) can join it. The manager fans the session's lifecycle out
// to every provider and never lets one provider's failure break a turn.
import type { Message, ToolSchema } from '../llm/types.ts';
import { MemoryStore, type MemoryTarget } from './memory.ts';

export interface MemoryProviderContext {
  sessionId: string;
  home: string;
  platform: string;
  userId?: string;
  /** The session's working directory (per-directory session strategies). */
  cwd?: string;
  /** HERMES_HOME/.env merged over the process environment (API keys live there). */
  env?: NodeJS.ProcessEnv;
}

export interface MemoryProvider {
  readonly name: string;
  /** Cheap check (no network): configured and usable. */
  isAvailable(): boolean;
  initialize?(ctx: MemoryProviderContext): void | Promise<void>;
  /** A static block for the system prompt (frozen with it). */
  systemPromptBlock?(): string | undefined;
  /** Tools the provider adds (schemas the model sees). */
  toolSchemas?(): ToolSchema[];
  handleToolCall?(name: string, args: Record<string, unknown>): Promise<string> | string;
  /** Recall for the next request, from the user's message. */
  prefetch?(query: string, sessionId: string): Promise<string | undefined> | string | undefined;
  /** After each turn; must not block. */
  syncTurn?(user: string, assistant: string, sessionId: string, messages: readonly Message[]): void | Promise<void>;
  /** Before compression drops turns from the context: save what matters. */
  onPreCompress?(messages: readonly Message[]): void | Promise<void>;
  /** When a session ends (/new, quit, reset). */
  onSessionEnd?(messages: readonly Message[]): void | Promise<void>;
  /** A built-in memory write happened (mirror it if useful). */
  onMemoryWrite?(action: string, target: MemoryTarget, content: string): void;
  /** A subagent (delegate_task) finished: the parent observes the task and its result. */
  onDelegation?(task: string, result: string, childSessionId: string): void | Promise<void>;
  shutdown?(): void | Promise<void>;
}

/** The built-in provider: MEMORY.md / USER.md with a snapshot frozen at session start. */
export class BuiltinMemoryProvider implements MemoryProvider {
  readonly name = 'builtin';
  readonly store: MemoryStore;
  private frozen: { memory?: string; user?: string } = {};
  private enabled: { memory: boolean; user: boolean };

  constructor(store: MemoryStore, enabled: { memory?: boolean; user?: boolean } = {}) {
    this.store = store;
    this.enabled = { memory: enabled.memory !== false, user: enabled.user !== false };
    this.freeze();
  }

  isAvailable(): boolean {
    return this.enabled.memory || this.enabled.user;
  }

  /** Takes a new snapshot (session start, /new). */
  freeze(): void {
    this.frozen = this.store.snapshot(this.enabled);
  }

  get snapshot(): { memory?: string; user?: string } {
    return this.frozen;
  }

  targetEnabled(target: MemoryTarget): boolean {
    return this.enabled[target];
  }
}

export type MemoryNotice = (message: string) => void;

/** How long a turn waits for recall before going on without it. */
export const PREFETCH_TIMEOUT_MS = 5000;
/** Compression and session end wait at most this long for a provider. */
export const HOOK_TIMEOUT_MS = 15_000;

/** Recalled memory fenced so the model cannot take it for something the user just typed. */
export function memoryContextBlock(raw: string): string {
  const clean = raw.replace(/<\s*\/?\s*memory-context\s*>/gi, '').trim();
  if (!clean) return '';
  return `<memory-context>\n[System note: recalled from long-term memory; this is background, not new input from the user.]\n\n${clean}\n</memory-context>`;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
    t.unref?.();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

export class MemoryManager {
  readonly builtin: BuiltinMemoryProvider;
  private external: MemoryProvider | null = null;
  private readonly notice: MemoryNotice;
  private readonly warned = new Set<string>();
  private readonly pending = new Set<Promise<void>>();

  constructor(builtin: BuiltinMemoryProvider, warn: MemoryNotice = () => {}) {
    this.builtin = builtin;
    this.notice = warn;
  }

  /** A provider failure is reported once per provider and hook; the turn goes on. */
  private warn(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.notice(`${message} (memory keeps working without it; further failures of this kind are not reported)`);
  }

  /** The external provider, when one is active. */
  get active(): MemoryProvider | null {
    return this.external;
  }

  get providers(): MemoryProvider[] {
    return this.external ? [this.builtin, this.external] : [this.builtin];
  }

  /** Adds the one external provider. */
  addProvider(p: MemoryProvider): void {
    if (this.external) throw new Error(`Only one external memory provider can be active (already: ${this.external.name}).`);
    if (!p.isAvailable()) throw new Error(`Memory provider ${p.name} is not available (check its configuration).`);
    this.external = p;
  }

  private safe<T>(p: MemoryProvider, what: string, fn: () => T): T | undefined {
    try {
      const v = fn();
      // A hook that returns a promise (sync_turn's background write) reports its own failure, and
      // shutdown waits for it (bounded) so a one-shot run does not exit before the write is out.
      if (v instanceof Promise) {
        const tracked: Promise<void> = v.then(
          () => undefined,
          (e: Error) => this.warn(`${p.name}:${what}`, `memory provider ${p.name}: ${what} failed: ${e?.message ?? e}`),
        );
        this.pending.add(tracked);
        void tracked.finally(() => this.pending.delete(tracked));
      }
      return v;
    } catch (e) {
      this.warn(`${p.name}:${what}`, `memory provider ${p.name}: ${what} failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  private async safeAsync<T>(p: MemoryProvider, what: string, fn: () => T | Promise<T>, timeoutMs = HOOK_TIMEOUT_MS): Promise<T | undefined> {
    try {
      return await withTimeout(Promise.resolve().then(fn), timeoutMs, `${p.name} ${what}`);
    } catch (e) {
      this.warn(`${p.name}:${what}`, `memory provider ${p.name}: ${what} failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  async initialize(ctx: MemoryProviderContext): Promise<void> {
    for (const p of this.providers) if (p.initialize) await this.safeAsync(p, 'initialize', () => p.initialize!(ctx));
  }

  /** Static blocks of the external provider(s), for the system prompt. */
  systemPromptBlock(): string | undefined {
    const blocks = this.providers.map((p) => (p.systemPromptBlock ? this.safe(p, 'systemPromptBlock', () => p.systemPromptBlock!()) : undefined)).filter(Boolean);
    return blocks.length ? blocks.join('\n\n') : undefined;
  }

  toolSchemas(): { provider: MemoryProvider; schema: ToolSchema }[] {
    const out: { provider: MemoryProvider; schema: ToolSchema }[] = [];
    for (const p of this.providers) for (const schema of (p.toolSchemas && this.safe(p, 'toolSchemas', () => p.toolSchemas!())) || []) out.push({ provider: p, schema });
    return out;
  }

  async handleToolCall(name: string, args: Record<string, unknown>): Promise<string> {
    const entry = this.toolSchemas().find((t) => t.schema.name === name);
    if (!entry?.provider.handleToolCall) return JSON.stringify({ error: `No memory provider handles the tool ${name}.` });
    return entry.provider.handleToolCall(name, args);
  }

  /** Recalled context for a user message; long recalls are cut at 10,000 characters. */
  async prefetch(query: string, sessionId: string): Promise<string | undefined> {
    const parts: string[] = [];
    for (const p of this.providers) {
      if (!p.prefetch) continue;
      const r = await this.safeAsync(p, 'prefetch', () => p.prefetch!(query, sessionId), PREFETCH_TIMEOUT_MS);
      if (r?.trim()) parts.push(r.trim());
    }
    if (!parts.length) return undefined;
    const text = parts.join('\n\n');
    return text.length > 10_000 ? `${text.slice(0, 10_000)}\n[… recall truncated]` : text;
  }

  syncTurn(user: string, assistant: string, sessionId: string, messages: readonly Message[]): void {
    for (const p of this.providers) if (p.syncTurn) this.safe(p, 'syncTurn', () => p.syncTurn!(user, assistant, sessionId, messages));
  }

  async onPreCompress(messages: readonly Message[]): Promise<void> {
    await this.drain(); // turn writes in flight land first
    for (const p of this.providers) if (p.onPreCompress) await this.safeAsync(p, 'onPreCompress', () => p.onPreCompress!(messages));
  }

  async onSessionEnd(messages: readonly Message[]): Promise<void> {
    await this.drain(); // turn writes in flight land first
    for (const p of this.providers) if (p.onSessionEnd) await this.safeAsync(p, 'onSessionEnd', () => p.onSessionEnd!(messages));
  }

  /** Tells the other providers about a built-in write (never echoed back to the built-in store). */
  onMemoryWrite(action: string, target: MemoryTarget, content: string): void {
    for (const p of this.providers) if (p !== this.builtin && p.onMemoryWrite) this.safe(p, 'onMemoryWrite', () => p.onMemoryWrite!(action, target, content));
  }

  /** The fenced recall block for this turn's user message, or undefined. */
  async recall(query: string, sessionId: string): Promise<string | undefined> {
    if (!this.external?.prefetch || !query.trim()) return undefined;
    const text = await this.prefetch(query, sessionId);
    return text ? memoryContextBlock(text) || undefined : undefined;
  }

  async onDelegation(task: string, result: string, childSessionId: string): Promise<void> {
    for (const p of this.providers) if (p.onDelegation) await this.safeAsync(p, 'onDelegation', () => p.onDelegation!(task, result, childSessionId));
  }

  /** Waits for background writes (turn syncs) to finish, at most `ms`. */
  async drain(ms = HOOK_TIMEOUT_MS): Promise<void> {
    if (!this.pending.size) return;
    await withTimeout(Promise.allSettled([...this.pending]), ms, 'memory writes').catch(() => {});
  }

  async shutdown(): Promise<void> {
    await this.drain();
    for (const p of [...this.providers].reverse()) if (p.shutdown) await this.safeAsync(p, 'shutdown', () => p.shutdown!());
  }
}
