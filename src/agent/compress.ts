// Context compression, pure: the summary call is injected. When a conversation nears the model's
// context window: (1) clear old bulky tool output; (2) keep the first messages and a recent tail
// (token budget, at least 20 messages; a tool call never separated from its result); (3) have the
// auxiliary model write a structured summary of the middle (updating the previous one on later
// passes); (4) rebuild the history as head + summary + tail. If the summary cannot be made, nothing
// changes: the transcript stays whole and compression is retried after a cooldown.
import type { Message } from '../llm/types.ts';
import { messageText } from './repair.ts';
import { estimateMessagesTokens, estimateMessageTokens } from './tokens.ts';

export interface CompressionSettings {
  /** The model's context window, in tokens. */
  contextLength: number;
  /** Compress when the prompt reaches this share of the window (0.50). */
  threshold: number;
  /** The tail keeps this share of the threshold in tokens (0.20). */
  targetRatio: number;
  protectFirstN: number;
  protectLastN: number;
  /**
   * The window is a local server's real one (src/session/local-model.ts): the summary request must
   * fit it too, so a small window caps the summary's budget and keeps the turns' most recent part.
   */
  fitWindow?: boolean;
}

export const DEFAULT_COMPRESSION: Omit<CompressionSettings, 'contextLength'> = {
  threshold: 0.5,
  targetRatio: 0.2,
  protectFirstN: 3,
  protectLastN: 20,
};

export const PRUNED_TOOL_OUTPUT = '[Old tool output cleared to save context space]';

export const SUMMARY_PREFIX =
  '[CONTEXT COMPACTION] Earlier turns of this conversation were compacted to save context space. ' +
  'The summary below replaces them; the full transcript is kept in the session history (session_search can find details). ' +
  'Continue from the summary and the messages that follow it; do not answer the summary itself.';

/** Failure cooldowns before compression is tried again: 1, 5, then 15 minutes. */
export const FAILURE_COOLDOWNS_MS = [60_000, 300_000, 900_000];

const PRUNE_MIN_CHARS = 200;

export function thresholdTokens(s: CompressionSettings): number {
  return Math.floor(s.contextLength * s.threshold);
}

export function tailBudgetTokens(s: CompressionSettings): number {
  return Math.floor(thresholdTokens(s) * s.targetRatio);
}

/** Where the protected head ends and the protected tail starts: middle = [headEnd, tailStart). */
export function findBoundaries(history: Message[], s: CompressionSettings): { headEnd: number; tailStart: number } {
  const n = history.length;
  let headEnd = Math.min(s.protectFirstN, n);
  // Never end the head between a tool call and its results.
  while (headEnd < n && history[headEnd].role === 'tool') headEnd++;
  if (headEnd > 0 && headEnd < n && history[headEnd - 1].role === 'assistant' && history[headEnd - 1].tool_calls?.length) {
    while (headEnd < n && history[headEnd].role === 'tool') headEnd++;
  }

  const budget = tailBudgetTokens(s);
  let tokens = 0;
  let count = 0;
  for (let i = n - 1; i >= headEnd; i--) {
    const t = estimateMessageTokens(history[i]);
    if (tokens + t > budget && count >= s.protectLastN) break;
    tokens += t;
    count++;
  }
  let tailStart = n - count;
  // The tail must not open with tool results: pull their assistant call in.
  while (tailStart > headEnd && history[tailStart]?.role === 'tool') tailStart--;
  if (tailStart < headEnd) tailStart = headEnd;
  return { headEnd, tailStart };
}

/** Phase 1: copies of the messages with large tool results before `before` replaced by a stub. */
export function pruneToolOutputs(history: Message[], before: number, from = 0): { messages: Message[]; cleared: number } {
  let cleared = 0;
  const messages = history.map((m, i) => {
    if (i < from || i >= before || m.role !== 'tool') return m;
    const text = messageText(m.content);
    if (text.length <= PRUNE_MIN_CHARS || text === PRUNED_TOOL_OUTPUT) return m;
    cleared++;
    return { ...m, content: PRUNED_TOOL_OUTPUT };
  });
  return { messages, cleared };
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  return `${text.slice(0, head)} […] ${text.slice(-(max - head))}`;
}

