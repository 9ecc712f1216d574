// Microsoft Teams over the Bot Framework REST protocol: TEAMS_CLIENT_ID + TEAMS_CLIENT_SECRET +
// TEAMS_TENANT_ID (the Azure bot's app registration). Teams posts activities to our endpoint
// (TEAMS_HOST, TEAMS_PORT 3978, path /api/messages; your public HTTPS URL is the bot's messaging
// endpoint). Every activity must carry a Bot Framework JWT: RS256 from the keys in Bot Framework's
// OpenID metadata, issuer https://api.botframework.com, audience our client id, the key endorsed for
// the activity's channel, and its `serviceurl` claim equal to the activity's serviceUrl (so a forged
// activity can neither get in nor send our token elsewhere). Replies go to that serviceUrl with a
// client-credentials token from Entra ID. Personal chats always; group chats and channels when
// @mentioned if TEAMS_REQUIRE_MENTION=true (default off, as in Hermes: without RSC Teams only
// delivers mentions to the bot anyway). Replies stream by updating the activity; images in (with
// the bot token for Teams-hosted files) and small images out (inline). Conversation references
// (service URL per conversation) are kept in HERMES_HOME/teams/conversations.json so deliveries
// and `hermes send` reach a chat after a restart.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { platformSettings } from '../config.ts';
import { attachmentCapBytes, downloadAttachment, kindOf } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules, flag } from './gating.ts';
import { type InboundServer, listenInbound } from './inbound-http.ts';
import { JwksVerifier } from './jwt.ts';
import { teams as teamsEntry, teamsCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const TEAMS_LIMIT = 4000;
const BF_ISSUER = 'https://api.botframework.com';

export interface TeamsSettings {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  host: string;
  port: number;
  path: string;
  metadataUrl: string;
  tokenUrl: string;
}

export function teamsSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): TeamsSettings | null {
  const c = teamsCredentials(env, config);
  if (!c) return null;
  const { clientId, clientSecret, tenantId } = c;
  const s = platformSettings(config, 'teams');
  return {
    clientId,
    clientSecret,
    tenantId,
    host: String(env.TEAMS_HOST || s.host || '0.0.0.0'),
    port: Number(env.TEAMS_PORT ?? s.port ?? 3978),
    path: String(env.TEAMS_PATH || s.path || '/api/messages'),
    // Overridable for sovereign clouds (and for tests against a fake Bot Framework).
    metadataUrl: String(env.TEAMS_OPENID_METADATA_URL || s.openid_metadata_url || 'https://login.botframework.com/v1/.well-known/openidconfiguration'),
    tokenUrl: String(env.TEAMS_TOKEN_URL || s.token_url || `https://login.microsoftonline.com/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`),
  };
}

interface Activity {
  type?: string;
  id?: string;
  text?: string;
  serviceUrl?: string;
  channelId?: string;
  from?: { id?: string; name?: string; aadObjectId?: string };
  recipient?: { id?: string; name?: string };
  conversation?: { id?: string; conversationType?: string; tenantId?: string; name?: string };
  entities?: { type?: string; mentioned?: { id?: string; name?: string }; text?: string }[];
  attachments?: { contentType?: string; contentUrl?: string; name?: string; content?: { downloadUrl?: string; fileType?: string } }[];
  channelData?: { team?: { id?: string }; channel?: { id?: string } };
  replyToId?: string;
}

interface ConvRef {
  serviceUrl: string;
  type: string;
  tenantId?: string;
}

export class TeamsAdapter implements PlatformAdapter {
  readonly name = 'teams';
  readonly maxMessageLength = TEAMS_LIMIT;
  readonly supportsButtons = false;
  readonly editIntervalMs = 1000;
  readonly s: TeamsSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private server: InboundServer | null = null;
  private readonly verifier: JwksVerifier;
  private token: { value: string; until: number } | null = null;
  private refs: Record<string, ConvRef> | null = null;
  private readonly seen = new Set<string>();

