// Slash commands in a chat: resolve against the one command registry (surface `gateway`), refuse
// what cannot run mid-turn, run the command on the conversation's warm Session with the gateway's
// hooks (SurfaceHooks.chat: /approve, /sethome, /restart, /platform; /stop and /queue act on the chat's lane), then record a new session id,
// send the output and run whatever the command queued. Unknown commands go to the agent as text.
import { t } from '../i18n/index.ts';
import { updateEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';
import { envPrefix } from './auth.ts';
import type { GatewayCommandHooks } from './commands.ts';
import type { Lane } from './lanes.ts';
import type { GatewayRunner } from './runner.ts';
import type { InboundMessage, PlatformAdapter, SessionSource } from './types.ts';

export async function runCommand(r: GatewayRunner, adapter: PlatformAdapter, lane: Lane, msg: InboundMessage): Promise<void> {
  const src = msg.source;
  const text = msg.text.trim();
  const resolved = r.commands.resolve(text, 'gateway');
  if ('error' in resolved) {
    // Not a command we know: hand it to the agent as text (skills and paths start with / too).
    lane.waiting.push(msg);
    if (!lane.running) await r.runLane(lane);
    return;
  }
  const { def, args } = resolved;
  void r.hooks.emit(`command:${def.name}`, { command: def.name, args, platform: src.platform, user_id: src.userId ?? null, chat_id: src.chatId, session_key: lane.key });
  if (lane.running && !def.midTurn) {
    await r.reply(adapter, src, t('gateway.not_mid_turn', { command: def.name }));
    return;
  }
  const hooks: GatewayCommandHooks = {
    statusLines: () => [`Platform: ${src.platform} (${src.chatType}${src.threadId ? `, thread ${src.threadId}` : ''})`, `Chat:     ${src.chatId}`, `Session key: ${lane.key}`],
    chat: {
      platform: src.platform,
      chatId: src.chatId,
      chatType: src.chatType,
      threadId: src.threadId,
      approve: (choice) => r.requests.answerApproval(lane.key, choice),
      setHome: () => setHome(r, src),
      restart: () => {
        if (!r.control) return 'This gateway was not started by `hermes gateway run`; restart it where it runs.';
        const running = r.activeTurns;
        return r.control.restart({ platform: src.platform, chatId: src.chatId, threadId: src.threadId }) ? { running } : '⏳ Gateway restart already in progress...';
      },
      platforms: () => r.control?.platforms() ?? [],
      pausePlatform: (name) => r.control?.pause(name) ?? 'Platforms can be paused only in a gateway started by `hermes gateway run`.',
      resumePlatform: (name) => r.control?.resume(name) ?? 'Platforms can be resumed only in a gateway started by `hermes gateway run`.',
    },
    gateway: {
      running: lane.running,
      stop: () => stopLane(r, lane),
      queue: (t) => {
        lane.waiting.push({ ...msg, text: t, messageId: `${msg.messageId}:q` });
        return lane.waiting.length;
      },
    },
  };
  const { warm } = await r.warmFor(lane.key, src, adapter);
  const before = warm.session.id;
  let result;
  try {
    result = await def.run({ session: warm.session, surface: 'gateway', hooks }, args);
  } catch (e) {
    result = { output: t('gateway.command_failed', { command: def.name, error: (e as Error).message }) };
  }
  if (warm.session.id !== before) {
    r.index.setSessionId(lane.key, warm.session.id, 'new_session', before);
    void r.hooks.emit('session:end', { platform: src.platform, user_id: src.userId ?? null, session_key: lane.key, session_id: before, reason: 'new_session' });
    void r.hooks.emit('session:reset', { platform: src.platform, user_id: src.userId ?? null, session_key: lane.key, old_session_id: before, session_id: warm.session.id, reason: 'new_session' });
  }
  if (result.action === 'runtime_changed' && !lane.running) {
    // /codex-runtime: the warm runtime goes; the next message rebuilds it from the store with the new runner.
    r.evict(lane.key);
  }
  if (result.output) await r.reply(adapter, src, result.output, { meta: msg.meta });
  if (result.send) {
    lane.waiting.push({ ...msg, text: result.send });
    if (!lane.running) await r.runLane(lane);
  } else if (!lane.running && lane.waiting.length) await r.runLane(lane);
}

function stopLane(r: GatewayRunner, lane: Lane): { wasRunning: boolean; dropped: number } {
  const dropped = lane.waiting.length;
  lane.waiting = [];
  const warm = r.cache.peek(lane.key);
  const wasRunning = lane.running;
  for (const q of [...lane.open]) warm?.session.answer(q.id, q.kind === 'approval' ? 'deny' : '');
  warm?.session.interrupt();
  return { wasRunning, dropped };
}

/** /sethome: this chat becomes the platform's home channel ({PLATFORM}_HOME_CHANNEL in .env). */
function setHome(r: GatewayRunner, src: SessionSource): string {
  const name = src.platform === 'email' ? 'EMAIL_HOME_ADDRESS' : `${envPrefix(src.platform)}_HOME_CHANNEL`;
  const value = src.platform === 'email' ? src.chatId : `${src.chatId}${src.threadId ? `:${src.threadId}` : ''}`;
  updateEnvFile(paths.env(r.home), { [name]: value });
  r.env[name] = value;
  return `${name}=${value}`;
}
