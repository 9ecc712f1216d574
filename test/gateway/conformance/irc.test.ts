// IRC through irc-framework against a fake IRC server (IRCv3 caps, SASL PLAIN, draft/multiline).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitIrcLine } from '../../../src/gateway/platforms/irc.ts';
import { startFakeIrc, type FakeIrc } from '../../helpers/fake-irc.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let irc: FakeIrc;
const NICK = 'hermesbot';
/** The nick a person wrote under when it was not their own (the impostor). */
const nickOf = new Map<string, string>();

runConformance({
  platform: 'irc',
  limit: 4000,
  // IRC_ALLOWED_USERS=alice names a services account: people here are logged in (account tag).
  owner: 'alice',
  stranger: 'mallory',
  // Nobody can own a nick: the impostor takes the owner's nick ('alice') from their own host, not
  // logged in to the account.
  impostor: 'eve',
  noImages: 'IRC carries text only',
  noEdits: 'IRC messages cannot be edited; replies go out whole (one draft/multiline BATCH each)',
  async start() {
    // The bot's nick is taken: it must register as hermesbot_ and answer there.
    irc = await startFakeIrc({ multiline: true, sasl: { account: 'hermes', password: 'sasl-secret' }, takenNicks: [NICK] });
    return {
      env: { IRC_SERVER: irc.host, IRC_PORT: String(irc.port), IRC_NICK: NICK, IRC_CHANNELS: '#bots,help', IRC_SASL_USERNAME: 'hermes', IRC_SASL_PASSWORD: 'sasl-secret' },
    };
  },
  async ready() {
    await until(() => irc.joined.has('#bots') && irc.joined.has('#help'), 10_000, 'the bot to join its channels');
  },
  stop: () => irc.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    if (o?.displayName !== undefined) {
      nickOf.set(user, o.displayName);
      irc.say(o.displayName, irc.botNick()!, text, { host: `${user}.example` });
      return;
    }
    irc.say(user, irc.botNick()!, text, { account: user });
  },
  messages: (user) => irc.sent.filter((m) => m.target === (nickOf.get(user) ?? user) && (!nickOf.has(user) || /pairing code/.test(m.text))).map((m) => ({ id: m.id, text: m.text, edits: 0 })),
  async drop() {
    irc.joined.clear();
    irc.drop();
  },
  connections: () => irc.connections(),
  extra(ctx) {
    test('irc: SASL logged in, the taken nick got a _ suffix, channels were joined', () => {
      assert.ok(irc.received.some((l) => l === 'AUTHENTICATE PLAIN'), 'SASL PLAIN was used');
      assert.equal(irc.botNick(), `${NICK}_`);
      assert.ok(irc.received.some((l) => /^CAP REQ :.*draft\/multiline/.test(l)), 'draft/multiline was requested');
    });

    test('irc: in a channel the bot answers only when its nick is named, in the channel', async () => {
      const { llm } = ctx();
      const before = llm.requests.length;
      irc.say('alice', '#bots', 'just chatting, nothing for the bot', { account: 'alice' });
      llm.enqueue({ text: 'Answer in the channel.' });
      irc.say('alice', '#bots', `${NICK}_: what time is it?`, { account: 'alice' });
      await until(() => irc.sent.some((m) => m.target === '#bots' && /Answer in the channel\./.test(m.text)), 15_000, 'the channel answer');
      const asked = llm.requests.slice(before).map((r) => JSON.stringify(r.body.messages[r.body.messages.length - 1].content));
      assert.equal(asked.length, 1, 'one turn only (the unmentioned line was ignored)');
      assert.match(asked[0], /what time is it\?/);
      assert.doesNotMatch(asked[0], /hermesbot/, 'the mention is stripped');
    });

    test('irc: a stranger in a channel is ignored (no pairing in channels)', async () => {
      const n = irc.sent.length;
      irc.say('mallory2', '#bots', `${NICK}_: hello`);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(irc.sent.slice(n).filter((m) => m.target === '#bots' || m.target === 'mallory2').length, 0);
    });

    test('irc: lines are cut to fit the 512-byte line, at spaces, without breaking UTF-8', () => {
      const long = 'word '.repeat(200);
      const parts = splitIrcLine(long, 350, 400);
      assert.ok(parts.every((p) => p.length <= 350));
      assert.equal(parts.join(' ').replace(/\s+/g, ' ').trim(), long.trim());
      const emoji = '😀'.repeat(300);
      const e = splitIrcLine(emoji, 350, 100);
      assert.ok(e.every((p) => Buffer.byteLength(p) <= 100 && !/\uFFFD/.test(Buffer.from(p).toString())));
      assert.equal(e.join(''), emoji);
    });
  },
});
