// Compaction: the token estimate before every model request, the context window (with the
// provider's /models lookup cached in context_length_cache.yaml), the compression settings (a local
// window's included), and one compression pass over the live history, saved the way
// compaction-store.ts describes. The Session owns one; the loop runner calls beforeRequest and
// runCompression through it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ContextCompressor, DEFAULT_COMPRESSION, type CompressionSettings, type SummaryRequest } from '../agent/compress.ts';
import { estimateMessagesTokens, estimateTextTokens, estimateToolsTokens } from '../agent/tokens.ts';
import type { AgentEvent, AgentTool } from '../agent/types.ts';
import { contextLengthFor, DEFAULT_CONTEXT_LENGTH, listModels } from '../llm/index.ts';
import { sdkFetch } from '../llm/http.ts';
import { promptTokens, samePrefix, type Message, type Usage } from '../llm/types.ts';
import { writeFileAtomic } from '../state/fsutil.ts';
import { dropLease, inPlaceWanted, rotateSession, takeLease } from './compaction-store.ts';
import type { LocalModelInfo } from './local-model.ts';
import { collectText } from './session-aux.ts';
import type { MemoryHooks } from './session-memory.ts';
import type { AuxModel, Spawn, StateHost } from './state-host.ts';

/** What compaction uses of the Session's other parts. */
export interface CompactionDeps {
  aux(task: string): AuxModel | null;
  /** What the local endpoint serves, once probed (null: remote, or not probed yet). */
  local(): LocalModelInfo | null;
  memory: MemoryHooks;
  /** Background lookups are allowed (not a one-shot run or machine platform). */
  backgroundAllowed(): boolean;
  spawn: Spawn;
}

const messageTokens = new WeakMap<Message, number>();

/** Token estimate of messages, each message estimated once (histories grow by appending). */
function historyTokens(ms: Message[]): number {
  let n = 0;
  for (const m of ms) {
    let t = messageTokens.get(m);
    if (t === undefined) {
      t = estimateMessagesTokens([m]);
      messageTokens.set(m, t);
    }
    n += t;
  }
  return n;
}

const CONTEXT_CACHE = 'context_length_cache.yaml';

