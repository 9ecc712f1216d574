// Live subagents of a session: what delegate_task's children are doing while they run, for watching
// (`/agents watch`, the dashboard) and steering (`/agents steer`, `delegate_task(action='steer')`).
//
// Each child gets a live transcript in Hermes's format (tools/delegation_live_log.py):
// `<home>/cache/delegation/live/<delegation_id>/task-<n>.log`, a header, then one
// `HH:MM:SS role     | text` line per event (assistant text, thinking, tool calls and results,
// lifecycle), secrets redacted, appended per line, so another process (the dashboard, `tail -f`)
// reads it while the child runs. The same lines are kept in memory for followers in this process.
import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AgentEvent } from '../agent/types.ts';
import { redactSecrets } from '../policy/redact.ts';
import { defineSlot } from '../state/slots.ts';

const ASSISTANT_MAX = 600;
const THINKING_MAX = 300;
const ARGS_MAX = 220;
const RESULT_MAX = 400;
const KICKOFF_MAX = 500;
const KEEP_LINES = 400;
const RETENTION_MS = 7 * 24 * 3600 * 1000;

/** What a running child lends for steering: the child session's steer and interrupt. */
export interface ChildControl {
  /** The child's session id (its transcript in state.db). */
  sessionId: string;
  steer(text: string): void;
  interrupt(): void;
}

export type SubagentStatus = 'running' | 'completed' | 'partial' | 'failed' | 'interrupted';

export interface LiveSubagent {
  /** `sa-<task index>-<8 hex>` (Hermes's subagent ids). */
  readonly id: string;
  /** The delegation it belongs to (`deleg_…`: the async_delegations row of a background one). */
  readonly delegationId: string;
  readonly background: boolean;
  readonly goal: string;
  readonly startedAt: number;
  status: SubagentStatus;
  /** The child's session id, once it started. */
  sessionId: string | null;
  /** The live transcript file (null when it could not be written). */
  readonly path: string | null;
  /** The last lines of the transcript. */
  readonly lines: string[];
  toolCount: number;
  lastTool: string | null;
  /** Steering queued before the child started, or after it stopped taking any. */
  missedSteer: string[];
  control: ChildControl | null;
  readonly followers: Set<(line: string) => void>;
}

/** The session's live children, by subagent id (finished ones stay until the next dispatch prunes them). */
export const subagentsSlot = defineSlot('subagents', () => new Map<string, LiveSubagent>());

