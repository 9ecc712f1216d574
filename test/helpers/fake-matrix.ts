// A fake Matrix homeserver on loopback: enough of the client-server API for matrix-js-sdk to run a
// bot (versions, whoami, capabilities, pushrules, filters, long-polled /sync with rooms, state and
// timelines, send/redact/typing, authenticated media upload and download, joins). Tests post as
// users into rooms and read the events the bot sent, with `m.replace` edits applied.
import http from 'node:http';
import { serveLoopback } from './loopback.ts';

export interface MxEvent {
  event_id: string;
  type: string;
  sender: string;
  room_id: string;
  content: Record<string, any>;
  origin_server_ts: number;
  state_key?: string;
}

export interface FakeMatrix {
  url: string;
  token: string;
  botId: string;
  /** Every event in every room, in order. */
  events: MxEvent[];
  media: Map<string, { bytes: Buffer; type: string }>;
  /** Makes a room with the bot and these members (a DM with one member). */
  /** A room with the bot and `members` joined; `names` are members' display names (default: the localpart). */
  room(roomId: string, members: string[], names?: Record<string, string>): void;
  userMessage(o: { roomId: string; sender: string; body?: string; content?: Record<string, unknown> }): string;
  /** Syncs answered so far. */
  syncs(): number;
  /** Sync sessions: initial syncs plus syncs that succeeded after a failure (a reconnect). */
  connections(): number;
  /** Sync requests that began after the initial one (a client is polling). */
  polling(): number;
  /** Makes the next syncs fail with a 502 and cuts the one waiting. */
  drop(times?: number): void;
  close(): Promise<void>;
}

