// Codex thread items → Hermes messages ({role, content, tool_calls, tool_call_id}), so state.db,
// `hermes sessions`, search, memory/skill review and trajectories see a codex turn like any other.
//
// Only `item/completed` materialises messages (deltas never do). Tool-shaped items become one
// assistant tool call plus one tool result, with call ids derived from the codex item id and
// arguments as sorted JSON, so a replay projects byte-identical messages. Reasoning rides on the
// next assistant message. Opaque items (plans, hooks, reviews, compaction…) become short assistant
// notes without invented tool calls. An assistant text followed by a tool item is held back one
// item so the two merge into one assistant message: roles keep alternating.
import { createHash } from 'node:crypto';
import type { Message, ToolCall } from '../../llm/types.ts';
import type { ThreadItem } from './protocol/v2/ThreadItem.ts';

export interface Projection {
  /** Messages ready to append, in order. */
  messages: Message[];
  /** A tool-shaped item completed (one tool iteration). */
  toolIteration: boolean;
  /** Set when an agent message completed: the turn's answer so far. */
  finalText?: string;
}

const MAX_RESULT_CHARS = 100_000;
const TOOL_ITEMS = new Set(['commandExecution', 'fileChange', 'mcpToolCall', 'dynamicToolCall']);

/** JSON with object keys sorted at every level (stable prompt-cache prefixes and replays). */
export function sortedJson(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(norm);
    if (x && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(x as object).sort()) out[k] = norm((x as Record<string, unknown>)[k]);
      return out;
    }
    return x;
  };
  return JSON.stringify(norm(v) ?? null);
}

/** A tool call id derived from the codex item id alone (deterministic across replays). */
export function callIdFor(itemId: string): string {
  return `call_cx_${createHash('sha256').update(itemId).digest('hex').slice(0, 20)}`;
}

type Item = ThreadItem & { id: string; type: string };

/** The Hermes tool name a tool-shaped item projects to. */
export function toolNameOf(item: Item): string {
  switch (item.type) {
    case 'commandExecution':
      return 'exec_command';
    case 'fileChange':
      return 'apply_patch';
    case 'mcpToolCall': {
      const m = item as Extract<ThreadItem, { type: 'mcpToolCall' }>;
      return `mcp.${m.server}.${m.tool}`;
    }
    case 'dynamicToolCall': {
      const d = item as Extract<ThreadItem, { type: 'dynamicToolCall' }>;
      return d.namespace ? `${d.namespace}.${d.tool}` : d.tool;
    }
    default:
      return item.type;
  }
}

/** "1 add, 2 update: a.txt, b.txt, +1 more" for a fileChange item's changes. */
export function summarizeChanges(changes: { path: string; kind: { type: string } }[]): string {
  if (!changes.length) return 'no files';
  const kinds = new Map<string, number>();
  for (const c of changes) kinds.set(c.kind?.type ?? 'update', (kinds.get(c.kind?.type ?? 'update') ?? 0) + 1);
  const paths = changes.map((c) => c.path);
  const shown = paths.slice(0, 3).join(', ') + (paths.length > 3 ? `, +${paths.length - 3} more` : '');
  return `${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}: ${shown}`;
}

/** The arguments a tool-shaped item projects to (also what surfaces show at tool start). */
export function toolArgsOf(item: Item): Record<string, unknown> {
  switch (item.type) {
    case 'commandExecution': {
      const c = item as Extract<ThreadItem, { type: 'commandExecution' }>;
      return { command: c.command, cwd: c.cwd };
    }
    case 'fileChange': {
      const f = item as Extract<ThreadItem, { type: 'fileChange' }>;
      return { changes: f.changes.map((c) => ({ kind: c.kind?.type ?? 'update', path: c.path })) };
    }
    case 'mcpToolCall':
    case 'dynamicToolCall': {
      const a = (item as { arguments: unknown }).arguments;
      return a && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : { arguments: a ?? null };
    }
    default:
      return {};
  }
}

