// One agent turn for a conversation, and how it shows in the chat while it runs: the typing
// indicator (refreshed every 4 s), reactions as acknowledgements (👀 while working, ✅ / ❌ after;
// `{PLATFORM}_REACTIONS` or `platforms.<p>.reactions`), tool progress, approvals, the reply
// streamed by edits where enabled (stream-reply.ts) or sent when done, voice replies when a TTS
// provider is configured, and the bookkeeping after (usage, compression lineage, hooks).
import { rmSync } from 'node:fs';
import type { AgentEvent, TurnResult } from '../agent/types.ts';
import type { Message } from '../llm/types.ts';
import { describeError } from '../llm/index.ts';
import { redactionEnabled, redactSecrets } from '../policy/redact.ts';
import { eventLine } from '../session/describe.ts';
import { withFooter } from '../session/footer.ts';
import type { Session } from '../session/session.ts';
import { envPrefix } from './auth.ts';
import { isSilent } from './chunk.ts';
import { platformSettings, truthy } from './config.ts';
import { buildPrompt, unheardVoiceReason, voiceNotConfiguredReply, type PromptContext } from './inbound.ts';
import type { Lane, Warm } from './lanes.ts';
import { ProgressReporter } from './progress.ts';
import type { GatewayRunner } from './runner.ts';
import { StreamingReply, streamSettings } from './stream-reply.ts';
import type { InboundMessage, PlatformAdapter, SessionSource } from './types.ts';
import { speakReply, voiceReplyWanted } from './voice.ts';

export const TYPING_INTERVAL_MS = 4000;
/** Typing starts this far into a turn: an answer that is already there needs no indicator. */
export const TYPING_GRACE_MS = 250;

const preview = (s: string) => (s.length > 500 ? s.slice(0, 500) : s);

/** Reactions on the person's message while the agent works (Hermes: Discord and Matrix on, Telegram off by default). */
export function reactionsOn(adapter: PlatformAdapter, env: NodeJS.ProcessEnv, config: Record<string, unknown>): boolean {
  if (!adapter.react) return false;
  const raw = env[`${envPrefix(adapter.name)}_REACTIONS`] ?? platformSettings(config, adapter.name).reactions;
  return raw === undefined || raw === '' ? adapter.prefers?.reactions === true : truthy(raw);
}

/** `{PLATFORM}_REPLY_TO_MODE`: `off`, or `first` (default: the first reply chunk quotes the message in groups). */
function replyToMode(platform: string, env: NodeJS.ProcessEnv, config: Record<string, unknown>): 'off' | 'first' | 'all' {
  const raw = String(env[`${envPrefix(platform)}_REPLY_TO_MODE`] ?? platformSettings(config, platform).reply_to_mode ?? 'first').toLowerCase();
  return raw === 'off' || raw === 'all' ? raw : 'first';
}

class Typing {
  private timer: NodeJS.Timeout | null = null;
  private readonly start: NodeJS.Timeout | null;
  constructor(adapter: PlatformAdapter, src: SessionSource) {
    const tick = () => void adapter.sendTyping?.(src.chatId, { threadId: src.threadId }).catch(() => undefined);
    this.start = adapter.sendTyping
      ? setTimeout(() => {
          tick();
          this.timer = setInterval(tick, TYPING_INTERVAL_MS);
          this.timer.unref?.();
        }, TYPING_GRACE_MS)
      : null;
    this.start?.unref?.();
  }
  stop(): void {
    if (this.start) clearTimeout(this.start);
    if (this.timer) clearInterval(this.timer);
  }
}

