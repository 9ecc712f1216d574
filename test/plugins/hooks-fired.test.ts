// The hooks fired outside the agent loop, each seen by a real plugin (a folder in a temp HERMES_HOME
// whose callbacks append what they receive to a JSON-lines file): kanban lifecycle and dispatcher
// hooks, pre_gateway_dispatch, gateway_platform_event (a reaction) and the auxiliary call hooks on
// a fake Telegram, pre_tts_synthesis and pre_transcription around speech, and — through the real
// binary — on_interim_message and on_skill_lifecycle. `hermes hooks list` no longer calls these "never fired".
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { dispatchOnce } from '../../src/kanban/dispatcher.ts';
import { openBoard } from '../../src/kanban/store.ts';
import { block, complete } from '../../src/kanban/lifecycle.ts';
import { loadSurfacePlugins } from '../../src/plugins/load.ts';
import { unloadPlugins } from '../../src/plugins/host.ts';
import { FIRED_HOOKS, VALID_HOOKS } from '../../src/plugins/hooks.ts';
import { speak } from '../../src/media/tts/index.ts';
import { transcribe, registerSttProvider } from '../../src/media/stt/index.ts';
import { runGateway } from '../../src/gateway/daemon.ts';
import { bodyText, chatHarness, userText } from '../helpers/chat-harness.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, routeTitles, until } from '../gateway/helpers.ts';

const { enqueue, main, requests, home } = chatHarness();

const WATCHED = [
  'kanban_task_claimed', 'kanban_task_completed', 'kanban_task_blocked', 'on_kanban_worker_spawned', 'on_kanban_task_updated', 'on_kanban_dispatch_tick',
  'on_interim_message', 'on_skill_lifecycle', 'pre_auxiliary_call', 'post_auxiliary_call', 'pre_transcription', 'gateway_platform_event',
];

