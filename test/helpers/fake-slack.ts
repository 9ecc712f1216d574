// A fake Slack on loopback for @slack/bolt in Socket Mode: the Web API methods the adapter calls
// (auth.test, apps.connections.open, chat.postMessage/update, reactions.add/remove,
// conversations.info/list, files upload and private downloads), form- or JSON-encoded as
// @slack/web-api sends them, and the Socket Mode WebSocket (hello, `events_api` / `interactive`
// envelopes acknowledged by envelope_id, server pings, `disconnect` refreshes), message edits and deletes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface SlackMsg {
  ts: string;
  channel: string;
  text: string;
  thread_ts?: string;
  blocks?: unknown;
  edits: number;
}

export interface FakeSlack {
  /** http://127.0.0.1:<port>/api/ (SLACK_API_URL). */
  apiUrl: string;
  botToken: string;
  appToken: string;
  botUserId: string;
  messages: SlackMsg[];
  calls: { method: string; args: Record<string, any> }[];
  files: Map<string, { bytes: Buffer; mimetype: string; name: string }>;
  /** A person writes; returns the event's ts. */
  userMessage(o: { user: string; channel: string; text: string; channelType?: 'im' | 'channel'; threadTs?: string; files?: { id: string }[]; mention?: boolean; displayName?: string }): string;
  press(o: { user: string; channel: string; messageTs: string; actionId: string; value: string }): void;
  /** The author edits their message (`message_changed`; `unfurl` = an edit Slack made, without `edited`). */
  editMessage(o: { user: string; channel: string; ts: string; text: string; unfurl?: boolean }): void;
  /** A message is deleted (`message_deleted`, with the previous message as Slack sends it). */
  deleteMessage(o: { user: string; channel: string; ts: string; text?: string }): void;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const botToken = 'xoxb-fake-bot-token';
  const appToken = 'xapp-fake-app-token';
  const botUserId = 'UBOT0001';
  const messages: SlackMsg[] = [];
  const calls: FakeSlack['calls'] = [];
  const files = new Map<string, { bytes: Buffer; mimetype: string; name: string }>();
  const live = new Set<WebSocket>();
  const uploads = new Map<string, Buffer>();
  let opened = 0;
  let ts = 1_700_000_000;
  let env = 0;
  const nextTs = () => `${++ts}.000100`;

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    let m: RegExpExecArray | null;
    if ((m = /^\/files\/(.+)$/.exec(url.pathname))) {
      if (req.headers.authorization !== `Bearer ${botToken}`) return res.writeHead(302, { location: '/login' }).end();
      const f = files.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.mimetype, 'content-length': f.bytes.length }).end(f.bytes) : res.writeHead(404).end();
    }
    if ((m = /^\/upload\/(.+)$/.exec(url.pathname))) {
      uploads.set(m[1], raw);
      return res.writeHead(200).end('OK');
    }
    const method = url.pathname.replace(/^\/api\//, '');
    const ct = String(req.headers['content-type'] ?? '');
    const args: Record<string, any> = ct.includes('json') ? JSON.parse(raw.toString('utf8') || '{}') : Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
    for (const k of ['blocks', 'files']) if (typeof args[k] === 'string') args[k] = JSON.parse(args[k]);
    const auth = req.headers.authorization ?? (args.token ? `Bearer ${args.token}` : '');
    calls.push({ method, args });
    if (method === 'apps.connections.open') {
      if (auth !== `Bearer ${appToken}`) return json({ ok: false, error: 'invalid_auth' });
      return json({ ok: true, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link/?ticket=t${opened + 1}` });
    }
    if (auth !== `Bearer ${botToken}`) return json({ ok: false, error: 'invalid_auth' });
    switch (method) {
      case 'auth.test':
        return json({ ok: true, url: 'https://fake.slack.com/', team: 'Fake', user: 'hermes', team_id: 'T0001', user_id: botUserId, bot_id: 'B0001' });
      case 'chat.postMessage': {
        const msg: SlackMsg = { ts: nextTs(), channel: args.channel, text: args.text, thread_ts: args.thread_ts || undefined, blocks: args.blocks, edits: 0 };
        messages.push(msg);
        return json({ ok: true, channel: args.channel, ts: msg.ts, message: { text: args.text, ts: msg.ts } });
      }
      case 'chat.update': {
        const msg = messages.find((x) => x.ts === args.ts && x.channel === args.channel);
        if (!msg) return json({ ok: false, error: 'message_not_found' });
        msg.text = args.text;
        msg.edits++;
        return json({ ok: true, channel: args.channel, ts: args.ts });
      }
      case 'reactions.add':
      case 'reactions.remove':
        return json({ ok: true });
      case 'conversations.info':
        return json({ ok: true, channel: { id: args.channel, name: args.channel.startsWith('D') ? undefined : 'general', is_im: args.channel.startsWith('D') } });
      case 'conversations.list':
        return json({ ok: true, channels: [{ id: 'C0GENERAL', name: 'general' }], response_metadata: { next_cursor: '' } });
      case 'files.getUploadURLExternal': {
        const id = `FUP${++env}`;
        return json({ ok: true, upload_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload/${id}`, file_id: id });
      }
      case 'files.completeUploadExternal':
        return json({ ok: true, files: (args.files ?? []).map((f: { id: string }) => ({ id: f.id })) });
      default:
        return json({ ok: false, error: 'unknown_method' });
    }
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/link/')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      opened++;
      live.add(ws);
      ws.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake', approximate_connection_time: 3600 }, connection_info: { app_id: 'A0001' } }));
      const ping = setInterval(() => ws.readyState === 1 && ws.ping(), 5000);
      ws.on('close', () => {
        clearInterval(ping);
        live.delete(ws);
      });
    });
  });
  const served = await serveLoopback(server);
  const port = served.port;

  const envelope = (type: string, payload: Record<string, unknown>) => {
    const e = JSON.stringify({ envelope_id: `env-${++env}`, payload, type, accepts_response_payload: false, retry_attempt: 0, retry_reason: '' });
    for (const ws of live) ws.send(e);
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    botToken,
    appToken,
    botUserId,
    messages,
    calls,
    files,
    userMessage(o) {
      const evTs = nextTs();
      const text = o.mention ? `<@${botUserId}> ${o.text}` : o.text;
      const filesMeta = (o.files ?? []).map((f) => {
        const meta = files.get(f.id)!;
        return { id: f.id, name: meta.name, mimetype: meta.mimetype, size: meta.bytes.length, url_private_download: `http://127.0.0.1:${port}/files/${f.id}`, url_private: `http://127.0.0.1:${port}/files/${f.id}` };
      });
      const event: Record<string, unknown> = { type: 'message', user: o.user, text, ts: evTs, channel: o.channel, channel_type: o.channelType ?? 'im', event_ts: evTs, client_msg_id: `cm-${evTs}`, team: 'T0001' };
      if (o.threadTs) event.thread_ts = o.threadTs;
      if (o.displayName !== undefined) event.user_profile = { display_name: o.displayName, real_name: o.displayName, name: o.displayName.toLowerCase() };
      if (filesMeta.length) Object.assign(event, { files: filesMeta, subtype: 'file_share' });
      envelope('events_api', { token: 'x', team_id: 'T0001', api_app_id: 'A0001', event, type: 'event_callback', event_id: `Ev${evTs}`, event_time: Math.floor(Date.now() / 1000) });
      if (o.mention) envelope('events_api', { token: 'x', team_id: 'T0001', api_app_id: 'A0001', event: { ...event, type: 'app_mention' }, type: 'event_callback', event_id: `EvM${evTs}`, event_time: Math.floor(Date.now() / 1000) });
      return evTs;
    },
    editMessage(o) {
      const evTs = nextTs();
      const message: Record<string, unknown> = { type: 'message', user: o.user, text: o.text, ts: o.ts, team: 'T0001' };
      if (!o.unfurl) message.edited = { user: o.user, ts: evTs };
      const event = { type: 'message', subtype: 'message_changed', hidden: true, channel: o.channel, channel_type: o.channel.startsWith('D') ? 'im' : 'channel', ts: evTs, event_ts: evTs, message, previous_message: { type: 'message', user: o.user, text: '(before)', ts: o.ts } };
      envelope('events_api', { token: 'x', team_id: 'T0001', api_app_id: 'A0001', event, type: 'event_callback', event_id: `EvE${evTs}`, event_time: Math.floor(Date.now() / 1000) });
    },
    deleteMessage(o) {
      const evTs = nextTs();
      const event = { type: 'message', subtype: 'message_deleted', hidden: true, channel: o.channel, channel_type: o.channel.startsWith('D') ? 'im' : 'channel', ts: evTs, event_ts: evTs, deleted_ts: o.ts, previous_message: { type: 'message', user: o.user, text: o.text ?? '(gone)', ts: o.ts } };
      envelope('events_api', { token: 'x', team_id: 'T0001', api_app_id: 'A0001', event, type: 'event_callback', event_id: `EvD${evTs}`, event_time: Math.floor(Date.now() / 1000) });
    },
    press(o) {
      envelope('interactive', {
        type: 'block_actions',
        user: { id: o.user, username: o.user, team_id: 'T0001' },
        team: { id: 'T0001' },
        channel: { id: o.channel },
        container: { type: 'message', message_ts: o.messageTs, channel_id: o.channel },
        message: { ts: o.messageTs, text: '' },
        actions: [{ type: 'button', action_id: o.actionId, value: o.value, block_id: 'hx_0', action_ts: nextTs() }],
        trigger_id: 't',
        api_app_id: 'A0001',
      });
    },
    connections: () => opened,
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
