// The shared conformance suite: the same cases run on every platform adapter, each against a local
// fake of that platform's API driven through the adapter's real SDK. A platform provides a small
// harness (how to start its fake, how a person writes to the bot, how to read what the bot shows,
// how to drop the connection); `runConformance(harness)` does the rest:
//   · a message gets an answer from the agent (fake LLM), in the person's DM
//   · an unknown person gets a pairing code; once approved, they are answered
//   · an impostor whose display name (first name, nick, profile name…) is the owner's id is refused
//     and offered pairing like any stranger (identity is the platform's stable id only)
//   · a long reply streams by edits and is split at the platform's limit with code blocks intact
//   · an image reaches the model as vision input
//   · the delivery router (send_message, cron, `hermes send`) reaches the chat
//   · after the fake drops the connection, the gateway reconnects and answers again
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { envPrefix, unauthorizedDmBehavior } from '../../../src/gateway/auth.ts';
import { runGateway, type RunningGateway } from '../../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { gatewayHome, until, type TestHome } from '../helpers.ts';

export interface BotMessage {
  id: string;
  /** What the message shows now (after any edits), as the platform renders it. */
  text: string;
  edits: number;
}

export interface ConformanceHarness {
  platform: string;
  /** The platform's message limit in characters (what the adapter must split at). */
  limit: number;
  /** Ids of a person on the allowlist and of a stranger. */
  owner: string;
  stranger: string;
  /** A third person's id: writes under a display name equal to the owner's id (`send`'s `displayName`). */
  impostor: string;
  /** Why the platform's messages carry no display name beside the id (the impostor case still runs). */
  noDisplayName?: string;
  /** Starts the fake API; returns the env (and extra config.yaml) that point the gateway at it. */
  start(): Promise<{ env: Record<string, string>; yaml?: string; deps?: unknown }>;
  /** Resolves once the adapter receives messages (poller attached, socket open). */
  ready?(gw: RunningGateway): Promise<void>;
  stop(): Promise<void>;
  /** The DM chat id between the bot and `user` (for delivery targets). */
  dmChat(user: string): string;
  /**
   * `user` writes to the bot in their DM (optionally with an image). `displayName` is what the
   * platform shows as the sender's name (Telegram first name without a username, Slack display name,
   * WhatsApp push name, IRC nick…), set by the person and so anyone's to choose.
   */
  send(user: string, text: string, o?: { image?: { bytes: Buffer; mimeType: string; name: string }; displayName?: string }): Promise<void>;
  /** The bot's messages in `user`'s DM, oldest first. */
  messages(user: string): BotMessage[];
  /** Rendered text back to Markdown-ish plain text (default: as is). */
  plain?(text: string): string;
  /** Cuts the connection the way the real service would; the adapter must recover. */
  drop(): Promise<void>;
  /** Connections the fake has accepted so far (a reconnect adds one). */
  connections(): number;
  /** Platforms without image input skip the vision case (the reason is printed). */
  noImages?: string;
  /** Platforms that cannot edit messages skip the streaming-edits part (splitting is still checked). */
  noEdits?: string;
  /** More cases for this platform, run inside the suite while its gateway is up. */
  extra?(ctx: () => { gw: RunningGateway; llm: FakeLlm }): void;
  /** Platforms without a connection of their own (webhooks in) skip the reconnect case. */
  noConnection?: string;
  /** Platforms whose senders are authenticated by the platform itself: a stranger is answered, not paired. */
  trustedSenders?: string;
}

const FENCE = /^ {0,3}```/gm;
const squash = (s: string) => s.replace(/```[^\n]*\n?/g, '').replace(/\s+/g, '');