/** The middle as a plain transcript for the summarizer. */
export function serializeForSummary(messages: Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    const text = messageText(m.content).trim();
    if (m.role === 'user') lines.push(`[user]\n${clip(text, 8000)}`);
    else if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${clip(c.function.arguments, 600)})`);
      lines.push(`[assistant]${text ? `\n${clip(text, 6000)}` : ''}${calls.length ? `\n(tool calls: ${calls.join('; ')})` : ''}`);
    } else if (m.role === 'tool') lines.push(`[tool result: ${m.tool_name ?? 'tool'}]\n${clip(text, 2500)}`);
    else lines.push(`[${m.role}]\n${clip(text, 4000)}`);
  }
  return lines.join('\n\n');
}

export interface SummaryRequest {
  system: string;
  prompt: string;
  /** Output budget for the summary. */
  maxTokens: number;
}

const SUMMARY_SYSTEM =
  'You compress conversations between a user and an AI agent that uses tools. You write a faithful, dense, structured summary that lets ' +
  'the agent continue the work without the original messages. Keep exact values: file paths, commands, error messages, identifiers, ' +
  'numbers, URLs, names. Never invent anything. Write only the summary.';

const TEMPLATE = `## Goal
What the user is trying to achieve overall.

## Constraints & Preferences
Requirements, preferences and instructions the user gave that still apply.

## Progress
### Done
Completed steps with their results (files changed, commands run and what they returned).
### In Progress
What was being worked on when this summary was written.
### Blocked
Open problems, failures and what was tried.

## Key Decisions
Decisions made and why.

## Relevant Files
Paths that matter, with one line on each.

## Next Steps
What remains, in order.

## Critical Context
Exact values needed later: error messages, config values, versions, IDs, credentials' *names* (never their values).`;

/** Phase 3: the request for the auxiliary model. */
export function buildSummaryRequest(middle: Message[], s: CompressionSettings, previousSummary?: string, focus?: string): SummaryRequest {
  const contentTokens = estimateMessagesTokens(middle);
  let maxTokens = Math.floor(Math.max(2000, Math.min(contentTokens * 0.2, Math.min(s.contextLength * 0.05, 12_000))));
  // A small window (a local model): the summary request itself must fit it, so its output budget is
  // a fifth of the window and the turns keep their most recent part.
  const small = !!s.fitWindow && s.contextLength < 32_768;
  if (small) maxTokens = Math.max(256, Math.min(maxTokens, Math.floor(s.contextLength * 0.2)));
  let turns = serializeForSummary(middle);
  const room = Math.max(1000, (s.contextLength - maxTokens - 800) * 3);
  if (small && turns.length > room) turns = `[earlier turns cut to fit the model's window]\n${turns.slice(-room)}`;
  const parts: string[] = [];
  if (previousSummary)
    parts.push(
      'Below is the summary written at the previous compaction, followed by the turns that happened since. Update the summary: move finished ' +
        'items from In Progress to Done, add new progress, decisions, files and context, and drop what no longer matters. Keep the same sections.',
      `<previous_summary>\n${previousSummary}\n</previous_summary>`,
    );
  else parts.push('Summarize the conversation turns below using exactly these sections:');
  parts.push(TEMPLATE);
  if (focus) parts.push(`The user asked to focus the summary on: ${focus}. Keep more detail about it; be brief about the rest.`);
  parts.push(`<turns>\n${turns}\n</turns>`);
  parts.push(`Write the ${previousSummary ? 'updated ' : ''}summary now, at most about ${maxTokens} tokens.`);
  return { system: SUMMARY_SYSTEM, prompt: parts.join('\n\n'), maxTokens };
}

