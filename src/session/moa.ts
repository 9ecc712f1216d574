// Mixture of Agents as Hermes runs it: a preset (config.yaml `moa.presets.<name>`) is a virtual model.
// Its aggregator is the acting model (it writes the answer and calls tools in the normal loop); before
// each of its requests the preset's reference models read an advisory view of the conversation (no
// tools; tool calls and results rendered as text, results previewed head+tail) in parallel, and their
// analyses ride on that one request only, appended to its last user message. Nothing of them enters
// the history, so the stored transcript holds the prompt and the aggregator's answer, as in Hermes.
// References re-run when the conversation moved on (a new user message or tool result) and are reused
// for an identical view (a retry).
import { messageText } from '../agent/repair.ts';
import { createLlmClient, resolveAuxiliaryRuntime, type LlmClient } from '../llm/index.ts';
import type { LlmStream, Message, StreamEvent, StreamFn, StreamRequest, StreamResult } from '../llm/types.ts';
import { spendMeter } from './budgets.ts';
import { healthFor } from './provider-health.ts';
import { collectText } from './session-aux.ts';
import type { ExplicitChoices, Session } from './session.ts';
import { resolveInputFrom } from './session.ts';

export interface MoaSlot {
  provider?: string;
  model?: string;
  base_url?: string;
  api_key?: string;
  enabled?: boolean;
}

export interface MoaPreset {
  reference_models?: MoaSlot[];
  aggregator?: MoaSlot;
  reference_timeout?: number;
}

interface MoaConfig {
  default_preset?: unknown;
  presets?: Record<string, unknown>;
}

const moaOf = (config: unknown): MoaConfig => ((config as { moa?: unknown })?.moa ?? {}) as MoaConfig;

/** Configured preset names, in config order. */
export function presetNames(config: unknown): string[] {
  const p = moaOf(config).presets;
  return p && typeof p === 'object' ? Object.keys(p).filter((k) => p[k] && typeof p[k] === 'object') : [];
}

/** `moa.default_preset` (else "default"). */
export function defaultPresetName(config: unknown): string {
  const d = moaOf(config).default_preset;
  return typeof d === 'string' && d.trim() ? d.trim() : 'default';
}

/** A preset by exact name (Hermes matches exactly, so a prompt word never selects one by accident). */
export function findPreset(config: unknown, name: string): MoaPreset | null {
  const p = moaOf(config).presets?.[name];
  return p && typeof p === 'object' ? (p as MoaPreset) : null;
}

export const enabledReferences = (p: MoaPreset): MoaSlot[] => (p.reference_models ?? []).filter((r) => r && r.enabled !== false && r.model);

/** Per-tool-result budget in the advisory view (the aggregator always gets everything). */
const TOOL_RESULT_BUDGET = 4000;

const ADVISOR_SYSTEM =
  'You advise in a Mixture of Agents process. Another model (the acting agent) holds the tools and takes every action; ' +
  'you cannot run anything, and must never claim or imply that you did. Below is the current state of its task. ' +
  'Work out the goal, reason about the problem and advise on what to do next: the best approach, concrete steps and tool use, ' +
  'risks, and anything it may have missed or got wrong. Answer with the advice itself, no preamble. ' +
  'Your text is private guidance for the acting agent, not an answer shown to the user.';

function clip(text: string): string {
  if (text.length <= TOOL_RESULT_BUDGET) return text;
  const head = Math.floor(TOOL_RESULT_BUDGET * 0.6);
  const tail = TOOL_RESULT_BUDGET - head;
  return `${text.slice(0, head)}\n[… ${text.length - TOOL_RESULT_BUDGET} characters …]\n${text.slice(-tail)}`;
}

/** The conversation as advisors see it: plain text, tool activity inline, always ending on a user turn. */
export function advisoryView(messages: Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    const text = messageText(m.content);
    if (m.role === 'user') lines.push(`User: ${text}`);
    else if (m.role === 'assistant') {
      if (text) lines.push(`Agent: ${text}`);
      for (const c of m.tool_calls ?? []) lines.push(`[agent called tool ${c.function.name}(${c.function.arguments})]`);
    } else if (m.role === 'tool') lines.push(`[tool result${m.tool_name ? ` from ${m.tool_name}` : ''}: ${clip(text)}]`);
  }
  return lines.join('\n\n');
}

interface RefAnswer {
  label: string;
  text?: string;
  error?: string;
}

/** The guidance block appended to the aggregator's request. */
export function guidanceBlock(preset: string, answers: RefAnswer[]): string {
  const ok = answers.filter((a) => a.text);
  const failed = answers.filter((a) => !a.text);
  const head = ok.length
    ? `[Mixture of Agents (${preset}): private guidance from ${ok.length} reference model(s). Use what is right, correct what is wrong; you act and answer as usual.]`
    : `[Mixture of Agents (${preset}): every reference model failed; proceed without their guidance.]`;
  const body = ok.map((a, i) => `<reference index="${i + 1}" model="${a.label}">\n${a.text}\n</reference>`);
  const fails = failed.length ? [`(failed: ${failed.map((a) => `${a.label}: ${a.error}`).join('; ')})`] : [];
  return [head, ...body, ...fails].join('\n\n');
}

/** A copy of the request with the guidance on its last user message (or as a trailing user message). */
export function attachGuidance(messages: Message[], guidance: string): Message[] {
  const out = messages.slice();
  const last = out.at(-1);
  if (last?.role === 'user') {
    out[out.length - 1] =
      typeof last.content === 'string' || last.content == null
        ? { ...last, content: `${last.content ?? ''}\n\n${guidance}` }
        : { ...last, content: [...last.content, { type: 'text', text: `\n\n${guidance}` }] };
  } else out.push({ role: 'user', content: guidance });
  return out;
}

