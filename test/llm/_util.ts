// Shared bits for the LLM tests (not a test file itself).
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import type { LlmStream, StreamEvent, StreamRequest } from '../../src/llm/types.ts';

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