export async function runTurn(r: GatewayRunner, lane: Lane, batch: InboundMessage[]): Promise<void> {
  const src = batch[batch.length - 1].source;
  const adapter = lane.adapter;
  const config: Record<string, unknown> = r.config;
  const finishAll = () => {
    for (const m of batch) if (!m.meta?.notice) r.dedupe.finish(m.source.platform, m.source.chatId, m.messageId);
  };
  const pc: PromptContext = { home: r.home, config, env: r.env, keyOpts: r.keyOpts, log: r.log };

  // Voice notes with nobody to transcribe them: say so plainly (and how to fix it) instead of a turn about nothing.
  const deaf = await unheardVoiceReason(batch, pc);
  if (deaf) {
    await r.reply(adapter, src, voiceNotConfiguredReply(deaf), { meta: batch[batch.length - 1].meta });
    if (batch.every((m) => !m.text.trim() && (m.attachments ?? []).every((a) => a.kind === 'audio' && a.voice))) {
      finishAll();
      return;
    }
  }

  let warm: Warm;
  try {
    warm = (await r.warmFor(lane.key, src, adapter)).warm;
  } catch (e) {
    await r.reply(adapter, src, `⚠️ Hermes could not start a session: ${(e as Error).message}`);
    finishAll();
    return;
  }
  warm.lane = lane;
  const session = warm.session;
  const reset = await r.maybeReset(lane.key, warm, src);
  if (reset) await r.reply(adapter, src, reset === 'idle' ? '◐ Starting a fresh conversation (the last one was idle for a while).' : '◐ Starting a fresh conversation (daily reset).');
  // The delivery ledger counts the turns started on each message (its loop guard).
  await r.ledger?.start(batch, lane.key, session.id).catch((e: unknown) => r.log(`ledger: could not record a turn start: ${(e as Error).message}`));

  const lastMsg = batch[batch.length - 1];
  const notice = !!lastMsg.meta?.notice;
  const last = notice ? { ...lastMsg, meta: lane.lastMeta } : lastMsg;
  const replyTo = src.chatType !== 'dm' && !notice && replyToMode(src.platform, r.env, config) !== 'off' ? last.messageId : undefined;
  const typing = new Typing(adapter, src);
  const react = !notice && reactionsOn(adapter, r.env, config);
  if (react) await adapter.react!(src.chatId, last.messageId, '👀', { threadId: src.threadId }).catch(() => undefined);

  const progress = new ProgressReporter(adapter, src, session.prefs.toolProgress, r.log);
  const ss = streamSettings(config, src.platform);
  const redact = redactionEnabled(r.env, config as never);
  const stream = ss.enabled && StreamingReply.supported(adapter) ? new StreamingReply(adapter, src, { settings: ss, redact, replyTo, meta: last.meta, log: r.log }) : null;
  const voiceIn = batch.some((m) => (m.attachments ?? []).some((a) => a.kind === 'audio' && a.voice));
  let delivered = 0;
  let iteration = 0;
  // The agent spoke for itself (text_to_speech): no second voice note for the same turn (as Hermes).
  let spokeItself = false;
  let chain: Promise<void> = Promise.resolve();
  const off = session.on((e: AgentEvent) => {
    switch (e.type) {
      case 'text_delta':
        stream?.push(e.text);
        break;
      case 'retract':
        stream?.retract();
        break;
      case 'retry':
        stream?.restart();
        break;
      case 'fallback':
        // One line in the chat when the turn leaves a provider that is slow or failing (and when
        // it is back on it): the answer that follows comes from another model.
        chain = chain.then(async () => void (await r.reply(adapter, src, eventLine(e), { meta: last.meta })));
        break;
      case 'tool_start':
        if (e.name === 'text_to_speech') spokeItself = true;
        progress.start(e.name, e.args, e.emoji);
        break;
      case 'tool_end':
        progress.end(e.name, e.content, e.isError);
        break;
      case 'message':
        if (e.message.role === 'assistant' && e.message.tool_calls?.length) {
          iteration++;
          if (stream) chain = chain.then(() => stream.seal());
          void r.hooks.emit('agent:step', { platform: src.platform, session_id: session.id, iteration, tool_names: e.message.tool_calls.map((c) => c.function.name) });
        }
        break;
      case 'request':
        void r.requests.open(lane, warm, e.id, e.request, last.meta);
        break;
      case 'request_resolved':
        void r.requests.close(lane, e.id, e.answer, e.source);
        break;
      case 'turn_end':
        if (!e.result.failed && !e.result.interrupted && e.result.finalText) {
          delivered++;
          const result = withFooter(session, e.result);
          chain = chain.then(() => deliverReply(r, lane, src, batch, result, { replyTo, meta: last.meta, progress, stream, voiceIn, spokeItself, saved: () => saved(session) }));
        }
        break;
      default:
        break;
    }
  });
  const message = preview(batch.map((m) => m.text).join('\n'));
  void r.hooks.emit('agent:start', { platform: src.platform, user_id: src.userId ?? null, chat_id: src.chatId, thread_id: src.threadId ?? null, chat_type: src.chatType, session_id: session.id, message });
  let result: TurnResult | null = null;
  const compressedBefore = session.compaction.count;
  try {
    if (batch.some((m) => m.meta?.replayed)) await rewindReplayed(session, batch);
    if (batch.some((m) => m.meta?.takenOver || m.meta?.replayed)) await dropUnanswered(session);
    result = await session.prompt(withMessageId(await buildPrompt(batch, pc), batch));
  } catch (e) {
    await r.replyTo(lane, batch, `⚠️ ${(e as Error).message}`);
  } finally {
    off();
    typing.stop();
    warm.lane = null;
  }
  await progress.flush();
  await chain.catch((e) => r.log(`gateway: reply to ${src.platform}:${src.chatId} failed: ${(e as Error).message}`));
  if (stream && (!result || result.failed || result.interrupted)) await stream.seal().catch(() => undefined);
  if (react) {
    await adapter.unreact?.(src.chatId, last.messageId, '👀', { threadId: src.threadId }).catch(() => undefined);
    const ok = !!result && !result.failed;
    await adapter.react!(src.chatId, last.messageId, ok ? '✅' : '❌', { threadId: src.threadId }).catch(() => undefined);
  }
  if (result) {
    if (result.failed && !result.interrupted) {
      const err = result.error;
      const text = err && 'provider' in err ? describeError(err, session.runtime) : (err?.message ?? 'The turn failed.');
      await r.replyTo(lane, batch, `⚠️ ${redactSecrets(text)}`);
    } else if (!result.interrupted && !delivered && !result.finalText && result.completed) {
      r.log(`gateway: ${src.platform}:${src.chatId}: the model gave an empty answer`);
    }
    r.index.touch(lane.key, src, { input: result.usage.input_tokens, output: result.usage.output_tokens });
    // Compression with in_place: false continues the conversation under a new session id (lineage in state.db).
    const routed = r.index.get(lane.key)?.session_id;
    if (routed && routed !== session.id) {
      r.index.setSessionId(lane.key, session.id, 'compression', routed);
      void r.hooks.emit('session:compress', { platform: src.platform, session_key: lane.key, old_session_id: routed, session_id: session.id, in_place: false });
    } else if (session.compaction.count > compressedBefore) {
      // Compressed in place (Hermes 0.18's default): same session id.
      void r.hooks.emit('session:compress', { platform: src.platform, session_key: lane.key, old_session_id: session.id, session_id: session.id, in_place: true, compression_count: session.compaction.count });
    }
    void r.hooks.emit('agent:end', { platform: src.platform, user_id: src.userId ?? null, chat_id: src.chatId, session_id: session.id, message, response: preview(result.finalText) });
  }
  finishAll();
}

