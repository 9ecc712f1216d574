// Secret redaction for tool output, logs and anything else a model or a file might see. Pure.
// `redactSecrets(text)` masks known key shapes (sk-…, ghp_…, xoxb-…, AKIA…, JWTs, PEM private
// keys), bearer/basic credentials, URL passwords and the values of secret-named assignments
// (`API_KEY=…`, `token: …`, `"password": "…"`, `?access_token=…`), also behind a rendered line
// number (`12|…` from read_file, `12:…`/`file:12:…` from grep -n, `    12\t…` from cat -n). A mask
// shows at most the last 4 characters of a secret (after the key's public type prefix such as
// `sk-proj-` or `ghp_`), so a person can tell which key it was; shorter secrets become `***`.
// Redacting twice changes nothing.

/** Known token shapes; each starts with a literal prefix. */
const TOKEN_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-](?:\.?[A-Za-z0-9_-]){9,}/g, // OpenAI, Anthropic (sk-ant-…), OpenRouter (sk-or-…), DeepSeek, …
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{10,}/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{10,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bxapp-\d+-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\bAIza[A-Za-z0-9_-]{30,}/g, // Google
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g, // Stripe
  /\bSG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // SendGrid
  /\bhf_[A-Za-z0-9]{10,}/g, // Hugging Face
  /\br8_[A-Za-z0-9]{10,}/g, // Replicate
  /\bnpm_[A-Za-z0-9]{10,}/g,
  /\bpypi-[A-Za-z0-9_-]{10,}/g,
  /\bgl(?:pat|dt|rt|cbt|ptt|ft|oas)-[A-Za-z0-9_.-]{10,}/g, // GitLab
  /\btvly-[A-Za-z0-9_-]{10,}/g, // Tavily
  /\bexa_[A-Za-z0-9]{10,}/g,
  /\bfc-[A-Za-z0-9]{10,}/g, // Firecrawl
  /\bpplx-[A-Za-z0-9]{10,}/g,
  /\bgsk_[A-Za-z0-9]{10,}/g, // Groq
  /\bxai-[A-Za-z0-9]{20,}/g,
  /\bfal_[A-Za-z0-9_-]{10,}/g,
  /\bdop_v1_[A-Za-z0-9]{10,}/g,
  /\bbb_live_[A-Za-z0-9_-]{10,}/g,
  /\bntn_[A-Za-z0-9]{10,}/g,
  /\bsk_[A-Za-z0-9]{24,}/g, // ElevenLabs
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
  /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g, // Telegram bot token
  /\bsyt_[A-Za-z0-9_]{10,}/g, // Matrix access token
  /\bdoo_v1_[A-Za-z0-9]{10,}/g, // DigitalOcean OAuth
  /\bam_(?:org_)?[A-Za-z0-9]{20,}/g, // AgentMail
  /\bfw[-_][A-Za-z0-9]{30,}/g, // Fireworks
  /\bfpk_[A-Za-z0-9]{30,}/g,
  /\bgAAAA[A-Za-z0-9_=-]{20,}/g, // Codex encrypted tokens
  /\bpk-lf-[A-Za-z0-9-]{8,}/g, // Langfuse public key (sk-lf- is an sk- key)
  /\bgl(?:rtr|imt|agent|soat|ffct|wt)-[A-Za-z0-9_.-]{10,}/g, // more GitLab token families
  /\bGR1348941[A-Za-z0-9_-]{10,}/g, // GitLab legacy runner registration
];

/** A known token's public type prefix (kept in its mask: it tells what kind of key it was, and is no part of the secret). */
const TYPE_PREFIX =
  /^(?:sk-(?:ant-(?:api\d\d-|oat\d\d-)?|proj-|or-v\d-|or-|svcacct-|admin-)?|gh[pousr]_|github_pat_|xox[abposr]-|xapp-|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|AIza|(?:sk|rk|pk)_(?:live|test)_|SG\.|hf_|r8_|npm_|pypi-|gl(?:pat|dt|rt|cbt|ptt|ft|oas|rtr|imt|agent|soat|ffct|wt)-|tvly-(?:dev-)?|exa_|fc-|pplx-|gsk_|xai-|fal_|dop_v1_|doo_v1_|bb_live_|ntn_|sk_|eyJ|syt_|am_(?:org_)?|fw[-_]|fpk_|gAAAA|pk-lf-)/;

/** Any of TOKEN_PATTERNS (one scan; the passes run only when a token may be there). */
const ANY_TOKEN = new RegExp(TOKEN_PATTERNS.map((re) => `(?:${re.source})`).join('|'));

