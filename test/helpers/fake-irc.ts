// A fake IRC server on loopback (plain TCP, or TLS with a given key and certificate): IRCv3 CAP
// negotiation (message-tags, batch, sasl, draft/multiline), SASL PLAIN, registration (001–005, MOTD),
// nick collisions (433), PING/PONG, JOIN, PRIVMSG and draft/multiline BATCHes from the bot, and
// people who talk to the bot (`say`), logged in to a services account (IRCv3 account-tag) or not. What the bot sends is recorded, one entry per PRIVMSG or BATCH.
import net from 'node:net';
import tls from 'node:tls';

export interface FakeIrcMessage {
  id: string;
  target: string;
  text: string;
  batch: boolean;
}

export interface FakeIrc {
  host: string;
  port: number;
  sent: FakeIrcMessage[];
  joined: Set<string>;
  /** Lines the server received, in order (for protocol assertions). */
  received: string[];
  /**
   * A person (`nick`) writes `text` to `target` (the bot's nick for a DM, or a #channel). `account`:
   * the services account they are logged in to (sent as the account tag); `host`: their host.
   */
  say(nick: string, target: string, text: string, o?: { account?: string; host?: string }): void;
  /** The bot's current nick, once registered. */
  botNick(): string | null;
  drop(): void;
  connections(): number;
  registered(): number;
  close(): Promise<void>;
}