  constructor(o: { settings: TeamsSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
    this.verifier = new JwksVerifier({ metadataUrl: this.s.metadataUrl });
  }

  get port(): number {
    return this.server?.port ?? 0;
  }

  private get refsFile(): string {
    return join(this.home, 'teams', 'conversations.json');
  }

  private loadRefs(): Record<string, ConvRef> {
    if (this.refs) return this.refs;
    try {
      this.refs = JSON.parse(readFileSync(this.refsFile, 'utf8')) as Record<string, ConvRef>;
    } catch {
      this.refs = {};
    }
    return this.refs;
  }

  private remember(convId: string, ref: ConvRef): void {
    const refs = this.loadRefs();
    const old = refs[convId];
    if (old && old.serviceUrl === ref.serviceUrl && old.type === ref.type) return;
    refs[convId] = ref;
    try {
      mkdirSync(dirname(this.refsFile), { recursive: true, mode: 0o700 });
      writeFileSync(this.refsFile, JSON.stringify(refs, null, 2), { mode: 0o600 });
      chmodSync(this.refsFile, 0o600);
    } catch (e) {
      this.log(`teams: could not save conversation references: ${(e as Error).message}`);
    }
  }

  async accessToken(): Promise<string> {
    if (this.token && this.token.until > Date.now()) return this.token.value;
    const r = await fetch(this.s.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: this.s.clientId, client_secret: this.s.clientSecret, scope: 'https://api.botframework.com/.default' }).toString(),
      signal: AbortSignal.timeout(20_000),
    });
    const body = (await r.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error_description?: string; error?: string };
    if (!r.ok || !body.access_token) throw new Error(`Entra ID refused the bot credentials: ${(body.error_description ?? body.error ?? `HTTP ${r.status}`).split('\n')[0]}`);
    this.token = { value: body.access_token, until: Date.now() + Math.max(60, (body.expires_in ?? 3600) - 300) * 1000 };
    return body.access_token;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    await this.accessToken();
    this.server = await listenInbound(
      this.s.host,
      this.s.port,
      async (req, url, body) => {
        if (req.method !== 'POST' || url.pathname !== this.s.path) return { status: 404 };
        let activity: Activity;
        try {
          activity = JSON.parse(body.toString('utf8')) as Activity;
        } catch {
          return { status: 400, body: '{"error":"bad json"}' };
        }
        const auth = String(req.headers.authorization ?? '');
        try {
          if (!auth.startsWith('Bearer ')) throw new Error('no bearer token');
          const { claims, endorsements } = await this.verifier.verify(auth.slice(7), { issuers: [BF_ISSUER], audiences: [this.s.clientId] });
          if (endorsements && activity.channelId && !endorsements.includes(activity.channelId)) throw new Error(`key not endorsed for channel ${activity.channelId}`);
          if (!activity.serviceUrl || claims.serviceurl !== activity.serviceUrl) throw new Error('serviceUrl does not match the token');
        } catch (e) {
          this.log(`teams: refused an activity: ${(e as Error).message}`);
          return { status: 401, body: '{"error":"unauthorized"}' };
        }
        if (activity.type === 'message') void this.onMessage(activity, handlers).catch((e) => this.log(`teams: could not read a message: ${(e as Error).message}`));
        return { status: 200, body: '{}' };
      },
      { log: (l) => this.log(`teams: ${l}`) },
    );
    this.log(`teams: listening on ${this.s.host}:${this.server.port}${this.s.path}`);
  }

  private async onMessage(a: Activity, handlers: InboundHandlers): Promise<void> {
    const convId = a.conversation?.id;
    if (!convId || !a.id || !a.serviceUrl || !a.from?.id || a.from.id === a.recipient?.id) return;
    if (this.seen.has(a.id)) return;
    this.seen.add(a.id);
    if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
    const type = a.conversation?.conversationType ?? 'personal';
    this.remember(convId, { serviceUrl: a.serviceUrl, type, tenantId: a.conversation?.tenantId });
    const isDm = type === 'personal';
    let text = a.text ?? '';
    const botId = a.recipient?.id;
    const mention = (a.entities ?? []).find((e) => e.type === 'mention' && e.mentioned?.id === botId);
    if (mention?.text) text = text.split(mention.text).join('');
    text = text.replace(/<at>[^<]*<\/at>/g, (m) => (mention ? '' : m.replace(/<\/?at>/g, ''))).replace(/&nbsp;/g, ' ').trim();
    if (!isDm) {
      const rules = { ...channelRules('teams', this.env, this.config), requireMention: flag('teams', 'require_mention', this.env, this.config, false) };
      const ids = [convId, convId.split(';')[0], a.channelData?.channel?.id, a.channelData?.team?.id].filter((x): x is string => !!x);
      if (!channelAdmits(rules, ids, !!mention)) return;
    }
    const attachments: InboundAttachment[] = [];
    for (const att of a.attachments ?? []) {
      const isFile = att.contentType === 'application/vnd.microsoft.teams.file.download.info';
      const url = isFile ? att.content?.downloadUrl : att.contentUrl;
      if (!url || att.contentType === 'text/html') continue;
      const mime = isFile ? undefined : att.contentType;
      try {
        // The bot's token goes only to the service that sent the activity (Teams-hosted images).
        const sameService = new URL(url).origin === new URL(a.serviceUrl).origin;
        const headers: Record<string, string> = sameService ? { authorization: `Bearer ${await this.accessToken()}` } : {};
        attachments.push(await downloadAttachment(this.home, this.config, { url, mimeType: mime, fileName: att.name, id: `${a.id}-${attachments.length}`, headers, kind: kindOf(mime, att.name) }));
      } catch (e) {
        this.log(`teams: attachment ${att.name ?? ''}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    const threadId = !isDm && convId.includes(';messageid=') ? convId.split(';messageid=')[1] : undefined;
    const source: SessionSource = {
      platform: 'teams',
      chatId: convId,
      chatType: isDm ? 'dm' : type === 'channel' ? (threadId ? 'thread' : 'channel') : 'group',
      chatName: a.conversation?.name,
      userId: a.from.aadObjectId || a.from.id,
      // The Bot Framework id (29:…) beside the AAD object id; the name is display only.
      userIdAlt: a.from.aadObjectId && a.from.id !== a.from.aadObjectId ? a.from.id : undefined,
      userName: a.from.name,
      threadId,
      scopeId: a.channelData?.team?.id,
    };
    handlers.message({ source, messageId: a.id, text, attachments: attachments.length ? attachments : undefined, replyTo: a.replyToId, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    const s = this.server;
    this.server = null;
    await s?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  private async connector(method: string, convId: string, path: string, body: unknown): Promise<{ id?: string }> {
    const ref = this.loadRefs()[convId.split(';messageid=')[0]] ?? this.loadRefs()[convId];
    if (!ref) throw new Error(`no Teams conversation "${convId}" yet: the person (or channel) must message the bot first`);
    const r = await fetch(`${ref.serviceUrl.replace(/\/+$/, '')}/v3/conversations/${encodeURIComponent(convId)}/activities${path}`, {
      method,
      headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const data = (await r.json().catch(() => ({}))) as { id?: string; error?: { message?: string } };
    if (!r.ok) throw new Error(`Teams ${method}: HTTP ${r.status}${data.error?.message ? ` (${data.error.message})` : ''}`);
    return data;
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const r = await this.connector('POST', chatId, '', { type: 'message', text, textFormat: 'markdown', ...(opts?.replyTo ? { replyToId: opts.replyTo } : {}) });
      return { ok: true, messageId: r.id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async edit(chatId: string, messageId: string, text: string): Promise<SendResult> {
    try {
      await this.connector('PUT', chatId, `/${encodeURIComponent(messageId)}`, { type: 'message', id: messageId, text, textFormat: 'markdown' });
      return { ok: true, messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async sendTyping(chatId: string): Promise<void> {
    await this.connector('POST', chatId, '', { type: 'typing' }).catch(() => undefined);
  }

  /** Images up to 1 MB go inline; other files need Graph/OneDrive consent cards, which are not done here. */
  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string }): Promise<SendResult> {
    const mime = /\.png$/i.test(path) ? 'image/png' : /\.jpe?g$/i.test(path) ? 'image/jpeg' : /\.gif$/i.test(path) ? 'image/gif' : null;
    try {
      const bytes = readFileSync(path);
      if (!mime || bytes.length > Math.min(1024 * 1024, attachmentCapBytes(this.config))) return { ok: false, error: `Teams bots can only send images up to 1 MB inline (${basename(path)})` };
      const r = await this.connector('POST', chatId, '', { type: 'message', text: opts?.caption ?? '', attachments: [{ contentType: mime, contentUrl: `data:${mime};base64,${bytes.toString('base64')}`, name: basename(path) }] });
      return { ok: true, messageId: r.id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...teamsEntry,
  maxMessageLength: TEAMS_LIMIT,
  parseTarget: (rest) => (rest.trim() ? { chatId: rest.trim() } : null),
  targetHint: 'a Teams conversation id (a:1…, 19:…@thread.tacv2) that has talked to the bot',
  create: async (ctx) => {
    const settings = teamsSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('Teams needs TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID');
    return new TeamsAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = teamsSettings(ctx.env, ctx.config);
    return settings ? new TeamsAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Azure portal → create an Azure Bot (single tenant), add the Microsoft Teams channel, set its messaging endpoint to https://<your host>/api/messages (port 3978 here), and copy the app id, a client secret and the tenant id.',
    fields: [
      { key: 'TEAMS_CLIENT_ID', prompt: 'App (client) id', validate: (v) => (/^[0-9a-f-]{36}$/i.test(v) ? undefined : 'A client id is a GUID') },
      { key: 'TEAMS_CLIENT_SECRET', prompt: 'Client secret', secret: true },
      { key: 'TEAMS_TENANT_ID', prompt: 'Tenant id', validate: (v) => (/^[0-9a-f-]{36}$|^[\w.-]+\.[a-z]+$/i.test(v) ? undefined : 'A tenant id is a GUID (or a domain)') },
    ],
    allowlistHint: 'Azure AD object ids of the users (GUIDs); display names are never compared',
  },
  probe: async (env, config) => {
    const s = teamsSettings(env, config);
    if (!s) throw new Error('the client id, secret and tenant are needed');
    const a = new TeamsAdapter({ settings: s, env, config, home: env.HERMES_HOME ?? '', log: () => undefined });
    await a.accessToken();
    return `app ${s.clientId}`;
  },
  promptHint: 'Microsoft Teams renders Markdown (bold, lists, code blocks, links).',
};