export async function startFakeMatrix(o: { token?: string; botId?: string } = {}): Promise<FakeMatrix> {
  const token = o.token ?? 'syt_bot_token';
  const botId = o.botId ?? '@hermes:fake.test';
  const events: MxEvent[] = [];
  const media = new Map<string, { bytes: Buffer; type: string }>();
  const rooms = new Map<string, string[]>();
  const waiters = new Set<() => void>();
  let n = 0;
  let syncCount = 0;
  let initial = 0;
  let failed = false;
  let recoveries = 0;
  let waiting = 0;
  let failSyncs = 0;
  const eid = () => `$ev${++n}`;
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const push = (ev: Omit<MxEvent, 'event_id' | 'origin_server_ts'>): MxEvent => {
    const full = { ...ev, event_id: eid(), origin_server_ts: Date.now() };
    events.push(full);
    wake();
    return full;
  };
  const memberEvent = (roomId: string, user: string, name?: string): Omit<MxEvent, 'event_id' | 'origin_server_ts'> => ({ type: 'm.room.member', sender: user, state_key: user, room_id: roomId, content: { membership: 'join', displayname: name ?? user.slice(1).split(':')[0] } });

  const syncBody = (since: number) => {
    const join: Record<string, unknown> = {};
    const fresh = events.slice(since);
    for (const [roomId] of rooms) {
      const state = since === 0 ? events.filter((e) => e.room_id === roomId && e.state_key !== undefined) : [];
      const timeline = fresh.filter((e) => e.room_id === roomId && (since > 0 || e.state_key === undefined));
      if (since > 0 && !timeline.length) continue;
      join[roomId] = {
        state: { events: state.map((e) => ({ ...e, unsigned: {} })) },
        timeline: { events: timeline.map((e) => ({ ...e, unsigned: {} })), limited: false, prev_batch: `p${since}` },
        ephemeral: { events: [] },
        account_data: { events: [] },
        unread_notifications: { highlight_count: 0, notification_count: 0 },
        summary: { 'm.joined_member_count': rooms.get(roomId)!.length, 'm.invited_member_count': 0, 'm.heroes': rooms.get(roomId)!.filter((u) => u !== botId) },
      };
    }
    return { next_batch: String(events.length), rooms: { join, invite: {}, leave: {} }, presence: { events: [] }, account_data: { events: [] }, to_device: { events: [] }, device_lists: { changed: [], left: [] }, device_one_time_keys_count: {} };
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const json = (status: number, body: unknown) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (p === '/_matrix/client/versions') return json(200, { versions: ['v1.1', 'v1.5', 'v1.11', 'v1.12'], unstable_features: {} });
    if (p.startsWith('/.well-known')) return json(404, { errcode: 'M_NOT_FOUND' });
    const auth = req.headers.authorization ?? (url.searchParams.get('access_token') ? `Bearer ${url.searchParams.get('access_token')}` : '');
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    if (auth !== `Bearer ${token}`) return json(401, { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token' });
    const body = (req.headers['content-type'] ?? '').includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : null;
    let m: RegExpExecArray | null;
    if (p === '/_matrix/client/v3/account/whoami') return json(200, { user_id: botId, device_id: 'HERMESDEV' });
    if (p === '/_matrix/client/v3/capabilities') return json(200, { capabilities: {} });
    if (p.startsWith('/_matrix/client/v3/pushrules')) return json(200, { global: { override: [], content: [], room: [], sender: [], underride: [] } });
    if ((m = /^\/_matrix\/client\/v3\/user\/[^/]+\/filter$/.exec(p))) return json(200, { filter_id: 'f1' });
    if (/^\/_matrix\/client\/v3\/user\/[^/]+\/filter\/[^/]+$/.test(p)) return json(200, {});
    if (p === '/_matrix/client/v3/sync') {
      syncCount++;
      if (failSyncs > 0) {
        failSyncs--;
        failed = true;
        return json(502, { errcode: 'M_UNKNOWN', error: 'Bad gateway' });
      }
      if (failed) {
        failed = false;
        recoveries++;
      }
      const since = Number(url.searchParams.get('since') ?? 0);
      if (!url.searchParams.get('since')) initial++;
      const timeout = Math.min(Number(url.searchParams.get('timeout') ?? 0), 30_000);
      if (since > 0 && events.length <= since && timeout > 0) {
        waiting++;
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            clearTimeout(t);
            resolve();
          };
          const t = setTimeout(done, timeout);
          waiters.add(done);
          req.on('close', done);
        });
        waiting--;
        if (failSyncs > 0) {
          failSyncs--;
          failed = true;
          return json(502, { errcode: 'M_UNKNOWN', error: 'Bad gateway' });
        }
      }
      return json(200, syncBody(since));
    }
    if (req.method === 'PUT' && (m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/([^/]+)\/([^/]+)$/.exec(p))) {
      const ev = push({ type: decodeURIComponent(m[2]), sender: botId, room_id: decodeURIComponent(m[1]), content: body ?? {} });
      return json(200, { event_id: ev.event_id });
    }
    if (req.method === 'PUT' && (m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/redact\/([^/]+)\/([^/]+)$/.exec(p))) {
      const ev = push({ type: 'm.room.redaction', sender: botId, room_id: decodeURIComponent(m[1]), content: { redacts: decodeURIComponent(m[2]) } });
      return json(200, { event_id: ev.event_id });
    }
    if (req.method === 'PUT' && /^\/_matrix\/client\/v3\/rooms\/[^/]+\/typing\/[^/]+$/.test(p)) return json(200, {});
    if (req.method === 'POST' && (m = /^\/_matrix\/client\/v3\/join\/([^/]+)$/.exec(p))) return json(200, { room_id: decodeURIComponent(m[1]) });
    if (req.method === 'POST' && p === '/_matrix/media/v3/upload') {
      const id = `m${++n}`;
      media.set(id, { bytes: raw, type: String(req.headers['content-type'] ?? 'application/octet-stream') });
      return json(200, { content_uri: `mxc://fake.test/${id}` });
    }
    if (req.method === 'GET' && (m = /^\/_matrix\/client\/v1\/media\/download\/([^/]+)\/([^/]+)/.exec(p))) {
      const f = media.get(m[2]);
      if (!f) return json(404, { errcode: 'M_NOT_FOUND' });
      return res.writeHead(200, { 'content-type': f.type, 'content-length': f.bytes.length }).end(f.bytes);
    }
    if ((m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/members$/.exec(p))) {
      const roomId = decodeURIComponent(m[1]);
      return json(200, { chunk: events.filter((e) => e.room_id === roomId && e.type === 'm.room.member').map((e) => ({ ...e, unsigned: {} })) });
    }
    return json(404, { errcode: 'M_UNRECOGNIZED', error: `Unrecognized request ${req.method} ${p}` });
  });
  const served = await serveLoopback(server);
  const port = served.port;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    botId,
    events,
    media,
    room(roomId, members, names = {}) {
      rooms.set(roomId, [botId, ...members]);
      for (const u of [botId, ...members]) push(memberEvent(roomId, u, names[u]));
    },
    userMessage(u) {
      return push({ type: 'm.room.message', sender: u.sender, room_id: u.roomId, content: u.content ?? { msgtype: 'm.text', body: u.body ?? '' } }).event_id;
    },
    syncs: () => syncCount,
    connections: () => initial + recoveries,
    polling: () => waiting,
    drop(times = 2) {
      failSyncs = times;
      wake();
    },
    async close() {
      wake();
      await served.close();
    },
  };
}
