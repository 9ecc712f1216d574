// The gateway's vocabulary: where a message came from, the one normalized inbound event every
// platform produces, and the one adapter interface every platform implements.
import type { ContentPart } from '../llm/types.ts';

export type ChatType = 'dm' | 'group' | 'channel' | 'thread';

/** Where a message came from (Hermes's SessionSource): routes the reply and builds the session key. */
export interface SessionSource {
  platform: string;
  chatId: string;
  chatType: ChatType;
  chatName?: string;
  /**
   * The platform's immutable user id: the only thing (with `userIdAlt` and, for `@name` entries,
   * `userHandle`) that allowlists, pairing and button presses compare. See src/gateway/identity.ts.
   */
  userId?: string;
  /** A second id the platform itself vouches for (Signal's UUID beside the number, Teams's 29: id, IRC's services account). */
  userIdAlt?: string;
  /** A username the platform guarantees unique (Telegram, Discord); set only there, matched only by `@name` entries. */
  userHandle?: string;
  /** What the person is called (display / first name, From: display part): for the model's context only, never compared. */
  userName?: string;
  /** Forum topic (Telegram), thread (Discord/Slack `thread_ts`), email thread root. */
  threadId?: string;
  /** Slack workspace / Discord guild. Only Slack's goes into the session key, as in Hermes. */
  scopeId?: string;
  chatTopic?: string;
  isBot?: boolean;
}

export interface InboundAttachment {
  kind: 'image' | 'audio' | 'video' | 'document';
  /** A local file the adapter already downloaded (HERMES_HOME/image_cache, cache/documents…). */
  path?: string;
  mimeType?: string;
  fileName?: string;
  /** A voice note (push-to-talk), as opposed to an audio file. */
  voice?: boolean;
  /** Not downloaded: bigger than the cap (bytes it had). */
  tooLarge?: number;
}

/** One message from a person, as every adapter hands it to the runner. */
export interface InboundMessage {
  source: SessionSource;
  /** Platform message id (Telegram message_id, Discord snowflake, Slack ts, email Message-ID…). */
  messageId: string;
  text: string;
  attachments?: InboundAttachment[];
  /** The platform message this one replies to. */
  replyTo?: string;
  /** Arrival time (ms since epoch). */
  receivedAt?: number;
  /** Adapter-specific data the adapter needs to answer (e.g. email subject/references). */
  meta?: Record<string, unknown>;
}

/** A press on a button the gateway sent (approval / clarify choices). */
export interface InboundAction {
  source: SessionSource;
  /** The button's data as the gateway created it. */
  data: string;
  /** Acknowledge the press on the platform (spinner off, toast text). */
  ack?: (text?: string) => Promise<void>;
  /** The message the button belongs to (to edit it once answered). */
  messageId?: string;
}

export interface SendOptions {
  threadId?: string;
  replyTo?: string;
  /** Buttons under the message, rows of [label, data]. Adapters without buttons ignore them. */
  buttons?: { label: string; data: string }[][];
  /** Adapter-specific data (e.g. the inbound message's meta for email threading). */
  meta?: Record<string, unknown>;
}

export interface SendResult {
  ok: boolean;
  messageId?: string;
  error?: string;
  /** The failure was transient (the request never reached the platform): the core tries again. */
  retryable?: boolean;
}

export interface ChatInfo {
  name: string;
  type: ChatType;
}

export interface InboundHandlers {
  /** The runner's returns a promise, settled once the message is recorded (an adapter may confirm it to the platform then). */
  message(msg: InboundMessage): void;
  action?(act: InboundAction): void;
  /** The connection dropped after connecting; the daemon reconnects in the background. */
  disconnected?(error: Error): void;
  /** A platform-native event (a reaction…), normalized to a plain payload: plugins' gateway_platform_event. */
  platformEvent?(e: { source: SessionSource; eventType: string; payload: Record<string, unknown> }): void;
}

/** How a platform is talked on, where it differs from chat defaults (email is not a chat). */
export interface PlatformPrefs {
  toolProgress?: 'off' | 'new' | 'all' | 'verbose';
  busyInputMode?: 'interrupt' | 'queue' | 'steer';
  busyAck?: boolean;
  /** React to the person's message while working (👀, then ✅/❌) unless switched off. */
  reactions?: boolean;
}

/**
 * Thrown by `connect` when the platform's configuration can never work as it stands (a public bind
 * without a key, a token the platform rejects): the gateway does not retry it, and exits when no
 * platform can start. Anything else (network, a busy port, the platform down) is retried.
 */
export class PlatformSetupError extends Error {
  override name = 'PlatformSetupError';
}

/**
 * One platform. `connect` starts receiving (calling the handlers) and resolves once connected;
 * everything optional degrades gracefully (no typing, no edits, buttons become text).
 */
export interface PlatformAdapter {
  readonly name: string;
  /** Longest message the platform accepts, in characters. */
  readonly maxMessageLength: number;
  /** The platform renders buttons (inline keyboards, components, blocks). */
  readonly supportsButtons: boolean;
  readonly prefers?: PlatformPrefs;
  /** The platform's rate-limit-safe pause between edits of one message (streaming), in ms. */
  readonly editIntervalMs?: number;
  /** False when edits exist but must not be used for streaming. */
  readonly streaming?: boolean;
  /**
   * Its text sends go through nodeFetch (src/llm/http.ts), which reports the moment a request is
   * written to the socket: the delivery ledger then knows whether a reply cut short by a kill went out.
   */
  readonly wireReceipts?: boolean;
  connect(handlers: InboundHandlers): Promise<void>;
  /** Stop receiving (sending still works): the first step of a graceful drain. */
  stopIntake?(): Promise<void>;
  disconnect(): Promise<void>;
  send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult>;
  edit?(chatId: string, messageId: string, text: string, opts?: SendOptions): Promise<SendResult>;
  sendTyping?(chatId: string, opts?: { threadId?: string }): Promise<void>;
  /** Adds a reaction (acknowledgements: 👀 while working, ✅/❌ when done). */
  react?(chatId: string, messageId: string, emoji: string, opts?: { threadId?: string }): Promise<void>;
  /** Removes the bot's own reaction. */
  unreact?(chatId: string, messageId: string, emoji: string, opts?: { threadId?: string }): Promise<void>;
  sendMedia?(chatId: string, path: string, opts?: SendOptions & { kind?: 'image' | 'document' | 'audio' | 'video'; caption?: string; voice?: boolean }): Promise<SendResult>;
  chatInfo?(chatId: string): Promise<ChatInfo | null>;
  /** `#channel` / `@user` names → chat id (the channel directory). */
  resolveTarget?(name: string): Promise<string | null>;
  /** Publishes the slash commands (Telegram's command menu). */
  setCommands?(commands: { command: string; description: string }[]): Promise<void>;
}

export type { DeliveryOrigin } from '../tools/types.ts';
import type { DeliveryOrigin } from '../tools/types.ts';

export type DeliverResult = { ok: true } | { ok: false; error: string };

export type Deliver = (target: string, content: string, meta: { jobId: string; origin?: DeliveryOrigin }) => Promise<DeliverResult>;

/** What a user turn is made of, once the adapter's message is normalized. */
export type PromptContent = string | ContentPart[];