async function deliverReply(
  r: GatewayRunner,
  lane: Lane,
  src: SessionSource,
  batch: InboundMessage[],
  result: TurnResult,
  o: { replyTo?: string; meta?: Record<string, unknown>; progress: ProgressReporter; stream: StreamingReply | null; voiceIn: boolean; spokeItself: boolean; saved: () => Promise<void> },
): Promise<void> {
  await o.progress.flush();
  const text = result.finalText;
  if (isSilent(text)) {
    r.log(`gateway: ${src.platform}:${src.chatId}: [SILENT] reply not delivered`);
    return;
  }
  // The answer is in the transcript before it can reach the person: a kill after the reply went out
  // must not leave the conversation with the message unanswered (the next turn would answer it again).
  await o.saved();
  const streamed = o.stream ? await o.stream.finish(text) : false;
  if (streamed) await r.ledger?.streamed(src, batch, lane.key, text);
  else await r.replyTo(lane, batch, text, { replyTo: o.replyTo, meta: o.meta });
  if (!o.spokeItself) await voiceReply(r, lane.adapter, src, text, o.voiceIn, o.meta);
}

/**
 * Speaks the reply when the chat's /voice mode (or `voice.auto_tts`) asks: a voice note (Ogg/Opus)
 * on platforms that have them, an audio file elsewhere. A failure is logged; the text reply stands.
 */
