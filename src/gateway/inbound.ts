// What the model sees of inbound messages: the text (with `[speaker]` in shared conversations),
// images as vision parts, other files as notes with their saved path, voice notes transcribed by the
// media speech-to-text providers (voice.ts; `stt.enabled: false` hands the model the file instead),
// and phone-number ids hashed when `privacy.redact_pii` is on for a platform whose ids are phone
// numbers (Hermes's PII-safe platforms).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { ContentPart, Message } from '../llm/types.ts';
import { getPlatform } from './platforms/registry.ts';
import { isSharedMultiUserSession, neutralizeInline, type KeyOptions } from './session-key.ts';
import type { InboundAttachment, InboundMessage, SessionSource } from './types.ts';
import { sttDisabled, sttUnavailableReason, transcribeVoice } from './voice.ts';

/** Images above this are not inlined for vision (the model would refuse or the request be huge). */
export const VISION_MAX_BYTES = 5 * 1024 * 1024;

type Obj = Record<string, unknown>;

/** `privacy.redact_pii: true` and the platform's ids are phone-number shaped. */
export function piiRedaction(config: Obj, platform: string): boolean {
  const p = config.privacy as { redact_pii?: unknown } | undefined;
  return p?.redact_pii === true && !!getPlatform(platform)?.piiSafe;
}

/** `user_<sha256[:12]>`, as Hermes shows hashed ids. */
export function hashId(id: string, prefix = 'user'): string {
  return `${prefix}_${createHash('sha256').update(id).digest('hex').slice(0, 12)}`;
}

const PHONEISH = /^\+?[\d\s().-]{6,}$|@s\.whatsapp\.net$|@lid$/;

/** The source as the model may see it: ids (and names that are just phone numbers) hashed when PII redaction applies. */
export function modelView(src: SessionSource, config: Obj): SessionSource {
  if (!piiRedaction(config, src.platform)) return src;
  const chat = src.chatType === 'dm' ? hashId(src.chatId) : hashId(src.chatId, 'chat');
  return {
    ...src,
    chatId: chat,
    userId: src.userId ? hashId(src.userId) : undefined,
    userName: src.userName && !PHONEISH.test(src.userName) ? src.userName : src.userId ? hashId(src.userId) : undefined,
    chatName: src.chatName && !PHONEISH.test(src.chatName) ? src.chatName : src.chatType === 'dm' ? undefined : chat,
  };
}

export interface PromptContext {
  home: string;
  config: Obj;
  env: NodeJS.ProcessEnv;
  keyOpts: KeyOptions;
  log: (line: string) => void;
}

export function speakerText(msg: InboundMessage, c: PromptContext): string {
  const t = msg.text.trim();
  if (msg.meta?.notice) return t;
  const src = modelView(msg.source, c.config);
  return isSharedMultiUserSession(msg.source, c.keyOpts) ? `[${neutralizeInline(src.userName || src.userId || 'someone', 80)}] ${t}` : t;
}

const isVoiceNote = (a: InboundAttachment) => a.kind === 'audio' && !!a.voice && !!a.path;

/** Why the voice notes in a batch cannot be heard (with the fix), or null (none, or a provider is ready). */
export async function unheardVoiceReason(msgs: InboundMessage[], c: PromptContext): Promise<string | null> {
  if (!msgs.some((m) => (m.attachments ?? []).some(isVoiceNote))) return null;
  return sttUnavailableReason(c);
}

export function voiceNotConfiguredReply(reason: string): string {
  return `🎤 I can't listen to voice messages here. ${reason} Until then, please type your message.`;
}

async function audioNote(a: InboundAttachment & { path: string }, c: PromptContext): Promise<string> {
  const what = a.voice ? 'voice message' : 'recording';
  if (await sttDisabled(c.config)) return `[The user sent a ${what}, saved at ${a.path} (speech to text is off: stt.enabled is false)]`;
  const r = await transcribeVoice(a.path, c);
  if ('error' in r) {
    c.log(`gateway: transcription of ${a.path} failed: ${r.error}`);
    return `[The user sent a ${what}, saved at ${a.path}; it could not be transcribed: ${r.error}]`;
  }
  return r.text ? `[The user sent a ${what}; transcript: ${r.text}]` : `[The user sent a ${what} with no recognisable speech, saved at ${a.path}]`;
}

async function attachmentNote(a: InboundAttachment, c: PromptContext): Promise<string> {
  const name = a.fileName ? ` "${neutralizeInline(a.fileName, 120)}"` : '';
  if (a.tooLarge) return `[The user sent a file${name} of ${(a.tooLarge / 1048576).toFixed(1)} MB; it is over the attachment size limit (gateway.max_attachment_mb) and was not downloaded]`;
  if (!a.path) return `[The user sent a file${name} that could not be downloaded]`;
  if (a.kind === 'audio') return audioNote({ ...a, path: a.path }, c);
  if (a.kind === 'video') return `[The user sent a video${name}, saved at ${a.path}]`;
  return `[The user sent a file${name}, saved at ${a.path}]`;
}

const HEIF_EXT: Record<string, string> = { '.heic': 'image/heic', '.heif': 'image/heif', '.avif': 'image/avif' };

/** A user turn from one or more messages (text, images as vision parts, other files as notes). */
export async function buildPrompt(msgs: InboundMessage[], c: PromptContext): Promise<string | Message> {
  const texts: string[] = [];
  const images: ContentPart[] = [];
  for (const m of msgs) {
    if (m.text.trim()) texts.push(speakerText(m, c));
    for (const a of m.attachments ?? []) {
      if (a.kind === 'image' && a.path && existsSync(a.path) && statSync(a.path).size <= VISION_MAX_BYTES) {
        let bytes: Buffer = readFileSync(a.path);
        let mime = HEIF_EXT[extname(a.path).toLowerCase()] ?? a.mimeType ?? 'image/jpeg';
        if (Object.values(HEIF_EXT).includes(mime.toLowerCase())) {
          // iPhone photos (HEIC) and AVIF: most providers take neither; converted to JPEG when ffmpeg can.
          const { commonImageFormat } = await import('../media/image-fit.ts');
          ({ bytes, mime } = await commonImageFormat(bytes, mime.toLowerCase(), c.env));
        }
        images.push({ type: 'image_url', image_url: { url: `data:${mime};base64,${bytes.toString('base64')}` } });
        texts.push(`[The user sent an image, saved at ${a.path}]`);
      } else if (a.kind === 'image' && a.path) texts.push(`[The user sent an image too large for vision (over ${VISION_MAX_BYTES / 1048576} MB), saved at ${a.path}]`);
      else texts.push(await attachmentNote(a, c));
    }
  }
  const text = texts.join('\n\n');
  if (!images.length) return text;
  return { role: 'user', content: [{ type: 'text', text }, ...images] };
}