const oneLine = (text: unknown, limit: number): string => {
  const s = String(text ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
  return s.length > limit ? `${s.slice(0, limit)} \u2026(+${s.length - limit} chars)` : s;
};
const clock = () => new Date().toTimeString().slice(0, 8);

export function liveRoot(home: string): string {
  return join(home, 'cache', 'delegation', 'live');
}

export function newSubagentId(index: number): string {
  return `sa-${index}-${randomBytes(4).toString('hex')}`;
}

/** Removes live transcript folders older than a week (Hermes's retention), at most once per dispatch. */
function pruneLive(home: string): void {
  try {
    const root = liveRoot(home);
    const cutoff = Date.now() - RETENTION_MS;
    for (const d of readdirSync(root)) {
      const p = join(root, d);
      if (statSync(p).mtimeMs < cutoff) rmSync(p, { recursive: true, force: true });
    }
  } catch {
    /* nothing to prune */
  }
}

/** Registers a child about to start and writes its transcript header. */
export function startSubagent(
  map: Map<string, LiveSubagent>,
  home: string,
  o: { delegationId: string; index: number; goal: string; context?: string; background: boolean },
): LiveSubagent {
  for (const [k, v] of map) if (v.status !== 'running' && map.size > 20) map.delete(k);
  let path: string | null = null;
  try {
    if (o.index === 0) pruneLive(home);
    const dir = join(liveRoot(home), o.delegationId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    path = join(dir, `task-${o.index}.log`);
    const header = [
      '=== Hermes subagent live transcript ===',
      `delegation: ${o.delegationId}   task: ${o.index}`,
      `goal: ${redactSecrets(oneLine(o.goal, KICKOFF_MAX))}`,
      `started: ${new Date().toISOString().replace('T', ' ').slice(0, 19)}`,
      '(append-only; streams while the subagent runs \u2014 tail -f me)',
      '='.repeat(40),
    ];
    writeFileSync(path, header.join('\n') + '\n', { mode: 0o600 });
  } catch {
    path = null;
  }
  const sa: LiveSubagent = {
    id: newSubagentId(o.index),
    delegationId: o.delegationId,
    background: o.background,
    goal: o.goal,
    startedAt: Date.now(),
    status: 'running',
    sessionId: null,
    path,
    lines: [],
    toolCount: 0,
    lastTool: null,
    missedSteer: [],
    control: null,
    followers: new Set(),
  };
  map.set(sa.id, sa);
  line(sa, 'user', `kickoff: ${oneLine(o.goal, KICKOFF_MAX)}${o.context ? ` | context: ${oneLine(o.context, KICKOFF_MAX)}` : ''}`);
  return sa;
}

/** Appends one transcript line (file, memory, followers). */
export function line(sa: LiveSubagent, role: string, text: string): void {
  const l = `${clock()} ${role.padEnd(9)}| ${redactSecrets(text)}`;
  sa.lines.push(l);
  if (sa.lines.length > KEEP_LINES) sa.lines.splice(0, sa.lines.length - KEEP_LINES);
  if (sa.path) {
    try {
      appendFileSync(sa.path, l + '\n');
    } catch {
      /* a transcript line is not worth failing the child */
    }
  }
  for (const f of [...sa.followers]) {
    try {
      f(l);
    } catch {
      /* a broken follower must not stop the child */
    }
  }
}

/** Maps one child event to transcript lines; streamed text is buffered into one assistant line. */
export function observer(sa: LiveSubagent): { event(e: AgentEvent): void; flush(): void } {
  let text = '';
  let thinking = '';
  const flush = () => {
    if (thinking.trim()) line(sa, 'think', oneLine(thinking, THINKING_MAX));
    if (text.trim()) line(sa, 'assistant', oneLine(text, ASSISTANT_MAX));
    text = '';
    thinking = '';
  };
  return {
    flush,
    event(e) {
      switch (e.type) {
        case 'text_delta':
          text += e.text;
          if (text.length > 4000) flush();
          break;
        case 'reasoning_delta':
          thinking += e.text;
          break;
        case 'tool_start':
          flush();
          sa.toolCount++;
          sa.lastTool = e.name;
          line(sa, 'tool', `-> ${e.name}(${oneLine(JSON.stringify(e.args), ARGS_MAX)})`);
          break;
        case 'tool_end':
          line(sa, 'result', `${e.name} ${e.isError ? 'ERROR' : 'ok'} ${(e.durationMs / 1000).toFixed(1)}s: ${oneLine(e.content, RESULT_MAX)}`);
          break;
        case 'turn_end':
        case 'message':
          flush();
          break;
        default:
          break;
      }
    },
  };
}

/** The child ended: the final marker, and followers are let go. */
export function endSubagent(sa: LiveSubagent, r: { status: SubagentStatus; summary?: string; error?: string }): void {
  sa.status = r.status;
  sa.control = null;
  const parts = [`end status=${r.status}`];
  if (r.error) parts.push(`error: ${oneLine(r.error, RESULT_MAX)}`);
  if (r.summary) parts.push(`summary: ${oneLine(r.summary, RESULT_MAX)}`);
  line(sa, 'final', parts.join(' '));
  sa.followers.clear();
}

/**
 * Steering text for a running child: it reaches the child after its next tool call (Session.steer).
 * False when the child is unknown, finished, or the text is empty.
 */
export function steerSubagent(sa: LiveSubagent | undefined, text: string): boolean {
  const t = text.trim();
  if (!sa || sa.status !== 'running' || !t) return false;
  if (!sa.control) {
    sa.missedSteer.push(t);
    return true;
  }
  sa.control.steer(t);
  line(sa, 'steer', oneLine(t, ASSISTANT_MAX));
  return true;
}

/** Asks a running child to stop at its next boundary; its partial result still reports back. */
export function stopSubagent(sa: LiveSubagent | undefined): boolean {
  if (!sa || sa.status !== 'running' || !sa.control) return false;
  line(sa, 'final', 'stop requested');
  sa.control.interrupt();
  return true;
}

/** One row for listings (the tool's action='list', /agents, the dashboard). */
export function subagentSummary(sa: LiveSubagent): Record<string, unknown> {
  return {
    subagent_id: sa.id,
    delegation_id: sa.delegationId,
    goal: sa.goal,
    status: sa.status,
    background: sa.background,
    session_id: sa.sessionId,
    running_seconds: Math.round((Date.now() - sa.startedAt) / 100) / 10,
    tool_count: sa.toolCount,
    last_tool: sa.lastTool,
    accepting_steer: sa.status === 'running',
    live_transcript: sa.path,
  };
}

/** A live transcript on disk, as any process reads it (the dashboard, another terminal). */
export interface TranscriptFile {
  delegationId: string;
  task: number;
  goal: string;
  startedAt: number;
  /** The end marker was written (`final | end status=…`): the status, else null (still running, or its process died). */
  ended: string | null;
  bytes: number;
}

const TRANSCRIPT_ID = /^deleg_[0-9a-f]{8}$/;

/** The live transcripts of the home, newest first (at most `limit` delegations). */
export function listTranscripts(home: string, limit = 50): TranscriptFile[] {
  const root = liveRoot(home);
  let dirs: { name: string; mtime: number }[];
  try {
    dirs = readdirSync(root)
      .filter((d) => TRANSCRIPT_ID.test(d))
      .map((d) => ({ name: d, mtime: statSync(join(root, d)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime)
      .slice(0, limit);
  } catch {
    return [];
  }
  const out: TranscriptFile[] = [];
  for (const d of dirs) {
    for (const f of readdirSync(join(root, d.name)).filter((x) => /^task-\d+\.log$/.test(x))) {
      const p = join(root, d.name, f);
      const text = readTail(p, 0, 64 * 1024);
      const head = readTail(p, 0, 1024, true).text;
      const ended = /\| end status=(\S+)/.exec(text.text.split('\n').slice(-3).join('\n'));
      out.push({
        delegationId: d.name,
        task: Number(/\d+/.exec(f)![0]),
        goal: /^goal: (.*)$/m.exec(head)?.[1] ?? '',
        startedAt: statSync(p).birthtimeMs || d.mtime,
        ended: ended ? ended[1] : null,
        bytes: text.size,
      });
    }
  }
  return out;
}

/** Text of a live transcript from `offset` (or its last `max` bytes when that is further on): what `tail -f` shows. */
function readTail(path: string, offset: number, max: number, fromStart = false): { text: string; size: number; from: number } {
  const size = statSync(path).size;
  const from = fromStart ? 0 : Math.max(offset, size - max);
  const len = Math.max(0, Math.min(size - from, max));
  const buf = Buffer.alloc(len);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, len, from);
  } finally {
    closeSync(fd);
  }
  return { text: buf.toString('utf8'), size, from };
}

/** One transcript's text from `offset` (at most the last 16 KiB, as Hermes's subagent.tail); null when there is none. */
export function readTranscript(home: string, delegationId: string, task: number, offset = 0): { text: string; from: number; next: number; truncated: boolean } | null {
  if (!TRANSCRIPT_ID.test(delegationId) || !Number.isInteger(task) || task < 0) return null;
  const p = join(liveRoot(home), delegationId, `task-${task}.log`);
  try {
    const r = readTail(p, Math.max(0, offset), 16 * 1024);
    return { text: r.text, from: r.from, next: r.size, truncated: r.from > offset };
  } catch {
    return null;
  }
}