async function voiceReply(r: GatewayRunner, adapter: PlatformAdapter, src: SessionSource, text: string, voiceIn: boolean, meta?: Record<string, unknown>): Promise<void> {
  const vc = { home: r.home, env: r.env, config: r.config };
  if (!adapter.sendMedia || !(await voiceReplyWanted(vc, src.platform, src.chatId, voiceIn))) return;
  const spoken = text.replace(/^\s*MEDIA:.*$/gm, '').trim();
  if (!spoken) return;
  try {
    const audio = await speakReply(spoken, { ...vc, platform: src.platform });
    for (const path of audio.paths) {
      const res = await adapter.sendMedia(src.chatId, path, { threadId: src.threadId, kind: 'audio', voice: audio.voice, meta });
      if (!res.ok) r.log(`gateway: ${adapter.name}: voice reply failed: ${res.error}`);
      rmSync(path, { force: true });
    }
  } catch (e) {
    r.log(`gateway: ${src.platform}:${src.chatId}: voice reply not made: ${(e as Error).message}`);
  }
}

/**
 * A message taken over from a gateway that died mid-turn: that gateway had already saved it (and
 * maybe more of the prompt) with no answer after it. Those trailing user rows leave the
 * conversation (rewound in the store, kept) so the message is asked once, not twice.
 */
async function dropUnanswered(session: Session): Promise<void> {
  const h = session.history;
  let n = 0;
  while (n < h.length && h[h.length - 1 - n].role === 'user') n++;
  if (!n) return;
  session.rewind(h.length - n);
  await session.services.sessionDb?.flush();
  await session.services.sessionDb?.rewindLast(session.id, n);
}

/** Commits what the turn appended so far (the turn's end does too; a reply goes out before that). */
async function saved(session: Session): Promise<void> {
  session.flushAppends();
  await session.flushStore();
}

/** The person's message carries its platform id into the transcript (state.db's platform_message_id). */
function withMessageId(p: string | Message, batch: InboundMessage[]): string | Message {
  const last = batch.filter((m) => !m.meta?.notice).at(-1);
  if (!last) return p;
  return typeof p === 'string' ? { role: 'user', content: p, platform_message_id: last.messageId } : { ...p, platform_message_id: last.messageId };
}

/**
 * A message run again after a restart: what the turn that died saved from it on (its user row,
 * tool calls and results) leaves the conversation (rewound in the store, kept), so the model sees
 * the message once and the turn starts clean.
 */
async function rewindReplayed(session: Session, batch: InboundMessage[]): Promise<void> {
  const ids = new Set(batch.filter((m) => m.meta?.replayed).map((m) => m.messageId));
  const h = session.history;
  const at = h.findIndex((m) => m.role === 'user' && m.platform_message_id !== undefined && ids.has(m.platform_message_id));
  if (at < 0) return;
  const n = h.length - at;
  session.rewind(at);
  await session.services.sessionDb?.flush();
  await session.services.sessionDb?.rewindLast(session.id, n);
}
