// `pre_verify`: once per turn in which the agent edited files (write_file / patch), just before the
// turn's answer stands, plugins may keep the agent going — `{"action": "continue", "message"}` (or
// Claude Code's Stop shape `{"decision": "block", "reason"}`); the first non-empty message becomes
// the next user turn. Bounded by `agent.max_verify_nudges` (default 3) so a hook that always says
// continue cannot trap the loop; `attempt` counts the nudges already given for this request.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { TurnResult } from '../agent/types.ts';
import type { HookManager, HookPayload } from './hooks.ts';

const EDIT_TOOLS = new Set(['write_file', 'patch']);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether `dir` is inside a git work tree (Hermes's "coding posture" signal for hooks to scope on). */
function inRepo(dir: string): boolean {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return true;
    if (dirname(d) === d) return false;
  }
}

/** The continue message of one answer, or undefined (anything else lets the turn finish). */
export function verifyMessage(v: unknown): string | undefined {
  if (!isObj(v)) return undefined;
  const action = String(v.action ?? v.decision ?? '').trim().toLowerCase();
  const message = v.message ?? v.reason;
  return (action === 'continue' || action === 'block') && typeof message === 'string' && message.trim() ? message.trim() : undefined;
}

export class VerifyGate {
  private readonly changed = new Set<string>();
  private attempt = 0;
  /** The nudge just given: the turn it starts keeps the edits and the attempt count. */
  private pending: string | undefined;

  private readonly hooks: HookManager;
  private readonly max: number;

  constructor(hooks: HookManager, max: number) {
    this.hooks = hooks;
    this.max = max;
  }

  /** A turn starts: a fresh request resets the edits and the count; a nudged turn keeps them. */
  turnStarted(userText: unknown): void {
    if (this.pending !== undefined && userText === this.pending) {
      this.pending = undefined;
      return;
    }
    this.pending = undefined;
    this.changed.clear();
    this.attempt = 0;
  }

  /** After a tool succeeded: remember the files the agent wrote. */
  note(tool: string, args: Record<string, unknown>, cwd: string): void {
    if (EDIT_TOOLS.has(tool) && typeof args.path === 'string' && this.hooks.has('pre_verify')) this.changed.add(resolve(cwd, args.path));
  }

  /** The next user turn a pre_verify hook asks for, or undefined when the answer stands. */
  async nudge(r: TurnResult, base: HookPayload, cwd: string): Promise<string | undefined> {
    if (!this.changed.size || !r.completed || r.interrupted || this.attempt >= this.max || !this.hooks.has('pre_verify')) return undefined;
    const answers = await this.hooks.invoke('pre_verify', { ...base, coding: inRepo(cwd), attempt: this.attempt, final_response: r.finalText, changed_paths: [...this.changed].sort() });
    for (const { value } of answers) {
      const message = verifyMessage(value);
      if (!message) continue;
      this.attempt++;
      this.pending = message;
      return message;
    }
    return undefined;
  }
}