const PEM = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;
const AUTH_HEADER = /\b((?:proxy-)?authorization\s*[:=]\s*["']?)(bearer|basic|token|bot|digest|apikey)?(\s*)([^\s"',;]+)/gi;
const BEARER = /\b(bearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s@/]+)(@)/gi;

/** Words that make a name a secret's wherever they appear in it (`dbPassword`, `SECRET_KEY_BASE`). */
const SECRET_WORDS = new Set(['password', 'passwd', 'pass', 'passphrase', 'pwd', 'secret', 'secrets', 'token', 'credential', 'credentials', 'apikey']);
/** A last word that makes the value something else: a path, URL, name, size, … (`TOKEN_URL`, `password_file`). */
const NOT_SECRET_LAST = new Set([
  'url', 'uri', 'file', 'path', 'dir', 'name', 'id', 'type', 'endpoint', 'expiry', 'expires', 'expiration', 'ttl', 'length', 'len', 'count',
  'limit', 'max', 'min', 'header', 'prefix', 'suffix', 'format', 'method', 'mode', 'enabled', 'required', 'policy', 'size', 'timeout',
  'hint', 'label', 'env', 'var', 'field', 'param', 'version', 'algorithm', 'alg', 'location', 'host', 'user', 'username', 'rotation',
]);
/** `…_key` is a secret's name after these words (`api_key`, `private_key`); a bare `key:` is common YAML. */
const KEY_OWNERS = new Set(['api', 'access', 'private', 'secret', 'client', 'master', 'encryption', 'signing', 'license', 'service', 'account', 'app', 'auth', 'session', 'webhook']);

/**
 * Whether `name` names a secret. `strong`: for `name: value` (YAML, headers, prose), where only
 * unambiguous names count; `name=value` (env, INI) also takes `key`, `auth`, `signature`, `pat`.
 */
function secretName(name: string, strong: boolean): boolean {
  const parts = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[_.-]+/).filter(Boolean);
  if (!parts.length || name === 'PWD' || name === 'OLDPWD') return false;
  const last = parts[parts.length - 1];
  if (parts.length > 1 && NOT_SECRET_LAST.has(last)) return false;
  if (parts.some((p) => SECRET_WORDS.has(p))) return !['max', 'min', 'num', 'total'].includes(parts[0]);
  if (last === 'key' || last === 'apikey') return !strong || last === 'apikey' || (parts.length > 1 && KEY_OWNERS.has(parts[parts.length - 2]));
  return !strong && ['auth', 'signature', 'sig', 'pat'].includes(last);
}

/**
 * A whole `name: value` / `name = value` / `NAME=value` line (YAML, INI, .env, shell exports):
 * the value runs to the end of the line (less a trailing comment), spaces and all.
 */
