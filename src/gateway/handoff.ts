// The gateway side of `/handoff <platform>` (Hermes's _handoff_watcher): every couple of seconds the
// watcher looks for sessions the CLI marked `pending` in the session store, claims one atomically,
// re-binds the platform's home channel to that session id (so the whole role-aware transcript is what
// the chat continues from: nothing is pasted as text), and runs one synthetic user turn there so the
// agent confirms, in the chat, that it has picked the conversation up. Then the request is
// `completed` (the CLI, waiting, tells the person and exits) or `failed` with the reason.
// None of our adapters can open a new thread, so the handoff lands in the home channel itself (what
// Hermes does on platforms without threads). A home channel that is a group keyed per user continues
// for the person whose key the routing index already holds for it, else for the channel.
import { homeChannel } from './config.ts';
import { sourceFromDict, type SessionIndex } from './session-store.ts';
import type { InboundMessage, PlatformAdapter, SessionSource } from './types.ts';
import { claimHandoff, finishHandoff, pendingHandoffs } from '../state/handoff.ts';
import type { SessionStore } from '../state/store/types.ts';

/** What the watcher needs from the runner. */
export interface HandoffHost {
  readonly env: NodeJS.ProcessEnv;
  readonly config: Record<string, unknown>;
  readonly index: SessionIndex;
  store(): SessionStore | undefined;
  adapter(platform: string): PlatformAdapter | undefined;
  sessionKey(source: SessionSource): string;
  /** Drops the chat's warm runtime (its next turn is rebuilt from the store). */
  dropWarm(key: string): void;
  /** Runs a turn for a message the gateway itself wrote (no pairing, no dedupe). */
  synthetic(adapter: PlatformAdapter, msg: InboundMessage): Promise<void>;
  log(line: string): void;
}

export const HANDOFF_PROMPT =
  '[Handoff] The person just moved this conversation here from the terminal. In one or two short sentences, confirm you are here and say where things stand; then carry on as usual.';

export class HandoffWatcher {
  private readonly host: HandoffHost;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(host: HandoffHost) {
    this.host = host;
  }

  start(intervalMs = 2000): void {
    if (this.timer || !this.host.store()) return;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One scan: claims and processes every pending request this gateway can serve. */
  async tick(): Promise<void> {
    const store = this.host.store();
    if (!store || this.busy) return;
    this.busy = true;
    try {
      for (const p of await pendingHandoffs(store)) {
        // A platform another gateway serves is left for that gateway.
        if (!this.host.adapter(p.platform)) continue;
        if (!(await claimHandoff(store, p.id))) continue;
        let error: string | null = null;
        try {
          error = await this.process(p.id, p.platform);
        } catch (e) {
          error = (e as Error).message;
        }
        await finishHandoff(store, p.id, error);
        this.host.log(`gateway: handoff of session ${p.id} to ${p.platform} ${error ? `failed: ${error}` : 'completed'}`);
      }
    } catch (e) {
      this.host.log(`gateway: handoff scan failed: ${(e as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  private async process(sessionId: string, platform: string): Promise<string | null> {
    const h = this.host;
    const adapter = h.adapter(platform);
    if (!adapter) return `${platform} is not connected to this gateway`;
    const home = homeChannel(platform, h.env, h.config);
    if (!home) return `${platform} has no home channel: send /sethome in the chat to use (or set ${platform.toUpperCase()}_HOME_CHANNEL)`;
    // The chat's own key, as its next message will compute it (chat type and user from the routing index).
    const known = h.index.find(platform, home.chatId, home.threadId).sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0]?.origin;
    const source: SessionSource = known ? { ...sourceFromDict(known), platform, chatId: home.chatId, threadId: home.threadId } : { platform, chatId: home.chatId, threadId: home.threadId, chatType: 'dm' };
    const key = h.sessionKey(source);
    const prev = h.index.get(key)?.session_id;
    if (prev === sessionId) h.index.touch(key, source);
    else if (prev) h.index.setSessionId(key, sessionId, 'handoff', prev);
    else h.index.create(key, source, { sessionId });
    h.dropWarm(key);
    await h.synthetic(adapter, { source, messageId: `handoff-${sessionId}-${Date.now()}`, text: HANDOFF_PROMPT, meta: { handoff: true } });
    return null;
  }
}
