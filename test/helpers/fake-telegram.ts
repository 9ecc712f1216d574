// A fake Telegram Bot API server on loopback: the real HTTP API shape (POST /bot<token>/<method>,
// JSON or multipart bodies, `{ok, result}` answers, long-polled getUpdates confirmed by offset),
// enough of it for grammy to run a bot against it through `apiRoot`. Tests push user messages and
// button presses as updates and read what the bot sent.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SentCall {
  method: string;
  params: Record<string, any>;
  at: number;
  /** The message id the fake gave a sent message. */
  messageId?: number;
}

export interface FakeTelegram {
  url: string;
  token: string;
  calls: SentCall[];
  /** Messages the bot sent (sendMessage/sendPhoto/sendDocument/sendAudio/sendVoice…), in order; uploads as {filename, size, bytes}. */
  sent(): SentCall[];
  userMessage(o: { chatId: number; userId?: number; text: string; username?: string; firstName?: string; chatType?: 'private' | 'group' | 'supergroup'; threadId?: number; replyTo?: number }): number;
  pressButton(o: { chatId: number; userId?: number; messageId: number; data: string; username?: string; firstName?: string; threadId?: number }): number;
  waitFor(pred: (c: SentCall) => boolean, timeoutMs?: number, label?: string): Promise<SentCall>;
  /** Resolves when `n` calls matching pred exist. */
  waitForCount(pred: (c: SentCall) => boolean, n: number, timeoutMs?: number): Promise<SentCall[]>;
  /** Forget confirmations (from update `since`, default all): the next getUpdates returns them again (Telegram redelivery). */
  forgetConfirmations(since?: number): void;
  /** The id the next pushed update gets. */
  nextUpdateId(): number;
  /** Pushes an update as given (without update_id). */
  pushRaw(u: Record<string, unknown>): number;
  /** Called for every call the bot makes (recorded or not). */
  onCall(fn: (c: SentCall) => void): () => void;
  /** Number of getUpdates requests currently waiting (a poller is attached). */
  pollers(): number;
  /** Make the next calls of `method` fail with this HTTP error. */
  failNext(method: string, times?: number, code?: number, description?: string): void;
  /** Cut the connection of the next calls of `method` without an answer (a network failure, not an API error). */
  cutNext(method: string, times?: number): void;
  /** Serve `getUpdates` only after this many ms (simulates a slow/unreachable API). */
  files: Map<string, Buffer>;
  updateCount(): number;
  /** getMe calls so far: one per (re)connection of the bot. */
  connections(): number;
  /** Fails the next getUpdates with 401 and cuts the waiting long poll: polling stops, the gateway must reconnect. */
  dropPolling(): void;
  close(): Promise<void>;
}

