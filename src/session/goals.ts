// Standing goals (/goal, /subgoal) and heartbeats (/heartbeat) for a session. Both work through the
// session's inbox, the same path background processes report on: a notice becomes the next user
// turn wherever the session runs (REPL, gateway chat, a one-shot run waits for it).
//
// A goal is judged after every completed turn by the auxiliary model (`auxiliary.goal_judge`, the main
// model by default): DONE ends it, CONTINUE queues the next step, up to a budget of turns (20).
import type { AgentEvent, TurnResult } from '../agent/types.ts';
import { collectText } from './session-aux.ts';
import type { Session } from './session.ts';

export interface Goal {
  text: string;
  subgoals: string[];
  status: 'active' | 'paused' | 'done';
  turns: number;
  budget: number;
  last?: string;
}

const JUDGE_SYSTEM =
  'You judge whether an assistant has achieved a goal. Read the goal, any extra criteria and the latest reply. ' +
  'Answer on one line: "DONE: <why>" when the goal is fully achieved, otherwise "CONTINUE: <the next concrete step>".';

export class SessionRoutines {
  readonly session: Session;
  goal: Goal | null = null;
  heartbeat: { everyMs: number; prompt: string; paused: boolean; timer: NodeJS.Timeout; fired: number } | null = null;

  constructor(session: Session) {
    this.session = session;
    session.on((e: AgentEvent) => {
      if (e.type === 'turn_end') this.afterTurn(e.result);
    });
  }

  setGoal(text: string, budget = 20): Goal {
    this.goal = { text, subgoals: [], status: 'active', turns: 0, budget };
    return this.goal;
  }

  private afterTurn(result: TurnResult): void {
    const g = this.goal;
    if (!g || g.status !== 'active' || result.interrupted || result.failed || !result.completed) return;
    g.turns++;
    if (g.turns >= g.budget) {
      g.status = 'paused';
      this.session.emit({ type: 'notice', message: `🎯 Goal paused: the budget of ${g.budget} turns is used up. /goal resume continues, /goal clear drops it.` });
      return;
    }
    // This conversation's channel: after /new the verdict reports into nothing.
    const channel = this.session.services.notifier ?? this.session.inbox;
    const judged = this.judge(g, result.finalText).then((verdict) => {
      if (this.goal !== g || g.status !== 'active') return;
      g.last = verdict;
      if (/^DONE\b/i.test(verdict)) {
        g.status = 'done';
        this.session.emit({ type: 'notice', message: `🎯 Goal achieved: ${verdict.replace(/^DONE:?\s*/i, '')}` });
        return;
      }
      const step = verdict.replace(/^CONTINUE:?\s*/i, '') || 'keep going';
      channel.notify({
        kind: 'goal',
        id: 'goal',
        title: `🎯 goal: continuing (${g.turns}/${g.budget}) — ${step.slice(0, 80)}`,
        text: `[Standing goal — keep working until it is achieved: ${g.text}${g.subgoals.length ? `\nAlso required: ${g.subgoals.join('; ')}` : ''}]\nNext step: ${step}`,
      });
    });
    channel.expect(judged);
  }

  private async judge(g: Goal, reply: string): Promise<string> {
    const aux = this.session.auxiliary('goal_judge');
    const stream = aux?.stream ?? ((req) => this.session.llm.stream(req));
    try {
      const text = await collectText(stream, {
        model: aux?.model ?? this.session.llm.active.model,
        system: JUDGE_SYSTEM,
        messages: [
          {
            role: 'user',
            content: `Goal: ${g.text}\n${g.subgoals.length ? `Extra criteria:\n${g.subgoals.map((s, i) => `${i + 1}. ${s}`).join('\n')}\n` : ''}\nLatest reply:\n${reply.slice(0, 8000)}`,
          },
        ],
        tools: [],
        maxTokens: 300,
      });
      return text.trim().split('\n')[0] || 'CONTINUE: keep going';
    } catch (e) {
      return `CONTINUE: (the judge could not answer: ${(e as Error).message})`;
    }
  }

  startHeartbeat(everyMs: number, prompt: string): void {
    this.stopHeartbeat();
    const timer = setInterval(() => {
      const hb = this.heartbeat;
      if (!hb || hb.paused || this.session.busy) return;
      hb.fired++;
      this.session.inbox.notify({ kind: 'heartbeat', id: 'heartbeat', title: `💓 heartbeat #${hb.fired}`, text: hb.prompt });
    }, everyMs);
    timer.unref();
    this.heartbeat = { everyMs, prompt, paused: false, timer, fired: 0 };
  }

  stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat.timer);
    this.heartbeat = null;
  }
}

const routines = new WeakMap<Session, SessionRoutines>();

export function routinesOf(session: Session): SessionRoutines {
  let r = routines.get(session);
  if (!r) {
    r = new SessionRoutines(session);
    routines.set(session, r);
  }
  return r;
}

/** `30s`, `5m`, `2h`, `1d` (or bare seconds) → milliseconds; null when unreadable. */
export function parseInterval(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d)?$/i.exec(s.trim());
  if (!m) return null;
  const unit = (m[2] ?? 's').toLowerCase()[0];
  const mult = unit === 's' ? 1000 : unit === 'm' ? 60_000 : unit === 'h' ? 3_600_000 : 86_400_000;
  return Number(m[1]) * mult;
}
