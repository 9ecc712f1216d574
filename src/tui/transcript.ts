// The conversation as the TUI shows it: a list of entries (your messages, streamed answers, the
// model's reasoning, tool calls, notes), each rendered to styled lines that fit the screen width.
// Rendering is cached per entry (width, version, selection), so a frame costs the visible lines, and a
// streaming answer only wraps the lines it added. Markdown, syntax colours, activity lines and width
// handling are the REPL's own (src/cli/repl, src/session/activity.ts).

import { messageText } from '../agent/repair.ts';
import type { Message } from '../llm/types.ts';
import { paint, type Tone } from '../cli/repl/driver.ts';
import { diffLine } from '../cli/repl/highlight.ts';
import { MarkdownStream, type MarkdownMode } from '../cli/repl/markdown.ts';
import type { Style } from '../cli/repl/style.ts';
import { wrapAnsi, wrapWords } from '../cli/repl/width.ts';
import { formatDuration } from '../session/activity.ts';
import { activityLine, describeToolCall, runningLine } from '../session/describe.ts';

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Markdown text that streams in: the lines rendered so far, and their wrapping at one width. */
export class MdText {
  raw = '';
  done = false;
  private md: MarkdownStream;
  private committed: string[] = [];
  private wrapW = 0;
  private wrapped: string[] = [];
  private wrappedN = 0;
  private readonly make: () => MarkdownStream;

  constructor(make: () => MarkdownStream) {
    this.make = make;
    this.md = make();
  }

  push(text: string): void {
    this.raw += text;
    this.committed.push(...this.md.push(text));
  }

  end(): void {
    if (this.done) return;
    this.committed.push(...this.md.end());
    this.done = true;
  }

  get empty(): boolean {
    return !this.raw.trim();
  }

  /** The lines that are complete (what can go to the scrollback while the rest still streams). */
  committedLines(width: number, map: (l: string) => string = (l) => l, indent = 0): string[] {
    const all = this.lines(width, map, indent);
    return this.done ? all : all.slice(0, this.wrapped.length);
  }

  /** Lines at `width` (the last ones still arriving included); `indent` columns are kept free on the left. */
  lines(width: number, map: (l: string) => string = (l) => l, indent = 0): string[] {
    const w = Math.max(4, width - indent);
    if (w !== this.wrapW) {
      // Tables and rules depend on the width: render again from the text.
      this.md = this.make();
      this.committed = this.md.push(this.raw);
      if (this.done) this.committed.push(...this.md.end());
      this.wrapW = w;
      this.wrapped = [];
      this.wrappedN = 0;
    }
    const pad = ' '.repeat(indent);
    for (; this.wrappedN < this.committed.length; this.wrappedN++) for (const l of wrapAnsi(map(this.committed[this.wrappedN]), w)) this.wrapped.push(pad + l);
    if (this.done) return this.wrapped;
    const pending = this.md.pendingLines().flatMap((l) => wrapAnsi(map(l), w).map((x) => pad + x));
    return pending.length ? [...this.wrapped, ...pending] : this.wrapped;
  }
}

export interface ToolCall {
  callId: string;
  name: string;
  args: Record<string, unknown>;
  emoji?: string;
  started: number;
  progress?: string;
  /** Set when the call ended. */
  durationMs?: number;
  isError?: boolean;
  content?: string;
  diff?: string;
  /** From a stored conversation: no timing known. */
  restored?: boolean;
}

export type EntryBody =
  | { kind: 'banner'; lines: string[] }
  | { kind: 'user'; text: string; queued?: boolean }
  | { kind: 'assistant'; text: MdText }
  | { kind: 'reasoning'; text: MdText; collapsed: boolean }
  | { kind: 'tool'; call: ToolCall; expanded: boolean }
  | { kind: 'note'; text: string; tone: Tone };

export type Entry = EntryBody & { id: number; version: number };

export interface RenderContext {
  style: Style;
  /** Spinner frame for running tools. */
  tick: number;
  now: number;
  /** display.inline_diffs: diffs of file edits show under collapsed tool lines. */
  inlineDiffs: boolean;
}

/** An entry can open and close (tool calls, reasoning). */
export function expandable(e: Entry): boolean {
  return e.kind === 'tool' || e.kind === 'reasoning';
}

const COLLAPSED_DIFF_LINES = 8;
const MAX_OUTPUT_LINES = 400;

export class Transcript {
  readonly entries: Entry[] = [];
  private nextId = 1;
  private cache = new Map<number, { key: string; lines: string[] }>();