/** A plugin that logs every watched event, gates the gateway and speech, and tunes transcription. */
const ENTRY = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
const LOG = join(import.meta.dirname, 'events.jsonl');
const keep = (v) => JSON.parse(JSON.stringify(v, (k, x) => (typeof x === 'function' ? '[fn]' : x)));
export function register(ctx) {
  for (const ev of ${JSON.stringify(WATCHED)}) ctx.register_hook(ev, (p) => { appendFileSync(LOG, JSON.stringify({ ev, p: keep(p) }) + '\\n'); if (ev === 'pre_transcription') return { language: 'fr', model: 'whisper-hooked' }; });
  ctx.register_hook('pre_gateway_dispatch', ({ event, gateway }) => {
    appendFileSync(LOG, JSON.stringify({ ev: 'pre_gateway_dispatch', p: keep({ event }) }) + '\\n');
    if (event.text.includes('#ignore')) return { action: 'skip', reason: 'ignored by tag' };
    if (event.text.startsWith('#shout ')) return { action: 'rewrite', text: event.text.slice(7).toUpperCase() };
    if (event.text === '#ping') { gateway.send('pong from the plugin'); return { action: 'skip', reason: 'answered' }; }
    return { action: 'allow' };
  });
  ctx.register_hook('pre_tts_synthesis', ({ text }) => {
    if (text.includes('password')) return { action: 'block', message: 'no secrets out loud' };
    if (text.includes('colour')) return { text: text.replace('colour', 'color') };
    return null;
  });
}
`;

function addPlugin(h: string): string {
  const dir = join(h, 'plugins', 'watch');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: watch\nversion: 1.0.0\ndescription: logs hook payloads\nkind: standalone\n');
  writeFileSync(join(dir, 'index.mjs'), ENTRY);
  return join(dir, 'events.jsonl');
}

function events(log: string, ev?: string): Record<string, any>[] {
  if (!existsSync(log)) return [];
  const all = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { ev: string; p: Record<string, any> });
  return all.filter((e) => !ev || e.ev === ev).map((e) => e.p);
}

describe('hooks fired outside the agent loop', () => {
  const homes: string[] = [];
  after(() => {
    for (const h of homes) unloadPlugins(h);
  });

  async function inProcess(): Promise<{ h: string; log: string; env: NodeJS.ProcessEnv }> {
    const h = realpathSync(tempHome('hermes-hooks-'));
    homes.push(h);
    const log = addPlugin(h);
    const env = { HOME: h, HERMES_HOME: h, PATH: process.env.PATH } as NodeJS.ProcessEnv;
    const host = await loadSurfacePlugins({ home: h, config: { plugins: { enabled: ['watch'] } }, env, cwd: h });
    assert.ok(host?.hooks.has('on_kanban_dispatch_tick'), 'the plugin loaded');
    return { h, log, env };
  }

  it('every hook this build accepts is fired except the one it says it lacks', () => {
    const never = VALID_HOOKS.filter((e) => !FIRED_HOOKS.includes(e)).sort();
    assert.deepEqual(never, ['on_room_member_activity']);
  });

  it('kanban: claimed, worker spawned, dispatch tick, task updated, completed and blocked reach the plugin with Hermes’s fields', async () => {
    const { log, env } = await inProcess();
    const s = openBoard({ env });
    try {
      const id = s.create({ title: 'write the report', assignee: 'alice' });
      const id2 = s.create({ title: 'review it', assignee: 'alice' });
      const r = await dispatchOnce(s, { env, spawn: async () => 424242 });
      assert.equal(r.spawned.length, 2, JSON.stringify(r));
      await until(() => events(log, 'on_kanban_dispatch_tick').length === 1, 5000, 'the tick hook');
      const claimed = events(log, 'kanban_task_claimed').find((p) => p.task_id === id)!;
      assert.deepEqual({ ...claimed, run_id: typeof claimed.run_id }, { task_id: id, board: 'default', assignee: 'alice', run_id: 'number', profile_name: 'default', telemetry_schema_version: 'hermes.observer.v1' });
      const spawned = events(log, 'on_kanban_worker_spawned').find((p) => p.task_id === id)!;
      assert.equal(spawned.worker_pid, 424242);
      assert.equal(spawned.assignee, 'alice');
      assert.ok(spawned.workspace_path, 'workspace_path');
      const tick = events(log, 'on_kanban_dispatch_tick')[0];
      assert.equal(tick.outcome, 'dispatched');
      assert.equal(tick.dry_run, false);
      assert.equal(tick.result.spawned.length, 2);
      complete(s, id, { summary: 'report written' });
      block(s, id2, { reason: 'needs the numbers' });
      s.assign(s.create({ title: 'later', assignee: 'alice' }), 'bob');
      await until(() => events(log, 'on_kanban_task_updated').length === 1, 5000, 'the update hook');
      assert.equal(events(log, 'kanban_task_completed')[0].summary, 'report written');
      assert.equal(events(log, 'kanban_task_blocked')[0].reason, 'needs the numbers');
      assert.deepEqual(events(log, 'on_kanban_task_updated')[0].changed_fields, ['assignee']);
      assert.equal(events(log, 'on_kanban_task_updated')[0].assignee, 'bob');
    } finally {
      s.close();
    }
  });

  it('pre_tts_synthesis blocks a script or rewrites it; pre_transcription sets the language and model', async () => {
    const { h, log, env } = await inProcess();
    await assert.rejects(speak({ text: 'The password is hunter2', home: h, env, config: {}, platform: 'cli' }), /Speech synthesis was blocked: no secrets out loud/);
    // The rewrite reaches the provider: a fake Edge endpoint records what it was asked to say.
    const { startFakeEdge } = await import('../helpers/fake-tts.ts');
    const edge = await startFakeEdge(Buffer.from('ID3fakeaudio'));
    try {
      const r = await speak({ text: 'My favourite colour is blue.', home: h, env: { ...env, EDGE_TTS_ENDPOINT: edge.endpoint }, config: {}, platform: 'cli' });
      assert.ok(r.file_path);
      assert.match(edge.requests.map((q) => q.ssml).join('\n'), /favourite color is blue/);
      // tts.pre_synthesis.required_plugins: a named guard that is loaded lets speech through; a missing one refuses it.
      const guarded = await speak({ text: 'Hello there.', home: h, env: { ...env, EDGE_TTS_ENDPOINT: edge.endpoint }, config: { tts: { pre_synthesis: { required_plugins: ['watch'] } } }, platform: 'cli' });
      assert.ok(guarded.file_path);
      const before = edge.requests.length;
      await assert.rejects(
        speak({ text: 'Hello there.', home: h, env: { ...env, EDGE_TTS_ENDPOINT: edge.endpoint }, config: { tts: { pre_synthesis: { required_plugins: ['watch', 'redactor'] } } }, platform: 'cli' }),
        /Speech synthesis was blocked: tts\.pre_synthesis\.required_plugins needs redactor .*hermes plugins enable/,
      );
      assert.equal(edge.requests.length, before, 'nothing reached the provider');
    } finally {
      await edge.close();
    }
    const seen: { language?: string; model?: unknown }[] = [];
    registerSttProvider({ name: 'hooktest', local: true, unavailable: () => null, transcribe: async (req) => (seen.push({ language: req.language, model: (req.config.hooktest as { model?: unknown } | undefined)?.model }), 'bonjour') });
    const audio = join(h, 'note.ogg');
    writeFileSync(audio, 'OggS');
    const t = await transcribe(audio, { env, home: h, source: 'gateway', config: { stt: { provider: 'hooktest', language: 'en' } } });
    assert.equal(t.transcript, 'bonjour', t.error);
    assert.deepEqual(seen, [{ language: 'fr', model: 'whisper-hooked' }]);
    const p = events(log, 'pre_transcription')[0];
    assert.equal(p.file_path, audio);
    assert.equal(p.provider, 'hooktest');
    assert.equal(p.language, 'en');
    assert.equal(p.source, 'gateway');
  });

  it('the binary fires on_interim_message and on_skill_lifecycle', async () => {
    const h = home('plugins:\n  enabled: [watch]\n');
    const log = addPlugin(h);
    mkdirSync(join(h, 'skills', 'demo'), { recursive: true });
    writeFileSync(join(h, 'skills', 'demo', 'SKILL.md'), '---\nname: demo\ndescription: a demo skill\n---\n# Demo\nSay hi.\n');
    const n = main().length;
    enqueue({ text: 'Let me load the skill first.', toolCalls: [{ name: 'skill_view', arguments: { name: 'demo' } }] }, { text: 'Hi, following the demo skill.' });
    const r = await hermes(['chat', '-q', 'use the demo skill'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    await requests(n + 2);
    const interim = events(log, 'on_interim_message');
    assert.equal(interim.length, 1, JSON.stringify(interim));
    assert.equal(interim[0].text, 'Let me load the skill first.');
    const life = events(log, 'on_skill_lifecycle');
    assert.equal(life.length, 1, JSON.stringify(life));
    assert.equal(life[0].action, 'loaded');
    assert.equal(life[0].skill_name, 'demo');
    assert.equal(life[0].provenance, 'agent_created');
  });

  it('pre_gateway_dispatch sees messages before authorization (skip, rewrite, answer-and-skip, allow); the title call fires the auxiliary hooks', async () => {
    const llm = await startFakeLlm();
    const tg = await startFakeTelegram();
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, yaml: 'plugins:\n  enabled: [watch]\n', env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: '111' } });
    homes.push(t.home);
    const log = addPlugin(t.home);
    const titles = routeTitles(llm);
    const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: true });
    const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));
    try {
      await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
      // A stranger's message the plugin skips gets no pairing code.
      tg.userMessage({ chatId: 222, userId: 222, text: 'hello #ignore', username: 'stranger' });
      await until(() => events(log, 'pre_gateway_dispatch').length === 1, 5000, 'the hook');
      tg.userMessage({ chatId: 111, text: '#ping', username: 'owner' });
      await tg.waitFor(isText(111, /pong from the plugin/), 10_000, 'the plugin’s own answer');
      const n = llm.requests.length;
      titles.enqueue({ text: 'heard you' });
      tg.userMessage({ chatId: 111, text: '#shout quiet words', username: 'owner' });
      await tg.waitFor(isText(111, /heard you/), 10_000, 'the answer to the rewritten message');
      assert.equal(userText(llm.requests.slice(n).find((q) => Array.isArray(q.body.tools))!), 'QUIET WORDS');
      // The conversation's title comes from the auxiliary model: both auxiliary hooks saw that call.
      await until(() => events(log, 'post_auxiliary_call').length >= 1, 10_000, 'the auxiliary hooks');
      const pre = events(log, 'pre_auxiliary_call')[0];
      const post = events(log, 'post_auxiliary_call')[0];
      assert.equal(pre.aux_task, 'title_generation');
      assert.equal(pre.platform, 'telegram');
      assert.match(JSON.stringify(pre.request_messages), /QUIET WORDS/);
      assert.equal(post.aux_task, 'title_generation');
      assert.equal(post.error, null);
      assert.equal(post.finish_reason, 'stop');
      // A reaction: the owner's reaches gateway_platform_event as a plain envelope, a stranger's does not.
      const reaction = (user: number) => ({ message_reaction: { chat: { id: user, type: 'private', first_name: 'x' }, user: { id: user, is_bot: false, first_name: 'x' }, message_id: 7, date: 1, old_reaction: [], new_reaction: [{ type: 'emoji', emoji: '👍' }, { type: 'custom_emoji', custom_emoji_id: '555' }] } });
      tg.pushRaw(reaction(222));
      tg.pushRaw(reaction(111));
      // An edit: the owner's reaches the plugin as message_edited, a stranger's does not.
      const edit = (user: number) => ({ edited_message: { message_id: 8, chat: { id: user, type: 'private', first_name: 'x' }, from: { id: user, is_bot: false, first_name: 'x' }, date: 1, edit_date: 1786530600, text: 'fixed typo' } });
      tg.pushRaw(edit(222));
      tg.pushRaw(edit(111));
      await until(() => events(log, 'gateway_platform_event').length >= 2, 10_000, 'the platform event hook');
      assert.deepEqual(
        events(log, 'gateway_platform_event').map(({ telemetry_schema_version, profile_name, ...p }) => p),
        [
          { platform: 'telegram', event_type: 'reaction', payload: { emojis: ['👍'], custom_emoji_ids: ['555'], chat_id: '111', message_id: '7', thread_id: null } },
          { platform: 'telegram', event_type: 'message_edited', payload: { chat_id: '111', message_id: '8', thread_id: null, text: 'fixed typo', edited_at: '2026-08-12T10:30:00+00:00' } },
        ],
      );
      assert.ok(!tg.calls.some((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === 222), 'the skipped stranger got nothing');
      assert.ok(!llm.requests.some((q) => /#ping|#ignore/.test(bodyText(q))), 'skipped messages never reach the model');
      const first = events(log, 'pre_gateway_dispatch')[0];
      assert.equal(first.event.source.platform, 'telegram');
      assert.equal(first.event.source.user_id, '222');
      assert.equal(first.event.text, 'hello #ignore');
    } finally {
      await gw.shutdown('test done');
      await tg.close();
      await llm.close();
    }
  });
});
