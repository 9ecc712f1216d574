// The dashboard's Chat tab runs the real chat (`hermes chat`, later `hermes --tui`) in a PTY and
// shows structured events beside the terminal: tool calls, the model, approval buttons. The PTY
// carries only what the terminal draws, so the chat process also reports its session's events
// over a side channel: when HERMES_DASHBOARD_EVENTS names a Unix socket (made by the dashboard in
// a private 0700 folder, one per chat), the process connects, proves itself with the secret that
// follows `#`, and writes one JSON object per line. The dashboard writes answers back the same way
// (`{"type":"answer","id":…,"value":…}`), which settle the request exactly as a key press would,
// so an approval clicked in the page and one typed in the terminal are the same act.
//
// What goes over the socket is what a person may see: tool arguments and results are redacted and
// cut short, and a secret request carries only the name of the secret. Surfaces call
// `linkSessionEvents(session)`; without the variable it does nothing.
import { connect, type Socket } from 'node:net';
import type { AgentEvent, AgentRequest } from '../agent/types.ts';
import { redactSecrets } from '../policy/redact.ts';
import { describeToolCall } from './describe.ts';
import type { Session } from './session.ts';
import type { SidecarCommand, SidecarEvent, SidecarRequest } from './sidecar-types.ts';

export const EVENTS_ENV = 'HERMES_DASHBOARD_EVENTS';

export type { SidecarCommand, SidecarEvent, SidecarRequest } from './sidecar-types.ts';

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

function requestView(r: AgentRequest): SidecarRequest {
  if (r.kind === 'approval') return { kind: 'approval', command: redactSecrets(cut(r.command, 4000)), description: r.description, choices: r.choices };
  if (r.kind === 'clarify') return { kind: 'clarify', question: redactSecrets(r.question), choices: (r.choices ?? []).map(redactSecrets) };
  return { kind: 'secret', name: r.name, prompt: r.prompt ?? '' };
}

/** The sidecar event for a session event (null for those the panel does not show). */
export function sidecarEvent(e: AgentEvent, sessionId: string): SidecarEvent | null {
  switch (e.type) {
    case 'turn_start':
      return { type: 'turn_start', sessionId, text: redactSecrets(cut(typeof e.userMessage?.content === 'string' ? e.userMessage.content : '', 300)) };
    case 'api_start':
      return null;
    case 'tool_start': {
      const d = describeToolCall(e.name, e.args, { emoji: e.emoji, argMax: 120 });
      return {
        type: 'tool_start',
        callId: e.callId,
        name: e.name,
        emoji: d.icon,
        detail: redactSecrets(d.arg),
        args: redactSecrets(cut(JSON.stringify(e.args, null, 2), 4000)),
      };
    }
    case 'tool_end':
      return { type: 'tool_end', callId: e.callId, name: e.name, isError: e.isError, durationMs: e.durationMs, preview: redactSecrets(cut(e.content, 4000)) };
    case 'request':
      return { type: 'request', id: e.id, request: requestView(e.request) };
    case 'request_resolved':
      return { type: 'request_resolved', id: e.id, source: e.source, answer: typeof e.answer === 'string' ? redactSecrets(e.answer) : JSON.stringify(e.answer ?? null) };
    case 'usage':
      return { type: 'usage', model: e.model, provider: e.provider, input: e.usage.input_tokens, output: e.usage.output_tokens, costUsd: e.costUsd };
    case 'turn_end':
      return {
        type: 'turn_end',
        completed: e.result.completed,
        failed: e.result.failed,
        interrupted: e.result.interrupted,
        apiCalls: e.result.apiCalls,
        ...(e.result.error ? { error: redactSecrets(e.result.error.message) } : {}),
      };
    default:
      return null;
  }
}

/** Calls `fn` with each JSON object of a newline-delimited stream (both ends of the socket); bad lines are skipped, a runaway line ends the stream. */
export function onJsonLines<T>(sock: Socket, fn: (msg: T) => void | 'stop', maxBytes = 4 * 1024 * 1024): void {
  let buf = '';
  sock.on('data', (d) => {
    buf += d.toString('utf8');
    if (buf.length > maxBytes) return void sock.destroy();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let msg: T;
      try {
        msg = JSON.parse(line) as T;
      } catch {
        continue;
      }
      if (fn(msg) === 'stop') return void sock.destroy();
    }
  });
}

/**
 * Connects the session to the dashboard named by HERMES_DASHBOARD_EVENTS (`<socket>#<secret>`).
 * Returns a function that disconnects; a no-op when the variable is unset or the socket is gone.
 */
export function linkSessionEvents(session: Session, env: NodeJS.ProcessEnv = process.env): () => void {
  const spec = env[EVENTS_ENV];
  if (!spec) return () => {};
  const hash = spec.lastIndexOf('#');
  const path = hash > 0 ? spec.slice(0, hash) : spec;
  const secret = hash > 0 ? spec.slice(hash + 1) : '';
  let sock: Socket | null = connect(path);
  sock.on('error', () => {
    sock = null; // the dashboard went away: the chat goes on without it
  });
  sock.unref();
  const send = (e: SidecarEvent) => {
    if (sock && !sock.destroyed) sock.write(`${JSON.stringify(e)}\n`);
  };
  let model = '';
  const hello = () => {
    const rt = session.runtime;
    model = rt.model;
    send({ type: 'hello', secret, pid: process.pid, sessionId: session.id, model: rt.model, provider: rt.provider, cwd: session.info.cwd });
    // Requests already open (e.g. opened before the socket connected).
    for (const r of session.broker.open()) send({ type: 'request', id: r.id, request: requestView(r.request) });
  };
  sock.once('connect', hello);
  onJsonLines<SidecarCommand>(sock, (cmd) => {
    if (cmd?.type === 'answer' && typeof cmd.id === 'string') session.answer(cmd.id, cmd.value);
  });
  const off = session.on((e) => {
    const ev = sidecarEvent(e, session.id);
    if (ev) send(ev);
    // The model badge follows /model switches and fallbacks.
    if (e.type === 'turn_start' || e.type === 'api_start' || e.type === 'fallback') {
      const rt = session.runtime;
      if (rt.model !== model) {
        model = rt.model;
        send({ type: 'model', model: rt.model, provider: rt.provider });
      }
    }
  });
  return () => {
    off();
    sock?.end();
    sock = null;
  };
}
