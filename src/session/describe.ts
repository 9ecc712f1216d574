// The one event describer: what an agent-loop event says to a person, as data every surface styles
// its own way. The REPL, the TUI and the one-shot run print `describeLine(d)` in their colours, the
// dashboard's tool panel shows the fields side by side, the gateway's progress lines and the API
// server's progress events take the icon and main argument. Pure: no I/O, no terminal codes, no
// surface knowledge (src/session may not import a surface).
//
// A description is { kind, icon, title, arg, detail, status, tone }: `title` is what happened (a
// tool's verb, the provider that failed), `arg` its main argument (the command, the path, the
// error), `detail` the rest (a duration, a retry's wait), `status` where the thing stands and
// `tone` how loud a surface should make it. Every tool line shows its main argument, Codex's items
// (`exec_command`, `apply_patch`) included: toolDetail in activity.ts picks it per tool.
import type { AgentEvent, AgentRequest, AnswerSource } from '../agent/types.ts';
import { formatDuration, toolDetail, toolEmoji, toolVerb } from './activity.ts';

export type DescriptionKind =
  | 'tool'
  | 'progress'
  | 'reasoning'
  | 'retry'
  | 'fallback'
  | 'key_rotated'
  | 'retract'
  | 'warning'
  | 'notice'
  | 'error'
  | 'request'
  | 'resolved'
  | 'turn_end';

/** Where the thing described stands. */
export type DescriptionStatus = 'running' | 'ok' | 'failed' | 'info' | 'warn' | 'error';

/** How loud a surface should make it (the REPL's and TUI's tones). */
export type DescriptionTone = 'plain' | 'dim' | 'info' | 'ok' | 'warn' | 'error';

export interface Description {
  kind: DescriptionKind;
  icon: string;
  title: string;
  /** The main argument, on one line ('' when there is none). */
  arg: string;
  detail: string;
  status: DescriptionStatus;
  tone: DescriptionTone;
  /** The tool's own name (tool and progress descriptions). */
  tool?: string;
}

/** What an event does not carry itself: a tool_end's call (from its tool_start), a resolved request. */
export interface DescribeContext {
  call?: { name: string; args: Record<string, unknown>; emoji?: string };
  request?: AgentRequest;
}

const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * One tool call. `durationMs`: undefined while it runs, null for a call from a stored conversation
 * (no duration known), else how long it took. `argMax`: how long the main argument may be.
 */
export function describeToolCall(
  name: string,
  args: Record<string, unknown>,
  o: { emoji?: string; durationMs?: number | null; failed?: boolean; argMax?: number } = {},
): Description {
  const running = o.durationMs === undefined;
  return {
    kind: 'tool',
    icon: toolEmoji(name, o.emoji),
    title: toolVerb(name),
    arg: toolDetail(name, args, o.argMax ?? 60),
    detail: o.durationMs === undefined || o.durationMs === null ? '' : formatDuration(o.durationMs),
    status: running ? 'running' : o.failed ? 'failed' : 'ok',
    tone: o.failed ? 'error' : 'dim',
    tool: name,
  };
}

/** What a request asks, as a line a surface may show beside its own way of answering it. */
export function describeRequest(r: AgentRequest): Description {
  if (r.kind === 'approval') return { kind: 'request', icon: '⚠', title: 'approval needed', arg: flat(r.command), detail: r.description, status: 'warn', tone: 'warn' };
  if (r.kind === 'clarify') return { kind: 'request', icon: '❓', title: 'question', arg: flat(r.question), detail: (r.choices ?? []).join(' · '), status: 'info', tone: 'info' };
  return { kind: 'request', icon: '🔑', title: 'secret needed', arg: r.name, detail: r.prompt, status: 'info', tone: 'info' };
}

/**
 * How a request was settled, when that is news to the person at the terminal (a timeout, a
 * cancellation, an answer given elsewhere: the dashboard's buttons); null when they answered it here.
 */
export function describeResolution(r: AgentRequest, source: AnswerSource | string, answer?: unknown): Description | null {
  const what = r.kind === 'approval' ? 'approval' : r.kind === 'clarify' ? 'question' : 'secret prompt';
  const base = { kind: 'resolved' as const, arg: '', detail: '' };
  if (source === 'timeout') return { ...base, icon: '⏱', title: `The ${what} timed out${r.kind === 'approval' ? ': denied' : ''}.`, status: 'warn', tone: 'warn' };
  if (source === 'interrupted') return { ...base, icon: '', title: `The ${what} was cancelled.`, status: 'info', tone: 'dim' };
  if (source !== 'person') return null;
  if (r.kind === 'approval') {
    const cmd = flat(r.command);
    if (answer === 'deny') return { ...base, icon: '✗', title: 'Denied from the dashboard', arg: cmd, status: 'failed', tone: 'error' };
    const how = answer === 'once' ? 'once' : answer === 'session' ? 'for this session' : 'always (saved to command_allowlist)';
    return { ...base, icon: '✓', title: `Approved ${how} from the dashboard`, arg: cmd, status: 'ok', tone: 'ok' };
  }
  if (r.kind === 'clarify') return { ...base, icon: '↳', title: '', arg: String(answer ?? ''), detail: 'answered from the dashboard', status: 'ok', tone: 'dim' };
  return { ...base, icon: '🔑', title: 'secret entered from the dashboard', status: 'ok', tone: 'dim' };
}

/**
 * The description of one event, or null for those that are not a line of their own: streamed text
 * (`text_delta`, `message`), bookkeeping (`turn_start`, `api_start`, `usage`), a turn that ended
 * well, and a `tool_end` or `request_resolved` whose call or request the context does not name.
 */
