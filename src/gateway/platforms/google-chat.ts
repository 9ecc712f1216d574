// Google Chat as an HTTP-endpoint Chat app: events arrive on our server (GOOGLE_CHAT_HOST 0.0.0.0,
// GOOGLE_CHAT_PORT 8647, the path of GOOGLE_CHAT_HTTP_EVENTS_URL, your public HTTPS URL configured
// as the app's endpoint), replies go out through the Chat REST API as the app, with an OAuth token
// minted from the service account key (GOOGLE_CHAT_SERVICE_ACCOUNT_JSON: a path or inline JSON,
// else GOOGLE_APPLICATION_CREDENTIALS). Every event must carry Google's bearer token, verified as in
// Hermes: with an audience that is the endpoint URL (GOOGLE_CHAT_HTTP_EVENTS_AUDIENCE, default the
// URL) it is a Google-signed ID token whose `email` is the expected service account
// (GOOGLE_CHAT_HTTP_EVENTS_SERVICE_ACCOUNT_EMAIL, default chat@system.gserviceaccount.com); with a
// project-number audience it is signed by chat@system.gserviceaccount.com itself. DMs always; in
// spaces Chat delivers only @mentions (`argumentText` drops the mention). Replies land in the
// message's thread and stream by PATCHing the message; uploaded images are downloaded through the
// media API. The Pub/Sub intake of Hermes (GOOGLE_CHAT_SUBSCRIPTION_NAME) is not supported here.
import { createSign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { platformSettings } from '../config.ts';
import { downloadAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules } from './gating.ts';
import { type InboundServer, listenInbound } from './inbound-http.ts';
import { JwksVerifier } from './jwt.ts';
import { googleChat as googleChatEntry, googleChatCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const GOOGLE_CHAT_LIMIT = 4000;
const CHAT_SA = 'chat@system.gserviceaccount.com';

interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri?: string;
  project_id?: string;
}

export interface GoogleChatSettings {
  account: ServiceAccount | null;
  accountError?: string;
  eventsUrl: string;
  audience: string;
  emails: string[];
  host: string;
  port: number;
  api: string;
  jwksUrl: string;
  x509Url: string;
}

function readAccount(raw: string): { account: ServiceAccount | null; error?: string } {
  if (!raw) return { account: null, error: 'no service account key' };
  try {
    const text = raw.trim().startsWith('{') ? raw : readFileSync(raw, 'utf8');
    const j = JSON.parse(text) as ServiceAccount;
    if (!j.client_email || !j.private_key) return { account: null, error: 'the service account JSON lacks client_email or private_key' };
    return { account: j };
  } catch (e) {
    return { account: null, error: `cannot read the service account key: ${(e as Error).message.split('\n')[0]}` };
  }
}

export function googleChatSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): GoogleChatSettings | null {
  const c = googleChatCredentials(env, config);
  if (!c) return null;
  const { keyRaw, eventsUrl } = c;
  const s = platformSettings(config, 'google_chat');
  const { account, error } = readAccount(keyRaw);
  const emails = String(s.http_events_service_account_email || env.GOOGLE_CHAT_HTTP_EVENTS_SERVICE_ACCOUNT_EMAIL || CHAT_SA)
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  return {
    account,
    accountError: error,
    eventsUrl,
    audience: String(s.http_events_audience || env.GOOGLE_CHAT_HTTP_EVENTS_AUDIENCE || eventsUrl),
    emails,
    host: String(env.GOOGLE_CHAT_HOST || s.host || '0.0.0.0'),
    port: Number(env.GOOGLE_CHAT_PORT ?? s.port ?? 8647),
    // Overridable for tests against a fake Google.
    api: String(env.GOOGLE_CHAT_API_BASE || 'https://chat.googleapis.com').replace(/\/+$/, ''),
    jwksUrl: String(env.GOOGLE_CHAT_JWKS_URL || 'https://www.googleapis.com/oauth2/v3/certs'),
    x509Url: String(env.GOOGLE_CHAT_X509_URL || `https://www.googleapis.com/service_accounts/v1/metadata/x509/${CHAT_SA}`),
  };
}

interface ChatEvent {
  type?: string;
  space?: { name?: string; type?: string; spaceType?: string; displayName?: string; singleUserBotDm?: boolean };
  message?: {
    name?: string;
    text?: string;
    argumentText?: string;
    sender?: { name?: string; displayName?: string; email?: string; type?: string };
    thread?: { name?: string };
    attachment?: { name?: string; contentName?: string; contentType?: string; attachmentDataRef?: { resourceName?: string }; source?: string }[];
    annotations?: { type?: string; userMention?: { user?: { name?: string; type?: string } } }[];
  };
  user?: { name?: string; displayName?: string; email?: string; type?: string };
}