  add(body: EntryBody): Entry {
    const e = { ...body, id: this.nextId++, version: 0 } as Entry;
    this.entries.push(e);
    return e;
  }

  /** Marks an entry changed (its lines are rendered again). */
  touch(e: Entry): void {
    e.version++;
  }

  /** Takes one entry out (a streamed answer that a broken stream withdrew). */
  remove(e: Entry): void {
    const i = this.entries.indexOf(e);
    if (i >= 0) this.entries.splice(i, 1);
    this.cache.delete(e.id);
  }

  clear(): void {
    this.entries.splice(0);
    this.cache.clear();
  }

  get(id: number): Entry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /** The lines of one entry at `width`. Running tools are drawn each frame (their spinner moves). */
  render(e: Entry, width: number, ctx: RenderContext, selected: boolean): string[] {
    const running = e.kind === 'tool' && e.call.durationMs === undefined;
    const streaming = (e.kind === 'assistant' || e.kind === 'reasoning') && !e.text.done;
    const key = `${width}:${e.version}:${selected ? 1 : 0}:${running ? `${ctx.tick}:${Math.floor(ctx.now / 100)}` : ''}`;
    const hit = this.cache.get(e.id);
    if (hit && hit.key === key && !streaming) return hit.lines;
    const lines = renderEntry(e, width, ctx, selected);
    this.cache.set(e.id, { key, lines });
    return lines;
  }

  /**
   * The window of lines to show: `height` lines from `top` (null = the last ones, following the
   * conversation), with the entry each line belongs to (for clicks and selection).
   */
  window(width: number, height: number, top: number | null, ctx: RenderContext, selected: number | null): { lines: string[]; owners: number[]; total: number; top: number } {
    const all: string[] = [];
    const owners: number[] = [];
    for (const e of this.entries) {
      const ls = this.render(e, width, ctx, e.id === selected);
      for (const l of ls) {
        all.push(l);
        owners.push(e.id);
      }
    }
    const total = all.length;
    const maxTop = Math.max(0, total - height);
    const t = top === null ? maxTop : Math.max(0, Math.min(top, maxTop));
    return { lines: all.slice(t, t + height), owners: owners.slice(t, t + height), total, top: t };
  }

  /** The first line of an entry in the whole transcript at `width`, and how many lines it has. */
  position(id: number, width: number, ctx: RenderContext, selected: number | null): { start: number; count: number } | null {
    let n = 0;
    for (const e of this.entries) {
      const c = this.render(e, width, ctx, e.id === selected).length;
      if (e.id === id) return { start: n, count: c };
      n += c;
    }
    return null;
  }
}


const wrapAll = (lines: string[], width: number) => lines.flatMap((l) => wrapAnsi(l, width));

export function renderEntry(e: Entry, width: number, ctx: RenderContext, selected: boolean): string[] {
  const s = ctx.style;
  const w = Math.max(10, width);
  const mark = (l: string) => (selected ? `${s.inverse('›')}${l.slice(1)}` : l);
  switch (e.kind) {
    case 'banner':
      return wrapAll(e.lines, w);
    case 'user': {
      const prompt = s.bold(s.cyan('❯ '));
      const lines = e.text.split('\n');
      const out = lines.flatMap((l, i) => wrapAnsi(`${i === 0 ? prompt : '  '}${l}${e.queued && i === lines.length - 1 ? s.dim(' (queued)') : ''}`, w));
      return ['', ...out];
    }
    case 'assistant':
      return e.text.lines(w);
    case 'reasoning': {
      const count = e.text.raw.split('\n').filter((l) => l.trim()).length;
      const head = `${e.collapsed ? '▸' : '▾'} 💭 Reasoning${e.collapsed ? ` · ${count} line${count === 1 ? '' : 's'}` : ''}`;
      if (e.collapsed) return [mark(s.dim(head))];
      return [mark(s.dim(head)), ...e.text.lines(w, (l) => s.dim(s.italic(l)), 2)];
    }
    case 'tool':
      return renderTool(e.call, e.expanded, w, ctx, selected);
    case 'note':
      // Plain text wraps on words, a list's descriptions hanging under themselves (/help).
      return wrapAll(e.text.split('\n').flatMap((l) => wrapWords(l, w)).map((l) => paint(s, e.tone, l)), w);
    default:
      return [];
  }
}

