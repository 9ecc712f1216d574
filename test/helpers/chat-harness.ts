// The fake LLM set up for interactive-chat tests (the REPL and the TUI): replies queued for the
// conversation's own requests (they carry tool schemas), while side requests (a title, the
// background review) get a plain answer and do not consume them. Registers before/after hooks.
import { after, before } from 'node:test';
import { homeWithModel } from './cli.ts';
import { startFakeLlm, type FakeLlm, type FakeReply, type RecordedRequest } from './fake-llm.ts';

export interface ChatHarness {
  fake(): FakeLlm;
  enqueue(...r: FakeReply[]): void;
  /** The conversation's requests so far. */
  main(): RecordedRequest[];
  /** Waits until the fake has seen `n` conversation requests in total; returns them. */
  requests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** A fresh HERMES_HOME whose config.yaml points at the fake (`extra` is appended). */
  home(extra?: string): string;
}

export const isMain = (r: RecordedRequest) => Array.isArray(r.body.tools) && r.body.tools.length > 0;
export const bodyText = (r: RecordedRequest) => JSON.stringify(r.body);

/** The last user message of a request, as text. */
export function userText(r: RecordedRequest): string {
  const msgs = (r.body.messages ?? []) as { role: string; content: unknown }[];
  const c = [...msgs].reverse().find((m) => m.role === 'user')?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
}

export function chatHarness(o: { models?: string[] } = {}): ChatHarness {
  let fake: FakeLlm | undefined;
  const queue: FakeReply[] = [];
  const main = () => fake!.requests.filter(isMain);
  before(async () => {
    fake = await startFakeLlm();
    fake.models.push(...(o.models ?? []));
    fake.setHandler((r) => (isMain(r) ? (queue.shift() ?? { text: 'ok' }) : { text: 'A title' }));
  });
  after(async () => {
    await fake?.close();
  });
  return {
    fake: () => fake!,
    enqueue: (...r) => void queue.push(...r),
    main,
    async requests(n, timeoutMs = 15_000) {
      const deadline = performance.now() + timeoutMs;
      while (main().length < n) {
        if (performance.now() > deadline) throw new Error(`expected ${n} requests, got ${main().length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return main();
    },
    home: (extra = '') => homeWithModel(fake!.openaiBaseUrl, extra),
  };
}
