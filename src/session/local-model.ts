// Local models that just work: before a session's first request to a local endpoint, ask the server
// what it serves (src/llm/local/), cache it (src/state/local-models.ts), and derive what the session
// needs — the real window to compress against, Ollama's `options.num_ctx`, and lean mode for small
// windows (short prompt, smallest toolset with the rest behind tool_search, shorter tool results,
// earlier compression, an output budget that leaves room for thinking). Loaded lazily, only for
// endpoints that look local (or `model.local: true`) or with `model.lean: true`.
import type { PromptParts } from '../agent/prompt.ts';
import type { AgentTool } from '../agent/types.ts';
import { contextLengthFor, DEFAULT_CONTEXT_LENGTH, type ProviderRuntime } from '../llm/index.ts';
import { sdkFetch } from '../llm/http.ts';
import { loadOllamaModel, probeServer, shouldProbe, type ServedModel, type ServerKind } from '../llm/local/index.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { readLocalModel, writeLocalModel } from '../state/local-models.ts';

/** Lean mode turns on below this window unless `model.lean_below` says otherwise. */
export const LEAN_BELOW_DEFAULT = 16_384;
/** Ollama's `options.num_ctx` when `model.num_ctx` is unset (capped by the model and model.context_length). */
export const OLLAMA_NUM_CTX_DEFAULT = 32_768;
/** What Ollama serves an unloaded model with when nothing says otherwise (its documented default). */
export const OLLAMA_DEFAULT_WINDOW = 4096;
/** How long the first turn waits for Ollama to load a model before going on without knowing its window. */
export const OLLAMA_LOAD_TIMEOUT_MS = 120_000;
/** Eager tools in lean mode; every other tool waits behind tool_search. */
export const LEAN_TOOLS = ['terminal', 'read_file', 'write_file', 'patch', 'search_files'];

export interface LocalModelInfo {
  served: ServedModel | null;
  /** Tokens to fit every request into (compression thresholds, budgets). */
  window: number;
  /** Ollama: `options.num_ctx` sent with every request. */
  numCtx?: number;
  lean: boolean;
  /** The model thinks before answering: the output budget leaves room for it. */
  thinking: boolean;
  /** Output tokens kept free of the prompt (sent as max_tokens in lean mode). */
  reserve: number;
  /** One-time notes for the person (the served window is smaller than asked, …). */
  notes: string[];
}

interface ModelSettings {
  local?: unknown;
  lean?: unknown;
  lean_below?: unknown;
  num_ctx?: unknown;
  server?: unknown;
  context_length?: number | null;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : undefined);
const bool = (v: unknown): boolean | undefined => (v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined);

/** True when the session should load this module at all (cheap: no probe). */
export function localModelWanted(config: HermesConfig, rt: ProviderRuntime): boolean {
  const m = (config.model ?? {}) as ModelSettings;
  if (bool(m.lean) === true) return true;
  return rt.apiMode === 'chat_completions' && shouldProbe(rt.baseUrl, m.local);
}

const RECENT = new Map<string, ServedModel>();
const RECENT_MS = 60_000;

/** The output budget: room for an answer, more when the model thinks first. */
export function outputReserve(window: number, thinking: boolean): number {
  return thinking ? Math.min(16_384, Math.max(1024, Math.floor(window * 0.3))) : Math.min(4096, Math.max(512, Math.floor(window * 0.15)));
}