/** What a tool returned, as lines for a person: the `output` of a JSON result, else the JSON. */
export function outputLines(content: string): string[] {
  let text = content;
  try {
    const v = JSON.parse(content) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.output === 'string') text = o.output + (typeof o.exit_code === 'number' && o.exit_code !== 0 ? `\n[exit code ${o.exit_code}]` : '');
      else if (typeof o.content === 'string') text = o.content;
      else if (typeof o.error === 'string') text = `error: ${o.error}`;
      else text = JSON.stringify(v, null, 2);
    } else text = JSON.stringify(v, null, 2);
  } catch {
    /* not JSON: as it is */
  }
  return text.replace(/\n+$/, '').split('\n');
}

/** Arguments one per line: `key: value` (long strings keep their own lines). */
export function argLines(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    const val = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    const ls = val.split('\n');
    out.push(`${k}: ${ls[0]}`);
    for (const l of ls.slice(1)) out.push(`  ${l}`);
  }
  return out.length ? out : ['(no arguments)'];
}

function renderTool(c: ToolCall, expanded: boolean, w: number, ctx: RenderContext, selected: boolean): string[] {
  const s = ctx.style;
  const ended = c.durationMs !== undefined;
  const canOpen = ended || Object.keys(c.args).length > 0;
  const chevron = canOpen ? (expanded ? '▾' : '▸') : ' ';
  let head: string;
  if (!ended) {
    const running = runningLine(describeToolCall(c.name, c.args, { emoji: c.emoji, argMax: Math.max(10, w - 30) }), c.progress);
    head = `${s.cyan(SPINNER[ctx.tick % SPINNER.length])} ${running} ${s.dim(formatDuration(ctx.now - c.started))}`;
  } else {
    const line = activityLine(c.name, c.args, c.restored ? null : (c.durationMs ?? 0), { emoji: c.emoji, failed: c.isError });
    head = c.isError ? s.red(line) : s.gray(line);
  }
  const first = `${selected ? s.inverse(chevron) : s.dim(chevron)} ${head}`;
  const out = wrapAnsi(first, w).slice(0, expanded ? undefined : 2);
  const body = (lines: string[], paint: (l: string) => string = (l) => l) => lines.flatMap((l) => wrapAnsi(`    ${paint(l)}`, w));
  if (expanded) {
    out.push(s.dim('  arguments'), ...body(argLines(c.args), s.dim));
    if (ended) {
      const outLines = outputLines(c.content ?? '');
      out.push(s.dim(c.isError ? '  error' : '  output'));
      out.push(...body(outLines.slice(0, MAX_OUTPUT_LINES), (l) => (c.isError ? s.red(l) : l)));
      if (outLines.length > MAX_OUTPUT_LINES) out.push(s.dim(`    … ${outLines.length - MAX_OUTPUT_LINES} more line(s)`));
    }
    if (c.diff) out.push(s.dim('  diff'), ...body(c.diff.replace(/\n$/, '').split('\n'), (l) => diffLine(l, s)));
    return out;
  }
  if (c.diff && ctx.inlineDiffs) {
    const d = c.diff.replace(/\n$/, '').split('\n');
    out.push(...body(d.slice(0, COLLAPSED_DIFF_LINES), (l) => diffLine(l, s)));
    if (d.length > COLLAPSED_DIFF_LINES) out.push(s.dim(`    … ${d.length - COLLAPSED_DIFF_LINES} more diff line(s) · Ctrl+O to open`));
  }
  return out;
}

/** Entries for a stored conversation (a resumed session): messages, and tool calls with their results. */
export function entriesFromHistory(history: readonly Message[], newMd: () => MdText): EntryBody[] {
  const out: EntryBody[] = [];
  const calls = new Map<string, ToolCall>();
  for (const m of history) {
    if (m.role === 'user') {
      const text = messageText(m.content).trim();
      if (text) out.push({ kind: 'user', text });
    } else if (m.role === 'assistant') {
      const text = messageText(m.content);
      if (text.trim()) {
        const md = newMd();
        md.push(text);
        md.end();
        out.push({ kind: 'assistant', text: md });
      }
      for (const tc of m.tool_calls ?? []) {
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(tc.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          args = { arguments: tc.function.arguments };
        }
        const call: ToolCall = { callId: tc.id, name: tc.function.name, args, started: 0, durationMs: 0, restored: true };
        calls.set(tc.id, call);
        out.push({ kind: 'tool', call, expanded: false });
      }
    } else if (m.role === 'tool') {
      const call = calls.get(m.tool_call_id ?? '');
      if (call) call.content = messageText(m.content);
    }
  }
  return out;
}

/** A markdown text for answers in the given mode, with syntax colours. */
export function mdFactory(mode: MarkdownMode, style: Style, width: () => number): () => MdText {
  return () => new MdText(() => new MarkdownStream({ mode, style, width, highlight: true }));
}
