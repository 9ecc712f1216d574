// Home Assistant over its WebSocket API (HASS_URL, default http://homeassistant.local:8123, and a
// long-lived HASS_TOKEN). Two kinds of messages come in, both trusted (the token authenticates Home
// Assistant; there is no stranger to pair):
//  · state changes (`state_changed`) matching `platforms.homeassistant.extra` watch_domains /
//    watch_entities / watch_all, minus ignore_entities, at most one per entity per cooldown_seconds
//    (30): they arrive in the `ha_events` chat as readable lines ("Front Door: triggered");
//  · conversation events (`conversation_event`, default `hermes_conversation`, fired by an
//    automation with a conversation trigger or by a script) with `{text, conversation_id, user,
//    notify}`: a person talking to the agent through Assist.
// Replies go out over REST: to `ha_events` (and anything without a target) as a persistent
// notification titled "Hermes Agent"; to `conversation:<id>` as a `hermes_conversation_response`
// event (and to its notify target); to any other chat id as `notify.<target>`.
import type WebSocket from 'ws';
import { platformSettings } from '../config.ts';
import type { InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { homeassistant as homeassistantEntry, hassSettings } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export interface HomeAssistantDeps {
  fetch?: typeof fetch;
}

type Obj = Record<string, unknown>;

interface HassState {
  entity_id: string;
  state: string;
  attributes?: Obj;
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? v.split(',').map((x) => x.trim()) : []);

/** A state change in words, by domain (Hermes's formats). */
export function describeChange(entity: string, oldS: HassState | null, newS: HassState): string {
  const name = String(newS.attributes?.friendly_name ?? entity);
  const domain = entity.split('.')[0];
  const from = oldS?.state;
  const to = newS.state;
  switch (domain) {
    case 'climate': {
      const a = newS.attributes ?? {};
      return `${name}: HVAC mode changed from '${from ?? '?'}' to '${to}' (current: ${a.current_temperature ?? '?'}, target: ${a.temperature ?? '?'})`;
    }
    case 'sensor': {
      const unit = String(newS.attributes?.unit_of_measurement ?? '');
      return `${name}: changed from ${from ?? '?'}${unit} to ${to}${unit}`;
    }
    case 'binary_sensor':
      return `${name}: ${to === 'on' ? 'triggered' : 'cleared'} (was ${from === 'on' ? 'triggered' : 'cleared'})`;
    case 'light':
    case 'switch':
    case 'fan':
      return `${name}: turned ${to}`;
    case 'alarm_control_panel':
      return `${name}: alarm state changed from '${from ?? '?'}' to '${to}'`;
    default:
      return `${name}: changed from '${from ?? '?'}' to '${to}'`;
  }
}

export class HomeAssistantAdapter implements PlatformAdapter {
  readonly name = 'homeassistant';
  readonly maxMessageLength = 50_000;
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const, busyInputMode: 'queue' as const, busyAck: false };
  private readonly url: string;
  private readonly token: string;
  private readonly config: Obj;
  private readonly log: (line: string) => void;
  private readonly deps?: HomeAssistantDeps;
  private ws: WebSocket | null = null;
  private closing = false;
  private nextId = 1;
  private ping: NodeJS.Timeout | null = null;
  private readonly lastEvent = new Map<string, number>();
  private readonly notifyFor = new Map<string, string>();

  constructor(o: { url: string; token: string; config: Obj; log: (line: string) => void; deps?: HomeAssistantDeps }) {
    this.url = o.url;
    this.token = o.token;
    this.config = o.config;
    this.log = o.log;
    this.deps = o.deps;
  }

  private get settings(): Obj {
    return platformSettings(this.config, 'homeassistant');
  }

  private get conversationEvent(): string {
    return String(this.settings.conversation_event ?? 'hermes_conversation');
  }

  private async rest(method: string, path: string, body?: unknown): Promise<unknown> {
    const r = await (this.deps?.fetch ?? fetch)(`${this.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`Home Assistant ${method} ${path}: HTTP ${r.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : null;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    const s = this.settings;
    if (!s.watch_all && !list(s.watch_domains).length && !list(s.watch_entities).length) this.log('homeassistant: no watch_domains, watch_entities or watch_all: state changes are not forwarded (conversation events still are)');
    const { default: WS } = await import('ws');
    const ws = new WS(`${this.url.replace(/^http/, 'ws')}/api/websocket`);
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      const subs = new Set<number>();
      ws.on('message', (raw) => {
        let m: Obj;
        try {
          m = JSON.parse(String(raw)) as Obj;
        } catch {
          return;
        }
        if (m.type === 'auth_required') ws.send(JSON.stringify({ type: 'auth', access_token: this.token }));
        else if (m.type === 'auth_invalid') reject(new Error(`Home Assistant refused the token: ${String(m.message ?? '')}`));
        else if (m.type === 'auth_ok') {
          for (const event_type of ['state_changed', this.conversationEvent]) {
            const id = this.nextId++;
            subs.add(id);
            ws.send(JSON.stringify({ id, type: 'subscribe_events', event_type }));
          }
        } else if (m.type === 'result' && subs.has(Number(m.id))) {
          if (!m.success) reject(new Error(`subscribe failed: ${JSON.stringify(m.error)}`));
          subs.delete(Number(m.id));
          if (!subs.size && !ready) {
            ready = true;
            this.ping = setInterval(() => ws.readyState === 1 && ws.send(JSON.stringify({ id: this.nextId++, type: 'ping' })), 30_000);
            this.ping.unref?.();
            resolve();
          }
        } else if (m.type === 'event') this.onEvent(m.event as Obj, handlers);
      });
      ws.once('error', (e) => (ready ? this.log(`homeassistant: websocket: ${e.message}`) : reject(e)));
      ws.once('close', (code) => {
        if (this.ping) clearInterval(this.ping);
        if (!ready) reject(new Error(`websocket closed during auth (${code})`));
        else if (!this.closing && this.ws === ws) handlers.disconnected?.(new Error(`websocket closed (${code})`));
      });
    });
  }

  private onEvent(ev: Obj, handlers: InboundHandlers): void {
    const type = String(ev.event_type ?? '');
    const data = (ev.data ?? {}) as Obj;
    if (type === this.conversationEvent) {
      const text = String(data.text ?? '').trim();
      if (!text) return;
      const conv = String(data.conversation_id ?? 'assist');
      const chatId = `conversation:${conv}`;
      if (typeof data.notify === 'string' && data.notify) this.notifyFor.set(chatId, data.notify);
      const user = String(data.user ?? data.user_id ?? 'assist');
      handlers.message({ source: { platform: 'homeassistant', chatId, chatType: 'dm', chatName: 'Assist', userId: user, userName: typeof data.user_name === 'string' ? data.user_name : user }, messageId: String(ev.context && (ev.context as Obj).id ? (ev.context as Obj).id : `${conv}-${Date.now()}`), text, receivedAt: Date.now() });
      return;
    }
    if (type !== 'state_changed') return;
    const entity = String(data.entity_id ?? '');
    const newS = data.new_state as HassState | null;
    if (!entity || !newS) return;
    const oldS = data.old_state as HassState | null;
    if (oldS && oldS.state === newS.state) return; // attribute-only updates are noise
    const s = this.settings;
    if (list(s.ignore_entities).includes(entity)) return;
    const watched = s.watch_all === true || list(s.watch_entities).includes(entity) || list(s.watch_domains).includes(entity.split('.')[0]);
    if (!watched) return;
    const cooldown = Number(s.cooldown_seconds ?? 30) * 1000;
    const last = this.lastEvent.get(entity) ?? 0;
    if (Date.now() - last < cooldown) return;
    this.lastEvent.set(entity, Date.now());
    const source: SessionSource = { platform: 'homeassistant', chatId: 'ha_events', chatType: 'channel', chatName: 'Home Assistant events', userId: 'homeassistant', userName: 'Home Assistant' };
    handlers.message({ source, messageId: String((ev.context as Obj | undefined)?.id ?? `${entity}-${Date.now()}`), text: `[Home Assistant] ${describeChange(entity, oldS, newS)}`, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
    if (this.ping) clearInterval(this.ping);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    try {
      if (chatId.startsWith('conversation:')) {
        const conversation_id = chatId.slice('conversation:'.length);
        await this.rest('POST', '/events/hermes_conversation_response', { conversation_id, text });
        const target = this.notifyFor.get(chatId);
        if (target) await this.rest('POST', `/services/notify/${encodeURIComponent(target)}`, { title: 'Hermes Agent', message: text });
        return { ok: true, messageId: `${conversation_id}-${Date.now()}` };
      }
      if (!chatId || chatId === 'ha_events' || chatId === 'persistent_notification') {
        const notification_id = `hermes_${Date.now()}`;
        await this.rest('POST', '/services/persistent_notification/create', { title: 'Hermes Agent', message: text, notification_id });
        return { ok: true, messageId: notification_id };
      }
      const target = chatId.replace(/^notify\./, '');
      await this.rest('POST', `/services/notify/${encodeURIComponent(target)}`, { title: 'Hermes Agent', message: text });
      return { ok: true };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...homeassistantEntry,
  maxMessageLength: 50_000,
  homeEnv: 'HASS_HOME_CHANNEL',
  trustedSource: true,
  create: async (ctx) => {
    const s = hassSettings(ctx.env, ctx.config);
    if (!s) throw new Error('Home Assistant needs HASS_TOKEN');
    return new HomeAssistantAdapter({ ...s, config: ctx.config, log: ctx.log, deps: ctx.deps as HomeAssistantDeps | undefined });
  },
  sender: async (ctx) => {
    const s = hassSettings(ctx.env, ctx.config);
    return s ? new HomeAssistantAdapter({ ...s, config: ctx.config, log: ctx.log }) : null;
  },
  parseTarget: (rest) => (rest ? { chatId: rest } : null),
  setup: {
    intro: 'Home Assistant → your profile → Security → Long-lived access tokens → Create token.',
    fields: [
      { key: 'HASS_URL', prompt: 'Home Assistant URL', placeholder: 'http://homeassistant.local:8123', optional: true, validate: (v) => (/^https?:\/\//.test(v) ? undefined : 'Start the URL with http://') },
      { key: 'HASS_TOKEN', prompt: 'Long-lived access token', secret: true },
    ],
  },
  probe: async (env, config) => {
    const s = hassSettings(env, config);
    if (!s) throw new Error('HASS_TOKEN is needed');
    const r = await fetch(`${s.url}/api/`, { headers: { authorization: `Bearer ${s.token}` } });
    if (!r.ok) throw new Error(`Home Assistant answered HTTP ${r.status}`);
    const body = (await r.json().catch(() => ({}))) as { message?: string };
    return body.message ?? 'API running';
  },
  promptHint: 'Home Assistant shows your replies as notifications: keep them short. Use the ha_* tools to read states and call services.',
};
