// gateway_platform_event through the real SDKs against the fake platforms' wire protocols: on
// Discord (discord.js, Gateway WebSocket) message edits and deletes, threads created and renamed; on
// Slack (Bolt, Socket Mode) message edits and deletes. They reach a plugin as Hermes's plain
// envelopes only when the actor is allowed; strangers', bots' and edits the SDK never cached do not.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runGateway } from '../../src/gateway/daemon.ts';
import { unloadPlugins } from '../../src/plugins/host.ts';
import { startFakeDiscord } from '../helpers/fake-discord.ts';
import { startFakeSlack } from '../helpers/fake-slack.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';

const OWNER = '100000000000000001';
const STRANGER = '100000000000000002';
const GUILD = '700000000000000001';
const CHANNEL = '710000000000000001';
const dm = (user: string) => `2${user.slice(1)}`;

const PLUGIN = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
export function register(ctx) {
  ctx.register_hook('gateway_platform_event', (p) => { appendFileSync(join(import.meta.dirname, 'events.jsonl'), JSON.stringify(p) + '\\n'); });
}
`;

function pluginHome(llmUrl: string, env: Record<string, string>) {
  const t = gatewayHome({ llmUrl, yaml: 'plugins:\n  enabled: [watch]\n', env });
  const dir = join(t.home, 'plugins', 'watch');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: watch\nversion: 1.0.0\ndescription: logs platform events\nkind: standalone\n');
  writeFileSync(join(dir, 'index.mjs'), PLUGIN);
  const log = join(dir, 'events.jsonl');
  const events = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : []).map(({ telemetry_schema_version, profile_name, ...p }) => p);
  return { ...t, events };
}

describe('gateway_platform_event on Discord and Slack', () => {
  it('edits, deletes, thread created and renamed from allowed people reach the plugin; strangers’ do not', async () => {
    const llm = await startFakeLlm({ defaultReply: { text: 'noted' } });
    const dc = await startFakeDiscord();
    const t = pluginHome(llm.openaiBaseUrl, { DISCORD_BOT_TOKEN: dc.token, DISCORD_API_BASE: dc.apiBase, DISCORD_ALLOWED_USERS: OWNER });
    const events = t.events;
    const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    try {
      await until(() => dc.sockets() > 0, 10_000, 'the Discord gateway socket');
      const mine = dc.userMessage({ user: OWNER, channel: dm(OWNER), text: 'first draft' });
      const theirs = dc.userMessage({ user: STRANGER, channel: dm(STRANGER), text: 'let me in' });
      await until(() => dc.messages.some((m) => m.channel_id === dm(OWNER) && /noted/.test(m.content)), 10_000, 'the answer to the owner');
      await until(() => dc.messages.some((m) => m.channel_id === dm(STRANGER)), 10_000, 'the stranger’s pairing reply');
      dc.editMessage({ user: STRANGER, channel: dm(STRANGER), id: theirs, text: 'edited by a stranger' });
      dc.deleteMessage({ channel: dm(STRANGER), id: theirs });
      dc.editMessage({ user: OWNER, channel: dm(OWNER), id: '399999999999999999', text: 'never cached' });
      dc.editMessage({ user: OWNER, channel: dm(OWNER), id: mine, text: 'second draft' });
      dc.deleteMessage({ channel: dm(OWNER), id: mine });
      dc.guild({ id: GUILD, channels: [CHANNEL] });
      dc.thread({ id: '720000000000000009', parent: CHANNEL, guild: GUILD, owner: STRANGER, name: 'not yours' });
      dc.thread({ id: '720000000000000001', parent: CHANNEL, guild: GUILD, owner: OWNER, name: 'plans' });
      dc.thread({ id: '720000000000000001', parent: CHANNEL, guild: GUILD, owner: OWNER, name: 'better plans', update: true });
      await until(() => events().length >= 4, 10_000, 'four platform events');
      const got = events();
      assert.equal(got.length, 4, JSON.stringify(got));
      const [edited, deleted, created, renamed] = got;
      assert.equal(edited.platform, 'discord');
      assert.equal(edited.event_type, 'message_edited');
      assert.deepEqual({ ...edited.payload, edited_at: typeof edited.payload.edited_at }, { chat_id: dm(OWNER), message_id: mine, thread_id: null, text: 'second draft', edited_at: 'string' });
      assert.deepEqual(deleted, { platform: 'discord', event_type: 'message_deleted', payload: { chat_id: dm(OWNER), message_id: mine, thread_id: null, author_id: OWNER } });
      assert.deepEqual(created, { platform: 'discord', event_type: 'thread_created', payload: { thread_id: '720000000000000001', parent_chat_id: CHANNEL, name: 'plans', owner_id: OWNER } });
      assert.deepEqual(renamed, { platform: 'discord', event_type: 'thread_renamed', payload: { thread_id: '720000000000000001', parent_chat_id: CHANNEL, old_name: 'plans', new_name: 'better plans' } });
    } finally {
      await gw.shutdown('test done');
      unloadPlugins(t.home);
      await dc.close();
      await llm.close();
    }
  });

  it('Slack: a person’s edit and a delete reach the plugin; an unfurl, a stranger’s edit and bot edits do not', async () => {
    const llm = await startFakeLlm({ defaultReply: { text: 'noted' } });
    const sl = await startFakeSlack();
    const t = pluginHome(llm.openaiBaseUrl, { SLACK_BOT_TOKEN: sl.botToken, SLACK_APP_TOKEN: sl.appToken, SLACK_API_URL: sl.apiUrl, SLACK_ALLOWED_USERS: 'UOWNER01' });
    const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    try {
      await until(() => sl.sockets() > 0, 10_000, 'the Socket Mode socket');
      const ts = sl.userMessage({ user: 'UOWNER01', channel: 'DOWNER01', text: 'first draft' });
      await until(() => sl.messages.some((m) => /noted/.test(m.text)), 10_000, 'the answer');
      sl.editMessage({ user: 'USTRANGE', channel: 'DSTRANGE', ts: '1700000000.000001', text: 'not allowed' });
      sl.editMessage({ user: 'UBOT0001', channel: 'DOWNER01', ts: '1700000000.000002', text: 'bot edit' });
      sl.editMessage({ user: 'UOWNER01', channel: 'DOWNER01', ts, text: 'with a link preview', unfurl: true });
      sl.editMessage({ user: 'UOWNER01', channel: 'DOWNER01', ts, text: 'second draft' });
      sl.deleteMessage({ user: 'UOWNER01', channel: 'DOWNER01', ts });
      await until(() => t.events().length >= 2, 10_000, 'two platform events');
      const [edited, deleted] = t.events();
      assert.equal(t.events().length, 2, JSON.stringify(t.events()));
      assert.deepEqual({ ...edited, payload: { ...edited.payload, edited_at: typeof edited.payload.edited_at } }, { platform: 'slack', event_type: 'message_edited', payload: { chat_id: 'DOWNER01', message_id: ts, thread_id: null, text: 'second draft', edited_at: 'string' } });
      assert.deepEqual(deleted, { platform: 'slack', event_type: 'message_deleted', payload: { chat_id: 'DOWNER01', message_id: ts, thread_id: null, author_id: 'UOWNER01' } });
      assert.equal(sl.messages.filter((m) => /noted/.test(m.text)).length, 1, 'edits and deletes are not new messages for the agent');
    } finally {
      await gw.shutdown('test done');
      unloadPlugins(t.home);
      await sl.close();
      await llm.close();
    }
  });
});