/** Probes (or reads the cache for) the session's endpoint and works out window, num_ctx and lean mode. Never throws. */
export async function prepareLocalModel(p: { home: string; config: HermesConfig; env: NodeJS.ProcessEnv; rt: ProviderRuntime; load?: boolean }): Promise<LocalModelInfo> {
  const { home, config, rt } = p;
  const m = (config.model ?? {}) as ModelSettings;
  const explicit = rt.contextLength ?? num(m.context_length);
  const notes: string[] = [];
  let served: ServedModel | null = null;
  if (rt.apiMode === 'chat_completions' && shouldProbe(rt.baseUrl, m.local)) {
    const cached = readLocalModel(home, rt.baseUrl, rt.model);
    const kind = (typeof m.server === 'string' ? m.server : cached?.kind) as ServerKind | undefined;
    const opts = { baseUrl: rt.baseUrl, model: rt.model, provider: rt.provider, kind, apiKey: rt.apiKey, fetchFn: sdkFetch(p.env) };
    // Sessions of one process (subagents, gateway chats) share a probe for a minute.
    const key = `${rt.baseUrl}|${rt.model}`;
    const recent = RECENT.get(key);
    served = recent && Date.now() - recent.probedAt < RECENT_MS ? recent : await probeServer(opts);
    if (served?.kind === 'ollama' && !served.window && p.load !== false) {
      // Not loaded: load it as the chat request would, and read the context it got.
      const loaded = await loadOllamaModel(opts, OLLAMA_LOAD_TIMEOUT_MS);
      if (loaded) served = { ...served, window: loaded, loaded: true };
    }
    if (served && served !== recent) {
      RECENT.set(key, served);
      writeLocalModel(home, rt.baseUrl, rt.model, served);
    }
    else if (cached?.kind) served = { ...(cached as ServedModel), capabilities: cached.capabilities ?? {} };
  }
  let numCtx: number | undefined;
  if (served?.kind === 'ollama') {
    const want = num(m.num_ctx) ?? OLLAMA_NUM_CTX_DEFAULT;
    numCtx = Math.min(want, served.maxWindow ?? want, explicit ?? want);
  }
  const servedWindow = served?.window ?? (served?.kind === 'ollama' ? OLLAMA_DEFAULT_WINDOW : served?.maxWindow);
  const table = contextLengthFor(rt.model);
  let window = servedWindow ?? explicit ?? table;
  if (explicit && servedWindow && explicit < servedWindow) window = explicit;
  if (explicit && servedWindow && explicit > servedWindow) {
    notes.push(
      `${rt.model} is served with a ${servedWindow.toLocaleString('en-US')}-token window, smaller than model.context_length (${explicit.toLocaleString('en-US')}): Hermes fits requests into the served window.${served?.kind === 'ollama' ? ' For more, start Ollama with OLLAMA_CONTEXT_LENGTH set, or set PARAMETER num_ctx in a Modelfile.' : ''}`,
    );
  }
  if (!servedWindow && !explicit && table === DEFAULT_CONTEXT_LENGTH && served) window = table;
  const thinking = !!served?.capabilities.thinking;
  const leanSetting = bool(m.lean);
  // Automatic only on a recognised inference server (Ollama, llama.cpp, vLLM, LM Studio): a loopback
  // endpoint that only answers /v1/models may be a proxy to a large hosted model (model.lean: true asks).
  const knownServer = !!served?.kind && served.kind !== 'generic';
  const lean = leanSetting ?? (knownServer && window < (num(m.lean_below) ?? LEAN_BELOW_DEFAULT));
  return { served, window, numCtx, lean, thinking, reserve: outputReserve(window, thinking), notes };
}

/**
 * Lean mode's tool selection: what to keep out of the request (behind tool_search) — every toolset
 * but the platform's own, as `tool:<name>` for the toolsets of the lean tools (the loader's syntax).
 */
export function leanDeferred(tools: AgentTool[], platform?: string): Set<string> {
  const keepSets = new Set(tools.filter((t) => LEAN_TOOLS.includes(t.name)).map((t) => t.toolset));
  const out = new Set<string>();
  for (const t of tools) {
    if (t.toolset === platform || LEAN_TOOLS.includes(t.name)) continue;
    out.add(keepSets.has(t.toolset) ? `tool:${t.name}` : t.toolset);
  }
  return out;
}

const cap = (s: string | undefined, n: number) => (s && s.length > n ? `${s.slice(0, n)}\n[… cut to fit a small model's window]` : s);

/** Lean mode's system prompt: identity, the person's own instructions, short memory and project notes, the facts. */
export function leanPromptParts(parts: Partial<PromptParts>, window: number): Partial<PromptParts> {
  const chars = Math.max(400, Math.floor(window * 0.1) * 4);
  return {
    ...parts,
    identity: cap(parts.identity, Math.max(600, chars)),
    toolGuidance: undefined,
    providerBlock: undefined,
    skillsIndex: undefined,
    memory: cap(parts.memory, chars),
    userProfile: cap(parts.userProfile, Math.floor(chars / 2)),
    projectContext: cap(parts.projectContext, chars),
  };
}

/** Lean mode's per-result limit in characters: about a quarter of the window. */
export const leanResultChars = (window: number) => Math.max(2000, Math.min(100_000, window));
