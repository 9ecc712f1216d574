import { randomUUID } from 'node:crypto';
import type { AgentEvent, AgentRequest, Answered, AnswerFor, AnswerSource } from './types.ts';

interface Pending {
  request: AgentRequest;
  settle: (answer: unknown, source: AnswerSource) => void;
}

/** The answer given when no person answers: deny, no clarification, no secret. */
export function defaultAnswer<R extends AgentRequest>(req: R): AnswerFor<R> {
  const v = req.kind === 'approval' ? 'deny' : req.kind === 'clarify' ? '' : null;
  return v as AnswerFor<R>;
}

/**
 * Carries requests from below (tools, the loop) to whatever surface is attached. `ask` emits a
 * `request` event and waits for `answer(id, …)`; with nobody to answer, on timeout, or on interrupt
 * it settles with the default answer and says why.
 */
export class RequestBroker {
  private readonly pending = new Map<string, Pending>();

  private emit: (e: AgentEvent) => void;
  private readonly opts: { interactive: boolean; timeoutMs: number };

  constructor(emit: (e: AgentEvent) => void, opts: { interactive: boolean; timeoutMs: number }) {
    this.emit = emit;
    this.opts = { ...opts };
  }

  setInteractive(interactive: boolean): void {
    this.opts.interactive = interactive;
  }

  get interactive(): boolean {
    return this.opts.interactive;
  }

  setEmitter(emit: (e: AgentEvent) => void): void {
    this.emit = emit;
  }

  open(): { id: string; request: AgentRequest }[] {
    return [...this.pending].map(([id, p]) => ({ id, request: p.request }));
  }

  ask<R extends AgentRequest>(request: R, signal?: AbortSignal): Promise<Answered<R>> {
    if (!this.opts.interactive) return Promise.resolve({ answer: defaultAnswer(request), source: 'no_responder' });
    if (signal?.aborted) return Promise.resolve({ answer: defaultAnswer(request), source: 'interrupted' });
    const id = randomUUID();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => settle(defaultAnswer(request), 'interrupted');
      const settle = (answer: unknown, source: AnswerSource) => {
        if (!this.pending.delete(id)) return;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.emit({ type: 'request_resolved', id, answer: request.kind === 'secret' ? '***' : answer, source });
        resolve({ answer: answer as AnswerFor<R>, source });
      };
      this.pending.set(id, { request, settle });
      if (this.opts.timeoutMs > 0) {
        timer = setTimeout(() => settle(defaultAnswer(request), 'timeout'), this.opts.timeoutMs);
        timer.unref?.();
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'request', id, request });
    });
  }

  /** Answers an open request. Returns false when no such request is open. */
  answer(id: string, value: unknown): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    p.settle(value, 'person');
    return true;
  }

  /** Settles every open request with its default (deny), saying why. Returns how many were open. */
  cancelAll(source: AnswerSource = 'interrupted'): number {
    const open = [...this.pending.values()];
    for (const p of open) p.settle(defaultAnswer(p.request), source);
    return open.length;
  }
}
