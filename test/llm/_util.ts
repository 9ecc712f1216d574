// Shared bits for the LLM tests (not a test file itself).
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import type { LlmStream, StreamEvent, StreamFn, StreamRequest } from '../../src/llm/types.ts';

export function runtime(over: Partial<ProviderRuntime> & Pick<ProviderRuntime, 'baseUrl'>): ProviderRuntime {
  const keys = over.keys ?? [over.apiKey ?? 'test-key'];
  return {
    provider: 'custom',
    apiMode: 'chat_completions',
    apiKey: keys[0],
    keys,
    model: 'fake-model',
    source: 'test',
    extraHeaders: {},
    quirks: {},
    isCustom: true,
    ...over,
  };
}

export function request(over: Partial<StreamRequest> = {}): StreamRequest {
  return { model: '', system: 'You are a test.', messages: [{ role: 'user', content: 'hi' }], tools: [], ...over };
}

export async function collect(s: LlmStream): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of s) out.push(e);
  return out;
}

export const TOOL = { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } };

/**
 * Sends `long` on a stream function, and `side` on the same one while `long`'s body is still held
 * (not copied) before it goes out: a background review or side question on the same client while
 * the loop's request is on its way. Returns the bytes `long` held at first and both bodies as sent.
 */
export async function concurrentBodies(make: (f: typeof fetch) => StreamFn, long: StreamRequest, side: StreamRequest): Promise<{ held: string; sent: string[] }> {
  let firstBody: Uint8Array | null = null;
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const sent: string[] = [];
  const fetchHeld: typeof fetch = async (input, init) => {
    const body = init?.body as Uint8Array;
    if (!firstBody) {
      firstBody = body;
      await hold;
    }
    sent.push(Buffer.from(body).toString('utf8'));
    return fetch(input, init);
  };
  const stream = make(fetchHeld);
  const first = stream(long).result();
  while (!firstBody) await new Promise((r) => setTimeout(r, 5));
  const held = Buffer.from(firstBody).toString('utf8');
  const second = stream(side).result();
  await new Promise((r) => setTimeout(r, 50));
  release();
  await Promise.all([first, second]);
  return { held, sent };
}