export function describeEvent(e: AgentEvent, ctx: DescribeContext = {}): Description | null {
  switch (e.type) {
    case 'tool_start':
      return describeToolCall(e.name, e.args, { emoji: e.emoji });
    case 'tool_end': {
      const call = ctx.call ?? { name: e.name, args: {} };
      return describeToolCall(e.name, call.args, { emoji: call.emoji, durationMs: e.durationMs, failed: e.isError });
    }
    case 'tool_progress':
      return { kind: 'progress', icon: '', title: toolVerb(e.name), arg: cut(flat(e.text), 80), detail: '', status: 'running', tone: 'dim', tool: e.name };
    case 'reasoning_delta':
      return { kind: 'reasoning', icon: '💭', title: 'Reasoning', arg: e.text, detail: '', status: 'info', tone: 'dim' };
    case 'retry':
      return {
        kind: 'retry',
        icon: '↻',
        title: e.error.provider,
        arg: e.error.message,
        detail: `retrying in ${(e.delayMs / 1000).toFixed(1)}s (${e.attempt}/${e.maxAttempts})`,
        status: 'warn',
        tone: 'warn',
      };
    case 'fallback':
      return e.back
        ? { kind: 'fallback', icon: '⇄', title: e.reason, arg: e.from, detail: '', status: 'ok', tone: 'warn' }
        : { kind: 'fallback', icon: '⇄', title: `switching from ${e.from} to fallback ${e.to}`, arg: e.reason, detail: '', status: 'warn', tone: 'warn' };
    case 'key_rotated':
      return { kind: 'key_rotated', icon: '⇄', title: e.provider, arg: 'rotated to the next API key', detail: e.reason, status: 'info', tone: 'dim' };
    case 'retract':
      return { kind: 'retract', icon: '✗', title: 'partial answer withdrawn', arg: e.error.message, detail: 'it is asked again', status: 'warn', tone: 'dim' };
    case 'warning':
      return { kind: 'warning', icon: '⚠', title: '', arg: e.message, detail: '', status: 'warn', tone: 'warn' };
    case 'notice':
      return { kind: 'notice', icon: '', title: '', arg: e.message, detail: '', status: 'info', tone: 'dim' };
    case 'error':
      return { kind: 'error', icon: '✗', title: e.error.kind, arg: e.error.message, detail: '', status: 'error', tone: 'error' };
    case 'request':
      return describeRequest(e.request);
    case 'request_resolved':
      return ctx.request ? describeResolution(ctx.request, e.source, e.answer) : null;
    case 'turn_end': {
      const r = e.result;
      if (r.interrupted) return { kind: 'turn_end', icon: '', title: 'Interrupted.', arg: '', detail: '', status: 'warn', tone: 'dim' };
      if (r.failed) return { kind: 'turn_end', icon: '✗', title: 'the turn failed', arg: r.error?.message ?? '', detail: '', status: 'error', tone: 'error' };
      if (r.partial) return { kind: 'turn_end', icon: '⚠', title: 'the iteration budget ran out', arg: 'the answer is a summary of the work so far', detail: '', status: 'warn', tone: 'warn' };
      return null;
    }
    case 'turn_start':
    case 'api_start':
    case 'text_delta':
    case 'message':
    case 'usage':
      return null;
  }
}

/** A description as one line of plain text (the same on every text surface). */
export function describeLine(d: Description): string {
  const join = (...parts: string[]) => parts.filter(Boolean).join(' ');
  switch (d.kind) {
    case 'tool':
      // `┊ {emoji} {verb} {main argument}  {duration}  ✗`
      return `┊ ${join(d.icon, d.title, d.arg)}${d.detail ? `  ${d.detail}` : ''}${d.status === 'failed' ? '  ✗' : ''}`;
    case 'progress':
      return d.arg;
    case 'reasoning':
      return join(d.icon, d.title);
    case 'retry':
      return `${d.icon} ${d.title}: ${d.arg} — ${d.detail}`;
    case 'fallback':
      return d.status === 'ok' ? `${d.icon} ${d.title} (was on ${d.arg})` : `${d.icon} ${d.title}: ${d.arg}`;
    case 'key_rotated':
      return `${d.icon} ${d.title}: ${d.arg} (${d.detail})`;
    case 'retract':
      return `${d.icon} ${d.title} (${d.arg}); ${d.detail}`;
    case 'resolved':
      if (d.icon === '↳') return `↳ ${d.arg} (${d.detail})`;
      return join(d.icon, d.arg ? `${d.title}: ${cut(d.arg, 60)}` : d.title);
    case 'request':
      return `${join(d.icon, d.title)}: ${d.arg}${d.detail ? ` (${d.detail})` : ''}`;
    default:
      return join(d.icon, d.title && d.arg ? `${d.title}: ${d.arg}` : d.title || d.arg);
  }
}

/** A tool call's activity line. `durationMs` null: no duration (a call from a stored conversation). */
export function activityLine(name: string, args: Record<string, unknown>, durationMs: number | null, opts: { emoji?: string; failed?: boolean } = {}): string {
  return describeLine(describeToolCall(name, args, { emoji: opts.emoji, durationMs, failed: opts.failed }));
}

/** An event's line of plain text, '' for an event that is not a line of its own. */
export function eventLine(e: AgentEvent, ctx: DescribeContext = {}): string {
  const d = describeEvent(e, ctx);
  return d ? describeLine(d) : '';
}

/**
 * A running tool call as a spinner or status line shows it: `{emoji} {tool name} {main argument}`,
 * or the call's latest progress in place of the argument.
 */
export function runningLine(d: Description, progress?: string): string {
  const what = progress ?? d.arg;
  return `${d.icon} ${d.tool ?? d.title}${what ? ` ${what}` : ''}`;
}
