// History hygiene before each request, and repair of the model's tool calls.
import { type ContentPart, type Message, samePrefix, type ToolCall } from '../llm/types.ts';

export const STUB_RESULT = JSON.stringify({ error: 'No result was recorded for this tool call (the turn was interrupted).' });

function textOf(content: Message['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p): p is Extract<ContentPart, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('');
}

function joinContent(a: Message['content'], b: Message['content']): Message['content'] {
  if (typeof a === 'string' || a === null) {
    if (typeof b === 'string' || b === null) return [textOf(a), textOf(b)].filter(Boolean).join('\n\n');
  }
  const parts = (c: Message['content']): ContentPart[] => (c === null ? [] : typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c);
  return [...parts(a), ...parts(b)];
}

/**
 * Returns a request-ready copy of the history:
 * - tool results whose call is not in the preceding assistant message are dropped (orphans);
 * - tool calls without a result get a stub result, so every call is answered;
 * - an assistant message's results follow it in the order of its calls (a stored history holds them in
 *   the order the tools finished: each is recorded when its tool finishes);
 * - empty `tool_calls` arrays are removed;
 * - consecutive user messages, and consecutive plain assistant messages, are merged (strict alternation).
 * The stored history is not modified: a message that needs no change is passed through as the same
 * object (copy on write), so request builders may key caches on it; nothing downstream edits them.
 */
export function sanitizeHistory(history: Message[], memo?: SanitizeMemo): Message[] {
  const out: Message[] = [];
  // The last assistant message's calls awaiting results: each call's slot, filled as its result comes.
  let open: { slot: Map<string, number>; calls: ToolCall[]; results: (Message | undefined)[]; left: number } | null = null;
  const openFor = (calls: ToolCall[]) => {
    const slot = new Map<string, number>();
    calls.forEach((c, i) => {
      if (!slot.has(c.id)) slot.set(c.id, i);
    });
    return { slot, calls, results: new Array<Message | undefined>(calls.length), left: slot.size };
  };
  // A memo's prefix is reused when the history still starts with those same messages.
  let start = 0;
  if (memo && samePrefix(memo.input, history) === memo.input.length) {
    start = memo.input.length;
    for (const m of memo.out) out.push(m);
  }
  let cut = { input: start, out: out.length };

  const closeOpen = () => {
    if (!open) return;
    const { slot, calls, results } = open;
    for (const [id, i] of slot) out.push(results[i] ?? { role: 'tool', tool_call_id: id, tool_name: calls[i].function.name, content: STUB_RESULT });
    open = null;
  };

  for (let i = start; i < history.length; i++) {
    const src = history[i];
    if (src.role === 'system') continue;
    let m = src;
    if (m.role === 'tool') {
      const at = open && m.tool_call_id ? open.slot.get(m.tool_call_id) : undefined;
      if (open && at !== undefined && !open.results[at]) {
        open.results[at] = m;
        if (--open.left === 0) {
          closeOpen();
          // Nothing after a completed call's last result can change what came before it (no merge
          // into a tool message, no stub to add): the output so far is final.
          cut = { input: i + 1, out: out.length };
        }
      }
      // else: an orphan result (or a second one for the same call), dropped
      continue;
    }
    closeOpen();
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length === 0) {
      m = { ...m };
      delete m.tool_calls;
    }
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role && m.role === 'user') {
      out[out.length - 1] = { ...prev, content: joinContent(prev.content, m.content) };
      continue;
    }
    if (prev && prev.role === 'assistant' && m.role === 'assistant' && !prev.tool_calls) {
      out[out.length - 1] = {
        ...m,
        content: joinContent(prev.content, m.content),
        reasoning: [prev.reasoning, m.reasoning].filter(Boolean).join('\n') || m.reasoning,
      };
      if (m.tool_calls?.length) open = openFor(m.tool_calls);
      continue;
    }
    out.push(m);
    if (m.role === 'assistant' && m.tool_calls?.length) open = openFor(m.tool_calls);
  }
  if (memo && cut.input > memo.input.length) {
    memo.input = history.slice(0, cut.input);
    memo.out = out.slice(0, cut.out);
  } else if (memo && start === 0) {
    memo.input = [];
    memo.out = [];
  }
  closeOpen();
  return out;
}

/**
 * What `sanitizeHistory` keeps between calls on a growing history: the output for the history's
 * first messages, up to the last point nothing later can change (after a completed call's results).
 */
export interface SanitizeMemo {
  input: Message[];
  out: Message[];
}

export const sanitizeMemo = (): SanitizeMemo => ({ input: [], out: [] });

const normalizeName = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Maps a tool name the model produced onto a real one: exact, then after dropping a
 * `functions.`/namespace prefix, then by normalized spelling (case, `-`, `_`, spaces).
 */
export function repairToolName(name: string, valid: readonly string[]): string | null {
  if (valid.includes(name)) return name;
  const stripped = name.replace(/^(functions?|tools?)[.:]/i, '').trim();
  if (valid.includes(stripped)) return stripped;
  const n = normalizeName(stripped);
  if (!n) return null;
  const matches = valid.filter((v) => normalizeName(v) === n);
  return matches.length === 1 ? matches[0] : null;
}

/** Parses tool-call arguments. Empty string → {}. Non-object JSON or bad JSON → an error message. */
export function parseToolArgs(raw: string): { args: Record<string, unknown> } | { error: string } {
  const text = raw.trim();
  if (!text) return { args: {} };
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return { args: v as Record<string, unknown> };
    return { error: `arguments must be a JSON object, got ${Array.isArray(v) ? 'an array' : typeof v}` };
  } catch (e) {
    return { error: `arguments are not valid JSON (${(e as Error).message})` };
  }
}

/** A stable fingerprint of a call: name + canonical (key-sorted) arguments. */
export function fingerprint(name: string, args: unknown): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return `${name}:${JSON.stringify(canon(args))}`;
}

export { textOf as messageText };
