// gateway_platform_event on Discord through discord.js and the fake Discord's Gateway WebSocket:
// message edits and deletes, threads created and renamed reach a plugin as Hermes's plain envelopes,
// only when the actor is allowed; the stranger's, and edits Discord never cached, do not.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runGateway } from '../../src/gateway/daemon.ts';
import { unloadPlugins } from '../../src/plugins/host.ts';
import { startFakeDiscord } from '../helpers/fake-discord.ts';
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

describe('Discord gateway_platform_event', () => {
  it('edits, deletes, thread created and renamed from allowed people reach the plugin; strangers’ do not', async () => {
    const llm = await startFakeLlm({ defaultReply: { text: 'noted' } });
    const dc = await startFakeDiscord();
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, yaml: 'plugins:\n  enabled: [watch]\n', env: { DISCORD_BOT_TOKEN: dc.token, DISCORD_API_BASE: dc.apiBase, DISCORD_ALLOWED_USERS: OWNER } });
    const dir = join(t.home, 'plugins', 'watch');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plugin.yaml'), 'name: watch\nversion: 1.0.0\ndescription: logs platform events\nkind: standalone\n');
    writeFileSync(join(dir, 'index.mjs'), PLUGIN);
    const log = join(dir, 'events.jsonl');
    const events = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : []).map(({ telemetry_schema_version, profile_name, ...p }) => p);
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
});
