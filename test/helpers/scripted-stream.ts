// A StreamFn driven by a script, for loop unit tests (HTTP-level tests use fake-llm.ts).
import { EventStream } from '../../src/llm/event-stream.ts';
import { emptyUsage, type Message, type ProviderError, type StreamFn, type StreamRequest, type ToolCall } from '../../src/llm/types.ts';

export interface ScriptStep {
  text?: string;
  /** Visible reasoning on the assistant message. */
  reasoning?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> | string; id?: string }[];
  error?: Partial<ProviderError>;
  /** Never finish until aborted. */
  hang?: boolean;
}

export interface Scripted {
  stream: StreamFn;
  requests: StreamRequest[];
}

let counter = 0;

export function scripted(steps: (ScriptStep | ((req: StreamRequest) => ScriptStep))[], fallback: ScriptStep = { text: 'done' }): Scripted {
  const requests: StreamRequest[] = [];
  const stream: StreamFn = (req) => {
    requests.push(structuredClone({ ...req, signal: undefined }));
    const raw = steps.shift() ?? fallback;
    const step = typeof raw === 'function' ? raw(req) : raw;
    const out = new EventStream();
    const usage = { ...emptyUsage(), input_tokens: 10, output_tokens: 5 };
    queueMicrotask(() => {
      if (step.hang) {
        const onAbort = () =>
          out.end({ message: { role: 'assistant', content: null }, stopReason: 'aborted', usage: emptyUsage(), model: req.model, provider: 'fake' });
        if (req.signal?.aborted) onAbort();
        else req.signal?.addEventListener('abort', onAbort, { once: true });
        return;
      }
      if (step.error) {
        const error: ProviderError = { kind: 'server', message: 'boom', provider: 'fake', retryable: false, ...step.error };
        out.end({ message: { role: 'assistant', content: null }, stopReason: 'error', usage: emptyUsage(), model: req.model, provider: 'fake', error });
        return;
      }
      if (step.text) out.push({ type: 'text_delta', text: step.text });
      const calls: ToolCall[] | undefined = step.toolCalls?.map((c) => ({
        id: c.id ?? `call_${++counter}`,
        type: 'function',
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
      }));
      const message: Message = { role: 'assistant', content: step.text ?? null };
      if (calls?.length) message.tool_calls = calls;
      if (step.reasoning) message.reasoning = step.reasoning;
      out.end({ message, stopReason: calls?.length ? 'tool_calls' : 'stop', usage, model: req.model, provider: 'fake' });
    });
    return out;
  };
  return { stream, requests };
}