const LINE = /^([ \t]*(?:(?:[^\s:|]+[:-])?\d{1,9}(?:[|:-]|\t)[ \t]*)?(?:-[ \t]+)?(?:export[ \t]+)?)([A-Za-z_][A-Za-z0-9_.-]{0,80})([ \t]*[:=][ \t]*)(\S[^\n]*)$/gm;
/** A line's value → the value itself, and a trailing comment with the spaces before it. */
const VALUE_AND_COMMENT = /^(.*?)((?:[ \t]+[#;][^\n]*)?[ \t\r]*)$/s;

const VALUE = `"([^"\\n]*)"|'([^'\\n]*)'|([^\\s"'&,;<>]+)`;
const ASSIGN = new RegExp(`(^|[^A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,80})([ \\t]*=[ \\t]*)(?:${VALUE})`, 'g');
const COLON = new RegExp(`(^|[\\s{,(|])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,80})\\2([ \\t]*:[ \\t]*)(?:${VALUE.replace('&,;<>', ',;}<>')})`, 'g');

/** Rebuilds `value` in the quoting it had, masked. */
function requote(dq: string | undefined, sq: string | undefined, bare: string | undefined, mask: (v: string) => string): string {
  if (dq !== undefined) return `"${mask(dq)}"`;
  if (sq !== undefined) return `'${mask(sq)}'`;
  return mask(bare ?? '');
}

const MASKED = /^(\*{3}|[A-Za-z0-9_.-]{0,16}\.\.\.\S{4}|\[REDACTED\])$/;

function isPlaceholder(v: string): boolean {
  return (
    MASKED.test(v) ||
    /^\W*$/.test(v) ||
    /^\$\{?[A-Za-z_]/.test(v) ||
    /^(os\.(getenv|environ)|process\.env|env\(|getenv|<|%|\{\{)/.test(v) ||
    /^(true|false|null|none|nil|undefined|yes|no|""|''|required|optional|string|str|int|number|bool|boolean)$/i.test(v)
  );
}

/**
 * Masks one secret value. Shorter than 18 characters: `***`. Longer: its public type prefix when it
 * is a known kind of key (`sk-proj-`, `ghp_`, …), `...`, and its last 4 characters — never more than
 * 4 characters of the secret itself.
 */
export function maskSecret(value: string): string {
  if (value.length < 18) return '***';
  const prefix = TYPE_PREFIX.exec(value)?.[0] ?? '';
  return `${prefix.length <= value.length - 14 ? prefix : ''}...${value.slice(-4)}`;
}

/** Whether `text` contains a known API-key/token shape (sk-…, ghp_…, AKIA…, a JWT…). */
export function hasKnownToken(text: string): boolean {
  return TOKEN_PATTERNS.some((re) => {
    re.lastIndex = 0;
    const hit = re.test(text);
    re.lastIndex = 0;
    return hit;
  });
}

/** Redacts secrets in `text`. Pure and idempotent. */
export function redactSecrets(text: string): string {
  if (!text) return text;
  let out = text;
  out = out.replace(PEM, (_m, kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----\n[REDACTED]\n-----END ${kind}PRIVATE KEY-----`);
  // A match followed by `...` is the type prefix of a mask already made (`sk-ant-api03-...abcd`).
  if (ANY_TOKEN.test(out)) for (const re of TOKEN_PATTERNS) out = out.replace(re, (m: string, ...rest: unknown[]) => (out.startsWith('...', (rest[rest.length - 2] as number) + m.length) ? m : maskSecret(m)));
  out = out.replace(AUTH_HEADER, (m, pre: string, scheme: string | undefined, sp: string, val: string) =>
    isPlaceholder(val) ? m : `${pre}${scheme ?? ''}${sp}${maskSecret(val)}`,
  );
  out = out.replace(BEARER, (m, pre: string, val: string) => (isPlaceholder(val) ? m : `${pre}${maskSecret(val)}`));
  out = out.replace(URL_PASSWORD, (m, pre: string, pw: string, at: string) => (isPlaceholder(pw) ? m : `${pre}***${at}`));
  // The passes below need a name and a `:` or `=` (nothing to do in most log lines and plain output).
  if (!out.includes(':') && !out.includes('=')) return out;
  out = out.replace(LINE, (m, lead: string, name: string, sep: string, rest: string) => {
    if (!secretName(name, sep.includes(':'))) return m;
    const [, value, comment] = VALUE_AND_COMMENT.exec(rest)!;
    const q = /^(["'])(.*)\1,?$/.exec(value);
    const inner = q ? q[2] : value;
    // A mapping or list opens on this line (`secret:` then nested keys, `password: {`): not a value.
    if (!inner || isPlaceholder(inner) || /^[{[|>&*!]/.test(inner)) return m;
    // A value with spaces is masked whole (a partial mask would read as a new value to the passes below).
    const mask = (v: string) => (/\s/.test(v) ? '***' : maskSecret(v));
    const masked = q ? value.replace(q[2], mask(q[2])) : mask(value);
    return `${lead}${name}${sep}${masked}${comment}`;
  });
  out = out.replace(ASSIGN, (m, lead: string, name: string, eq: string, dq?: string, sq?: string, bare?: string) => {
    const val = dq ?? sq ?? bare ?? '';
    if (!secretName(name, false) || !val || isPlaceholder(val)) return m;
    return `${lead}${name}${eq}${requote(dq, sq, bare, maskSecret)}`;
  });
  out = out.replace(COLON, (m, lead: string, nq: string, name: string, sep: string, dq?: string, sq?: string, bare?: string) => {
    const val = dq ?? sq ?? bare ?? '';
    if (!secretName(name, true) || !val || isPlaceholder(val)) return m;
    return `${lead}${nq}${name}${nq}${sep}${requote(dq, sq, bare, maskSecret)}`;
  });
  return out;
}

const FALSY = new Set(['0', 'false', 'no', 'off']);

/** HERMES_REDACT_SECRETS (default on) and `security.redact_secrets` (default true). */
export function redactionEnabled(env: NodeJS.ProcessEnv, config?: { security?: { redact_secrets?: boolean } }): boolean {
  const v = env.HERMES_REDACT_SECRETS?.trim().toLowerCase();
  if (v !== undefined && v !== '') return !FALSY.has(v);
  return config?.security?.redact_secrets !== false;
}

/**
 * Redacts a tool result. JSON results are redacted value by value (so masks never break the JSON
 * escaping); anything else as text.
 */
export function redactResult(content: string): string {
  const t = content.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const walk = (v: unknown): unknown => {
        if (typeof v === 'string') return redactSecrets(v);
        if (Array.isArray(v)) return v.map(walk);
        if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
        return v;
      };
      const parsed = JSON.parse(content) as unknown;
      const out = JSON.stringify(walk(parsed));
      return out === JSON.stringify(parsed) ? content : out;
    } catch {
      /* not JSON after all */
    }
  }
  return redactSecrets(content);
}
