// A fake Home Assistant on loopback: the WebSocket API (/api/websocket: auth_required → auth →
// auth_ok, subscribe_events → result, then `event` messages; ping → pong) and the REST API the
// adapter and the ha_* tools use (/api/, /api/states, /api/services, service calls, fired events),
// all behind the long-lived token.
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface FakeHass {
  url: string;
  token: string;
  states: Map<string, { entity_id: string; state: string; attributes: Record<string, unknown> }>;
  /** Service calls and fired events, in order. */
  calls: { path: string; body: any }[];
  /** Sets a state and sends `state_changed` to subscribers. */
  setState(entity: string, state: string, attributes?: Record<string, unknown>): void;
  /** Fires an event (e.g. the conversation event) to subscribers. */
  fire(eventType: string, data: Record<string, unknown>): void;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeHass(o: { token?: string } = {}): Promise<FakeHass> {
  const token = o.token ?? 'hass-long-lived-token';
  const states: FakeHass['states'] = new Map();
  const calls: FakeHass['calls'] = [];
  const subs = new Map<WebSocket, Map<string, number>>();
  let auths = 0;
  let ctx = 1;

  const send = (eventType: string, data: Record<string, unknown>) => {
    for (const [ws, byType] of subs) {
      const id = byType.get(eventType);
      if (id !== undefined) ws.send(JSON.stringify({ id, type: 'event', event: { event_type: eventType, data, origin: 'LOCAL', time_fired: new Date().toISOString(), context: { id: `ctx${ctx++}` } } }));
    }
  };

  const server = http.createServer(async (req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { message: 'Unauthorized' });
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : undefined;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let m: RegExpExecArray | null;
    if (path === '/api/') return json(200, { message: 'API running.' });
    if (req.method === 'GET' && path === '/api/states') return json(200, [...states.values()]);
    if (req.method === 'GET' && (m = /^\/api\/states\/(.+)$/.exec(path))) {
      const s = states.get(m[1]);
      return s ? json(200, { ...s, last_changed: new Date().toISOString() }) : json(404, { message: 'Entity not found.' });
    }
    if (req.method === 'GET' && path === '/api/services') return json(200, [{ domain: 'light', services: { turn_on: { description: 'Turn on', fields: { brightness: {} } }, turn_off: { description: 'Turn off', fields: {} } } }]);
    if (req.method === 'POST' && (m = /^\/api\/services\/([^/]+)\/([^/]+)$/.exec(path))) {
      calls.push({ path, body });
      const [domain, service] = [m[1], m[2]];
      if (domain === 'light' && body?.entity_id && states.has(body.entity_id)) {
        const s = states.get(body.entity_id)!;
        s.state = service === 'turn_on' ? 'on' : service === 'turn_off' ? 'off' : s.state;
        return json(200, [s]);
      }
      return json(200, []);
    }
    if (req.method === 'POST' && (m = /^\/api\/events\/(.+)$/.exec(path))) {
      calls.push({ path, body });
      return json(200, { message: `Event ${m[1]} fired.` });
    }
    return json(404, { message: 'not found' });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (req.url !== '/api/websocket') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(JSON.stringify({ type: 'auth_required', ha_version: '2026.11.0' }));
      let authed = false;
      ws.on('message', (raw) => {
        const msg = JSON.parse(String(raw)) as { id?: number; type: string; access_token?: string; event_type?: string };
        if (!authed) {
          if (msg.type === 'auth' && msg.access_token === token) {
            authed = true;
            auths++;
            subs.set(ws, new Map());
            ws.send(JSON.stringify({ type: 'auth_ok', ha_version: '2026.11.0' }));
          } else ws.send(JSON.stringify({ type: 'auth_invalid', message: 'Invalid access token or password' }));
          return;
        }
        if (msg.type === 'subscribe_events' && msg.event_type) {
          subs.get(ws)!.set(msg.event_type, msg.id!);
          ws.send(JSON.stringify({ id: msg.id, type: 'result', success: true, result: null }));
        } else if (msg.type === 'ping') ws.send(JSON.stringify({ id: msg.id, type: 'pong' }));
      });
      ws.on('close', () => subs.delete(ws));
    });
  });
  const served = await serveLoopback(server);
  const port = served.port;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    states,
    calls,
    setState(entity, state, attributes = {}) {
      const old = states.get(entity) ?? null;
      const next = { entity_id: entity, state, attributes: { ...(old?.attributes ?? {}), ...attributes } };
      states.set(entity, next);
      send('state_changed', { entity_id: entity, old_state: old ? { ...old } : null, new_state: next });
    },
    fire: send,
    connections: () => auths,
    sockets: () => subs.size,
    drop() {
      for (const ws of subs.keys()) ws.terminate();
    },
    async close() {
      for (const ws of subs.keys()) ws.terminate();
      wss.close();
      await served.close();
    },
  };
}
