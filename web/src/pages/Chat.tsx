// Chat: the real chat (`hermes chat` in a PTY on the server) in xterm.js, and beside it what the
// chat process reports over the sidecar: the model, each tool call (open one for its arguments
// and result), questions waiting for an answer with buttons, and a launcher for slash commands.
import { useQuery } from '@tanstack/react-query';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearch } from 'wouter';
import { api, num, usd } from '../api.ts';
import { Badge } from '../ui.tsx';
import type { ChatEvent, ChatInfo as Info, ChatRequest as Request, ChatToolEntry as Tool, CommandsResponse } from '../../../src/dashboard/api-types.ts';

const CHOICE_LABELS: Record<string, string> = { once: 'Approve once', session: 'For this session', always: 'Always', deny: 'Deny' };

function newChannel(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
}

const wsUrl = (path: string) => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;

export default function Chat() {
  const search = useSearch();
  const resume = new URLSearchParams(search).get('resume') ?? '';
  const [channel, setChannel] = useState(newChannel);
  const [ended, setEnded] = useState<string | null>(null);
  const [connected, setConnected] = useState(false);
  const [info, setInfo] = useState<Info>({});
  const [tools, setTools] = useState<Tool[]>([]);
  const [requests, setRequests] = useState<{ id: string; request: Request }[]>([]);
  const [usage, setUsage] = useState({ input: 0, output: 0, costUsd: 0 });
  const [open, setOpen] = useState<string | null>(null);
  const [launcher, setLauncher] = useState(false);
  const [filter, setFilter] = useState('');
  const [answer, setAnswer] = useState('');
  const termEl = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const pty = useRef<WebSocket | null>(null);
  const events = useRef<WebSocket | null>(null);
  const commands = useQuery({ queryKey: ['commands'], queryFn: () => api<CommandsResponse>('/api/commands') });

  // The terminal and its PTY.
  useEffect(() => {
    setEnded(null);
    setTools([]);
    setRequests([]);
    setInfo({});
    setUsage({ input: 0, output: 0, costUsd: 0 });
    const t = new Terminal({
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      cursorBlink: true,
      scrollback: 5000,
      theme: { background: '#0b1016', foreground: '#d8dee9', cursor: '#e6b450', selectionBackground: '#2d3b4d' },
    });
    const fit = new FitAddon();
    t.loadAddon(fit);
    t.open(termEl.current!);
    fit.fit();
    term.current = t;
    const q = new URLSearchParams({ channel, cols: String(t.cols), rows: String(t.rows) });
    if (resume) q.set('resume', resume);
    const ws = new WebSocket(wsUrl(`/api/pty?${q}`));
    ws.binaryType = 'arraybuffer';
    pty.current = ws;
    ws.onmessage = (m) => {
      if (m.data instanceof ArrayBuffer) t.write(new Uint8Array(m.data));
      else {
        try {
          const c = JSON.parse(String(m.data)) as { type: string; code?: number; message?: string };
          if (c.type === 'exit') setEnded(`The chat ended (exit ${c.code}).`);
          if (c.type === 'error') setEnded(c.message ?? 'The chat could not start.');
        } catch {
          /* not a control message */
        }
      }
    };
    ws.onclose = (e) => {
      if (e.code !== 1000) setEnded((x) => x ?? `The connection closed${e.reason ? `: ${e.reason}` : ''}.`);
    };
    const sub = t.onData((d) => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ type: 'input', data: d })));
    const ro = new ResizeObserver(() => {
      try {
        fit.fit();
      } catch {
        return;
      }
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'resize', cols: t.cols, rows: t.rows }));
    });
    ro.observe(termEl.current!);
    t.focus();
    return () => {
      ro.disconnect();
      sub.dispose();
      ws.close(1000);
      t.dispose();
      term.current = null;
    };
  }, [channel, resume]);

  // The sidecar: structured events from the chat process.
  useEffect(() => {
    const ws = new WebSocket(wsUrl(`/api/events?channel=${channel}`));
    events.current = ws;
    ws.onmessage = (m) => {
      const e = JSON.parse(String(m.data)) as ChatEvent;
      switch (e.type) {
        case 'snapshot':
          setConnected(!!e.connected);
          setInfo(e.info ?? {});
          setTools(e.tools ?? []);
          setRequests(e.requests ?? []);
          setUsage(e.usage);
          break;
        case 'hello':
          setConnected(true);
          setInfo(e.info);
          break;
        case 'turn_start':
          setInfo((i) => ({ ...i, sessionId: e.sessionId }));
          break;
        case 'model':
          setInfo((i) => ({ ...i, model: e.model, provider: e.provider }));
          break;
        case 'tool_start':
          setTools((ts) => [...ts, { callId: e.callId, name: e.name, emoji: e.emoji, detail: e.detail, args: e.args, status: 'running', at: Date.now() }]);
          break;
        case 'tool_end':
          setTools((ts) => ts.map((x) => (x.callId === e.callId ? { ...x, status: e.isError ? 'error' : 'ok', durationMs: e.durationMs, preview: e.preview } : x)));
          break;
        case 'request':
          setRequests((rs) => [...rs.filter((r) => r.id !== e.id), { id: e.id, request: e.request }]);
          setAnswer('');
          break;
        case 'request_resolved':
          setRequests((rs) => rs.filter((r) => r.id !== e.id));
          break;
        case 'usage':
          setUsage((u) => ({ input: u.input + e.input, output: u.output + e.output, costUsd: u.costUsd + (e.costUsd ?? 0) }));
          setInfo((i) => ({ ...i, model: e.model, provider: e.provider }));
          break;
        case 'exit':
          setConnected(false);
          break;
      }
    };
    return () => ws.close(1000);
  }, [channel]);

  const send = (id: string, value: string) => events.current?.send(JSON.stringify({ type: 'answer', id, value }));
  const type = (text: string) => {
    pty.current?.send(JSON.stringify({ type: 'input', data: text }));
    setLauncher(false);
    term.current?.focus();
  };
  const shown = useMemo(() => (commands.data?.commands ?? []).filter((c) => !filter || c.name.includes(filter.toLowerCase()) || c.description.toLowerCase().includes(filter.toLowerCase())), [commands.data, filter]);
  const req = requests[0];

  return (
    <div className="chat">
      <div className="chat-term">
        <div className="chat-bar row between">
          <span className="row">
            <button className="btn small" onClick={() => setLauncher(!launcher)} title="Slash commands">
              / commands
            </button>
            <button className="btn small" onClick={() => setChannel(newChannel())} title="End this chat and start a new one">
              New chat
            </button>
            {resume && <span className="muted small">resuming {resume}</span>}
          </span>
          <span className="row">
            {info.model && (
              <span className="badge model" data-testid="model-badge" title={info.provider}>
                {info.model}
              </span>
            )}
            <span className={`dot ${connected ? 'on' : 'off'}`} title={connected ? 'events connected' : 'events not connected'} />
          </span>
        </div>
        {launcher && (
          <div className="launcher">
            <input autoFocus placeholder="Filter commands…" value={filter} onChange={(e) => setFilter(e.target.value)} />
            <ul>
              {shown.map((c) => (
                <li key={c.name}>
                  <button onClick={() => type(`/${c.name}${c.args ? ' ' : ''}`)}>
                    <span className="mono">/{c.name}</span> <span className="muted small">{c.args}</span>
                    <span className="small">{c.description}</span>
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        <div className="term" ref={termEl} data-testid="terminal" />
        {ended && (
          <div className="state warn row between">
            <span>{ended}</span>
            <button className="btn small" onClick={() => setChannel(newChannel())}>
              Start a new chat
            </button>
          </div>
        )}
      </div>
      <aside className="chat-side" aria-label="Chat activity">
        {req && (
          <div className="card request" data-testid="request">
            {req.request.kind === 'approval' && (
              <>
                <div className="label">Approve this command? ({req.request.description})</div>
                <pre className="cmd">{req.request.command}</pre>
                <div className="row wrap">
                  {req.request.choices.map((c) => (
                    <button key={c} className={c === 'deny' ? 'btn danger' : 'btn primary'} onClick={() => send(req.id, c)}>
                      {CHOICE_LABELS[c] ?? c}
                    </button>
                  ))}
                </div>
              </>
            )}
            {req.request.kind === 'clarify' && (
              <>
                <div className="label">The agent asks</div>
                <p>{req.request.question}</p>
                <div className="row wrap">
                  {req.request.choices.map((c) => (
                    <button key={c} className="btn" onClick={() => send(req.id, c)}>
                      {c}
                    </button>
                  ))}
                </div>
                <form
                  className="row"
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (answer.trim()) send(req.id, answer.trim());
                  }}
                >
                  <input value={answer} onChange={(e) => setAnswer(e.target.value)} placeholder="Your answer" />
                  <button className="btn primary">Answer</button>
                </form>
              </>
            )}
            {req.request.kind === 'secret' && <p>The agent needs {req.request.name}: type it in the terminal (it is not sent through the page).</p>}
            {requests.length > 1 && <div className="muted small">{requests.length - 1} more waiting</div>}
          </div>
        )}
        <div className="card">
          <div className="label row between">
            <span>Session</span>
            <span className="muted small mono">{info.sessionId ?? '—'}</span>
          </div>
          <div className="small">
            {num(usage.input)} in · {num(usage.output)} out · {usd(usage.costUsd)}
          </div>
        </div>
        <div className="card tools" data-testid="tool-panel">
          <div className="label">Tool calls</div>
          {!tools.length && <div className="muted small">None yet. Tool calls of this chat show here as they run.</div>}
          <ul>
            {[...tools].reverse().map((t) => (
              <li key={t.callId} className={`tool ${t.status}`}>
                <button className="tool-head" onClick={() => setOpen(open === t.callId ? null : t.callId)} aria-expanded={open === t.callId}>
                  <span>{t.emoji}</span> <span className="mono">{t.name}</span> <span className="ellipsis muted">{t.detail}</span>
                  <span className="small">{t.status === 'running' ? <Badge kind="warn">running</Badge> : t.status === 'error' ? <Badge kind="error">failed</Badge> : `${((t.durationMs ?? 0) / 1000).toFixed(1)}s`}</span>
                </button>
                {open === t.callId && (
                  <div className="tool-body">
                    <div className="label">Arguments</div>
                    <pre>{t.args}</pre>
                    {t.preview !== undefined && (
                      <>
                        <div className="label">Result</div>
                        <pre>{t.preview}</pre>
                      </>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ul>
        </div>
      </aside>
    </div>
  );
}
