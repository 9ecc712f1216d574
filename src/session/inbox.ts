// A session's inbox for background work: a process started with notify_on_complete finished, one
// with watch_patterns printed a match, a background subagent is done. Each notice becomes the next
// user turn of the conversation, as in Hermes; the surface decides when (the REPL and TUI when idle,
// the gateway and ACP after the running turn, a one-shot run and an API request before they end).
//
// Tools hold a conversation's channel (`channel()`), not the inbox: after /new (or /resume) the
// session opens a new channel, and whatever the old conversation's processes and subagents report
// later is dropped instead of arriving in the new conversation.
import type { TurnResult } from '../agent/types.ts';
import { addUsage, type Message } from '../llm/types.ts';
import type { BackgroundNotice, Notifier } from '../tools/types.ts';

export class Inbox implements Notifier {
  private _listening = false;
  private readonly conversationHooks = new Set<() => void>();
  private items: BackgroundNotice[] = [];
  private readonly work = new Set<Promise<unknown>>();
  private readonly listeners = new Set<() => void>();
  private readonly wakers = new Set<() => void>();
  private readonly ac = new AbortController();
  /** Which conversation's channel is current. */
  private generation = 0;

  /** Set by the surface that turns notices into turns; tools promise reports only then. */
  get listening(): boolean {
    return this._listening;
  }
  set listening(on: boolean) {
    const was = this._listening;
    this._listening = on;
    if (on && !was) this.conversationStarts();
  }

  /**
   * Called (after the current task) when a surface starts listening and at each new conversation
   * while one listens: what the conversation is owed from before (finished background delegations)
   * comes in then. Returns the unsubscribe function.
   */
  onConversation(fn: () => void): () => void {
    this.conversationHooks.add(fn);
    return () => this.conversationHooks.delete(fn);
  }

  private conversationStarts(): void {
    if (this.ac.signal.aborted) return;
    queueMicrotask(() => {
      for (const h of [...this.conversationHooks]) {
        try {
          h();
        } catch {
          /* a failing hook must not break the surface */
        }
      }
    });
  }

  /** The notifier tools of the current conversation report through. */
  channel(): Notifier {
    const gen = this.generation;
    const inbox = this;
    return {
      notify: (n) => {
        if (inbox.generation === gen) inbox.notify(n);
      },
      expect: (work) => {
        if (inbox.generation === gen) inbox.expect(work);
      },
      get signal() {
        return inbox.signal;
      },
      get listening() {
        return inbox.listening;
      },
      get active() {
        return inbox.generation === gen && !inbox.signal.aborted;
      },
    };
  }

  /** A new conversation starts (/new, /resume): waiting notices are dropped, old channels go quiet. Returns the new channel. */
  newConversation(): Notifier {
    this.generation++;
    this.items = [];
    this.work.clear();
    this.wake();
    if (this._listening) this.conversationStarts();
    return this.channel();
  }

  /** Aborted when the session closes: background work stops with it. */
  get signal(): AbortSignal {
    return this.ac.signal;
  }

  notify(n: BackgroundNotice): void {
    if (this.ac.signal.aborted) return;
    this.items.push(n);
    this.wake();
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        /* a broken listener must not lose the notice */
      }
    }
  }

  expect(work: Promise<unknown>): void {
    const p = work.catch(() => undefined);
    this.work.add(p);
    void p.finally(() => {
      this.work.delete(p);
      this.wake();
    });
  }

  /** Called when a notice arrives. Returns the unsubscribe function. */
  on(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Background work still under way that will report (notify_on_complete processes, subagents). */
  get working(): number {
    return this.work.size;
  }

  /** Notices waiting, without those the model already saw (it waited on the process itself). */
  get size(): number {
    return this.items.filter((n) => !n.superseded?.()).length;
  }

  /** Takes the waiting notices (dropping superseded ones). */
  take(): BackgroundNotice[] {
    const out = this.items.filter((n) => !n.superseded?.());
    this.items = [];
    for (const n of out) {
      try {
        n.onTaken?.();
      } catch {
        /* the notice is in the conversation whatever its bookkeeping does */
      }
    }
    return out;
  }

  /**
   * Waits until no expected work is left, or until `timeoutMs` passes or `signal` aborts.
   * Resolves true when everything finished.
   */
  settle(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (!this.work.size) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (r: boolean) => {
        clearTimeout(timer);
        this.wakers.delete(check);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const check = () => {
        if (!this.work.size) done(true);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.wakers.add(check);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }

  /** The session ends: pending notices are dropped and background work is told to stop. */
  close(): void {
    this.items = [];
    this.ac.abort();
    this.listeners.clear();
  }
}

/** The text of one turn made of several notices (Hermes's batch header when there are more). */
export function composeNotices(notes: BackgroundNotice[]): string {
  if (notes.length === 1) return notes[0].text;
  return [
    `[IMPORTANT: ${notes.length} background notifications arrived together. Treat them as one batch and give one consolidated response; keep failures and results that need action.]`,
    ...notes.map((n) => n.text),
  ].join('\n\n');
}

/**
 * Before a one-shot run exits: waits (up to `deadlineMs`, shared by all rounds) for the background
 * work that promised to report, and runs what it reports as follow-up turns, at most `maxRounds`.
 */
export async function runFollowUps(
  inbox: Inbox,
  o: { deadlineMs: number; signal?: AbortSignal; maxRounds?: number; run: (text: string, notes: BackgroundNotice[]) => Promise<{ stop: boolean }> },
): Promise<number> {
  let rounds = 0;
  while (rounds < (o.maxRounds ?? 8) && !o.signal?.aborted) {
    await inbox.settle(o.deadlineMs - Date.now(), o.signal);
    const notes = inbox.take();
    if (!notes.length) break;
    rounds++;
    const r = await o.run(composeNotices(notes), notes);
    if (r.stop) break;
  }
  return rounds;
}

/**
 * A request-shaped surface (the API server): runs the prompt, then, like a one-shot run, waits
 * (bounded) for the background work that promised to report and answers it in follow-up turns of
 * the same request. The result is the last turn's, with text, messages and usage of all of them.
 */
export async function promptWithFollowUps(
  session: { inbox: Inbox; prompt(m: string | Message): Promise<TurnResult> },
  message: string | Message,
  waitMs: number,
): Promise<TurnResult> {
  session.inbox.listening = true;
  let acc = await session.prompt(message);
  if (acc.failed || acc.interrupted || !(session.inbox.working || session.inbox.size)) return acc;
  await runFollowUps(session.inbox, {
    deadlineMs: Date.now() + Math.max(0, waitMs),
    run: async (text) => {
      const r = await session.prompt(text);
      const u = acc.usage;
      acc = {
        ...r,
        finalText: [acc.finalText, r.finalText].filter(Boolean).join('\n\n'),
        messages: [...acc.messages, ...r.messages],
        apiCalls: acc.apiCalls + r.apiCalls,
        iterations: acc.iterations + r.iterations,
        costUsd: acc.costUsd === null || r.costUsd === null ? (acc.costUsd ?? r.costUsd) : acc.costUsd + r.costUsd,
        usage: addUsage(u, r.usage),
      };
      return { stop: r.failed || r.interrupted };
    },
  });
  return acc;
}
