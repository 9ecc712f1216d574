// Who a sender is, for every check that lets a person in: the allowlists ({PLATFORM}_ALLOWED_USERS,
// GATEWAY_ALLOWED_USERS), the pairing list, Matrix invites and approval/clarify button presses all
// call `identityMatches`. Only what the platform itself vouches for is compared:
//   · `userId`     the platform's immutable user id (for email/SMS: the address / number itself);
//   · `userIdAlt`  a second id the platform vouches for (Signal's UUID beside the number…);
//   · `userHandle` a username, only where the platform guarantees usernames unique, and only
//                  against an entry written as one (`@name`).
// Display names, first names, nicknames and the display part of an email's From: are never
// compared (an outside probe got in as a Telegram user whose first name was the owner's id); they
// stay in `userName` for the model's context.
//
// The decision per platform (docs/security.md has the same table for people):
//   telegram       from.id (numeric). `@username` entries: yes — usernames are unique across Telegram
//                  (case-insensitive). A username can be given up and later taken by someone else, so
//                  the numeric id is the safer entry. first/last name: never.
//   discord        author.id (snowflake). `@username` entries: yes, for accounts on Discord's unique
//                  username system (discriminator "0"); a legacy `name#1234` name is not unique and is
//                  never matched. global_name / server nickname: never.
//   slack          the member id (U…/W…). Slack display and real names are not unique and its `name`
//                  field is deprecated: ids only.
//   mattermost     the 26-character user id. Usernames are unique per server, but a post's
//                  `sender_name` can be overridden by webhooks and bots: ids only (and webhook posts,
//                  which carry the webhook creator's id, are dropped by the adapter).
//   matrix         the MXID `@local:server` (that is the id); display names never.
//   signal         the number (+E.164) and the ACI UUID, both from signal-cli; the profile name never.
//   whatsapp       the JID's number or LID (`15551234567`, `…@s.whatsapp.net`, `…@lid`; a leading +
//                  and a device suffix are ignored); pushName never.
//   whatsapp_cloud the wa_id (the number); the contact's profile name never.
//   sms            the From number of Twilio's signed webhook (formatting and a leading + ignored).
//   email          the From address (case-insensitive); never the display part. The address itself
//                  is only as good as the mail server's SPF/DKIM/DMARC checks.
//   bluebubbles    the iMessage handle (phone number or Apple ID address) the server reports.
//   irc            IRC has no ids. A bare entry is a services account (NickServ / SASL), matched
//                  only when the server vouches for it with the IRCv3 account tag; `nick@host`
//                  matches the nick and host the server reports. A nick alone never matches.
//   teams          the Azure AD object id (GUID) or the Bot Framework id (29:…); the name never.
//   google_chat    the Google account's e-mail address or `users/<number>`; displayName never.
//   feishu         open_id (ou_…). dingtalk: senderStaffId, else senderId; the nick never.
//   wecom, weixin, qqbot, yuanbao, line: the platform's user / account id; nicknames never.
//   homeassistant  trusted source (its token authenticates the events); no allowlist.
// A platform from a plugin may give its own rule (`identity` in its definition); otherwise its
// entries are compared with `userId` / `userIdAlt`, case-insensitively, and nothing else.
import type { SessionSource } from './types.ts';

export interface IdentityRule {
  /** The forms one id compares as: an entry and a sender's id match when they share one. */
  keys(id: string): string[];
  /** `@name` entries match `userHandle` (only where the platform guarantees usernames unique). */
  handles: boolean;
  /** Whether an allowlist entry can be one of the platform's ids (absent: any entry might be). */
  idShape?: (entry: string) => boolean;
  /** How a person writes an entry (for the start-up warning). */
  advice: string;
}

const lower = (id: string): string[] => [id.trim().toLowerCase()];

/** A phone number in any formatting (`+1 (555) 123-4567`) → its digits; anything else as is. */
function phoneKey(id: string): string {
  const t = id.trim().toLowerCase();
  const digits = t.replace(/[\s().-]/g, '');
  return /^\+?\d{4,}$/.test(digits) ? digits.replace(/^\+/, '') : t;
}

/** WhatsApp: `15551234567`, `+15551234567`, `15551234567:3@s.whatsapp.net`, `…@c.us` and `…@lid`. */
function whatsappKeys(id: string): string[] {
  const t = id.trim().toLowerCase();
  const at = t.indexOf('@');
  if (at < 0) return [phoneKey(t)];
  const user = t.slice(0, at).replace(/:\d+$/, '');
  const server = t.slice(at + 1) === 'c.us' ? 's.whatsapp.net' : t.slice(at + 1);
  if (server === 's.whatsapp.net') return [phoneKey(user)];
  // A LID: its digits are an id of their own (Hermes compares the part before the @ too).
  return [`${user}@${server}`, user];
}