export interface MoaRun {
  preset: string;
  answered: number;
  total: number;
  failed: string[];
}

export interface MoaHooks {
  /** After each reference fan-out (for a notice). */
  onReferences?(run: MoaRun): void;
}

/**
 * Wraps the aggregator's client: every request first asks the references (cached per advisory view),
 * then goes to the aggregator with their guidance attached. The history is never touched.
 */
export function moaClient(inner: LlmClient, name: string, refs: { label: string; stream: StreamFn; model: string }[], timeoutMs: number, hooks: MoaHooks = {}): LlmClient & { moaPreset: string } {
  let cacheKey = '';
  let cached: RefAnswer[] = [];
  const references = async (req: StreamRequest): Promise<RefAnswer[]> => {
    const view = advisoryView(req.messages);
    if (view === cacheKey && cached.length) return cached;
    const signal = req.signal ? AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const settled = await Promise.allSettled(
      refs.map((r) =>
        collectText(r.stream, {
          model: r.model,
          system: ADVISOR_SYSTEM,
          messages: [{ role: 'user', content: `${view}\n\n---\nAdvise the acting agent on its next step.` }],
          tools: [],
          maxTokens: 4000,
          signal,
        }),
      ),
    );
    const answers = settled.map((s, i): RefAnswer => (s.status === 'fulfilled' && s.value.trim() ? { label: refs[i].label, text: s.value.trim() } : { label: refs[i].label, error: s.status === 'rejected' ? (s.reason as Error).message : 'empty answer' }));
    cacheKey = view;
    cached = answers;
    hooks.onReferences?.({ preset: name, answered: answers.filter((a) => a.text).length, total: answers.length, failed: answers.filter((a) => a.error).map((a) => `${a.label}: ${a.error}`) });
    return answers;
  };
  const stream: StreamFn = (req) => {
    let innerStream: LlmStream | null = null;
    const ready = (async () => {
      const answers = await references(req);
      innerStream = inner.stream({ ...req, messages: attachGuidance(req.messages, guidanceBlock(name, answers)) });
      return innerStream;
    })();
    return {
      async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
        yield* await ready;
      },
      async result(): Promise<StreamResult> {
        return (await ready).result();
      },
    };
  };
  return {
    moaPreset: name,
    stream,
    beginTurn: () => inner.beginTurn(),
    get active() {
      return inner.active;
    },
    fallbacks: inner.fallbacks,
    switchTo: (rt) => inner.switchTo(rt),
  };
}

export const isMoaClient = (c: LlmClient): c is LlmClient & { moaPreset: string } => typeof (c as { moaPreset?: unknown }).moaPreset === 'string';

/** The model each session had before its first preset, to come back to. */
const beforeMoa = new WeakMap<Session, ExplicitChoices>();

/**
 * Makes a preset the session's model: the aggregator (else the session's own model) acts, wrapped so
 * the references advise each of its requests. Returns the model to come back to, or an error.
 */
export function activateMoa(s: Session, name: string, hooks: MoaHooks = {}): { before: ExplicitChoices; label: string } | { error: string } {
  const o = { config: s.settings.config, env: s.info.env, explicit: s.info.explicit, home: s.info.home };
  const preset = findPreset(o.config, name);
  if (!preset) {
    const names = presetNames(o.config);
    return { error: names.length ? `No MoA preset "${name}". Presets: ${names.join(', ')}.` : `No Mixture of Agents preset: add moa.presets.${name} (reference_models, aggregator) to config.yaml.` };
  }
  const slots = enabledReferences(preset);
  if (!slots.length) return { error: `The MoA preset ${name} has no enabled reference_models.` };
  if (!isMoaClient(s.llm)) beforeMoa.set(s, { provider: o.explicit?.provider, model: o.explicit?.model, baseUrl: o.explicit?.baseUrl, apiKey: o.explicit?.apiKey });
  const before = beforeMoa.get(s) ?? {};
  const agg = preset.aggregator;
  // A fresh client either way, so an earlier preset's wrapper is gone.
  s.switchModel(agg?.model ? { provider: agg.provider, model: agg.model, baseUrl: agg.base_url, apiKey: agg.api_key } : before);
  const input = resolveInputFrom(o.config, o.env, o.explicit, o.home);
  const timeoutMs = (Number(preset.reference_timeout) || 90) * 1000;
  const refs = slots.map((slot) => {
    const rt = resolveAuxiliaryRuntime('moa', slot, s.llm.active, input);
    if (!rt) {
      const fail: StreamFn = () => {
        throw new Error(`${slot.provider ?? 'its provider'} cannot be resolved`);
      };
      return { label: String(slot.model), model: String(slot.model), stream: fail };
    }
    // Reference calls count against the session's spend caps (kind `moa` in the spend ledger) and
    // share the home's provider health, as every other model call of the session does.
    const client = createLlmClient({ primary: rt, maxRetries: 1, timeoutMs, health: healthFor(o.home), meter: spendMeter(s.spend, 'moa') });
    return { label: `${rt.provider}/${rt.model}`, model: rt.model, stream: client.stream };
  });
  s.llm = moaClient(s.llm, name, refs, timeoutMs, hooks);
  return { before, label: `${s.llm.active.provider}/${s.llm.active.model}` };
}

/** Back to the model the session had before MoA. */
export function deactivateMoa(s: Session): void {
  if (!isMoaClient(s.llm)) return;
  s.switchModel(beforeMoa.get(s) ?? {});
  beforeMoa.delete(s);
}
