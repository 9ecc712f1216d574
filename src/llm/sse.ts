// A text/event-stream reader for a streamed response body (what the SDKs' SSE decoders do, with
// less machinery): the events of one network chunk are handed over synchronously, one await per
// chunk instead of a chain of async generators per event. Fields other than `event` and `data` (id,
// retry, comments) are ignored; an event's data lines are joined with "\n"; a last event without its
// blank line is still delivered when the body ends.

export interface SseEvent {
  event: string | null;
  data: string;
}

/** What both fetch bodies offer (undici's ReadableStream and nodeFetch's NodeBody). */
export interface SseBody {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> };
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Calls `onEvent` for every event of `body` until the body ends or `onEvent` returns `false` (then
 * the rest of the body is cancelled, as the SDKs do after `[DONE]`). Read errors (an abort, a cut
 * connection) are thrown to the caller after the body is released.
 */
export async function readSse(body: SseBody, onEvent: (e: SseEvent) => boolean | void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let event: string | null = null;
  let data: string[] = [];
  let stopped = false;
  let ended = false;

  const dispatch = (): void => {
    if (data.length || event !== null) {
      const e = { event, data: data.join('\n') };
      event = null;
      data = [];
      if (onEvent(e) === false) stopped = true;
    }
  };
  const line = (l: string): void => {
    if (l === '') return dispatch();
    if (l.charCodeAt(0) === 58) return; // ":" comment
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };
  const feed = (text: string, final: boolean): void => {
    pending += text;
    // A "\r" at the end may be the first half of "\r\n": keep it for the next chunk.
    const cut = final || !pending.endsWith('\r') ? pending.length : pending.length - 1;
    const lines = pending.slice(0, cut).split(LINE_BREAK);
    pending = final ? '' : lines.pop()! + pending.slice(cut);
    for (const l of lines) {
      line(l);
      if (stopped) return;
    }
    if (final && !stopped) {
      if (pending) line(pending);
      dispatch();
    }
  };

  try {
    while (!stopped) {
      const r = await reader.read();
      if (r.done) {
        ended = true;
        feed(decoder.decode(), true);
        break;
      }
      if (r.value?.length) feed(decoder.decode(r.value, { stream: true }), false);
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

/** The SDK's APIError constructor (passed in: this module does not load the SDK). */
type ApiErrorClass = new (status: undefined, error: object, message: undefined, headers: Headers) => Error;

/**
 * The JSON events of an OpenAI-style streamed response, read as the `openai` SDK's Stream reads them:
 * the stream ends at `[DONE]`, `thread.*` events and empty data are skipped, malformed JSON is a
 * SyntaxError, and an `error` event or a payload with `error` is thrown as the SDK's APIError.
 */
export async function readApiEvents(res: Response, APIError: ApiErrorClass, onData: (data: Record<string, unknown>) => void): Promise<void> {
  if (!res.body) throw new Error('The response has no body to stream.');
  await readSse(res.body as unknown as SseBody, (ev) => {
    if (ev.data === '[DONE]') return false;
    if (!ev.data || ev.event?.startsWith('thread.')) return;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(ev.data) as Record<string, unknown>;
    } catch {
      throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
    }
    if (ev.event === 'error') throw new APIError(undefined, (data?.error ?? data) as object, undefined, res.headers);
    if (data?.error) throw new APIError(undefined, data.error as object, undefined, res.headers);
    onData(data);
  });
}
