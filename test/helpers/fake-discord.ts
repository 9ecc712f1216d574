// A fake Discord on loopback for discord.js: the REST API v10 routes the adapter uses (gateway/bot,
// channels, messages with JSON or multipart bodies, edits, typing, reactions, users/@me) behind the
// bot token, attachment downloads, and the Gateway WebSocket (HELLO → IDENTIFY → READY, heartbeats
// acknowledged, RESUME → RESUMED after a cut, MESSAGE_CREATE/UPDATE/DELETE, GUILD_CREATE and
// THREAD_CREATE/UPDATE dispatches). Ids are snowflakes.
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface DiscordMsg {
  id: string;
  channel_id: string;
  content: string;
  edits: number;
  components?: unknown;
  files: number;
}

export interface FakeDiscord {
  /** http://127.0.0.1:<port>/api/v10 (DISCORD_API_BASE). */
  apiBase: string;
  token: string;
  botId: string;
  messages: DiscordMsg[];
  calls: { method: string; path: string }[];
  files: Map<string, { bytes: Buffer; type: string; name: string }>;
  /** A person writes in their DM (or a guild channel); returns the message id. */
  userMessage(o: { user: string; channel: string; text: string; guild?: string; attachments?: string[]; mentionBot?: boolean; username?: string }): string;
  /** The author edits their message (MESSAGE_UPDATE). */
  editMessage(o: { user: string; channel: string; id: string; text: string; guild?: string }): void;
  /** A message is deleted (MESSAGE_DELETE: ids only, as Discord sends it). */
  deleteMessage(o: { channel: string; id: string; guild?: string }): void;
  /** The bot joins a guild with text channels (GUILD_CREATE). */
  guild(o: { id: string; channels: string[] }): void;
  /** A person opens a public thread under a channel (THREAD_CREATE), or renames it (THREAD_UPDATE). */
  thread(o: { id: string; parent: string; guild: string; owner: string; name: string; update?: boolean }): void;
  connections(): number;
  sockets(): number;
  /** Cuts the gateway sockets (discord.js resumes). */
  drop(): void;
  close(): Promise<void>;
}

let snow = 300000000000000000n;
const nextId = () => String(++snow);

