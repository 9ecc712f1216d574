// Discord and Slack through their deps objects: a fake discord.js Client and a fake Bolt App stand
// in for the SDKs (no network); everything from the adapter inwards is real.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { createDiscordSender, type DiscordClientLike } from '../../src/gateway/platforms/discord.ts';
import { toSlackMrkdwn } from '../../src/gateway/markdown/serializers.ts';
import { createSlackSender, type SlackAppLike } from '../../src/gateway/platforms/slack.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';

// ---- a fake discord.js client ------------------------------------------------------------------

interface DSent {
  channel: string;
  content?: string;
  components?: { components: { custom_id: string; label: string }[] }[];
}

function fakeDiscord() {
  const sent: DSent[] = [];
  const edits: DSent[] = [];
  let typing = 0;
  let nextId = 5000;
  const client = new EventEmitter() as EventEmitter & DiscordClientLike;
  const channels = new Map<string, any>();
  const channel = (id: string, o: { type?: number; name?: string; thread?: { parentId: string } } = {}) => {
    const ch = {
      id,
      type: o.type ?? 0,
      name: o.name ?? `ch-${id}`,
      parentId: o.thread?.parentId,
      isThread: () => !!o.thread,
      send: async (m: { content?: string; components?: DSent['components'] }) => {
        sent.push({ channel: id, content: m.content, components: m.components });
        return { id: String(nextId++) };
      },
      sendTyping: async () => void typing++,
      messages: { fetch: async (mid: string) => ({ id: mid, edit: async (m: { content?: string }) => void edits.push({ channel: id, content: m.content }) }) },
    };
    channels.set(id, ch);
    return ch;
  };
  Object.assign(client, {
    user: { id: '999', username: 'hermes' },
    login: async () => {
      setImmediate(() => client.emit('ready'));
      return 'ok';
    },
    destroy: async () => undefined,
    channels: { fetch: async (id: string) => channels.get(id), cache: { values: () => channels.values() } },
  });
  return { client, sent, edits, channel, typing: () => typing };
}

// ---- a fake Bolt app ---------------------------------------------------------------------------

function fakeSlack() {
  const posts: Record<string, any>[] = [];
  const updates: Record<string, any>[] = [];
  const events = new Map<string, (a: { event: any; body?: any }) => Promise<void> | void>();
  let action: ((a: { ack: () => Promise<void>; body: any; action: any }) => Promise<void> | void) | null = null;
  let ts = 1700000000;
  const app: SlackAppLike = {
    client: {
      auth: { test: async () => ({ user_id: 'UBOT', team_id: 'T1' }) },
      chat: {
        postMessage: async (a) => {
          posts.push(a);
          return { ok: true, ts: `${ts++}.000100` };
        },
        update: async (a) => {
          updates.push(a);
          return { ok: true };
        },
      },
      conversations: { info: async () => ({ channel: { name: 'general' } }), list: async () => ({ channels: [{ id: 'C777', name: 'general' }] }) },
    },
    event: (name, fn) => void events.set(name, fn),
    action: (_p, fn) => void (action = fn),
    start: async () => undefined,
    stop: async () => undefined,
  };
  return {
    app,
    posts,
    updates,
    emit: (name: string, event: any) => events.get(name)!({ event, body: { team_id: 'T1' } }),
    press: (body: any, value: string) => action!({ ack: async () => undefined, body, action: { action_id: value, value } }),
  };
}

