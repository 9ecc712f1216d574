// The Session's memory hooks: the built-in memory (MEMORY.md / USER.md) and `memory.provider`
// (loaded before the first turn), recall before each turn, the sync after it, the pre-compression
// flush, the tools a provider adds, and the session-end calls.
import { messageText, sanitizeHistory } from '../agent/repair.ts';
import type { AgentTool, TurnResult } from '../agent/types.ts';
import type { Message } from '../llm/types.ts';
import { MemoryStore } from '../state/memory.ts';
import { BuiltinMemoryProvider, MemoryManager } from '../state/memory-provider.ts';
import { paths } from '../state/paths.ts';
import { sessionDbSlot } from '../tools/defs/session-search.ts';
import type { ToolServices } from '../tools/types.ts';
import type { StateHost } from './state-host.ts';

/** Hermes's pre-compression flush: one request with only the memory tool, before turns are summarised. */
export const FLUSH_PROMPT =
  '[System: The middle of this conversation is about to be compacted into a summary. Before that happens, save anything worth keeping ' +
  'with the memory tool: user preferences, corrections and recurring patterns first, task details last. Only call the memory tool; ' +
  'do not reply to the user.]';

export class MemoryHooks {
  private readonly host: StateHost;
  private readonly warn: (message: string) => void;
  /** The memory manager (null with memory and the user profile both off). */
  readonly memory: MemoryManager | null;
  private providerLoaded = false;

  constructor(host: StateHost, warn: (message: string) => void) {
    this.host = host;
    this.warn = warn;
    const o = host.options;
    const m = o.config.memory ?? {};
    if (m.memory_enabled !== false || m.user_profile_enabled !== false) {
      const store = new MemoryStore(paths.memories(o.home), { memory: m.memory_char_limit, user: m.user_char_limit });
      this.memory = new MemoryManager(new BuiltinMemoryProvider(store, { memory: m.memory_enabled !== false, user: m.user_profile_enabled !== false }), (w) =>
        host.emit({ type: 'warning', message: w }),
      );
    } else this.memory = null;
  }

  /**
   * Activates `memory.provider` (once, before the first turn): loads its module, checks it is
   * configured, initializes it. True when a provider joined (tools and prompt need a rebuild). A
   * provider that is missing, unconfigured or down is reported and the session goes on without it.
   */
  async loadMemoryProvider(): Promise<boolean> {
    if (this.providerLoaded) return false;
    this.providerLoaded = true;
    const o = this.host.options;
    const name = String(o.config.memory?.provider ?? '').trim();
    if (!name || !this.memory || (o.depth ?? 0) > 0 || o.platform === 'subagent') return false;
    try {
      const { loadProviderFactory } = await import('../memory/providers/index.ts');
      const factory = await loadProviderFactory(name);
      const provider = factory.create({ home: o.home, env: o.env, config: o.config });
      if (!provider.isAvailable()) {
        this.warn(`Memory provider ${name} is not configured (run hermes memory setup); continuing with built-in memory only.`);
        return false;
      }
      this.memory.addProvider(provider);
      await this.memory.initialize({ sessionId: this.host.id, home: o.home, platform: o.platform, cwd: o.cwd, env: o.env });
      return true;
    } catch (e) {
      this.warn(`Memory provider ${name} could not start (${(e as Error).message}); continuing with built-in memory only.`);
      return false;
    }
  }

  /** Recalled memory for this turn (fenced), or undefined. Never throws, never waits past the prefetch timeout. */
  async recall(user: Message): Promise<string | undefined> {
    if (!this.memory?.active) return undefined;
    return this.memory.recall(messageText(user.content), this.host.id);
  }

  /** After each turn: a completed exchange goes to the providers. */
  afterTurn(user: Message, result: TurnResult): void {
    if (this.memory && result.completed) this.memory.syncTurn(messageText(user.content), result.finalText, this.host.id, this.host.history);
  }

  /**
   * The model's one chance to save what matters before compression summarises the middle of the
   * conversation: the same system prompt (cache-friendly) and conversation, a flush instruction, only
   * the memory tool; the memory calls it makes are run, nothing of the exchange is kept.
   */
  async flushMemories(history: Message[]): Promise<number> {
    const tool = this.host.tools.find((t) => t.name === 'memory');
    if (!tool || !this.memory || history.filter((m) => m.role === 'user').length < 1 || history.length < 3) return 0;
    let saved = 0;
    try {
      const s = this.host.llm.stream({
        model: this.host.llm.active.model,
        system: this.host.system,
        messages: [...sanitizeHistory(history), { role: 'user', content: FLUSH_PROMPT }],
        tools: [tool.schema],
        maxTokens: 2048,
      });
      for await (const _ of s) {
        /* drain */
      }
      const r = await s.result();
      if (r.stopReason === 'error' || r.stopReason === 'aborted') return 0;
      for (const call of r.message.tool_calls ?? []) {
        if (call.function.name !== 'memory') continue;
        let args: Record<string, unknown>;
        try {
          args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          continue;
        }
        const out = await tool.execute(args, { callId: call.id, signal: new AbortController().signal, ask: async () => ({ answer: null as never, source: 'no_responder' as const }), progress: () => {} } as never);
        if (!out.isError) saved++;
      }
    } catch {
      /* a failed flush never blocks compression */
    }
    return saved;
  }

  /** Before compression summarises turns: the flush (with its notice), then the providers' hook. */
  async beforeCompress(history: Message[], quiet: boolean | undefined): Promise<void> {
    if (!this.memory) return;
    const saved = await this.flushMemories(history);
    if (saved && !quiet) this.host.emit({ type: 'notice', message: `💾 Saved ${saved} memor${saved === 1 ? 'y' : 'ies'} before compacting the conversation.` });
    await this.memory.onPreCompress(history);
  }

  /** Tools an external memory provider adds. */
  extraTools(): AgentTool[] {
    if (!this.memory) return [];
    return this.memory.toolSchemas().map(({ schema }) => ({
      name: schema.name,
      toolset: 'memory',
      schema,
      execute: async (args) => ({ content: await this.memory!.handleToolCall(schema.name, args) }),
    }));
  }

  /** /new: the old conversation ends for the providers; memory refreshes in the next prompt. */
  onReset(oldHistory: Message[]): void {
    if (this.memory && oldHistory.length) void this.memory.onSessionEnd(oldHistory);
  }

  async onClose(services: ToolServices): Promise<void> {
    const memory = this.memory;
    const ending = memory
      ? (async () => {
          if (this.host.history.length) await memory.onSessionEnd(this.host.history);
          await memory.shutdown();
        })()
      : Promise.resolve();
    const db = services.slots.peek(sessionDbSlot);
    if (db?.isOpen && db !== this.host.options.store) void db.close();
    await ending;
  }
}
