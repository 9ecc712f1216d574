// The Chat tab's server side: one PTY per browser chat running the real chat command
// (CHAT_ARGS), bridged to `/api/pty`, plus the sidecar: a Unix socket the chat process reports its
// session events to (src/session/event-link.ts), fanned out to `/api/events` subscribers with a
// snapshot for late joiners, and answers (approval buttons) written back to the process.
//
// Channel ids come from the page; a PTY lives while its WebSocket is open and is hung up (SIGHUP,
// then SIGKILL) when it closes. The socket lives in a 0700 folder of its own and the process must
// open with the channel's secret, so no other local user or process can inject events or answers.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IPty } from '@lydell/node-pty';
import type { WebSocket } from 'ws';
import { sameSecret } from './auth.ts';
import type { DashboardContext } from './context.ts';
import type { ChatEvent, ChatInfo, ChatRequest, ChatToolEntry, ChatUsage } from './api-types.ts';
import { onJsonLines, type SidecarEvent } from '../session/event-link.ts';

/**
 * What the Chat tab runs: the full-screen TUI (`hermes chat --tui`), which reports its session's
 * events over the sidecar like the REPL does (src/cli/interactive.ts links both). `['chat']` would
 * run the classic REPL instead.
 */
export const CHAT_ARGS: string[] = ['chat', '--tui'];

export const MAX_CHATS = 8;

interface Channel {
  id: string;
  pty: IPty | null;
  ptySocket: WebSocket | null;
  server: Server;
  dir: string;
  secret: string;
  child: Socket | null;
  subscribers: Set<WebSocket>;
  info: ChatInfo;
  requests: Map<string, ChatRequest>;
  tools: ChatToolEntry[];
  usage: ChatUsage;
  exited: { code: number | null } | null;
}

const CHANNEL_ID = /^[A-Za-z0-9_-]{8,64}$/;

export class ChatHub {
  private readonly ctx: DashboardContext;
  private readonly channels = new Map<string, Channel>();

  constructor(ctx: DashboardContext) {
    this.ctx = ctx;
  }

  get count(): number {
    return [...this.channels.values()].filter((c) => c.pty && !c.exited).length;
  }