export async function startFakeTelegram(opts: { token?: string; botUsername?: string; record?: boolean; retain?: boolean } = {}): Promise<FakeTelegram> {
  const token = opts.token ?? '123456:TEST-token_abc';
  const username = opts.botUsername ?? 'hermes_test_bot';
  const record = opts.record !== false;
  const updates: Record<string, unknown>[] = [];
  let confirmed = 0; // update_id below this were confirmed
  let nextUpdateId = 1;
  let nextMessageId = 1000;
  const waiters = new Set<() => void>();
  const calls: SentCall[] = [];
  const callWaiters = new Set<() => void>();
  const failures = new Map<string, { left: number; code: number; description: string }>();
  const cuts = new Map<string, number>();
  const files = new Map<string, Buffer>();
  let waitingPolls = 0;
  let getMeCount = 0;
  const sockets = new Set<Socket>();

  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const listeners = new Set<(c: SentCall) => void>();
  const recordCall = (method: string, params: Record<string, any>, messageId?: number) => {
    const c: SentCall = { method, params, at: Date.now(), messageId };
    for (const l of listeners) l(c);
    if (!record) return;
    calls.push(c);
    for (const w of [...callWaiters]) w();
  };

  const pushUpdate = (u: Record<string, unknown>) => {
    const id = nextUpdateId++;
    updates.push({ update_id: id, ...u });
    wake();
    return id;
  };

  async function readBody(req: http.IncomingMessage): Promise<Record<string, any>> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const ct = req.headers['content-type'] ?? '';
    if (!raw.length) return {};
    if (ct.includes('application/json')) return JSON.parse(raw.toString('utf8'));
    if (ct.includes('multipart/form-data')) {
      const boundary = /boundary=(.+)$/.exec(ct)?.[1]?.replace(/^"|"$/g, '');
      const out: Record<string, any> = {};
      if (!boundary) return out;
      for (const part of raw.toString('latin1').split(`--${boundary}`)) {
        const m = /name="([^"]+)"(?:; filename="([^"]*)")?[\s\S]*?\r\n\r\n([\s\S]*)\r\n$/.exec(part);
        if (!m) continue;
        out[m[1]] = m[2] !== undefined ? { filename: m[2], size: m[3].length, bytes: Buffer.from(m[3], 'latin1') } : m[3];
      }
      // grammy names uploads `attach://<part>`: the field gets the part as a file.
      for (const [k, v] of Object.entries(out)) {
        const ref = typeof v === 'string' ? /^attach:\/\/(.+)$/.exec(v)?.[1] : undefined;
        if (!ref || out[ref] === undefined) continue;
        const part = out[ref];
        out[k] = typeof part === 'string' ? { filename: ref, size: part.length, bytes: Buffer.from(part, 'latin1') } : part;
        delete out[ref];
      }
      return out;
    }
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }

  const chatOf = (id: unknown) => ({ id: Number(id), type: Number(id) < 0 ? 'supergroup' : 'private', first_name: 'User' });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const answer = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch) {
      const f = files.get(fileMatch[2]);
      if (!f || fileMatch[1] !== token) return res.writeHead(404).end();
      return res.writeHead(200).end(f);
    }
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!m) return res.writeHead(404).end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
    if (m[1] !== token) return res.writeHead(401).end(JSON.stringify({ ok: false, error_code: 401, description: 'Unauthorized' }));
    const method = m[2];
    let params: Record<string, any>;
    try {
      params = await readBody(req);
    } catch {
      return res.writeHead(400).end(JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: bad body' }));
    }
    const cut = cuts.get(method) ?? 0;
    if (cut > 0) {
      cuts.set(method, cut - 1);
      return void req.socket.destroy();
    }
    const f = failures.get(method);
    if (f && f.left > 0) {
      f.left--;
      return res.writeHead(f.code, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: f.code, description: f.description }));
    }
    switch (method) {
      case 'getMe':
        getMeCount++;
        return answer({ id: 42, is_bot: true, first_name: 'Hermes', username, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
      case 'deleteWebhook':
      case 'setWebhook':
      case 'setMyCommands':
        recordCall(method, params);
        return answer(true);
      case 'getUpdates': {
        const offset = Number(params.offset ?? 0);
        if (offset > confirmed) confirmed = offset;
        if (opts.retain === false) while (updates.length && (updates[0].update_id as number) < confirmed) updates.shift();
        const timeout = Math.min(Number(params.timeout ?? 0), 30);
        const limit = Number(params.limit ?? 100);
        const pending = () => updates.filter((u) => (u.update_id as number) >= confirmed).slice(0, limit);
        if (!pending().length && timeout > 0) {
          waitingPolls++;
          await new Promise<void>((resolve) => {
            const done = () => {
              waiters.delete(done);
              clearTimeout(t);
              resolve();
            };
            const t = setTimeout(done, timeout * 1000);
            waiters.add(done);
            req.on('close', done);
          });
          waitingPolls--;
        }
        if (res.destroyed) return;
        return answer(pending());
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendAudio':
      case 'sendVoice':
      case 'sendVideo': {
        const id = nextMessageId++;
        recordCall(method, params, id);
        return answer({ message_id: id, date: Math.floor(Date.now() / 1000), chat: chatOf(params.chat_id), text: params.text, message_thread_id: params.message_thread_id });
      }
      case 'editMessageText':
        recordCall(method, params);
        return answer({ message_id: Number(params.message_id), date: Math.floor(Date.now() / 1000), chat: chatOf(params.chat_id), text: params.text });
      case 'sendChatAction':
      case 'answerCallbackQuery':
        recordCall(method, params);
        return answer(true);
      case 'getFile': {
        const path = `files/${params.file_id}`;
        return answer({ file_id: params.file_id, file_unique_id: `u${params.file_id}`, file_size: files.get(path)?.length ?? 0, file_path: path });
      }
      case 'getChat':
        return answer({ ...chatOf(params.chat_id), title: 'Chat' });
      default:
        recordCall(method, params);
        return answer(true);
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;

  const waitFor = (pred: (c: SentCall) => boolean, timeoutMs = 10_000, label = 'a matching call'): Promise<SentCall> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const hit = calls.find(pred);
        if (hit) {
          callWaiters.delete(check);
          clearTimeout(t);
          resolve(hit);
          return true;
        }
        return false;
      };
      const t = setTimeout(() => {
        callWaiters.delete(check);
        reject(new Error(`timed out waiting for ${label}; calls so far:\n${calls.map((c) => `${c.method} ${JSON.stringify(c.params).slice(0, 200)}`).join('\n')}`));
      }, timeoutMs);
      if (!check()) callWaiters.add(check);
    });

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    calls,
    files,
    sent: () => calls.filter((c) => /^send(Message|Photo|Document|Audio|Voice|Video)$/.test(c.method)),
    userMessage(o) {
      const userId = o.userId ?? o.chatId;
      const chatType = o.chatType ?? (o.chatId < 0 ? 'supergroup' : 'private');
      const message: Record<string, unknown> = {
        message_id: nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        chat: chatType === 'private' ? { id: o.chatId, type: 'private', first_name: o.firstName ?? 'User', username: o.username } : { id: o.chatId, type: chatType, title: 'Test group', is_forum: o.threadId !== undefined },
        from: { id: userId, is_bot: false, first_name: o.firstName ?? 'User', username: o.username },
        text: o.text,
      };
      if (o.threadId !== undefined) Object.assign(message, { message_thread_id: o.threadId, is_topic_message: true });
      if (o.replyTo) message.reply_to_message = { message_id: o.replyTo, date: 0, chat: message.chat };
      if (o.text.startsWith('/')) message.entities = [{ type: 'bot_command', offset: 0, length: o.text.split(/\s/)[0].length }];
      pushUpdate({ message });
      return message.message_id as number;
    },
    pressButton(o) {
      const userId = o.userId ?? o.chatId;
      return pushUpdate({
        callback_query: {
          id: `cb${nextUpdateId}`,
          from: { id: userId, is_bot: false, first_name: o.firstName ?? 'User', username: o.username },
          chat_instance: 'ci',
          data: o.data,
          message: { message_id: o.messageId, date: Math.floor(Date.now() / 1000), chat: chatOf(o.chatId), text: '', ...(o.threadId !== undefined ? { message_thread_id: o.threadId, is_topic_message: true } : {}) },
        },
      });
    },
    waitFor,
    async waitForCount(pred, n, timeoutMs = 10_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const hits = calls.filter(pred);
        if (hits.length >= n) return hits;
        if (performance.now() > deadline) throw new Error(`timed out waiting for ${n} calls (have ${hits.length}):\n${calls.map((c) => `${c.method} ${JSON.stringify(c.params).slice(0, 160)}`).join('\n')}`);
        await new Promise<void>((resolve) => {
          const done = () => {
            callWaiters.delete(done);
            clearTimeout(t);
            resolve();
          };
          const t = setTimeout(done, 200);
          callWaiters.add(done);
        });
      }
    },
    forgetConfirmations(since = 0) {
      confirmed = since;
    },
    nextUpdateId: () => nextUpdateId,
    pushRaw: (u) => pushUpdate(u),
    pollers: () => waitingPolls,
    onCall(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    failNext(method, times = 1, code = 500, description = 'Internal Server Error') {
      failures.set(method, { left: times, code, description });
    },
    cutNext(method, times = 1) {
      cuts.set(method, times);
    },
    updateCount: () => updates.length,
    connections: () => getMeCount,
    dropPolling() {
      failures.set('getUpdates', { left: 1, code: 401, description: 'Unauthorized' });
      wake();
    },
    close: () =>
      new Promise<void>((resolve) => {
        wake();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