const PHONE = /^\+?[\d\s().-]{6,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/;

export const IDENTITY_RULES: Record<string, IdentityRule> = {
  telegram: { keys: lower, handles: true, idShape: (e) => /^\d+$/.test(e), advice: 'the numeric user id (ask @userinfobot), or @username' },
  discord: { keys: lower, handles: true, idShape: (e) => /^\d{15,22}$/.test(e), advice: 'the numeric user id (Developer Mode → Copy User ID), or @username' },
  slack: { keys: lower, handles: false, idShape: (e) => /^[UW][A-Z0-9]{6,}$/i.test(e), advice: 'the member id (U…; profile → ⋮ → Copy member ID)' },
  mattermost: { keys: lower, handles: false, idShape: (e) => /^[a-z0-9]{26}$/i.test(e), advice: 'the 26-character user id (System Console → Users, or /api/v4/users/username/<name>)' },
  matrix: { keys: lower, handles: false, idShape: (e) => /^@[^:\s]+:\S+$/.test(e), advice: 'the full user id, @name:server' },
  signal: { keys: (id) => [phoneKey(id)], handles: false, idShape: (e) => PHONE.test(e) || UUID.test(e), advice: 'the phone number (+E.164) or the account UUID' },
  whatsapp: { keys: whatsappKeys, handles: false, idShape: (e) => PHONE.test(e) || /^\+?\d+(:\d+)?@(s\.whatsapp\.net|c\.us|lid)$/i.test(e), advice: 'the phone number with country code' },
  whatsapp_cloud: { keys: (id) => [phoneKey(id)], handles: false, idShape: (e) => PHONE.test(e), advice: 'the phone number with country code' },
  sms: { keys: (id) => [phoneKey(id)], handles: false, idShape: (e) => PHONE.test(e), advice: 'the phone number in E.164 (+15551234567)' },
  email: { keys: (id) => [id.trim().toLowerCase().replace(/^mailto:/, '')], handles: false, idShape: (e) => EMAIL.test(e), advice: 'the sender address (alice@example.com), without a display name' },
  bluebubbles: { keys: (id) => [phoneKey(id)], handles: false, idShape: (e) => PHONE.test(e) || EMAIL.test(e), advice: 'the phone number (+E.164) or Apple ID address' },
  irc: { keys: lower, handles: false, idShape: (e) => /^[^\s!@]+(@[^\s@]+)?$/.test(e), advice: 'the services account name (NickServ/SASL), or nick@host as the server shows it' },
  teams: { keys: lower, handles: false, idShape: (e) => UUID.test(e) || /^\d+:\S+$/.test(e), advice: 'the Azure AD object id (a GUID) or the 29:… user id' },
  google_chat: { keys: lower, handles: false, idShape: (e) => EMAIL.test(e) || /^users\/\d+$/.test(e), advice: 'the e-mail address of the Google account, or users/<number>' },
  line: { keys: lower, handles: false, idShape: (e) => /^U[0-9a-f]{32}$/i.test(e), advice: 'the LINE user id (U and 32 hex digits)' },
  feishu: { keys: lower, handles: false, idShape: (e) => /^o[un]_\w+$/.test(e), advice: 'the open id (ou_…)' },
};

const DEFAULT_RULE: IdentityRule = { keys: lower, handles: false, advice: 'the platform’s user id' };

/** `@name`: a username entry (no `:` or second `@`, so a Matrix id or an address is never one). */
const HANDLE = /^@[A-Za-z0-9_.]+$/;

let pluginRules: ((platform: string) => Partial<IdentityRule> | undefined) | null = null;

/** Where rules of platforms from plugins come from (the registry; set by auth.ts). */
export function setPluginIdentityRules(f: (platform: string) => Partial<IdentityRule> | undefined): void {
  pluginRules = f;
}

export function identityRule(platform: string): IdentityRule {
  const own = IDENTITY_RULES[platform];
  if (own) return own;
  const p = pluginRules?.(platform);
  return p ? { ...DEFAULT_RULE, ...p, handles: p.handles === true && !!p.idShape } : DEFAULT_RULE;
}

/** Whether one allowlist / pairing entry names the sender. `*` matches everyone. */
export function entryMatches(entry: string, source: Pick<SessionSource, 'platform' | 'userId' | 'userIdAlt' | 'userHandle'>, o: { handles?: boolean } = {}): boolean {
  const e = entry.trim();
  if (!e) return false;
  if (e === '*') return true;
  const rule = identityRule(source.platform);
  if (HANDLE.test(e) && rule.handles) {
    if (o.handles === false) return false;
    const h = source.userHandle?.replace(/^@/, '').toLowerCase();
    return !!h && h === e.slice(1).toLowerCase();
  }
  const want = rule.keys(e);
  for (const id of [source.userId, source.userIdAlt]) {
    if (!id) continue;
    if (rule.keys(id).some((k) => k && want.includes(k))) return true;
  }
  return false;
}

/**
 * The one identity check: whether any entry of `list` names the sender. Pairing lists pass
 * `handles: false` (they hold ids only).
 */
export function identityMatches(list: readonly string[], source: Pick<SessionSource, 'platform' | 'userId' | 'userIdAlt' | 'userHandle'>, o: { handles?: boolean } = {}): boolean {
  if (!source.userId && !list.includes('*')) return false;
  return list.some((x) => entryMatches(x, source, o));
}

/** Entries of a list that can never match on `platform` (a display name, a bare username…). */
export function unmatchableEntries(platform: string, list: readonly string[]): string[] {
  const rule = identityRule(platform);
  if (!rule.idShape) return [];
  return list.filter((e) => e !== '*' && !(rule.handles && HANDLE.test(e)) && !rule.idShape!(e.trim()));
}