/** Tool results whose call is gone are dropped; calls whose results are gone get a stub result. */
export function repairToolPairs(messages: Message[]): Message[] {
  const out: Message[] = [];
  const answered = new Set(messages.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => m.tool_call_id!));
  const calls = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) calls.add(c.id);
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'tool' && (!m.tool_call_id || !calls.has(m.tool_call_id))) continue;
    out.push(m);
    if (m.role === 'assistant' && m.tool_calls?.length) {
      // Results follow the call directly; add stubs right after any that are missing.
      let j = i + 1;
      const following: Message[] = [];
      while (j < messages.length && messages[j].role === 'tool') following.push(messages[j++]);
      for (const f of following) if (f.tool_call_id && calls.has(f.tool_call_id)) out.push(f);
      for (const c of m.tool_calls) {
        if (!answered.has(c.id))
          out.push({ role: 'tool', tool_call_id: c.id, tool_name: c.function.name, content: JSON.stringify({ error: 'This result was removed when the context was compacted.' }) });
      }
      i = j - 1;
    }
  }
  return out;
}

/** Phase 4: head + summary message + tail. */
export function assembleCompressed(head: Message[], summary: string, tail: Message[], opts: { lastUserVerbatim?: string; now?: number } = {}): Message[] {
  let text = `${SUMMARY_PREFIX}\n\n${summary.trim()}`;
  if (opts.lastUserVerbatim)
    text += `\n\n## The user's current request (verbatim)\n${opts.lastUserVerbatim}`;
  // Pick the role that avoids two same-role messages in a row (they would be merged on the wire).
  const prev = head[head.length - 1]?.role;
  const next = tail[0]?.role;
  const role: Message['role'] = prev === 'user' && next !== 'assistant' ? 'assistant' : 'user';
  const summaryMsg: Message = { role, content: text };
  if (opts.now !== undefined) summaryMsg.timestamp = opts.now;
  return repairToolPairs([...head, summaryMsg, ...tail]);
}

