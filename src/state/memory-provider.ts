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
  syncTurn?(user: string, assistant: string, sessionId: string, messages: readonly Message[]): void;
  /** Before compression drops turns from the context: save what matters. */
  onPreCompress?(messages: readonly Message[]): void | Promise<void>;
  /** When a session ends (/new, quit, reset). */
  onSessionEnd?(messages: readonly Message[]): void | Promise<void>;
  /** A built-in memory write happened (mirror it if useful). */
  onMemoryWrite?(action: string, target: MemoryTarget, content: string): void;
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

export class MemoryManager {
  readonly builtin: BuiltinMemoryProvider;
  private external: MemoryProvider | null = null;
  private readonly warn: MemoryNotice;

  constructor(builtin: BuiltinMemoryProvider, warn: MemoryNotice = () => {}) {
    this.builtin = builtin;
    this.warn = warn;
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
      return fn();
    } catch (e) {
      this.warn(`memory provider ${p.name}: ${what} failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  private async safeAsync<T>(p: MemoryProvider, what: string, fn: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      this.warn(`memory provider ${p.name}: ${what} failed: ${(e as Error).message}`);
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
      const r = await this.safeAsync(p, 'prefetch', () => p.prefetch!(query, sessionId));
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
    for (const p of this.providers) if (p.onPreCompress) await this.safeAsync(p, 'onPreCompress', () => p.onPreCompress!(messages));
  }

  async onSessionEnd(messages: readonly Message[]): Promise<void> {
    for (const p of this.providers) if (p.onSessionEnd) await this.safeAsync(p, 'onSessionEnd', () => p.onSessionEnd!(messages));
  }

  /** Tells the other providers about a built-in write (never echoed back to the built-in store). */
  onMemoryWrite(action: string, target: MemoryTarget, content: string): void {
    for (const p of this.providers) if (p !== this.builtin && p.onMemoryWrite) this.safe(p, 'onMemoryWrite', () => p.onMemoryWrite!(action, target, content));
  }

  async shutdown(): Promise<void> {
    for (const p of [...this.providers].reverse()) if (p.shutdown) await this.safeAsync(p, 'shutdown', () => p.shutdown!());
  }
}