function readContextCache(home: string): Record<string, number> {
  try {
    const v = parseYaml(readFileSync(join(home, CONTEXT_CACHE), 'utf8')) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function writeContextCache(home: string, key: string, value: number): void {
  try {
    writeFileAtomic(join(home, CONTEXT_CACHE), stringifyYaml({ ...readContextCache(home), [key]: value }), 0o600);
  } catch {
    /* read-only home: keep it in memory only */
  }
}


export class Compaction {
  private readonly host: StateHost;
  private readonly deps: CompactionDeps;
  readonly compressor: ContextCompressor;
  private lastUsage: Usage | null = null;
  private lenAtLastRequest = 0;
  private readonly discovered = new Map<string, number>();
  private readonly discovering = new Set<string>();
  private compressing = false;
  /** Compressions that summarized turns in this session (Hermes's compression_count). */
  compressions = 0;
  /** The session id whose stored compression cooldown was read. */
  private cooldownFor = '';

  constructor(host: StateHost, deps: CompactionDeps) {
    this.host = host;
    this.deps = deps;
    this.compressor = new ContextCompressor({ settings: this.compressionSettings(), summarize: (req) => this.summarize(req) });
  }

  private async summarize(req: SummaryRequest): Promise<string> {
    const aux = this.deps.aux('compression');
    if (!aux) throw new Error('no auxiliary model is available for compression (check auxiliary.compression in config.yaml)');
    return collectText(aux.stream, {
      model: aux.model,
      system: req.system,
      messages: [{ role: 'user', content: req.prompt }],
      tools: [],
      maxTokens: req.maxTokens,
    });
  }

  /**
   * The model's context window: an explicit setting (model.context_length, the provider entry), the
   * known-model table, or — for a model the table does not know — what the provider's /models list
   * says (looked up once in the background and cached in HERMES_HOME/context_length_cache.yaml).
   */
  contextLength(): number {
    const o = this.host.options;
    const rt = this.host.llm.active;
    if (o.contextLength) return o.contextLength;
    const local = this.deps.local();
    if (local) return local.window;
    const explicit = rt.contextLength ?? o.config.model.context_length ?? undefined;
    if (explicit) return contextLengthFor(rt.model, explicit);
    const known = contextLengthFor(rt.model);
    if (known !== DEFAULT_CONTEXT_LENGTH) return known;
    const key = `${rt.baseUrl}|${rt.model}`;
    if (!this.discovered.has(key)) this.discovered.set(key, readContextCache(o.home)[key] ?? 0);
    const cached = this.discovered.get(key);
    if (cached) return cached;
    if (!this.discovering.has(key) && this.deps.backgroundAllowed() && !o.auxStream) {
      this.discovering.add(key);
      this.deps.spawn(async () => {
        // Through the SDKs' node:http fetch: the global fetch would load undici's agents (HTTP/2, TLS)
        // synchronously here, while the REPL or TUI is still drawing its first frame.
        const models = await listModels(rt, sdkFetch());
        const hit = models.find((m) => m.id === rt.model || m.id.endsWith(`/${rt.model}`));
        if (hit?.contextLength) {
          this.discovered.set(key, hit.contextLength);
          writeContextCache(o.home, key, hit.contextLength);
        }
      });
    }
    return known;
  }

  compressionSettings(): CompressionSettings {
    const o = this.host.options;
    const c = o.config.compression ?? {};
    const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : d);
    const local = this.deps.local();
    // A local window: compress before prompt + output budget pass it (earlier still in lean mode).
    const fit = local ? Math.max(0.2, (local.window - local.reserve) / local.window) : 0.95;
    return {
      contextLength: this.contextLength(),
      threshold: Math.min(0.95, fit, local?.lean ? 0.45 : 1, num(c.threshold, DEFAULT_COMPRESSION.threshold)),
      targetRatio: Math.min(0.8, num(c.target_ratio, DEFAULT_COMPRESSION.targetRatio)),
      // A small window cannot keep 20 messages whole: lean mode protects the first message and the last two.
      protectFirstN: Math.min(local?.lean ? 1 : Infinity, Math.floor(num(c.protect_first_n, DEFAULT_COMPRESSION.protectFirstN))),
      protectLastN: Math.min(local?.lean ? 2 : Infinity, Math.floor(num(c.protect_last_n, DEFAULT_COMPRESSION.protectLastN))),
      ...(local ? { fitWindow: true } : {}),
    };
  }


  /** Tokens the next request will carry: the last real usage plus what was added since, or an estimate. */
  private overheadKey: { system: string; tools: AgentTool[] } | null = null;
  private overheadTokens = 0;

  /** System prompt + tool schemas, estimated once per prompt/tool set. */
  promptOverhead(): number {
    return this.overhead();
  }

  private overhead(): number {
    const k = this.overheadKey;
    if (!k || k.system !== this.host.system || k.tools !== this.host.tools) {
      this.overheadKey = { system: this.host.system, tools: this.host.tools };
      this.overheadTokens = estimateTextTokens(this.host.system) + estimateToolsTokens(this.host.tools.map((t) => t.schema));
    }
    return this.overheadTokens;
  }

  /** The history's token estimate so far (the loop appends: only new messages are added up). */
  private historyRun: { seen: Message[]; tokens: number } | null = null;

  private historyEstimate(history: Message[]): number {
    const r = this.historyRun;
    // (Compression, /new and /undo rewrite the array in place: then it no longer starts with the messages seen.)
    if (r && samePrefix(r.seen, history) === r.seen.length) {
      if (r.seen.length < history.length) {
        const added = history.slice(r.seen.length);
        r.tokens += historyTokens(added);
        for (const m of added) r.seen.push(m);
      }
      return r.tokens;
    }
    const tokens = historyTokens(history);
    this.historyRun = history.length ? { seen: history.slice(), tokens } : null;
    return tokens;
  }

  estimatePromptTokens(history: Message[]): number {
    const overhead = this.overhead();
    const rough = overhead + this.historyEstimate(history);
    if (this.lastUsage && this.lenAtLastRequest <= history.length) {
      const real = promptTokens(this.lastUsage) + this.lastUsage.output_tokens + historyTokens(history.slice(this.lenAtLastRequest + 1));
      return Math.max(real, Math.floor(rough * 0.5));
    }
    return rough;
  }

  /** Record real usage as it arrives (Session forwards its usage events). */
  onEvent(e: AgentEvent): void {
    if (e.type === 'usage') this.lastUsage = e.usage;
  }

  /**
   * A stored session's summary-failure cooldown (another run, or Python Hermes, failed to summarize
   * it recently) holds here too: read once per session id.
   */
  private async loadCooldown(): Promise<void> {
    const store = this.host.options.store;
    if (this.cooldownFor === this.host.id || !store) return;
    this.cooldownFor = this.host.id;
    try {
      const c = await store.getCompressionCooldown(this.host.id);
      if (c && c.untilS * 1000 > this.compressor.cooldownUntil) this.compressor.cooldownUntil = c.untilS * 1000;
    } catch {
      /* the cooldown is an optimisation; never fatal */
    }
  }

  /** The loop's hook before every model request. */
  async beforeRequest(history: Message[]): Promise<void> {
    const c = this.host.options.config.compression;
    if (c?.enabled !== false && !this.compressing) {
      await this.loadCooldown();
      this.compressor.settings = this.compressionSettings();
      const tokens = this.estimatePromptTokens(history);
      if (this.compressor.shouldCompress(tokens)) await this.runCompression(history, { promptTokens: tokens });
    }
    this.lenAtLastRequest = history.length;
  }

  /**
   * One compression pass over the live history. On success the history is replaced in place and, when
   * the session is stored, saved the way compaction-store.ts describes (in place under the session's
   * compression lease, or the old way in a child session).
   */
  async runCompression(
    history: Message[],
    opts: { force?: boolean; focus?: string; promptTokens?: number; quiet?: boolean; settings?: Partial<CompressionSettings> } = {},
  ): Promise<string> {
    if (this.compressing) return 'A compression is already running.';
    this.compressing = true;
    // Every queued message is committed first (the loop's commits are grouped): a rotation or an
    // in-place archive must cover every row of `history`.
    this.host.flushAppends();
    const store = this.host.persisted ? this.host.options.store : undefined;
    const writer = this.host.persisted ? this.host.writer : undefined;
    const inPlace = inPlaceWanted(store, this.host.options.config);
    const leaseId = this.host.id;
    let lease: string | null = null;
    try {
      if (store && inPlace) {
        await this.host.flushStore(); // (an async store's queued writes too)
        lease = await takeLease(store, leaseId);
        if (!lease) return 'Another process is compressing this session right now; the conversation is kept as it is.';
      }
      this.compressor.settings = { ...this.compressionSettings(), ...opts.settings };
      await this.deps.memory.beforeCompress(history, opts.quiet);
      const out = await this.compressor.compress(history, opts);
      if (out.status === 'skipped') return `Nothing to compress: ${out.reason}.`;
      if (out.status === 'failed') {
        const msg = `Context compression failed (${out.error}). The conversation is kept whole; compression will be retried in ${Math.round(out.retryInMs / 60_000)} min.`;
        if (store) this.host.persist(() => store.setCompressionCooldown(leaseId, (Date.now() + out.retryInMs) / 1000, out.error));
        this.host.emit({ type: 'warning', message: msg });
        return msg;
      }
      let where = '';
      if (out.summarized > 0 && store && inPlace) {
        try {
          await store.archiveAndCompact(leaseId, out.messages, { lockHolder: lease ?? undefined });
        } catch (e) {
          const msg = `Context compression was not saved (${(e as Error).message}); the conversation is kept whole.`;
          this.host.emit({ type: 'warning', message: msg });
          return msg;
        }
      }
      history.splice(0, history.length, ...out.messages);
      this.lastUsage = null;
      if (out.summarized > 0 && writer && !inPlace) {
        const oldId = this.host.id;
        const o = this.host.options;
        try {
          const meta = { source: o.source ?? o.platform, model: this.host.llm.active.model, systemPrompt: this.host.system, cwd: o.cwd };
          const newId = await rotateSession(writer, store, { id: oldId, newId: () => this.host.newId(), adoptId: (id) => this.host.adoptId(id), createMeta: meta }, history);
          where = ` The full transcript stays in session ${oldId}; continuing as ${newId}.`;
        } catch (e) {
          // The old session keeps everything and new messages keep going to it.
          this.host.emit({ type: 'warning', message: `Could not start the continuation session in state.db (${(e as Error).message}); continuing in ${oldId}.` });
        }
      }
      if (out.summarized > 0) {
        this.compressions++;
        if (store) this.host.persist(() => store.setCompressionCooldown(this.host.id, null, null));
      }
      const msg =
        out.summarized > 0
          ? `🗜 Context compressed: ~${out.beforeTokens.toLocaleString('en-US')} → ~${out.afterTokens.toLocaleString('en-US')} tokens (${out.summarized} messages summarized).${where}`
          : `🗜 Cleared ${out.prunedToolResults} old tool output${out.prunedToolResults === 1 ? '' : 's'} (~${out.beforeTokens.toLocaleString('en-US')} → ~${out.afterTokens.toLocaleString('en-US')} tokens).`;
      if (!opts.quiet) this.host.emit({ type: 'notice', message: msg });
      return msg;
    } finally {
      if (store && lease) await dropLease(store, leaseId, lease);
      this.compressing = false;
    }
  }

  /** /new: the summary, failures and cooldown of the old conversation are forgotten. */
  reset(): void {
    this.compressor.previousSummary = undefined;
    this.compressor.failures = 0;
    this.compressor.cooldownUntil = 0;
    this.lastUsage = null;
    this.lenAtLastRequest = 0;
  }
}
