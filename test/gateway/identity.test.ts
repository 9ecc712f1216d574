// The one identity check (src/gateway/identity.ts) and authorize() over it: stable ids only, usernames
// only where the platform guarantees them unique and the entry is written `@name`, never a display name.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { runGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram } from '../helpers/fake-telegram.ts';
import { gatewayHome } from './helpers.ts';
import { allowlistWarnings, authorize } from '../../src/gateway/auth.ts';
import { identityMatches, unmatchableEntries } from '../../src/gateway/identity.ts';
import { PairingStore } from '../../src/gateway/pairing.ts';
import { uniqueDiscordName } from '../../src/gateway/platforms/discord-events.ts';
import '../../src/gateway/platforms/builtin.ts';
import type { SessionSource } from '../../src/gateway/types.ts';

const src = (platform: string, o: Partial<SessionSource>): SessionSource => ({ platform, chatId: o.userId ?? 'c', chatType: 'dm', ...o });
const allowed = (s: SessionSource, env: Record<string, string>) => authorize(s, env, null).ok;

describe('identity: impostors named like the owner are refused', () => {
  test('telegram: a first name equal to the owner id, or to @username, is no way in', () => {
    const env = { TELEGRAM_ALLOWED_USERS: '111,@owner_handle' };
    assert.ok(allowed(src('telegram', { userId: '111', userName: 'Owner' }), env), 'the owner by id');
    assert.ok(allowed(src('telegram', { userId: '5', userHandle: 'Owner_Handle', userName: 'Someone' }), env), 'a unique username written as @name (case-insensitive)');
    // The probe: no username, first name = the owner's numeric id.
    assert.equal(allowed(src('telegram', { userId: '666', userName: '111' }), env), false);
    assert.equal(allowed(src('telegram', { userId: '666', userName: '@owner_handle' }), env), false);
    assert.equal(allowed(src('telegram', { userId: '666', userName: 'owner_handle' }), env), false);
    // GATEWAY_ALLOWED_USERS follows the same rule.
    assert.equal(allowed(src('telegram', { userId: '666', userName: '111' }), { GATEWAY_ALLOWED_USERS: '111' }), false);
    assert.ok(allowed(src('telegram', { userId: '111' }), { GATEWAY_ALLOWED_USERS: '111' }));
  });

  test('telegram: a bare username entry matches nobody (it must be written @name)', () => {
    assert.equal(allowed(src('telegram', { userId: '5', userHandle: 'alice', userName: 'alice' }), { TELEGRAM_ALLOWED_USERS: 'alice' }), false);
    assert.ok(allowed(src('telegram', { userId: '5', userHandle: 'alice' }), { TELEGRAM_ALLOWED_USERS: '@alice' }));
  });

  test('discord: @username only for unique (new-system) names; never the display name', () => {
    assert.equal(uniqueDiscordName({ username: 'ann', discriminator: '0' }), 'ann');
    assert.equal(uniqueDiscordName({ username: 'ann', discriminator: '1234' }), undefined, 'a legacy name#1234 is not unique');
    const env = { DISCORD_ALLOWED_USERS: '123456789012345678,@ann' };
    assert.ok(allowed(src('discord', { userId: '123456789012345678' }), env));
    assert.ok(allowed(src('discord', { userId: '999999999999999999', userHandle: 'ann' }), env));
    assert.equal(allowed(src('discord', { userId: '999999999999999999', userName: '123456789012345678' }), env), false);
    assert.equal(allowed(src('discord', { userId: '999999999999999999', userName: 'ann' }), env), false);
  });

  test('slack, mattermost, teams, google chat, matrix, feishu and the rest: no names, no @handles', () => {
    const cases: [string, string, Partial<SessionSource>][] = [
      ['slack', 'UOWNER01', { userName: 'UOWNER01', userHandle: 'UOWNER01' }],
      ['mattermost', 'owneruserid000000000000000', { userName: 'owneruserid000000000000000' }],
      ['teams', '00000000-0000-0000-0000-00000000abcd', { userName: '00000000-0000-0000-0000-00000000abcd' }],
      ['google_chat', 'alice@example.com', { userName: 'alice@example.com' }],
      ['matrix', '@alice:example.org', { userName: '@alice:example.org' }],
      ['whatsapp', '15551234567', { userName: '15551234567' }],
      ['whatsapp_cloud', '15551234567', { userName: '+15551234567' }],
      ['signal', '+15551110000', { userName: '+15551110000' }],
      ['sms', '+15551234567', { userName: '+15551234567' }],
      ['email', 'alice@example.com', { userName: 'alice@example.com' }],
      ['feishu', 'ou_owner0001', { userName: 'ou_owner0001' }],
      ['dingtalk', 'owner-staff', { userName: 'owner-staff' }],
      ['wecom', 'owner', { userName: 'owner' }],
      ['yuanbao', 'yb_user_owner', { userName: 'yb_user_owner' }],
      ['qqbot', 'OWNEROPENID', { userName: 'OWNEROPENID' }],
      ['line', 'U0123456789abcdef0123456789abcdef', { userName: 'U0123456789abcdef0123456789abcdef' }],
      ['bluebubbles', '+15551234567', { userName: '+15551234567' }],
      ['irc', 'alice', { userName: 'alice' }],
    ];
    for (const [p, owner, impostor] of cases) {
      const key = p === 'qqbot' ? 'QQ_ALLOWED_USERS' : `${p.toUpperCase()}_ALLOWED_USERS`;
      assert.equal(allowed(src(p, { userId: 'impostor-id', ...impostor }), { [key]: owner }), false, `${p}: a display name equal to the owner's id`);
      assert.equal(allowed(src(p, { userId: 'impostor-id', ...impostor }), { GATEWAY_ALLOWED_USERS: owner }), false, `${p}: the same through GATEWAY_ALLOWED_USERS`);
    }
    // Slack has no unique usernames: an @name entry never matches, whatever the source says.
    assert.equal(allowed(src('slack', { userId: 'U1', userHandle: 'ann' }), { SLACK_ALLOWED_USERS: '@ann' }), false);
  });

  test('email: only the address, case-insensitively; a local part alone is not an address', () => {
    const env = { EMAIL_ALLOWED_USERS: 'Alice@Example.com' };
    assert.ok(allowed(src('email', { userId: 'alice@example.com', userName: 'Alice' }), env));
    assert.equal(allowed(src('email', { userId: 'mallory@evil.test', userName: 'alice@example.com' }), env), false, 'the From: display part');
    // Hermes compared the part before @ too: `alice` would have let alice@anywhere in.
    assert.equal(allowed(src('email', { userId: 'alice@evil.test' }), { EMAIL_ALLOWED_USERS: 'alice' }), false);
  });

  test('phone numbers: formatting and a leading + do not matter; WhatsApp JIDs and device suffixes are the number', () => {
    assert.ok(allowed(src('sms', { userId: '+15551234567' }), { SMS_ALLOWED_USERS: '+1 (555) 123-4567' }));
    assert.ok(allowed(src('whatsapp', { userId: '15551234567' }), { WHATSAPP_ALLOWED_USERS: '+15551234567' }));
    assert.ok(allowed(src('whatsapp', { userId: '15551234567' }), { WHATSAPP_ALLOWED_USERS: '15551234567:12@s.whatsapp.net' }));
    assert.ok(allowed(src('whatsapp', { userId: '15551234567@c.us' }), { WHATSAPP_ALLOWED_USERS: '15551234567' }));
    assert.equal(allowed(src('whatsapp', { userId: '15559999999' }), { WHATSAPP_ALLOWED_USERS: '15551234567' }), false);
    assert.ok(allowed(src('whatsapp_cloud', { userId: '15551234567' }), { WHATSAPP_CLOUD_ALLOWED_USERS: '+1 555 123 4567' }));
  });

  test('a second id the platform vouches for counts (Signal UUID, Teams 29: id, IRC services account)', () => {
    const uuid = '0f0e0d0c-0b0a-4909-8807-060504030201';
    assert.ok(allowed(src('signal', { userId: '+15551110000', userIdAlt: uuid }), { SIGNAL_ALLOWED_USERS: uuid.toUpperCase() }));
    assert.ok(allowed(src('teams', { userId: 'aad-guid', userIdAlt: '29:1abc' }), { TEAMS_ALLOWED_USERS: '29:1abc' }));
    // IRC: a bare entry is a services account; a nick alone (anyone can take it) never matches.
    assert.ok(allowed(src('irc', { userId: 'alice@host.example', userIdAlt: 'alice' }), { IRC_ALLOWED_USERS: 'alice' }));
    assert.equal(allowed(src('irc', { userId: 'alice@evil.example', userName: 'alice' }), { IRC_ALLOWED_USERS: 'alice' }), false, 'not logged in to the account');
    assert.ok(allowed(src('irc', { userId: 'alice@host.example' }), { IRC_ALLOWED_USERS: 'Alice@host.example' }));
  });

  test('pairing approvals go through the same check (ids only, never @handles)', () => {
    const p = new PairingStore(mkdtempSync(join(tmpdir(), 'hermes-ident-')));
    p.approve('whatsapp', '15551234567', 'Owner');
    assert.deepEqual(authorize(src('whatsapp', { userId: '15551234567@s.whatsapp.net' }), {}, p), { ok: true, via: 'pairing' });
    assert.equal(authorize(src('whatsapp', { userId: '19999999999', userName: '15551234567' }), {}, p).ok, false);
    p.approve('telegram', '@someone', '');
    assert.equal(authorize(src('telegram', { userId: '7', userHandle: 'someone' }), {}, p).ok, false, 'a pairing entry is an id, not a handle');
    p.approve('signal', '0f0e0d0c-0b0a-4909-8807-060504030201', '');
    assert.ok(authorize(src('signal', { userId: '+15550000000', userIdAlt: '0f0e0d0c-0b0a-4909-8807-060504030201' }), {}, p).ok);
  });

  test('no user id, no way in through a list; `*` and allow-all still work', () => {
    assert.equal(allowed(src('telegram', { userName: '111' }), { TELEGRAM_ALLOWED_USERS: '111' }), false);
    assert.ok(allowed(src('telegram', { userId: '5' }), { TELEGRAM_ALLOWED_USERS: '*' }));
    assert.ok(allowed(src('telegram', { userId: '5' }), { TELEGRAM_ALLOW_ALL_USERS: 'true' }));
    assert.equal(identityMatches([], src('telegram', { userId: '5' })), false);
  });

  test('a plugin platform without a rule compares ids only', () => {
    assert.ok(identityMatches(['u1'], { platform: 'echo_chat', userId: 'U1' }));
    assert.equal(identityMatches(['u1'], { platform: 'echo_chat', userId: 'u2', userName: 'u1' } as SessionSource), false);
    assert.equal(identityMatches(['@u1'], { platform: 'echo_chat', userId: 'u2', userHandle: 'u1' }), false);
  });
});

