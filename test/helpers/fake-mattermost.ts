// A fake Mattermost server on loopback: the REST API v4 routes the adapter uses (users/me, posts,
// patch, typing, reactions, files, channels) with bearer-token auth, and the WebSocket event stream
// (`authentication_challenge` → `hello`, then `posted` events with the post as a JSON string, as the
// real server sends them). Tests post as users and read the posts the bot made.
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface FakePost {
  id: string;
  channel_id: string;
  user_id: string;
  message: string;
  root_id: string;
  file_ids: string[];
  edits: number;
}

export interface FakeMattermost {
  url: string;
  token: string;
  botId: string;
  posts: FakePost[];
  calls: { method: string; path: string; body: any }[];
  files: Map<string, { name: string; mime: string; bytes: Buffer }>;
  /** A person posts (the bot gets a `posted` event). Returns the post id. */
  userPost(o: { user: string; channel: string; text: string; channelType?: 'D' | 'O' | 'P' | 'G'; rootId?: string; fileIds?: string[]; senderName?: string; props?: Record<string, unknown> }): string;
  /** Sockets authenticated so far (one per connection). */
  connections(): number;
  /** Live sockets. */
  sockets(): number;
  /** Cuts every WebSocket. */
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeMattermost(o: { token?: string } = {}): Promise<FakeMattermost> {
  const token = o.token ?? 'mm-test-token';
  const botId = 'botuserid0000000000000000a';
  const posts: FakePost[] = [];
  const calls: FakeMattermost['calls'] = [];
  const files = new Map<string, { name: string; mime: string; bytes: Buffer }>();
  const live = new Set<WebSocket>();
  let n = 0;
  let auths = 0;
  const id = () => `p${(++n).toString().padStart(25, '0')}`;

  const readBody = async (req: http.IncomingMessage): Promise<Buffer> => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    return Buffer.concat(parts);
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { message: 'Invalid or expired session, please login again.' });
    const raw = await readBody(req);
    const path = url.pathname.replace(/^\/api\/v4/, '');
    const ct = req.headers['content-type'] ?? '';
    const body = ct.includes('application/json') && raw.length ? JSON.parse(raw.toString('utf8')) : null;
    calls.push({ method: req.method ?? 'GET', path, body });
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/users/me') return json(200, { id: botId, username: 'hermes' });
    if (req.method === 'POST' && path === '/posts') {
      const p: FakePost = { id: id(), channel_id: body.channel_id, user_id: botId, message: body.message, root_id: body.root_id ?? '', file_ids: body.file_ids ?? [], edits: 0 };
      posts.push(p);
      return json(201, p);
    }
    if (req.method === 'PUT' && (m = /^\/posts\/([^/]+)\/patch$/.exec(path))) {
      const p = posts.find((x) => x.id === m![1]);
      if (!p) return json(404, { message: 'not found' });
      p.message = body.message;
      p.edits++;
      return json(200, p);
    }
    if (req.method === 'POST' && /^\/users\/[^/]+\/typing$/.test(path)) return json(200, { status: 'OK' });
    if (req.method === 'POST' && path === '/reactions') return json(201, body);
    if (req.method === 'DELETE' && /^\/users\/[^/]+\/posts\/[^/]+\/reactions\/[^/]+$/.test(path)) return json(200, { status: 'OK' });
    if (req.method === 'GET' && (m = /^\/files\/([^/]+)\/info$/.exec(path))) {
      const f = files.get(m[1]);
      return f ? json(200, { id: m[1], name: f.name, mime_type: f.mime, size: f.bytes.length }) : json(404, { message: 'no file' });
    }
    if (req.method === 'GET' && (m = /^\/files\/([^/]+)$/.exec(path))) {
      const f = files.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.mime, 'content-length': f.bytes.length }).end(f.bytes) : json(404, { message: 'no file' });
    }
    if (req.method === 'POST' && path === '/files') {
      const fid = `f${++n}`;
      files.set(fid, { name: 'upload', mime: 'application/octet-stream', bytes: raw });
      return json(201, { file_infos: [{ id: fid }] });
    }
    if (req.method === 'GET' && (m = /^\/channels\/([^/]+)$/.exec(path))) return json(200, { id: m[1], display_name: `Channel ${m[1]}`, type: m[1].startsWith('dm-') ? 'D' : 'O' });
    return json(404, { message: `no route ${req.method} ${path}` });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/api/v4/websocket')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (raw) => {
        const msg = JSON.parse(String(raw)) as { seq: number; action: string; data?: { token?: string } };
        if (msg.action === 'authentication_challenge') {
          if (msg.data?.token !== token) return ws.close(4001, 'auth');
          auths++;
          live.add(ws);
          ws.send(JSON.stringify({ status: 'OK', seq_reply: msg.seq }));
          ws.send(JSON.stringify({ event: 'hello', data: { server_version: '9.11.0' }, broadcast: { user_id: botId }, seq: 0 }));
        }
      });
      ws.on('close', () => live.delete(ws));
    });
  });
  const served = await serveLoopback(server);
  const port = served.port;
  let seq = 1;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    botId,
    posts,
    calls,
    files,
    userPost(p) {
      const post = { id: id(), create_at: Date.now(), user_id: p.user, channel_id: p.channel, root_id: p.rootId ?? '', message: p.text, type: '', file_ids: p.fileIds ?? [], props: p.props ?? {} };
      const ev = { event: 'posted', data: { channel_type: p.channelType ?? 'D', channel_display_name: p.channel, channel_name: p.channel, sender_name: `@${p.senderName ?? p.user}`, team_id: '', post: JSON.stringify(post) }, broadcast: { channel_id: p.channel }, seq: seq++ };
      for (const ws of live) ws.send(JSON.stringify(ev));
      return post.id;
    },
    connections: () => auths,
    sockets: () => live.size,
    drop() {
      for (const ws of live) ws.terminate();
    },
    async close() {
      for (const ws of live) ws.terminate();
      wss.close();
      await served.close();
    },
  };
}