  /** `/api/pty?channel=…&cols=…&rows=…&resume=…` */
  async openPty(ws: WebSocket, q: URLSearchParams): Promise<void> {
    const id = q.get('channel') ?? '';
    if (!CHANNEL_ID.test(id)) return closeWith(ws, 4400, 'bad channel id');
    if (this.channels.get(id)?.pty) return closeWith(ws, 4409, 'this chat is already open in another tab');
    if (this.count >= MAX_CHATS) return closeWith(ws, 4429, `at most ${MAX_CHATS} chats at once; close one first`);
    const cols = clamp(Number(q.get('cols')), 20, 500, 100);
    const rows = clamp(Number(q.get('rows')), 5, 200, 30);
    const resume = q.get('resume');
    if (resume && !/^[A-Za-z0-9_.:-]{1,100}$/.test(resume)) return closeWith(ws, 4400, 'bad session id');
    const ch = await this.channel(id);
    let pty: IPty;
    try {
      const { spawn } = await import('@lydell/node-pty');
      pty = spawn(process.execPath, [this.ctx.bin, ...this.ctx.chatArgs, ...(resume ? ['--resume', resume] : [])], {
        name: 'xterm-256color',
        cols,
        rows,
        cwd: process.cwd(),
        env: {
          ...(this.ctx.baseEnv as Record<string, string>),
          HERMES_HOME: this.ctx.home,
          TERM: 'xterm-256color',
          COLORTERM: 'truecolor',
          HERMES_DASHBOARD_EVENTS: `${join(ch.dir, 'events.sock')}#${ch.secret}`,
        },
      });
    } catch (e) {
      this.drop(ch);
      this.ctx.log?.write('ERROR', 'hermes_cli.pty_bridge', `could not start the chat: ${(e as Error).message}`);
      return closeWith(ws, 4500, `could not start the chat: ${(e as Error).message}`);
    }
    ch.pty = pty;
    ch.ptySocket = ws;
    ch.exited = null;
    this.ctx.log?.write('INFO', 'hermes_cli.pty_bridge', `chat ${id} started (pid ${pty.pid}${resume ? `, resuming ${resume}` : ''})`);
    pty.onData((d) => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.from(d, 'utf8'));
    });
    pty.onExit(({ exitCode }) => {
      ch.exited = { code: exitCode };
      ch.pty = null;
      this.broadcast(ch, { type: 'exit', code: exitCode });
      if (ws.readyState === ws.OPEN) {
        ws.send(JSON.stringify({ type: 'exit', code: exitCode }));
        ws.close(1000, 'chat ended');
      }
      this.ctx.log?.write('INFO', 'hermes_cli.pty_bridge', `chat ${id} ended (exit ${exitCode})`);
    });
    ws.on('message', (data, isBinary) => {
      if (!ch.pty) return;
      if (isBinary) {
        ch.pty.write(Buffer.from(data as Buffer).toString('utf8'));
        return;
      }
      let m: { type?: string; cols?: number; rows?: number; data?: string };
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      if (m.type === 'input' && typeof m.data === 'string') ch.pty.write(m.data);
      else if (m.type === 'resize') ch.pty.resize(clamp(Number(m.cols), 20, 500, cols), clamp(Number(m.rows), 5, 200, rows));
    });
    ws.on('close', () => {
      ch.ptySocket = null;
      const p = ch.pty;
      if (p) {
        try {
          p.kill('SIGHUP');
        } catch {
          /* gone */
        }
        setTimeout(() => {
          try {
            if (ch.pty === p) p.kill('SIGKILL');
          } catch {
            /* gone */
          }
        }, 3000).unref();
      }
      // The sidecar outlives the PTY briefly so the page can show how it ended.
      setTimeout(() => {
        if (!ch.ptySocket) this.drop(ch);
      }, 5000).unref();
    });
  }

  /** `/api/events?channel=…`: the sidecar's events for one chat. */
  async openEvents(ws: WebSocket, q: URLSearchParams): Promise<void> {
    const id = q.get('channel') ?? '';
    if (!CHANNEL_ID.test(id)) return closeWith(ws, 4400, 'bad channel id');
    if (!this.channels.has(id) && this.channels.size >= MAX_CHATS * 4) return closeWith(ws, 4429, 'too many open chats');
    const ch = await this.channel(id);
    ch.subscribers.add(ws);
    ws.send(
      JSON.stringify({
        type: 'snapshot',
        connected: !!ch.child,
        info: ch.info,
        requests: [...ch.requests].map(([rid, request]) => ({ id: rid, request })),
        tools: ch.tools,
        usage: ch.usage,
        exited: ch.exited,
      } satisfies ChatEvent),
    );
    ws.on('close', () => {
      ch.subscribers.delete(ws);
      // A channel nobody watches and no chat runs in is let go.
      const idle = () => !ch.pty && !ch.ptySocket && ch.subscribers.size === 0;
      if (idle()) setTimeout(() => idle() && this.drop(ch), 5000).unref();
    });
    ws.on('message', (data) => {
      let m: { type?: string; id?: string; value?: unknown };
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      if (m.type !== 'answer' || typeof m.id !== 'string') return;
      const req = ch.requests.get(m.id);
      if (!req || !ch.child) return ws.send(JSON.stringify({ type: 'error', message: 'That request is no longer open.' }));
      // The page answers approvals and questions; secrets are typed in the terminal only.
      if (req.kind === 'approval' && !req.choices.includes(m.value as never)) return;
      if (req.kind === 'clarify' && typeof m.value !== 'string') return;
      if (req.kind === 'secret') return ws.send(JSON.stringify({ type: 'error', message: 'Type secrets in the terminal.' }));
      ch.child.write(`${JSON.stringify({ type: 'answer', id: m.id, value: m.value })}\n`);
      this.ctx.log?.write('INFO', 'hermes_cli.web_server', `chat ${id}: ${req.kind} answered from the page: ${String(m.value)}`);
    });
  }

  private async channel(id: string): Promise<Channel> {
    const have = this.channels.get(id);
    if (have) return have;
    const dir = mkdtempSync(join(tmpdir(), 'hermes-dash-'));
    const ch: Channel = {
      id,
      pty: null,
      ptySocket: null,
      server: createServer(),
      dir,
      secret: randomBytes(16).toString('hex'),
      child: null,
      subscribers: new Set(),
      info: {},
      requests: new Map(),
      tools: [],
      usage: { input: 0, output: 0, costUsd: 0 },
      exited: null,
    };
    this.channels.set(id, ch);
    ch.server.on('connection', (sock) => this.accept(ch, sock));
    await new Promise<void>((resolve, reject) => {
      ch.server.once('error', reject);
      ch.server.listen(join(dir, 'events.sock'), () => resolve());
    });
    ch.server.unref();
    return ch;
  }

  private accept(ch: Channel, sock: Socket): void {
    let proven = false;
    sock.on('error', () => {});
    onJsonLines<SidecarEvent>(sock, (e) => {
      if (!proven) {
        if (e.type !== 'hello' || !sameSecret(String(e.secret ?? ''), ch.secret) || ch.child) return 'stop';
        proven = true;
        ch.child = sock;
        sock.on('close', () => {
          if (ch.child === sock) ch.child = null;
        });
      }
      this.apply(ch, e);
    });
  }

  /** Keeps the snapshot current and fans the event out. */
  private apply(ch: Channel, e: SidecarEvent): void {
    switch (e.type) {
      case 'hello': {
        const { secret: _s, type: _t, ...info } = e;
        ch.info = info;
        this.broadcast(ch, { type: 'hello', info });
        return;
      }
      case 'turn_start':
        ch.info.sessionId = e.sessionId;
        break;
      case 'model':
        ch.info.model = e.model;
        ch.info.provider = e.provider;
        break;
      case 'tool_start':
        ch.tools.push({ callId: e.callId, name: e.name, emoji: e.emoji, detail: e.detail, args: e.args, status: 'running', at: Date.now() });
        if (ch.tools.length > 200) ch.tools.splice(0, ch.tools.length - 200);
        break;
      case 'tool_end': {
        const t = ch.tools.findLast((x) => x.callId === e.callId);
        if (t) Object.assign(t, { status: e.isError ? 'error' : 'ok', durationMs: e.durationMs, preview: e.preview });
        break;
      }
      case 'request':
        ch.requests.set(e.id, e.request);
        break;
      case 'request_resolved':
        ch.requests.delete(e.id);
        break;
      case 'usage':
        ch.usage.input += e.input;
        ch.usage.output += e.output;
        ch.usage.costUsd += e.costUsd ?? 0;
        ch.info.model = e.model;
        ch.info.provider = e.provider;
        break;
    }
    this.broadcast(ch, e);
  }

  private broadcast(ch: Channel, e: ChatEvent): void {
    const text = JSON.stringify(e);
    for (const ws of ch.subscribers) if (ws.readyState === ws.OPEN) ws.send(text);
  }

  private drop(ch: Channel): void {
    if (this.channels.get(ch.id) !== ch) return;
    this.channels.delete(ch.id);
    for (const ws of ch.subscribers) ws.close(1000, 'chat closed');
    ch.child?.destroy();
    ch.server.close();
    rmSync(ch.dir, { recursive: true, force: true });
  }

  closeAll(): void {
    for (const ch of [...this.channels.values()]) {
      try {
        ch.pty?.kill('SIGHUP');
      } catch {
        /* gone */
      }
      ch.ptySocket?.close(1001, 'dashboard stopping');
      this.drop(ch);
    }
  }
}

function clamp(n: number, lo: number, hi: number, dflt: number): number {
  return Number.isFinite(n) && n > 0 ? Math.max(lo, Math.min(hi, Math.floor(n))) : dflt;
}

function closeWith(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.send(JSON.stringify({ type: 'error', message: reason }));
  } catch {
    /* closed */
  }
  ws.close(code, reason.slice(0, 120));
}
