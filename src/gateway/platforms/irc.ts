// IRC through irc-framework: IRC_SERVER + IRC_NICK (IRC_PORT 6667, or 6697 with IRC_USE_TLS=true;
// IRC_TLS_CA_CERT trusts a private CA; IRC_TLS_INSECURE=true skips the certificate check), an optional
// server password (IRC_PASSWORD), SASL PLAIN (IRC_SASL_USERNAME + IRC_SASL_PASSWORD) or NickServ
// IDENTIFY after registration (IRC_NICKSERV_PASSWORD, IRC_NICKSERV_SERVICE). IRC_CHANNELS are joined.
// DMs always; in channels only when the message names the bot's nick (IRC_REQUIRE_MENTION,
// IRC_FREE_RESPONSE_CHANNELS, IRC_ALLOWED_CHANNELS). A nick already taken gets one `_` suffix.
// IRC is plain text and cannot edit: Markdown is flattened, and replies go out line by line, each
// PRIVMSG cut to fit the 512-byte line (IRC_MESSAGE_CHUNK_LIMIT, 350 characters by default). When the
// server offers IRCv3 draft/multiline, a reply is one BATCH (one message in clients that support it).
import { readFileSync } from 'node:fs';
import { platformSettings } from '../config.ts';
import type { InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules } from './gating.ts';
import { irc as ircEntry, ircCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { toPlainText } from '../markdown/serializers.ts';

export interface IrcSettings {
  server: string;
  port: number;
  nick: string;
  username: string;
  realname: string;
  password: string;
  tls: boolean;
  caCert: string;
  tlsInsecure: boolean;
  channels: string[];
  chunkLimit: number;
  requireMultiline: boolean;
  sasl: { account: string; password: string } | null;
  nickserv: { password: string; service: string } | null;
}

/** The services account of an event (`*` means "not logged in"). */
const account = (e: IrcEvent): string | undefined => {
  const a = e.account ?? e.tags?.account;
  return a && a !== '*' ? a : undefined;
};

const on = (v: unknown) => ['1', 'true', 'yes', 'on'].includes(String(v ?? '').trim().toLowerCase());

export function ircSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): IrcSettings | null {
  const cred = ircCredentials(env, config);
  if (!cred) return null;
  const { server, nick } = cred;
  const s = platformSettings(config, 'irc');
  const pick = (k: string, c: string) => String(env[k] ?? s[c] ?? '');
  const tls = on(env.IRC_USE_TLS ?? s.use_tls);
  const rawChannels = env.IRC_CHANNELS ?? s.channels;
  const channels = (Array.isArray(rawChannels) ? rawChannels.map(String) : String(rawChannels ?? '').split(','))
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => (/^[#&]/.test(c) ? c : `#${c}`));
  const saslUser = pick('IRC_SASL_USERNAME', 'sasl_username');
  const saslPass = pick('IRC_SASL_PASSWORD', 'sasl_password');
  const nsPass = pick('IRC_NICKSERV_PASSWORD', 'nickserv_password');
  return {
    server,
    port: Number(pick('IRC_PORT', 'port') || (tls ? 6697 : 6667)),
    nick,
    username: pick('IRC_USERNAME', 'username') || nick,
    realname: pick('IRC_REALNAME', 'realname') || 'Hermes Agent',
    password: pick('IRC_PASSWORD', 'password'),
    tls,
    caCert: pick('IRC_TLS_CA_CERT', 'tls_ca_cert'),
    tlsInsecure: on(env.IRC_TLS_INSECURE ?? s.tls_insecure),
    channels,
    chunkLimit: Math.max(40, Number(pick('IRC_MESSAGE_CHUNK_LIMIT', 'message_chunk_limit') || 350)),
    requireMultiline: on(env.IRC_REQUIRE_MULTILINE ?? s.require_multiline),
    sasl: saslUser && saslPass ? { account: saslUser, password: saslPass } : null,
    nickserv: nsPass ? { password: nsPass, service: pick('IRC_NICKSERV_SERVICE', 'nickserv_service') || 'NickServ' } : null,
  };
}

/** Cuts one line into pieces of at most `maxChars` characters and `maxBytes` UTF-8 bytes, at a space when there is one. */
export function splitIrcLine(line: string, maxChars: number, maxBytes: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length) {
    let n = Math.min(rest.length, maxChars);
    while (n > 1 && Buffer.byteLength(rest.slice(0, n)) > maxBytes) n--;
    // do not cut a surrogate pair
    if (n < rest.length && /[\uD800-\uDBFF]/.test(rest[n - 1])) n--;
    if (n < rest.length) {
      const sp = rest.lastIndexOf(' ', n);
      if (sp > n / 2) n = sp + 1;
    }
    out.push(rest.slice(0, n).trimEnd());
    rest = rest.slice(n);
  }
  return out.filter((l) => l.length);
}

interface IrcEvent {
  nick: string;
  ident?: string;
  hostname?: string;
  target: string;
  message: string;
  type?: string;
  tags?: Record<string, string>;
  /** The services account the sender is logged in to (IRCv3 account-tag), as the server vouches. */
  account?: string;
}

interface IrcClient {
  connect(o: Record<string, unknown>): void;
  on(ev: string, fn: (...a: never[]) => void): void;
  removeAllListeners(): void;
  requestCap(cap: string | string[]): void;
  join(channel: string): void;
  say(target: string, text: string): void;
  raw(line: string): void;
  quit(msg?: string): void;
  changeNick(nick: string): void;
  user: { nick: string };
  network: { cap: { isEnabled(c: string): boolean; available: Map<string, string> } };
  connection?: { end?(): void };
}

export interface IrcDeps {
  createClient?: () => IrcClient;
}

let batchSeq = 0;

export class IrcAdapter implements PlatformAdapter {
  readonly name = 'irc';
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const };
  readonly s: IrcSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly log: (line: string) => void;
  private readonly deps?: IrcDeps;
  private client: IrcClient | null = null;
  private closing = false;
  private multiline: { maxBytes: number; maxLines: number } | null = null;
  private readonly seen = new Set<string>();

  constructor(o: { settings: IrcSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; log: (line: string) => void; deps?: IrcDeps }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.log = o.log;
    this.deps = o.deps;
  }

  /** With draft/multiline one reply is one BATCH (up to its max-bytes); otherwise one PRIVMSG line. */
  get maxMessageLength(): number {
    return this.multiline ? Math.min(4000, this.multiline.maxBytes) : this.s.chunkLimit;
  }

  get nick(): string {
    return this.client?.user.nick || this.s.nick;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    // irc-framework ships no types: the small surface used here is `IrcClient`.
    const mod = 'irc-framework';
    const client = this.deps?.createClient ? this.deps.createClient() : new ((await import(mod)) as { default: { Client: new () => IrcClient } }).default.Client();
    this.client = client;
    client.requestCap('draft/multiline');
    let registered = false;
    let triedAlt = false;
    await new Promise<void>(async (resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`no registration from ${this.s.server}:${this.s.port} within 45 s`)), 45_000);
      timer.unref();
      const fail = (e: Error) => {
        clearTimeout(timer);
        if (registered) return;
        registered = true; // settled: later events are not failures of this attempt
        this.closing = true;
        try {
          client.quit();
        } catch {
          /* not connected */
        }
        reject(e);
      };
      client.on('registered', () => {
        if (registered) return;
        clearTimeout(timer);
        registered = true;
        const cap = client.network.cap;
        const ml = cap.isEnabled('draft/multiline') ? (cap.available.get('draft/multiline') ?? '') : null;
        if (ml !== null) {
          const kv = Object.fromEntries(ml.split(',').map((p) => p.split('=') as [string, string]));
          this.multiline = { maxBytes: Number(kv['max-bytes'] || 4096), maxLines: Number(kv['max-lines'] || 100) };
        } else this.multiline = null;
        if (this.s.requireMultiline && !this.multiline) {
          client.quit('multiline required');
          reject(new Error('the server does not offer draft/multiline and IRC_REQUIRE_MULTILINE is set'));
          return;
        }
        if (this.s.nickserv && !this.s.sasl) client.say(this.s.nickserv.service, `IDENTIFY ${this.s.nickserv.password}`);
        for (const c of this.s.channels) client.join(c);
        this.log(`irc: connected to ${this.s.server}:${this.s.port} as ${client.user.nick}${this.multiline ? ' (multiline)' : ''}`);
        resolve();
      });
      client.on('nick in use', (() => {
        if (registered) return;
        if (triedAlt) return fail(new Error(`the nick ${this.s.nick} and ${this.s.nick}_ are both taken`));
        triedAlt = true;
        client.changeNick(`${this.s.nick}_`);
      }) as never);
      client.on('sasl failed', ((e: { reason?: string; message?: string }) => fail(new Error(`SASL login refused: ${e?.message ?? e?.reason ?? 'unknown reason'}`))) as never);
      client.on('irc error', ((e: { error?: string; reason?: string }) => {
        if (!registered) fail(new Error(`IRC error: ${e.error ?? ''} ${e.reason ?? ''}`.trim()));
        else this.log(`irc: ${e.error ?? 'error'}: ${e.reason ?? ''}`);
      }) as never);
      client.on('socket close', ((err?: Error) => {
        if (!registered) return fail(err instanceof Error ? err : new Error('the server closed the connection before registration'));
        if (!this.closing && this.client === client) handlers.disconnected?.(new Error('connection closed'));
      }) as never);
      client.on('message', ((e: IrcEvent) => this.onMessage(e, handlers)) as never);
      if (this.s.tls && this.s.caCert) {
        // irc-framework passes no `ca` to tls.connect: the CA joins the process's default trust store.
        try {
          const pem = readFileSync(this.s.caCert, 'utf8');
          const tls = await import('node:tls');
          const have = tls.getCACertificates('default');
          if (!have.includes(pem)) tls.setDefaultCACertificates([...have, pem]);
        } catch (e) {
          return reject(new Error(`IRC_TLS_CA_CERT: cannot use ${this.s.caCert}: ${(e as Error).message}`));
        }
      }
      client.connect({
        host: this.s.server,
        port: this.s.port,
        nick: this.s.nick,
        username: this.s.username,
        gecos: this.s.realname,
        password: this.s.password || undefined,
        tls: this.s.tls,
        rejectUnauthorized: !this.s.tlsInsecure,
        ...(this.s.sasl ? { account: { account: this.s.sasl.account, password: this.s.sasl.password }, sasl_disconnect_on_fail: true } : {}),
        auto_reconnect: false,
        ping_interval: 30,
        ping_timeout: 120,
        version: 'Hermes Agent',
        message_max_length: this.s.chunkLimit,
      });
    });
  }

  private onMessage(e: IrcEvent, handlers: InboundHandlers): void {
    if (e.type !== 'privmsg' && e.type !== 'action') return;
    const me = this.nick;
    if (!e.nick || e.nick.toLowerCase() === me.toLowerCase()) return;
    const msgid = e.tags?.msgid;
    if (msgid) {
      if (this.seen.has(msgid)) return;
      this.seen.add(msgid);
      if (this.seen.size > 1000) this.seen.delete(this.seen.values().next().value as string);
    }
    const isChannel = /^[#&+!]/.test(e.target);
    let text = e.type === 'action' ? `* ${e.nick} ${e.message}` : e.message;
    if (isChannel) {
      const nickRe = new RegExp(`(^|[^\\w\\[\\]\\\\\`^{}|-])${me.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w\\[\\]\\\\\`^{}|-])[:,]?`, 'i');
      const mentioned = nickRe.test(text);
      if (!channelAdmits(channelRules('irc', this.env, this.config), [e.target.toLowerCase(), e.target], mentioned)) return;
      text = text.replace(nickRe, '$1').trim();
    }
    if (!text) return;
    const source: SessionSource = {
      platform: 'irc',
      chatId: isChannel ? e.target : e.nick,
      chatType: isChannel ? 'group' : 'dm',
      chatName: isChannel ? e.target : undefined,
      // IRC has no user ids: nick@host as the server reports it, and the services account when the
      // server vouches for it (account-tag). The nick alone is anyone's, so it is never compared.
      userId: `${e.nick}@${e.hostname || 'unknown-host'}`,
      userIdAlt: account(e),
      userName: e.nick,
    };
    handlers.message({ source, messageId: msgid ?? `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, text, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
  }

  async disconnect(): Promise<void> {
    this.closing = true;
    const c = this.client;
    this.client = null;
    if (!c) return;
    try {
      c.quit('Hermes Agent disconnecting');
    } catch {
      /* already gone */
    }
    setTimeout(() => c.removeAllListeners(), 1000).unref();
  }

  /** The lines one reply becomes: Markdown flattened, blank lines dropped, each line cut to fit. */
  lines(target: string, text: string): string[] {
    // `:nick!user@host PRIVMSG target :` is added by the server when it relays; keep room for it.
    const overhead = 1 + this.nick.length + 1 + 10 + 1 + 63 + ' PRIVMSG '.length + target.length + 2 + 2;
    const maxBytes = Math.max(60, 510 - overhead);
    return toPlainText(text)
      .split(/\r?\n/)
      .flatMap((l) => splitIrcLine(l.replace(/\t/g, '  '), this.s.chunkLimit, maxBytes));
  }

  /** A send-only adapter (`hermes send`, cron without a gateway) connects on its first send. */
  sendOnly = false;
  private connecting: Promise<void> | null = null;

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    if (!this.client && this.sendOnly) {
      this.connecting ??= this.connect({ message: () => undefined }).finally(() => (this.connecting = null));
      try {
        await this.connecting;
      } catch (e) {
        return { ok: false, error: `could not connect to ${this.s.server}: ${(e as Error).message}` };
      }
      // Channels set +n refuse messages from outside: join the channel first.
      if (/^[#&]/.test(chatId)) (this.client as IrcClient | null)?.join(chatId);
    }
    const c = this.client;
    if (!c) return { ok: false, error: 'IRC is not connected' };
    if (/[\s,]/.test(chatId) || !chatId) return { ok: false, error: `not an IRC channel or nick: "${chatId}"` };
    const lines = this.lines(chatId, text);
    if (!lines.length) return { ok: true };
    try {
      const ml = this.multiline;
      if (ml && lines.length > 1) {
        // One BATCH per max-lines / max-bytes worth of lines.
        let i = 0;
        while (i < lines.length) {
          const id = `h${process.pid.toString(36)}${(++batchSeq).toString(36)}`;
          c.raw(`BATCH +${id} draft/multiline ${chatId}`);
          let bytes = 0;
          let n = 0;
          while (i < lines.length && n < ml.maxLines && bytes + Buffer.byteLength(lines[i]) + 1 <= ml.maxBytes) {
            bytes += Buffer.byteLength(lines[i]) + 1;
            c.raw(`@batch=${id} PRIVMSG ${chatId} :${lines[i]}`);
            i++;
            n++;
          }
          if (n === 0) {
            c.raw(`@batch=${id} PRIVMSG ${chatId} :${lines[i]}`);
            i++;
          }
          c.raw(`BATCH -${id}`);
        }
      } else for (const l of lines) c.raw(`PRIVMSG ${chatId} :${l}`);
      return { ok: true };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...ircEntry,
  maxMessageLength: 350,
  parseTarget: (rest) => (/^[#&]?[^\s,:]+$/.test(rest) ? { chatId: rest } : null),
  targetHint: 'a #channel or a nick',
  create: async (ctx) => {
    const settings = ircSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('IRC needs IRC_SERVER and IRC_NICK');
    return new IrcAdapter({ settings, env: ctx.env, config: ctx.config, log: ctx.log, deps: ctx.deps as IrcDeps | undefined });
  },
  sender: async (ctx) => {
    const settings = ircSettings(ctx.env, ctx.config);
    if (!settings) return null;
    const a = new IrcAdapter({ settings: { ...settings, channels: [] }, env: ctx.env, config: ctx.config, log: ctx.log });
    a.sendOnly = true;
    return a;
  },
  setup: {
    intro: 'Any IRC network: the server, a nick for the bot, the channels to join, and (for registered nicks) a SASL or NickServ password.',
    fields: [
      { key: 'IRC_SERVER', prompt: 'Server host', placeholder: 'irc.libera.chat', validate: (v) => (/^[\w.-]+$/.test(v) ? undefined : 'Give the host name only (no irc:// or port)') },
      { key: 'IRC_USE_TLS', prompt: 'Use TLS (true/false)', optional: true, placeholder: 'true', validate: (v) => (/^(true|false|1|0|yes|no)$/i.test(v) ? undefined : 'Answer true or false') },
      { key: 'IRC_PORT', prompt: 'Port (6697 with TLS, 6667 without)', optional: true, validate: (v) => (/^\d{1,5}$/.test(v) ? undefined : 'A port number') },
      { key: 'IRC_NICK', prompt: 'Bot nick', validate: (v) => (/^[A-Za-z[\]\\`_^{|}][\w[\]\\`^{|}-]{0,29}$/.test(v) ? undefined : 'A nick starts with a letter and has no spaces') },
      { key: 'IRC_CHANNELS', prompt: 'Channels to join (comma-separated)', optional: true, placeholder: '#bots,#help' },
      { key: 'IRC_SASL_USERNAME', prompt: 'SASL account (blank for none)', optional: true },
      { key: 'IRC_SASL_PASSWORD', prompt: 'SASL password', secret: true, optional: true },
    ],
    allowlistHint: 'services account names (matched only when the server vouches for the login), or nick@host',
  },
  probe: async (env, config) => {
    const s = ircSettings(env, config);
    if (!s) throw new Error('IRC_SERVER and IRC_NICK are needed');
    const a = new IrcAdapter({ settings: { ...s, channels: [] }, env, config, log: () => undefined });
    await a.connect({ message: () => undefined });
    const nick = a.nick;
    await a.disconnect();
    return `${nick} on ${s.server}`;
  },
  promptHint: 'This is IRC: plain text only, no Markdown; keep replies short, a few lines.',
};