describe('Discord and Slack adapters', () => {
  let llm: FakeLlm;
  let gw: RunningGateway;
  const dc = fakeDiscord();
  const sl = fakeSlack();
  let home: string;

  before(async () => {
    llm = await startFakeLlm();
    const t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { DISCORD_BOT_TOKEN: 'discord-token', DISCORD_ALLOWED_USERS: 'u1,u2', SLACK_BOT_TOKEN: 'xoxb-test', SLACK_APP_TOKEN: 'xapp-test', SLACK_ALLOWED_USERS: 'U100' },
    });
    home = t.home;
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false, deps: { discord: { createClient: async () => dc.client }, slack: { createApp: async () => sl.app } } });
    assert.equal(gw.supervisor.status.get('discord')?.state, 'connected');
    assert.equal(gw.supervisor.status.get('slack')?.state, 'connected');
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  const dmsg = (o: { id: string; content: string; channel: any; author?: string; guildId?: string | null }) =>
    dc.client.emit('messageCreate', { id: o.id, content: o.content, author: { id: o.author ?? 'u1', username: 'ann', bot: false }, channel: o.channel, channelId: o.channel.id, guildId: o.guildId === undefined ? 'G1' : o.guildId, mentions: { users: new Map() }, attachments: new Map() });

  test('Discord: DMs are answered; guild channels only when mentioned; long replies split at 2000', async () => {
    const dm = dc.channel('D1', { type: 1 });
    llm.enqueue({ text: 'Hi Ann.', delayMs: 400 });
    dmsg({ id: 'm1', content: 'hello', channel: dm, guildId: null });
    await until(() => dc.sent.find((s) => s.channel === 'D1' && s.content === 'Hi Ann.'), 5000, 'the DM reply');
    assert.ok(dc.typing() > 0, 'typing shown');

    const general = dc.channel('C1', { name: 'general' });
    const before = llm.requests.length;
    dmsg({ id: 'm2', content: 'chatter without mention', channel: general });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(llm.requests.length, before, 'no mention, no answer');
    llm.enqueue({ text: 'x'.repeat(4500) });
    dmsg({ id: 'm3', content: '<@999> write a lot', channel: general });
    await until(() => dc.sent.filter((s) => s.channel === 'C1').length >= 3, 5000, 'three chunks');
    assert.ok(dc.sent.filter((s) => s.channel === 'C1').every((s) => (s.content ?? '').length <= 2000));
    const last = llm.requests[llm.requests.length - 1].body.messages;
    assert.equal(last[last.length - 1].content, 'write a lot', 'the mention is stripped');
    gw.runner.index.flush();
    const sessions = JSON.parse(readFileSync(join(home, 'sessions', 'sessions.json'), 'utf8'));
    assert.ok(sessions['agent:main:discord:group:C1:u1'], 'per-user session in a guild channel');
  });

  test('Discord: a thread is one shared session; approval buttons work', async () => {
    const thread = dc.channel('T9', { thread: { parentId: 'C1' }, name: 'topic' });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf /tmp/hermes-nonexistent-discord-test' } }] }, { text: 'Cleaned.' });
    dmsg({ id: 'm4', content: '<@999> clean up', channel: thread, author: 'u2' });
    const ask = await until(() => dc.sent.find((s) => s.channel === 'T9' && /Approval needed/.test(s.content ?? '')), 5000, 'the approval');
    const button = ask.components!.flatMap((r) => r.components).find((b) => /session/i.test(b.label))!;
    let acked = '';
    dc.client.emit('interactionCreate', {
      isButton: () => true,
      customId: button.custom_id,
      user: { id: 'u2', username: 'bo' },
      channel: thread,
      channelId: 'T9',
      guildId: 'G1',
      message: { id: '1' },
      reply: async (m: { content: string }) => void (acked = m.content),
      deferUpdate: async () => void (acked = 'deferred'),
    });
    await until(() => dc.sent.find((s) => s.channel === 'T9' && s.content === 'Cleaned.'), 5000, 'the answer');
    assert.equal(acked, 'Approved', 'the press is acknowledged (ephemeral)');
    gw.runner.index.flush();
    const sessions = JSON.parse(readFileSync(join(home, 'sessions', 'sessions.json'), 'utf8'));
    assert.ok(sessions['agent:main:discord:thread:C1:T9'], 'threads are shared (no user id in the key)');
  });

  test('Slack: DMs answered, channel mentions answered in the thread, workspace in the key', async () => {
    llm.enqueue({ text: 'Hello **Slack**' });
    await sl.emit('message', { type: 'message', channel: 'D55', channel_type: 'im', user: 'U100', text: 'hi', ts: '1.1', team: 'T1' });
    await until(() => sl.posts.find((p) => p.channel === 'D55'), 5000, 'the DM reply');
    assert.equal(sl.posts.find((p) => p.channel === 'D55')!.text, 'Hello *Slack*');
    llm.enqueue({ text: 'In the thread.' });
    // A mention arrives as both `message` and `app_mention`: answered once.
    const ev = { channel: 'C777', channel_type: 'channel', user: 'U100', text: '<@UBOT> status?', ts: '2.2', team: 'T1' };
    await sl.emit('message', { type: 'message', ...ev });
    await sl.emit('app_mention', { type: 'app_mention', ...ev });
    await until(() => sl.posts.find((p) => p.channel === 'C777'), 5000, 'the channel reply');
    await new Promise((r) => setTimeout(r, 200));
    const replies = sl.posts.filter((p) => p.channel === 'C777' && p.text === 'In the thread.');
    assert.equal(replies.length, 1);
    assert.equal(replies[0].thread_ts, '2.2');
    gw.runner.index.flush();
    const sessions = JSON.parse(readFileSync(join(home, 'sessions', 'sessions.json'), 'utf8'));
    assert.ok(sessions['agent:main:slack:thread:T1:C777:2.2'], Object.keys(sessions).join(', '));
    assert.ok(sessions['agent:main:slack:dm:T1:D55']);
    const before = llm.requests.length;
    await sl.emit('message', { type: 'message', channel: 'D56', channel_type: 'im', user: 'U999', text: 'stranger', ts: '3.3', team: 'T1' });
    const code = await until(() => sl.posts.find((p) => p.channel === 'D56'), 5000, 'the pairing code');
    assert.match(code.text, /pairing code/i);
    assert.equal(llm.requests.length, before);
    await sl.emit('message', { type: 'message', channel: 'D55', channel_type: 'im', user: 'U100', text: '!status', ts: '3.4', team: 'T1' });
    const status = await until(() => sl.posts.find((p) => p.channel === 'D55' && /Session key: agent:main:slack:dm:T1:D55/.test(p.text)), 5000, '!status');
    assert.ok(status);
  });

  test('Slack: approval buttons are Block Kit actions', async () => {
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf /tmp/hermes-nonexistent-slack-test' } }] }, { text: 'Removed.' });
    await sl.emit('message', { type: 'message', channel: 'D55', channel_type: 'im', user: 'U100', text: 'remove it', ts: '4.4', team: 'T1' });
    const ask = await until(() => sl.posts.find((p) => p.channel === 'D55' && Array.isArray(p.blocks)), 5000, 'the approval blocks');
    const deny = ask.blocks.flatMap((b: any) => b.elements ?? []).find((e: any) => e.style === 'danger');
    await sl.press({ channel: { id: 'D55' }, user: { id: 'U100' }, team: { id: 'T1' }, message: { ts: 'x' } }, deny.value);
    await until(() => sl.posts.find((p) => p.channel === 'D55' && p.text === 'Removed.'), 5000, 'the answer');
    assert.ok(sl.updates.some((u) => /Denied/.test(u.text)));
  });

  test('send-only senders use the REST APIs', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetchFn = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify(url.includes('slack') ? { ok: true, ts: '9.9' } : { id: '77' }), { status: 200 });
    }) as unknown as typeof fetch;
    const d = createDiscordSender({ DISCORD_BOT_TOKEN: 'tok' }, {}, { fetch: fetchFn })!;
    assert.deepEqual(await d.send('C1', 'hi'), { ok: true, messageId: '77' });
    assert.equal(calls[0].url, 'https://discord.com/api/v10/channels/C1/messages');
    assert.equal((calls[0].init.headers as Record<string, string>).authorization, 'Bot tok');
    const s = createSlackSender({ SLACK_BOT_TOKEN: 'xoxb-1' }, {}, { fetch: fetchFn })!;
    assert.deepEqual(await s.send('C2', '**b**', { threadId: '1.2' }), { ok: true, messageId: '9.9' });
    assert.deepEqual(JSON.parse(String(calls[1].init.body)), { channel: 'C2', text: '*b*', thread_ts: '1.2', unfurl_links: false });
    assert.equal(toSlackMrkdwn('# Title\n[x](https://a.b)'), '*Title*\n<https://a.b|x>');
  });
});
