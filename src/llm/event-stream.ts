import type { LlmStream, StreamEvent, StreamResult } from './types.ts';

/**
 * A push-based async iterable of stream events that ends with one `done` event. Producers `push`
 * events and finish with `end(result)`; consumers iterate or await `result()`. Events pushed before
 * anyone iterates are buffered, so a consumer may attach late without losing deltas.
 */
export class EventStream implements LlmStream {
  private queue: StreamEvent[] = [];
  private waiting: ((r: IteratorResult<StreamEvent>) => void) | null = null;
  private finished = false;
  private final: StreamResult | undefined;
  private resolveFinal!: (r: StreamResult) => void;
  private readonly finalPromise: Promise<StreamResult>;

  constructor() {
    this.finalPromise = new Promise((resolve) => (this.resolveFinal = resolve));
  }

  push(event: StreamEvent): void {
    if (this.finished) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  end(result: StreamResult): void {
    if (this.finished) return;
    this.push({ type: 'done', result });
    this.finished = true;
    this.final = result;
    this.resolveFinal(result);
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: undefined, done: true });
    }
  }

  get ended(): boolean {
    return this.finished;
  }

  result(): Promise<StreamResult> {
    return this.final ? Promise.resolve(this.final) : this.finalPromise;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.finished) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => Promise.resolve({ value: undefined, done: true }),
    };
  }
}

/** Runs `produce` and guarantees the returned stream ends, converting any throw into `onThrow`. */
export function streamFrom(
  produce: (out: EventStream) => Promise<void>,
  onThrow: (err: unknown) => StreamResult,
): EventStream {
  const out = new EventStream();
  produce(out).then(
    () => {
      if (!out.ended) out.end(onThrow(new Error('stream ended without a result')));
    },
    (err) => {
      if (!out.ended) out.end(onThrow(err));
    },
  );
  return out;
}