export function runConformance(h: ConformanceHarness): void {
  describe(`conformance: ${h.platform}`, () => {
    let llm: FakeLlm;
    let t: TestHome;
    let gw: RunningGateway;
    const plain = (s: string) => (h.plain ? h.plain(s) : s);
    const texts = (user: string) => h.messages(user).map((m) => plain(m.text));
    const waitText = (user: string, re: RegExp, label: string, timeoutMs = 15_000) =>
      until(() => h.messages(user).find((m) => re.test(plain(m.text))), timeoutMs, `${label} (bot messages so far: ${JSON.stringify(texts(user)).slice(0, 600)})`);

    before(async () => {
      llm = await startFakeLlm();
      const fake = await h.start();
      t = gatewayHome({
        llmUrl: llm.openaiBaseUrl,
        env: { [`${envPrefix(h.platform)}_ALLOWED_USERS`]: h.owner, ...fake.env },
        yaml: `streaming:\n  enabled: true\n  edit_interval: 0.05\n  buffer_threshold: 20\n${fake.yaml ?? ''}`,
      });
      gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false, backoff: () => 200, platforms: [h.platform], deps: fake.deps ? { [h.platform]: fake.deps } : undefined });
      await until(() => gw.supervisor.status.get(h.platform)?.state === 'connected', 15_000, `${h.platform} to connect (${JSON.stringify(gw.supervisor.status.get(h.platform))})`);
      await h.ready?.(gw);
    });

    after(async () => {
      await gw?.shutdown('test done');
      await h.stop();
      await llm?.close();
    });

    test('a message gets an answer from the agent', async () => {
      llm.enqueue({ text: 'Hello from the conformance suite.' });
      await h.send(h.owner, 'hi there');
      await waitText(h.owner, /Hello from the conformance suite\./, 'the reply');
      const last = llm.requests[llm.requests.length - 1];
      const msgs = last.body.messages;
      assert.equal(msgs[msgs.length - 1].content, 'hi there', 'the person’s words reach the model');
      assert.match(msgs[0].content, new RegExp(`talking on ${h.platform}`), 'the system prompt names the platform');
    });

    test('an unknown person gets a pairing code; approved, they are answered', async (t) => {
      if (h.trustedSenders) {
        t.diagnostic(`no pairing on ${h.platform}: ${h.trustedSenders}`);
        llm.enqueue({ text: 'Answered without pairing.' });
        await h.send(h.stranger, 'hello?');
        await waitText(h.stranger, /Answered without pairing\./, 'the answer to a trusted sender');
        return;
      }
      await h.send(h.stranger, 'hello?');
      const m = await waitText(h.stranger, /pairing code: ([A-Z0-9]{8})/, 'the pairing code');
      const code = /pairing code: ([A-Z0-9]{8})/.exec(plain(m.text))![1];
      assert.equal(llm.requests.filter((r) => JSON.stringify(r.body).includes('hello?')).length, 0, 'a stranger never reaches the model');
      const approved = gw.runner.pairing.approveCode(h.platform, code);
      assert.ok(!('error' in approved), `approval: ${JSON.stringify(approved)}`);
      llm.enqueue({ text: 'Welcome aboard, new friend.' });
      await h.send(h.stranger, 'hello again');
      await waitText(h.stranger, /Welcome aboard, new friend\./, 'the answer after pairing');
    });

    test('an impostor whose display name is the owner’s id is refused and offered pairing', async (t) => {
      if (h.trustedSenders) {
        t.diagnostic(`no impostors on ${h.platform}: ${h.trustedSenders}`);
        return;
      }
      if (h.noDisplayName) t.diagnostic(`${h.platform} carries no display name: ${h.noDisplayName}`);
      const words = 'I am the owner, let me in';
      await h.send(h.impostor, words, { displayName: h.owner });
      if (unauthorizedDmBehavior(h.platform, {}) === 'ignore') {
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(h.messages(h.impostor).length, 0, 'strangers are ignored on this platform');
      } else {
        await waitText(h.impostor, /pairing code: ([A-Z0-9]{8})/, 'the pairing code offered to the impostor');
      }
      assert.equal(llm.requests.filter((r) => JSON.stringify(r.body).includes(words)).length, 0, 'the impostor never reaches the model');
      const pending = gw.runner.pairing.listPending(h.platform);
      if (unauthorizedDmBehavior(h.platform, {}) !== 'ignore') {
        const mine = pending.filter((p) => p.user_id !== h.owner);
        assert.equal(mine.length, 1, `one pending request, under the impostor's own id: ${JSON.stringify(pending)}`);
        // (Matrix's SDK disambiguates a look-alike name: "@alice:fake.test (@eve:evil.test)".)
        if (!h.noDisplayName) assert.ok(mine[0].user_name.includes(h.owner), `the display name did reach the gateway (and was not taken for an id): ${mine[0].user_name}`);
      }
      assert.ok(!pending.some((p) => p.user_id === h.owner), 'nothing is filed under the owner’s id');
      gw.runner.pairing.clearPending(h.platform);
    });

    test('a long reply streams by edits and is split at the limit with code blocks intact', async (t) => {
      const para = 'Streaming text goes here, sentence after sentence, so the reply grows past the limit. ';
      const code = Array.from({ length: Math.ceil(h.limit / 40) }, (_, i) => `console.log("line ${i} of the example");`).join('\n');
      const text = `${para.repeat(Math.ceil(h.limit / 2 / para.length))}\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone with the example: THE-END.`;
      const before = h.messages(h.owner).length;
      llm.enqueue({ text, chunkSize: Math.max(8, Math.ceil(text.length / 400)), chunkDelayMs: 2 });
      await h.send(h.owner, 'write a long example');
      await until(() => h.messages(h.owner).slice(before).some((m) => /THE-END\.$/.test(plain(m.text).trim())), 30_000, 'the end of the long reply');
      const mine = h.messages(h.owner).slice(before);
      assert.ok(mine.length >= 2, `split into several messages (${mine.length})`);
      for (const m of mine) {
        assert.ok(m.text.length <= h.limit, `a message of ${m.text.length} chars is over the ${h.limit} limit`);
        const fences = plain(m.text).match(FENCE)?.length ?? 0;
        assert.equal(fences % 2, 0, `code fences balanced in every message:\n${plain(m.text).slice(0, 300)}`);
      }
      assert.equal(squash(mine.map((m) => plain(m.text)).join('\n')), squash(text), 'nothing lost or doubled across the split');
      assert.doesNotMatch(mine.map((m) => m.text).join(''), /▉/, 'the streaming cursor is gone after the final edit');
      if (h.noEdits) t.diagnostic(`no streaming edits on ${h.platform}: ${h.noEdits}`);
      else assert.ok(mine.reduce((n, m) => n + m.edits, 0) >= 1, 'the reply was streamed by editing messages');
    });

    test('an image reaches the model as vision input', { skip: h.noImages }, async () => {
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      llm.enqueue({ text: 'A single tiny pixel.' });
      await h.send(h.owner, 'what is in this picture?', { image: { bytes: png, mimeType: 'image/png', name: 'pixel.png' } });
      await waitText(h.owner, /A single tiny pixel\./, 'the answer about the image');
      const req = llm.requests[llm.requests.length - 1];
      const user = req.body.messages[req.body.messages.length - 1];
      assert.ok(Array.isArray(user.content), 'the turn carries content parts');
      const img = user.content.find((p: { type: string }) => p.type === 'image_url');
      assert.ok(img, 'an image part');
      assert.equal(img.image_url.url, `data:image/png;base64,${png.toString('base64')}`);
      assert.match(JSON.stringify(user.content), /what is in this picture\?/);
    });

    test('the delivery router reaches the chat (send_message, cron, hermes send)', async () => {
      const r = await gw.runner.router.send(`${h.platform}:${h.dmChat(h.owner)}`, 'Delivered without the agent.', { source: 'test' });
      assert.ok(r.ok, JSON.stringify(r));
      await waitText(h.owner, /Delivered without the agent\./, 'the delivered message');
    });

    test('after the connection drops, the gateway reconnects and answers again', { skip: h.noConnection }, async () => {
      const n = h.connections();
      await h.drop();
      await until(() => h.connections() > n, 20_000, 'a new connection');
      await until(() => gw.supervisor.status.get(h.platform)?.state === 'connected', 15_000, 'connected again');
      await h.ready?.(gw);
      llm.enqueue({ text: 'Still here after the reconnect.' });
      await h.send(h.owner, 'are you there?');
      await waitText(h.owner, /Still here after the reconnect\./, 'the answer after the reconnect', 20_000);
    });

    h.extra?.(() => ({ gw, llm }));
  });
}