describe('identity: start-up warnings for entries that can never match', () => {
  test('one line per variable, naming the entries and how to write them', () => {
    assert.deepEqual(unmatchableEntries('telegram', ['111', '@alice', 'alice', 'Alice Smith', '*']), ['alice', 'Alice Smith']);
    assert.deepEqual(unmatchableEntries('slack', ['U0123ABCD', '@ann']), ['@ann']);
    assert.deepEqual(unmatchableEntries('matrix', ['@alice:example.org', 'alice']), ['alice']);
    assert.deepEqual(unmatchableEntries('email', ['alice@example.com', 'Alice <alice@example.com>']), ['Alice <alice@example.com>']);
    assert.deepEqual(unmatchableEntries('wecom', ['anything']), [], 'no id shape known: nothing to say');
    const lines = allowlistWarnings(['telegram', 'slack'], { TELEGRAM_ALLOWED_USERS: '111,alice', SLACK_ALLOWED_USERS: 'U0123ABCD', GATEWAY_ALLOWED_USERS: '111,Bob Jones' });
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[0], /^auth: TELEGRAM_ALLOWED_USERS: "alice" can never match .*numeric user id.*@username/);
    assert.match(lines[1], /^auth: GATEWAY_ALLOWED_USERS: "Bob Jones" can never match/);
    assert.deepEqual(allowlistWarnings(['telegram'], { TELEGRAM_ALLOWED_USERS: '111,@alice' }), [], 'ids and @usernames are fine');
  });
});

test('the gateway writes the warning at start-up, and ids keep working', async () => {
  const llm = await startFakeLlm();
  const tg = await startFakeTelegram();
  const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: '111,Alice Smith,@alice_s' } });
  const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false, platforms: ['telegram'] });
  try {
    const log = readFileSync(join(t.home, 'logs', 'gateway.log'), 'utf8');
    const lines = log.split('\n').filter((l) => l.includes('can never match'));
    assert.equal(lines.length, 1, log);
    assert.match(lines[0], /TELEGRAM_ALLOWED_USERS: "Alice Smith" can never match .*write the numeric user id/);
    assert.ok(authorize(src('telegram', { userId: '111' }), t.env, gw.runner.pairing).ok);
  } finally {
    await gw.shutdown('test done');
    await tg.close();
    await llm.close();
  }
});