function clip(s: string): string {
  if (s.length <= MAX_RESULT_CHARS) return s;
  const head = Math.floor(MAX_RESULT_CHARS * 0.7);
  const tail = Math.floor(MAX_RESULT_CHARS * 0.2);
  return `${s.slice(0, head)}\n\n[… ${s.length - head - tail} characters truncated …]\n\n${s.slice(-tail)}`;
}

function textOfContent(content: unknown[]): string {
  const texts = content.map((c) => (c && typeof c === 'object' && (c as { type?: string }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : null));
  return texts.every((t) => t !== null) ? texts.join('\n') : JSON.stringify(content);
}

/** The tool result a completed tool-shaped item projects to: [content, isError]. */
export function toolResultOf(item: Item, streamedOutput = ''): [string, boolean] {
  switch (item.type) {
    case 'commandExecution': {
      const c = item as Extract<ThreadItem, { type: 'commandExecution' }>;
      if (c.status === 'declined') return [sortedJson({ status: 'declined', error: 'The command did not run: approval was declined.' }), true];
      const output = clip(c.aggregatedOutput ?? streamedOutput);
      const r: Record<string, unknown> = { exit_code: c.exitCode, output };
      const failed = c.status === 'failed' || (c.exitCode !== null && c.exitCode !== 0);
      if (failed) r.error = c.exitCode !== null ? `Command exited with code ${c.exitCode}` : 'Command failed';
      return [sortedJson(r), failed];
    }
    case 'fileChange': {
      const f = item as Extract<ThreadItem, { type: 'fileChange' }>;
      const r: Record<string, unknown> = { status: f.status, summary: summarizeChanges(f.changes) };
      const failed = f.status !== 'completed';
      if (f.status === 'declined') r.error = 'The patch was not applied: approval was declined.';
      else if (failed) r.error = 'The patch could not be applied.';
      return [sortedJson(r), failed];
    }
    case 'mcpToolCall': {
      const m = item as Extract<ThreadItem, { type: 'mcpToolCall' }>;
      if (m.error) return [sortedJson({ error: m.error.message }), true];
      if (!m.result) return [sortedJson({ status: m.status }), m.status === 'failed'];
      return [clip(textOfContent(m.result.content)), m.status === 'failed'];
    }
    case 'dynamicToolCall': {
      const d = item as Extract<ThreadItem, { type: 'dynamicToolCall' }>;
      const items = d.contentItems ?? [];
      const text = items.map((c) => (c.type === 'inputText' ? c.text : `[${c.type}]`)).join('\n');
      const failed = d.success === false || d.status === 'failed';
      return [clip(text || sortedJson({ success: d.success })), failed];
    }
    default:
      return ['', false];
  }
}

/** A one-line note for an item that has no Hermes equivalent, or null to drop it. */
function noteOf(item: Item): string | null {
  const i = item as Record<string, unknown>;
  switch (item.type) {
    case 'plan':
      return `[codex plan]\n${String(i.text ?? '')}`;
    case 'hookPrompt':
      return `[codex hook prompt] ${((i.fragments as { text: string }[]) ?? []).map((f) => f.text).join(' ')}`;
    case 'webSearch':
      return `[codex web search] ${String(i.query ?? '')}`;
    case 'imageView':
      return `[codex viewed image] ${String(i.path ?? '')}`;
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return `[codex ${item.type === 'enteredReviewMode' ? 'entered' : 'left'} review mode] ${String(i.review ?? '')}`;
    case 'contextCompaction':
      return '[codex compacted the conversation context]';
    case 'imageGeneration':
      return '[codex generated an image]';
    case 'collabAgentToolCall':
    case 'subAgentActivity':
      return `[codex sub-agent activity: ${String(i.tool ?? i.kind ?? item.type)}]`;
    case 'sleep':
      return null;
    default:
      return `[codex ${item.type}]`;
  }
}

export class CodexProjector {
  private reasoning: string[] = [];
  private held: Message | null = null;
  private readonly output = new Map<string, string>();
  private submitted: string | undefined;

  /** `submittedText`: the user text this turn sent (codex echoes it back as a userMessage item; dropped once). */
  constructor(opts: { submittedText?: string } = {}) {
    this.submitted = opts.submittedText;
  }

  project(method: string, params: Record<string, unknown>): Projection {
    if (method === 'item/commandExecution/outputDelta') {
      const id = String(params.itemId ?? '');
      this.output.set(id, (this.output.get(id) ?? '') + String(params.delta ?? ''));
      return { messages: [], toolIteration: false };
    }
    if (method !== 'item/completed') return { messages: [], toolIteration: false };
    const item = params.item as Item | undefined;
    if (!item || typeof item !== 'object') return { messages: [], toolIteration: false };
    return this.completed(item);
  }

  /** The message held back at the end of the turn. */
  flush(): Message[] {
    const out = this.held ? [this.held] : [];
    this.held = null;
    return out;
  }

  private takeReasoning(): string | undefined {
    if (!this.reasoning.length) return undefined;
    const r = this.reasoning.join('\n\n');
    this.reasoning = [];
    return r;
  }

  private completed(item: Item): Projection {
    const out: Message[] = [];
    if (item.type === 'reasoning') {
      const r = item as Extract<ThreadItem, { type: 'reasoning' }>;
      const text = [...(r.summary ?? []), ...(r.content ?? [])].filter(Boolean).join('\n\n');
      if (text) this.reasoning.push(text);
      return { messages: [], toolIteration: false };
    }
    if (item.type === 'userMessage') {
      const u = item as Extract<ThreadItem, { type: 'userMessage' }>;
      const text = u.content
        .map((c) => (c.type === 'text' ? c.text : ''))
        .filter(Boolean)
        .join('\n');
      if (this.submitted !== undefined && text === this.submitted) {
        this.submitted = undefined;
        return { messages: [], toolIteration: false };
      }
      this.submitted = undefined;
      if (!text) return { messages: [], toolIteration: false };
      out.push(...this.flush(), { role: 'user', content: text });
      return { messages: out, toolIteration: false };
    }
    if (item.type === 'agentMessage') {
      const a = item as Extract<ThreadItem, { type: 'agentMessage' }>;
      out.push(...this.flush());
      const m: Message = { role: 'assistant', content: a.text };
      const reasoning = this.takeReasoning();
      if (reasoning) m.reasoning = reasoning;
      this.held = m;
      return { messages: out, toolIteration: false, finalText: a.text };
    }
    if (TOOL_ITEMS.has(item.type)) {
      const name = toolNameOf(item);
      const id = callIdFor(item.id);
      const call: ToolCall = { id, type: 'function', function: { name, arguments: sortedJson(toolArgsOf(item)) } };
      const [content] = toolResultOf(item, this.output.get(item.id));
      this.output.delete(item.id);
      let assistant: Message;
      if (this.held && !this.held.tool_calls) {
        assistant = this.held;
        this.held = null;
        assistant.tool_calls = [call];
      } else {
        out.push(...this.flush());
        assistant = { role: 'assistant', content: null, tool_calls: [call] };
      }
      const reasoning = this.takeReasoning();
      if (reasoning) assistant.reasoning = [assistant.reasoning, reasoning].filter(Boolean).join('\n\n');
      out.push(assistant, { role: 'tool', tool_call_id: id, tool_name: name, content });
      return { messages: out, toolIteration: true };
    }
    const note = noteOf(item);
    if (note === null) return { messages: [], toolIteration: false };
    out.push(...this.flush());
    this.held = { role: 'assistant', content: note };
    return { messages: out, toolIteration: false };
  }
}