export class GoogleChatAdapter implements PlatformAdapter {
  readonly name = 'google_chat';
  readonly maxMessageLength = GOOGLE_CHAT_LIMIT;
  readonly supportsButtons = false;
  readonly editIntervalMs = 1000;
  readonly s: GoogleChatSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private server: InboundServer | null = null;
  private readonly idTokens: JwksVerifier;
  private readonly chatTokens: JwksVerifier;
  private token: { value: string; until: number } | null = null;
  private readonly seen = new Set<string>();

  constructor(o: { settings: GoogleChatSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
    this.idTokens = new JwksVerifier({ jwksUrl: this.s.jwksUrl });
    this.chatTokens = new JwksVerifier({ x509Url: this.s.x509Url });
  }

  get port(): number {
    return this.server?.port ?? 0;
  }

  /** An access token for the Chat API: a JWT assertion signed with the service account key. */
  async accessToken(): Promise<string> {
    if (this.token && this.token.until > Date.now()) return this.token.value;
    const sa = this.s.account;
    if (!sa) throw new Error(`Google Chat: ${this.s.accountError ?? 'no service account key'} (GOOGLE_CHAT_SERVICE_ACCOUNT_JSON)`);
    const tokenUri = sa.token_uri || 'https://oauth2.googleapis.com/token';
    const now = Math.floor(Date.now() / 1000);
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc({ iss: sa.client_email, scope: 'https://www.googleapis.com/auth/chat.bot', aud: tokenUri, iat: now, exp: now + 3600 })}`;
    const assertion = `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(sa.private_key).toString('base64url')}`;
    const r = await fetch(tokenUri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(), signal: AbortSignal.timeout(20_000) });
    const body = (await r.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error_description?: string; error?: string };
    if (!r.ok || !body.access_token) throw new Error(`Google refused the service account: ${body.error_description ?? body.error ?? `HTTP ${r.status}`}`);
    this.token = { value: body.access_token, until: Date.now() + Math.max(60, (body.expires_in ?? 3600) - 300) * 1000 };
    return body.access_token;
  }

  private async api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${this.s.api}/v1/${path}`, { method, headers: { authorization: `Bearer ${await this.accessToken()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(30_000) });
    const data = (await r.json().catch(() => ({}))) as T & { error?: { message?: string } };
    if (!r.ok) throw new Error(`Google Chat ${method} ${path.split('?')[0]}: HTTP ${r.status}${data.error?.message ? ` (${data.error.message})` : ''}`);
    return data;
  }

  private async verify(auth: string): Promise<void> {
    if (!auth.startsWith('Bearer ')) throw new Error('no bearer token');
    const token = auth.slice(7);
    if (/^\d+$/.test(this.s.audience)) {
      await this.chatTokens.verify(token, { issuers: [CHAT_SA], audiences: [this.s.audience] });
      return;
    }
    const { claims } = await this.idTokens.verify(token, { issuers: ['https://accounts.google.com', 'accounts.google.com'], audiences: [this.s.audience] });
    const email = String(claims.email ?? '').toLowerCase();
    if (!this.s.emails.includes(email) || claims.email_verified === false) throw new Error(`token for ${email || 'no e-mail'}, not the Chat service account`);
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    if (!this.s.eventsUrl) throw new Error('GOOGLE_CHAT_HTTP_EVENTS_URL is required: the public HTTPS URL set as the Chat app\'s endpoint (Pub/Sub intake is not supported)');
    if (!this.s.audience) throw new Error('GOOGLE_CHAT_HTTP_EVENTS_AUDIENCE is empty');
    await this.accessToken();
    const path = new URL(this.s.eventsUrl).pathname || '/';
    this.server = await listenInbound(
      this.s.host,
      this.s.port,
      async (req, url, raw) => {
        if (req.method !== 'POST' || url.pathname !== path) return { status: 404 };
        try {
          await this.verify(String(req.headers.authorization ?? ''));
        } catch (e) {
          this.log(`google_chat: refused an event: ${(e as Error).message}`);
          return { status: 401, body: '{"error":"unauthorized"}' };
        }
        let ev: ChatEvent;
        try {
          ev = JSON.parse(raw.toString('utf8')) as ChatEvent;
        } catch {
          return { status: 400, body: '{"error":"bad json"}' };
        }
        if (ev.type === 'MESSAGE') void this.onMessage(ev, handlers).catch((e) => this.log(`google_chat: could not read a message: ${(e as Error).message}`));
        // An empty answer: the reply comes later through the API (turns take longer than Chat waits).
        return { status: 200, body: '{}' };
      },
      { log: (l) => this.log(`google_chat: ${l}`) },
    );
    this.log(`google_chat: listening on ${this.s.host}:${this.server.port}${path}`);
  }

  private async onMessage(ev: ChatEvent, handlers: InboundHandlers): Promise<void> {
    const m = ev.message;
    const space = ev.space?.name;
    const sender = m?.sender ?? ev.user;
    if (!m?.name || !space || !sender?.name || sender.type === 'BOT' || this.seen.has(m.name)) return;
    this.seen.add(m.name);
    if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
    const isDm = ev.space?.type === 'DM' || ev.space?.spaceType === 'DIRECT_MESSAGE' || !!ev.space?.singleUserBotDm;
    const mentioned = (m.annotations ?? []).some((a) => a.type === 'USER_MENTION' && a.userMention?.user?.type === 'BOT');
    if (!isDm && !channelAdmits(channelRules('google_chat', this.env, this.config), [space], mentioned)) return;
    const text = (m.argumentText ?? m.text ?? '').trim();
    const attachments: InboundAttachment[] = [];
    for (const a of m.attachment ?? []) {
      const ref = a.attachmentDataRef?.resourceName;
      if (!ref || a.source === 'DRIVE_FILE') continue;
      try {
        attachments.push(await downloadAttachment(this.home, this.config, { url: `${this.s.api}/v1/media/${encodeURI(ref)}?alt=media`, mimeType: a.contentType, fileName: a.contentName, id: a.name?.split('/').pop(), headers: { authorization: `Bearer ${await this.accessToken()}` } }));
      } catch (e) {
        this.log(`google_chat: attachment ${a.contentName ?? ''}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    const threadId = !isDm ? m.thread?.name : undefined;
    const source: SessionSource = {
      platform: 'google_chat',
      chatId: space,
      chatType: isDm ? 'dm' : threadId ? 'thread' : 'group',
      chatName: ev.space?.displayName || undefined,
      userId: sender.email || sender.name,
      // users/<number> beside the account's address; displayName is display only.
      userIdAlt: sender.email ? sender.name : undefined,
      userName: sender.displayName || undefined,
      threadId,
    };
    handlers.message({ source, messageId: m.name, text, attachments: attachments.length ? attachments : undefined, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    const s = this.server;
    this.server = null;
    await s?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    if (!/^spaces\/[\w-]+$/.test(chatId)) return { ok: false, error: `not a Google Chat space: "${chatId}" (spaces/…)` };
    try {
      const thread = opts?.threadId ? `&messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD` : '';
      const r = await this.api<{ name?: string }>('POST', `${chatId}/messages?${thread.slice(1)}`, { text, ...(opts?.threadId ? { thread: { name: opts.threadId } } : {}) });
      return { ok: true, messageId: r.name };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async edit(_chatId: string, messageId: string, text: string): Promise<SendResult> {
    try {
      await this.api('PATCH', `${messageId}?updateMask=text`, { text });
      return { ok: true, messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...googleChatEntry,
  maxMessageLength: GOOGLE_CHAT_LIMIT,
  parseTarget: (rest) => {
    const m = /^(spaces\/[\w-]+)(?::(spaces\/[\w-]+\/threads\/[\w-]+))?$/.exec(rest.trim());
    return m ? { chatId: m[1], threadId: m[2] } : null;
  },
  targetHint: 'a space name (spaces/AAAA…), optionally :spaces/AAAA…/threads/…',
  create: async (ctx) => {
    const settings = googleChatSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('Google Chat needs GOOGLE_CHAT_SERVICE_ACCOUNT_JSON and GOOGLE_CHAT_HTTP_EVENTS_URL');
    return new GoogleChatAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = googleChatSettings(ctx.env, ctx.config);
    return settings?.account ? new GoogleChatAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Google Cloud console: enable the Chat API, create a service account and a JSON key, and in the Chat API configuration choose "HTTP endpoint URL" with your public URL (port 8647 here) and "Authentication audience: HTTP endpoint URL".',
    fields: [
      { key: 'GOOGLE_CHAT_SERVICE_ACCOUNT_JSON', prompt: 'Path to the service account JSON key', validate: (v) => (existsSync(v) || v.trim().startsWith('{') ? undefined : 'No such file') },
      { key: 'GOOGLE_CHAT_HTTP_EVENTS_URL', prompt: 'The public HTTPS endpoint URL Chat posts to', validate: (v) => (/^https:\/\//.test(v) ? undefined : 'Use the https:// URL configured in the Chat API') },
    ],
    allowlistHint: 'e-mail addresses of the people',
  },
  probe: async (env, config) => {
    const s = googleChatSettings(env, config);
    if (!s?.account) throw new Error(s?.accountError ?? 'a service account key is needed');
    await new GoogleChatAdapter({ settings: s, env, config, home: env.HERMES_HOME ?? '', log: () => undefined }).accessToken();
    return s.account.client_email;
  },
  promptHint: 'Google Chat renders simple formatting (*bold*, _italic_, `code`, ``` blocks); no tables or headings.',
};
