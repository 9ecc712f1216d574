// Session keys exactly as Hermes builds them (gateway/session.py build_session_key): the single
// source of truth for "which conversation is this message part of".
//
//   agent:<ns>:<platform>:<chat_type>[:<slack scope>][:<chat_id>][...]
//   DMs:    …:<chat_id>[:<user>][:<thread>]   (user only when there is no chat id)
//   groups: …:<chat_id>[:<thread>][:<user>]   (user when group_sessions_per_user and not in a
//                                              shared thread; threads shared unless
//                                              thread_sessions_per_user)
import type { SessionSource } from './types.ts';

export interface KeyOptions {
  groupSessionsPerUser?: boolean;
  threadSessionsPerUser?: boolean;
  /** Profile name; default/none → `agent:main`. */
  profile?: string;
}

export function keyNamespace(profile?: string): string {
  if (!profile || profile === 'default') return 'agent:main';
  return profile === 'main' ? 'agent:main~' : `agent:${profile}`;
}

export function buildSessionKey(source: SessionSource, opts: KeyOptions = {}): string {
  const perUser = opts.groupSessionsPerUser ?? true;
  const threadPerUser = opts.threadSessionsPerUser ?? false;
  const isDm = source.chatType === 'dm';
  const chatId = source.chatId;
  const threadId = source.threadId || undefined;
  const isolateUser = isDm ? !chatId : perUser && !(threadId && !threadPerUser);
  const parts: string[] = [keyNamespace(opts.profile), source.platform, source.chatType];
  if (source.platform === 'slack' && source.scopeId) parts.push(source.scopeId);
  if (chatId) parts.push(chatId);
  const user = isolateUser && source.userId ? [source.userId] : [];
  const thread = threadId ? [threadId] : [];
  parts.push(...(isDm ? [...user, ...thread] : [...thread, ...user]));
  return parts.join(':');
}

/** More than one person speaks into this session (mirrors the key rules). */
export function isSharedMultiUserSession(source: SessionSource, opts: KeyOptions = {}): boolean {
  if (source.chatType === 'dm') return false;
  return source.threadId ? !(opts.threadSessionsPerUser ?? false) : !(opts.groupSessionsPerUser ?? true);
}

/** Untrusted metadata (display names, chat titles) as one inert line, capped at 240 chars. */
export function neutralizeInline(value: unknown, max = 240): string {
  let t = String(value ?? '')
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (t.length > max) t = t.slice(0, max - 3) + '...';
  return t;
}
