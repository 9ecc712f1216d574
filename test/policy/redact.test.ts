import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactionEnabled, redactResult, redactSecrets } from '../../src/policy/redact.ts';

// Each entry: text containing a secret, and the secret that must not survive.
const SECRETS: [string, string][] = [
  ['OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789'],
  ['key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789-abc in text', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789-abc'],
  ['sk-or-v1-0123456789abcdef0123456789abcdef', 'sk-or-v1-0123456789abcdef0123456789abcdef'],
  ['token: ghp_0123456789abcdefghijABCDEFGHIJ012345', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
  ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
  ['SLACK_BOT_TOKEN=xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
  ['xoxp-1234567890-abcdefghij', 'xoxp-1234567890-abcdefghij'],
  ['aws_access_key_id = AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
  ['aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['ASIAY34FZKBOKMUTVV7A is temporary', 'ASIAY34FZKBOKMUTVV7A'],
  ['Authorization: Bearer abcdef0123456789abcdef0123456789', 'abcdef0123456789abcdef0123456789'],
  ['curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ['authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA=='],
  ['bearer token_abcdefgh12345678', 'token_abcdefgh12345678'],
  ['password=hunter2', 'hunter2'],
  ['PASSWORD="correct horse"', 'correct'],
  ['db_password: s3cr3tPassw0rd', 's3cr3tPassw0rd'],
  ['https://api.example.com/v1?key=AbC123xyz&x=1', 'AbC123xyz'],
  ['https://example.com/cb?access_token=ya29.a0AfH6SMBx&state=1', 'ya29.a0AfH6SMBx'],
  ['token=0123456789abcdef', '0123456789abcdef'],
  ['{"api_key": "live_abcdef123456", "model": "x"}', 'live_abcdef123456'],
  ["{'client_secret': 'GOCSPX-abcdefghijklmno'}", 'GOCSPX-abcdefghijklmno'],
  ['postgres://admin:SuperSecret99@db.internal:5432/app', 'SuperSecret99'],
  ['https://user:tok3n@github.com/org/repo.git', 'tok3n'],
  ['-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nabcdef\n-----END RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7bq'],
  ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAA'],
  ['AIzaSyA-0123456789abcdefghijklmnopqrstu', 'AIzaSyA-0123456789abcdefghijklmnopqrstu'],
  ['sk_live_51H0123456789abcdefghij', 'sk_live_51H0123456789abcdefghij'],
  ['hf_abcdefghijklmnopqrstuvwxyz012345', 'hf_abcdefghijklmnopqrstuvwxyz012345'],
  ['TAVILY_API_KEY=tvly-dev-0123456789abcdef', 'tvly-dev-0123456789abcdef'],
  ['fc-0123456789abcdef0123456789abcdef', 'fc-0123456789abcdef0123456789abcdef'],
  ['npm_0123456789abcdefghijABCDEFGHIJ0123', 'npm_0123456789abcdefghijABCDEFGHIJ0123'],
  ['glpat-abcdefghij0123456789', 'glpat-abcdefghij0123456789'],
  ['TELEGRAM_BOT_TOKEN=123456789:AAE0123456789abcdefghijklmnopqrstuv', '123456789:AAE0123456789abcdefghijklmnopqrstuv'],
  ['123456789:AAE0123456789abcdefghijklmnopqrstuv', 'AAE0123456789abcdefghijklmnopqrstuv'],
  ['export GITHUB_TOKEN=gho_abcdefghij0123456789', 'gho_abcdefghij0123456789'],
  ['MY_SERVICE_SECRET=plainvalue123', 'plainvalue123'],
  ['gsk_abcdefghijklmnopqrstuvwxyz0123', 'gsk_abcdefghijklmnopqrstuvwxyz0123'],
  ['xai-abcdefghijklmnopqrstuvwxyz0123456789', 'xai-abcdefghijklmnopqrstuvwxyz0123456789'],
  ['api-key: 9f8e7d6c5b4a39281706', '9f8e7d6c5b4a39281706'],
];

// Ordinary text that must come through unchanged.
const INNOCENT = [
  'max_tokens=4096',
  'total tokens: 1234',
  'KEYBOARD=us',
  'the password field is required',
  'monkey=banana',
  'git commit -m "add token refresh"',
  'function getToken() { return process.env.API_TOKEN }',
  'API_KEY=${OPENAI_API_KEY}',
  'password=$DB_PASSWORD',
  'key: app',
  'sk-short',
  'https://example.com/path?page=2&sort=asc',
  'ls -la /home/user/.ssh',
  'Bearer',
  'user@example.com',
];

describe('redactSecrets', () => {
  it(`removes all ${SECRETS.length} secret shapes`, () => {
    const leaked = SECRETS.filter(([text, secret]) => redactSecrets(text).includes(secret)).map(([t]) => [t, redactSecrets(t)]);
    assert.deepEqual(leaked, []);
  });

  it('keeps ordinary text unchanged', () => {
    const changed = INNOCENT.filter((t) => redactSecrets(t) !== t).map((t) => [t, redactSecrets(t)]);
    assert.deepEqual(changed, []);
  });

  it('is idempotent; a mask shows at most 4 characters of the secret (after its public type prefix)', () => {
    const once = redactSecrets('OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789');
    assert.equal(redactSecrets(once), once);
    assert.equal(once, 'OPENAI_API_KEY=sk-proj-...6789');
    assert.equal(redactSecrets('GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345'), 'GITHUB_TOKEN=ghp_...2345');
    assert.equal(redactSecrets('custom_password: correcthorsebatterystaple'), 'custom_password: ...aple');
    // Short secrets show nothing (they used to keep 10 characters at 18).
    assert.equal(redactSecrets('db_password: s3cr3tPassw0rd'), 'db_password: ***');
    assert.equal(redactSecrets('DB_PASSWORD=abcdefghijklmnopqr'), 'DB_PASSWORD=...opqr');
    for (const [text, secret] of SECRETS) {
      // Whatever is left of each secret in its mask is at most 4 characters (after a known type prefix).
      const out = redactSecrets(text);
      const body = secret.replace(/^(sk-(proj-|ant-api03-|or-v1-)?|ghp_|github_pat_|xox[bp]-|AKIA|ASIA|AIza|sk_live_|hf_|tvly-dev-|fc-|npm_|glpat-|gho_|gsk_|xai-)/, '');
      for (let i = 0; i + 5 <= body.length; i++) {
        const piece = body.slice(i, i + 5);
        if (out.includes(piece) && !text.replace(secret, '').includes(piece)) assert.fail(`${JSON.stringify(piece)} of ${secret} survived in ${out}`);
      }
    }
    for (const [t] of SECRETS) assert.equal(redactSecrets(redactSecrets(t)), redactSecrets(t), t);
  });

  it('is switched by HERMES_REDACT_SECRETS and security.redact_secrets', () => {
    assert.equal(redactionEnabled({}), true);
    assert.equal(redactionEnabled({ HERMES_REDACT_SECRETS: 'false' }), false);
    assert.equal(redactionEnabled({ HERMES_REDACT_SECRETS: '0' }), false);
    assert.equal(redactionEnabled({ HERMES_REDACT_SECRETS: '1' }, { security: { redact_secrets: false } }), true);
    assert.equal(redactionEnabled({}, { security: { redact_secrets: false } }), false);
  });

  it('redacts JSON tool results value by value, keeping them valid JSON', () => {
    const raw = JSON.stringify({ output: 'API_KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"\ntoken=abc123def', exit_code: 0 });
    const out = redactResult(raw);
    const parsed = JSON.parse(out);
    assert.doesNotMatch(out, /abcdefghijklmnopqrstuvwxyz0123|abc123def/);
    assert.equal(parsed.exit_code, 0);
    assert.match(parsed.output, /^API_KEY = "sk-proj-\.\.\.0123"\ntoken=\*\*\*$/);
    assert.equal(redactResult('{"ok": true}'), '{"ok": true}', 'unchanged results keep their exact text');
    assert.equal(redactResult('plain password=hunter2'), 'plain password=***');
  });
});

describe('secrets behind a rendered line number (read_file, grep -n, cat -n)', () => {
  it('masks config values after 12|, 12:, path:12:, path-12- and cat -n gutters', () => {
    const lines = [
      '7|custom_password: hunter2hunter2',
      '8|  api_key: abcdef0123456789',
      '12:db_password=s3cr3t',
      'config.yaml:3:custom_password: hunter2hunter2',
      'config.yaml-4-  secret: t0ps3cr3t',
      '     9\tPASSWORD=letmein',
      '10|"password": "in-json-value"',
      '11|export GH_PAT=plainvalue123',
    ];
    const out = redactSecrets(lines.join('\n'));
    for (const s of ['hunter2hunter2', 'abcdef0123456789', 's3cr3t', 't0ps3cr3t', 'letmein', 'in-json-value', 'plainvalue123']) assert.ok(!out.includes(s), `${s} survived:\n${out}`);
    assert.match(out, /^7\|custom_password: \*\*\*$/m);
    assert.match(out, /^config\.yaml:3:custom_password: \*\*\*$/m);
    assert.equal(redactSecrets(out), out);
  });

  it('leaves numbered ordinary lines alone', () => {
    const plain = ['1|model: gpt-5', '2|max_tokens: 4096', '3:key: app', 'src/a.ts:10:const tokenCount = 3;', '    4\tpassword_file: /run/secrets/db', '5|approvals:', '6|  mode: manual'].join('\n');
    assert.equal(redactSecrets(plain), plain);
  });
});

describe('secrets named like password/secret/token in YAML, INI and env text', () => {
  const YAML = [
    'database:',
    '  host: db.internal',
    '  password: hunter2hunter2',
    '  db_password: "s3cr3t value"',
    '  dbPassword: camelCaseSecret',
    '  admin-pass: pa55word',
    '  api_token: tok_live_123456',
    "  client_secret: 'c1i3nt-s3cr3t'",
    '  token: 123456',
    '  signing_key: abcdefabcdef',
    '  password: my long pass phrase  # rotated monthly',
    '- secret: listed-secret-value',
  ].join('\n');
  const INI = ['[database]', 'password = hunter2', 'Password=Hunter2', 'passwd: x1y2z3', 'secret = my secret with spaces', 'auth_token = abcdef ; from vault'].join('\n');
  const ENV = ['export DB_PASSWORD=hunter2', 'MYSQL_ROOT_PASSWORD="root pass"', "SESSION_SECRET='abc def ghi'", 'PASS=x', 'SECRET_KEY_BASE=0123456789abcdef0123456789abcdef', 'DEPLOY_KEY=k-123'].join('\n');
  const SECRETS_IN = ['hunter2hunter2', 's3cr3t value', 'camelCaseSecret', 'pa55word', 'tok_live_123456', 'c1i3nt-s3cr3t', '123456', 'abcdefabcdef', 'my long pass phrase', 'listed-secret-value', 'hunter2', 'Hunter2', 'x1y2z3', 'my secret with spaces', 'root pass', 'abc def ghi', '0123456789abcdef0123456789abcdef', 'k-123'];

  it('masks every such value, whole, whatever the format', () => {
    const out = redactSecrets([YAML, INI, ENV].join('\n'));
    for (const s of SECRETS_IN) assert.ok(!out.includes(s), `${s} survived:\n${out}`);
    // Names, structure and comments stay.
    assert.match(out, /^ {2}password: \*\*\* {2}# rotated monthly$/m);
    assert.match(out, /^auth_token = \*\*\* ; from vault$/m);
    assert.match(out, /^export DB_PASSWORD=\*\*\*$/m);
    assert.match(out, /^ {2}host: db\.internal$/m);
  });

  it('is idempotent and leaves look-alikes alone', () => {
    const text = [YAML, INI, ENV].join('\n');
    assert.equal(redactSecrets(redactSecrets(text)), redactSecrets(text));
    const plain = [
      'max_tokens: 4096',
      'token_count: 12',
      'TOKEN_URL=https://auth.example.com/token',
      'password_file: /run/secrets/db',
      'SECRET_NAME=prod-db-credentials',
      'key: app',
      'secret:',
      '  rotation: 30d',
      'PWD=/home/me/project',
      'password_required: true',
      'token: ${GITHUB_TOKEN}',
      'password: <set me>',
      'bypass: false',
    ].join('\n');
    assert.equal(redactSecrets(plain), plain);
  });
});