export async function startFakeDiscord(o: { token?: string } = {}): Promise<FakeDiscord> {
  const token = o.token ?? 'ODk0.fake.discord-bot-token';
  const botId = '900000000000000001';
  const botUser = { id: botId, username: 'hermes', discriminator: '0', global_name: 'Hermes', avatar: null, bot: true };
  const messages: DiscordMsg[] = [];
  const calls: FakeDiscord['calls'] = [];
  const files = new Map<string, { bytes: Buffer; type: string; name: string }>();
  const users = new Map<string, { id: string; username: string; discriminator: string; global_name: string; avatar: null }>();
  const live = new Map<WebSocket, { seq: number }>();
  let opened = 0;
  const sessionId = 'fake-session-1';
  let port = 0;

  const userObj = (id: string, name?: string) => {
    if (!users.has(id)) users.set(id, { id, username: name ?? `user${id.slice(-4)}`, discriminator: '0', global_name: name ?? `User ${id.slice(-4)}`, avatar: null });
    return users.get(id)!;
  };
  const dmOwner = new Map<string, string>();
  const messageObj = (m: { id: string; channel_id: string; author: object; content: string; guild_id?: string; attachments?: object[]; mentions?: object[] }) => ({
    id: m.id,
    channel_id: m.channel_id,
    ...(m.guild_id ? { guild_id: m.guild_id } : {}),
    author: m.author,
    content: m.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: m.mentions ?? [],
    mention_roles: [],
    attachments: m.attachments ?? [],
    embeds: [],
    pinned: false,
    type: 0,
    flags: 0,
    components: [],
  });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const json = (status: number, body: unknown) => (status === 204 ? res.writeHead(204).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    let m: RegExpExecArray | null;
    if ((m = /^\/attachments\/(.+)$/.exec(p))) {
      const f = files.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.type, 'content-length': f.bytes.length }).end(f.bytes) : res.writeHead(404).end();
    }
    if (req.headers.authorization !== `Bot ${token}`) return json(401, { message: '401: Unauthorized', code: 0 });
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    const route = p.replace(/^\/api\/v10/, '');
    calls.push({ method: req.method ?? 'GET', path: route });
    const ct = String(req.headers['content-type'] ?? '');
    let body: Record<string, any> = {};
    let fileCount = 0;
    if (ct.includes('application/json') && raw.length) body = JSON.parse(raw.toString('utf8'));
    else if (ct.includes('multipart/form-data')) {
      const text = raw.toString('latin1');
      const pj = /name="payload_json"[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*?)\r\n--/.exec(text);
      if (pj) body = JSON.parse(Buffer.from(pj[1], 'latin1').toString('utf8'));
      fileCount = (text.match(/name="files\[\d+\]"/g) ?? []).length;
    }
    if (route === '/gateway/bot') return json(200, { url: `ws://127.0.0.1:${port}`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
    if (route === '/gateway') return json(200, { url: `ws://127.0.0.1:${port}` });
    if (route === '/users/@me') return json(200, botUser);
    if (req.method === 'GET' && (m = /^\/channels\/(\d+)$/.exec(route))) {
      const owner = dmOwner.get(m[1]);
      return owner ? json(200, { id: m[1], type: 1, last_message_id: null, recipients: [userObj(owner)] }) : json(200, { id: m[1], type: 0, name: 'general', guild_id: '700000000000000001', position: 0, permission_overwrites: [] });
    }
    if (req.method === 'POST' && (m = /^\/channels\/(\d+)\/messages$/.exec(route))) {
      const msg: DiscordMsg = { id: nextId(), channel_id: m[1], content: body.content ?? '', edits: 0, components: body.components, files: fileCount };
      messages.push(msg);
      return json(200, messageObj({ id: msg.id, channel_id: m[1], author: botUser, content: msg.content }));
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(route))) {
      const msg = messages.find((x) => x.id === m![2]);
      if (req.method === 'GET') return msg ? json(200, messageObj({ id: msg.id, channel_id: msg.channel_id, author: botUser, content: msg.content })) : json(404, { message: 'Unknown Message', code: 10008 });
      if (req.method === 'PATCH' && msg) {
        if (typeof body.content === 'string') msg.content = body.content;
        msg.edits++;
        return json(200, messageObj({ id: msg.id, channel_id: msg.channel_id, author: botUser, content: msg.content }));
      }
    }
    if (req.method === 'POST' && /^\/channels\/\d+\/typing$/.test(route)) return json(204, null);
    if (/^\/channels\/\d+\/messages\/\d+\/reactions\/[^/]+\/@me$/.test(route)) return json(204, null);
    return json(404, { message: `404: Not Found (${req.method} ${route})`, code: 0 });
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const state = { seq: 0 };
      ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41250 }, s: null, t: null }));
      ws.on('message', (raw) => {
        const msg = JSON.parse(String(raw)) as { op: number; d: any };
        if (msg.op === 1) ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
        else if (msg.op === 2) {
          if (msg.d?.token !== token) return ws.close(4004, 'Authentication failed.');
          opened++;
          live.set(ws, state);
          ws.send(JSON.stringify({ op: 0, t: 'READY', s: ++state.seq, d: { v: 10, user: botUser, guilds: [], session_id: sessionId, resume_gateway_url: `ws://127.0.0.1:${port}`, shard: [0, 1], application: { id: botId, flags: 0 }, user_settings: {}, private_channels: [], relationships: [], presences: [], geo_ordered_rtc_regions: [] } }));
        } else if (msg.op === 6) {
          if (msg.d?.token !== token || msg.d?.session_id !== sessionId) return ws.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
          opened++;
          state.seq = Number(msg.d.seq ?? 0);
          live.set(ws, state);
          ws.send(JSON.stringify({ op: 0, t: 'RESUMED', s: ++state.seq, d: {} }));
        }
      });
      ws.on('close', () => live.delete(ws));
    });
  });
  const served = await serveLoopback(server);
  port = served.port;

  const dispatch = (t: string, d: unknown) => {
    for (const [ws, st] of live) ws.send(JSON.stringify({ op: 0, t, s: ++st.seq, d }));
  };

  return {
    apiBase: `http://127.0.0.1:${port}/api/v10`,
    token,
    botId,
    messages,
    calls,
    files,
    userMessage(u) {
      const id = nextId();
      if (!u.guild) dmOwner.set(u.channel, u.user);
      const attachments = (u.attachments ?? []).map((fid) => {
        const f = files.get(fid)!;
        return { id: fid, filename: f.name, size: f.bytes.length, url: `http://127.0.0.1:${port}/attachments/${fid}`, proxy_url: `http://127.0.0.1:${port}/attachments/${fid}`, content_type: f.type };
      });
      const content = u.mentionBot ? `<@${botId}> ${u.text}` : u.text;
      // The gateway adds channel_type to MESSAGE_CREATE (1 = DM, 0 = guild text).
      dispatch('MESSAGE_CREATE', { ...messageObj({ id, channel_id: u.channel, guild_id: u.guild, author: userObj(u.user, u.username), content, attachments, mentions: u.mentionBot ? [botUser] : [] }), channel_type: u.guild ? 0 : 1 });
      return id;
    },
    editMessage(u) {
      dispatch('MESSAGE_UPDATE', { ...messageObj({ id: u.id, channel_id: u.channel, guild_id: u.guild, author: userObj(u.user), content: u.text }), edited_timestamp: new Date().toISOString() });
    },
    deleteMessage(u) {
      dispatch('MESSAGE_DELETE', { id: u.id, channel_id: u.channel, ...(u.guild ? { guild_id: u.guild } : {}) });
    },
    guild(g) {
      const channels = g.channels.map((id, position) => ({ id, type: 0, name: `chan-${id.slice(-4)}`, guild_id: g.id, position, permission_overwrites: [], parent_id: null }));
      dispatch('GUILD_CREATE', { id: g.id, name: 'Test Guild', icon: null, owner_id: '1', afk_timeout: 300, verification_level: 0, default_message_notifications: 0, explicit_content_filter: 0, roles: [], emojis: [], stickers: [], features: [], mfa_level: 0, system_channel_flags: 0, premium_tier: 0, preferred_locale: 'en-US', nsfw_level: 0, large: false, unavailable: false, member_count: 2, members: [], channels, threads: [], presences: [], voice_states: [], stage_instances: [], guild_scheduled_events: [], joined_at: new Date().toISOString() });
    },
    thread(t) {
      const d = { id: t.id, type: 11, guild_id: t.guild, parent_id: t.parent, owner_id: t.owner, name: t.name, last_message_id: null, message_count: 0, member_count: 1, rate_limit_per_user: 0, flags: 0, thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false } };
      dispatch(t.update ? 'THREAD_UPDATE' : 'THREAD_CREATE', t.update ? d : { ...d, newly_created: true });
    },
    connections: () => opened,
    sockets: () => live.size,
    drop() {
      for (const ws of live.keys()) ws.terminate();
    },
    async close() {
      for (const ws of live.keys()) ws.terminate();
      wss.close();
      await served.close();
    },
  };
}