/** Whether a message is a compaction summary we wrote. */
export function isSummaryMessage(m: Message): boolean {
  return (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content.startsWith('[CONTEXT COMPACTION]');
}

/** The summary text inside a compaction message (for the next, updating pass). */
export function summaryOf(m: Message): string {
  const text = messageText(m.content).slice(SUMMARY_PREFIX.length).trim();
  const cut = text.indexOf("\n\n## The user's current request (verbatim)");
  return cut >= 0 ? text.slice(0, cut) : text;
}

export type Summarize = (req: SummaryRequest) => Promise<string>;

export type CompressOutcome =
  | {
      status: 'compressed';
      messages: Message[];
      beforeTokens: number;
      afterTokens: number;
      /** Messages folded into the summary (0 when only old tool output was cleared). */
      summarized: number;
      prunedToolResults: number;
      summary?: string;
    }
  | { status: 'skipped'; reason: string }
  | { status: 'failed'; error: string; retryInMs: number };

export interface CompressorOptions {
  settings: CompressionSettings;
  summarize: Summarize;
  now?: () => number;
}

/**
 * Decides when to compress and runs compression passes for one conversation. Keeps the previous
 * summary (later passes update it) and a failure cooldown: after a failed summary the history is left
 * untouched and automatic compression waits 1, 5, then 15 minutes before trying again.
 */
export class ContextCompressor {
  settings: CompressionSettings;
  private readonly summarize: Summarize;
  private readonly now: () => number;
  previousSummary: string | undefined;
  failures = 0;
  cooldownUntil = 0;
  lastError: string | undefined;
  compressions = 0;

  constructor(o: CompressorOptions) {
    this.settings = o.settings;
    this.summarize = o.summarize;
    this.now = o.now ?? Date.now;
  }

  get thresholdTokens(): number {
    return thresholdTokens(this.settings);
  }

  /** True when the prompt is over the threshold and no failure cooldown is running. */
  shouldCompress(promptTokens: number): boolean {
    return promptTokens >= this.thresholdTokens && this.now() >= this.cooldownUntil;
  }

  inCooldown(): boolean {
    return this.now() < this.cooldownUntil;
  }

  /**
   * One pass. `force` (manual /compress, a context-length error) ignores the cooldown and summarizes
   * even when clearing tool output would be enough. The given history is never modified.
   */
  async compress(history: Message[], opts: { force?: boolean; focus?: string; promptTokens?: number } = {}): Promise<CompressOutcome> {
    if (!opts.force && this.inCooldown()) return { status: 'skipped', reason: 'cooling down after a failed summary' };
    const s = this.settings;
    const beforeTokens = Math.max(opts.promptTokens ?? 0, estimateMessagesTokens(history));
    let { headEnd, tailStart } = findBoundaries(history, s);
    // Forced (by hand, or the provider refused the prompt): fall back to the minimum tail.
    if (opts.force && tailStart - headEnd < 1) ({ headEnd, tailStart } = findBoundaries(history, { ...s, targetRatio: 0 }));

    // Phase 1: clear bulky tool output outside the tail. Enough on its own? Then no summary is needed.
    const pruned = pruneToolOutputs(history, tailStart, headEnd);
    const prunedTokens = estimateMessagesTokens(pruned.messages);
    const saved = estimateMessagesTokens(history) - prunedTokens;
    if (!opts.force && pruned.cleared && beforeTokens - saved < this.thresholdTokens * 0.85) {
      this.compressions++;
      return { status: 'compressed', messages: pruned.messages, beforeTokens, afterTokens: beforeTokens - saved, summarized: 0, prunedToolResults: pruned.cleared };
    }

    if (tailStart - headEnd < 1) return { status: 'skipped', reason: 'nothing between the protected head and tail to compress' };
    const head = history.slice(0, headEnd);
    let middle = pruned.messages.slice(headEnd, tailStart);
    const tail = history.slice(tailStart);

    // A previous summary inside the middle is folded into the new one instead of being re-summarized.
    let previous = this.previousSummary;
    const prevIdx = [...head, ...middle].findIndex(isSummaryMessage);
    if (prevIdx >= 0) {
      const all = [...head, ...middle];
      previous = summaryOf(all[prevIdx]);
      if (prevIdx >= head.length) middle = middle.filter((m) => !isSummaryMessage(m));
    }
    const headClean = head.filter((m) => !isSummaryMessage(m));

    // The user's latest request must survive word for word.
    let lastUserVerbatim: string | undefined;
    const lastUserIdx = history.map((m) => m.role).lastIndexOf('user');
    if (lastUserIdx >= headEnd && lastUserIdx < tailStart && !isSummaryMessage(history[lastUserIdx])) lastUserVerbatim = messageText(history[lastUserIdx].content);

    const req = buildSummaryRequest(middle, s, previous, opts.focus);
    let summary: string;
    try {
      summary = (await this.summarize(req)).trim();
      if (!summary) throw new Error('the summary model returned nothing');
    } catch (e) {
      const delay = FAILURE_COOLDOWNS_MS[Math.min(this.failures, FAILURE_COOLDOWNS_MS.length - 1)];
      this.failures++;
      this.cooldownUntil = this.now() + delay;
      this.lastError = (e as Error)?.message ?? String(e);
      return { status: 'failed', error: this.lastError, retryInMs: delay };
    }
    this.failures = 0;
    this.cooldownUntil = 0;
    this.lastError = undefined;
    this.previousSummary = summary;
    this.compressions++;
    const messages = assembleCompressed(headClean, summary, tail, { lastUserVerbatim, now: this.now() / 1000 });
    return {
      status: 'compressed',
      messages,
      beforeTokens,
      afterTokens: estimateMessagesTokens(messages) + Math.max(0, beforeTokens - estimateMessagesTokens(history)),
      summarized: middle.length,
      prunedToolResults: pruned.cleared,
      summary,
    };
  }
}