export interface FakeIrcOptions {
  multiline?: boolean;
  sasl?: { account: string; password: string };
  takenNicks?: string[];
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export async function startFakeIrc(o: FakeIrcOptions = {}): Promise<FakeIrc> {
  const sent: FakeIrcMessage[] = [];
  const joined = new Set<string>();
  const received: string[] = [];
  const sockets = new Set<net.Socket>();
  let conns = 0;
  let regs = 0;
  let current: { socket: net.Socket; nick: string } | null = null;
  let msgSeq = 0;
  const caps = ['message-tags', 'account-tag', 'batch', 'server-time', 'sasl=PLAIN', ...(o.multiline ? ['draft/multiline=max-bytes=4096,max-lines=100'] : [])];

  const onSocket = (socket: net.Socket) => {
    conns++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (current?.socket === socket) current = null;
    });
    socket.on('error', () => undefined);
    let buf = '';
    let nick = '';
    let user = false;
    let capping = false;
    let done = false;
    let authed = !o.sasl;
    const batches = new Map<string, { target: string; lines: string[] }>();
    const send = (l: string) => socket.writable && socket.write(`${l}\r\n`);
    const welcome = () => {
      if (done || !nick || !user || capping) return;
      if (!authed) {
        send(`:fake.irc 464 ${nick} :Password incorrect (SASL required)`);
        socket.end();
        return;
      }
      done = true;
      regs++;
      current = { socket, nick };
      send(`:fake.irc 001 ${nick} :Welcome to the fake IRC network ${nick}`);
      send(`:fake.irc 002 ${nick} :Your host is fake.irc`);
      send(`:fake.irc 003 ${nick} :This server was created today`);
      send(`:fake.irc 004 ${nick} fake.irc fake-1 iosw biklmnopstv`);
      send(`:fake.irc 005 ${nick} CHANTYPES=# PREFIX=(ov)@+ NETWORK=FakeNet CASEMAPPING=rfc1459 :are supported by this server`);
      send(`:fake.irc 375 ${nick} :- fake.irc Message of the day -`);
      send(`:fake.irc 376 ${nick} :End of /MOTD command.`);
    };
    const line = (raw: string) => {
      received.push(raw);
      let rest = raw;
      let tags: Record<string, string> = {};
      if (rest.startsWith('@')) {
        const sp = rest.indexOf(' ');
        tags = Object.fromEntries(rest.slice(1, sp).split(';').map((t) => t.split('=') as [string, string]));
        rest = rest.slice(sp + 1);
      }
      const trailAt = rest.indexOf(' :');
      const trailing = trailAt >= 0 ? rest.slice(trailAt + 2) : undefined;
      const head = (trailAt >= 0 ? rest.slice(0, trailAt) : rest).split(' ').filter(Boolean);
      const cmd = (head[0] ?? '').toUpperCase();
      const args = [...head.slice(1), ...(trailing !== undefined ? [trailing] : [])];
      switch (cmd) {
        case 'CAP': {
          const sub = (args[0] ?? '').toUpperCase();
          if (sub === 'LS') {
            capping = true;
            send(`:fake.irc CAP * LS :${caps.join(' ')}`);
          } else if (sub === 'REQ') {
            const want = (args[1] ?? '').split(' ').filter(Boolean);
            const names = caps.map((c) => c.split('=')[0]);
            if (want.every((w) => names.includes(w.replace(/^-/, '')))) send(`:fake.irc CAP ${nick || '*'} ACK :${want.join(' ')}`);
            else send(`:fake.irc CAP ${nick || '*'} NAK :${want.join(' ')}`);
          } else if (sub === 'END') {
            capping = false;
            welcome();
          }
          break;
        }
        case 'AUTHENTICATE': {
          if (args[0] === 'PLAIN') send('AUTHENTICATE +');
          else {
            const [, acct, pw] = Buffer.from(args[0] ?? '', 'base64').toString('utf8').split('\0');
            if (o.sasl && acct === o.sasl.account && pw === o.sasl.password) {
              authed = true;
              send(`:fake.irc 900 ${nick} ${nick}!${nick}@fake ${acct} :You are now logged in as ${acct}`);
              send(`:fake.irc 903 ${nick} :SASL authentication successful`);
            } else send(`:fake.irc 904 ${nick} :SASL authentication failed`);
          }
          break;
        }
        case 'NICK':
          if ((o.takenNicks ?? []).includes(args[0])) send(`:fake.irc 433 ${nick || '*'} ${args[0]} :Nickname is already in use`);
          else {
            if (done) send(`:${nick}!${nick}@fake NICK ${args[0]}`);
            nick = args[0];
            if (current?.socket === socket) current.nick = nick;
            welcome();
          }
          break;
        case 'USER':
          user = true;
          welcome();
          break;
        case 'PING':
          send(`:fake.irc PONG fake.irc :${args[args.length - 1] ?? ''}`);
          break;
        case 'JOIN':
          for (const c of (args[0] ?? '').split(',')) {
            joined.add(c);
            send(`:${nick}!${nick}@fake JOIN ${c}`);
          }
          break;
        case 'BATCH': {
          const ref = args[0] ?? '';
          if (ref.startsWith('+') && args[1] === 'draft/multiline') batches.set(ref.slice(1), { target: args[2], lines: [] });
          else if (ref.startsWith('-')) {
            const b = batches.get(ref.slice(1));
            batches.delete(ref.slice(1));
            if (b) sent.push({ id: `b${++msgSeq}`, target: b.target, text: b.lines.join('\n'), batch: true });
          }
          break;
        }
        case 'PRIVMSG':
        case 'NOTICE': {
          const b = tags.batch ? batches.get(tags.batch) : undefined;
          if (b) b.lines.push(args[1] ?? '');
          else if (cmd === 'PRIVMSG') sent.push({ id: `m${++msgSeq}`, target: args[0], text: args[1] ?? '', batch: false });
          break;
        }
        case 'QUIT':
          socket.end();
          break;
      }
    };
    socket.on('data', (d) => {
      buf += d.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, i).replace(/\r$/, '');
        buf = buf.slice(i + 1);
        if (l) line(l);
      }
    });
  };

  const server = o.tls ? tls.createServer({ key: o.tls.key, cert: o.tls.cert }, onSocket) : net.createServer(onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    sent,
    joined,
    received,
    say(from, target, text, so = {}) {
      if (!current) throw new Error('the bot is not connected');
      const account = so.account ? `;account=${so.account}` : '';
      current.socket.write(`@msgid=in${++msgSeq}${account} :${from}!${from}@${so.host ?? 'host.example'} PRIVMSG ${target} :${text}\r\n`);
    },
    botNick: () => current?.nick ?? null,
    drop() {
      for (const s of sockets) s.destroy();
    },
    connections: () => conns,
    registered: () => regs,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
