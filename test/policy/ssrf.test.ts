import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkUrl, classifyAddress, normalizeIPv4, privateUrlsAllowed } from '../../src/policy/ssrf.ts';
import { writeDenied } from '../../src/policy/write-safety.ts';

const noDns = async () => {
  throw new Error('no DNS in this test');
};
const dns = (table: Record<string, string[]>) => async (h: string) => {
  if (!(h in table)) throw new Error(`ENOTFOUND ${h}`);
  return table[h];
};

describe('SSRF address rules', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    'fd00:ec2::254',
    'ff02::1',
  ];
  for (const ip of blocked) it(`blocks ${ip}`, () => assert.equal(classifyAddress(ip).blocked, true));
  for (const ip of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e'])
    it(`allows ${ip}`, () => assert.equal(classifyAddress(ip).blocked, false));

  it('normalizes decimal, hex and octal IPv4 forms', () => {
    assert.equal(normalizeIPv4('2130706433'), '127.0.0.1');
    assert.equal(normalizeIPv4('0x7f000001'), '127.0.0.1');
    assert.equal(normalizeIPv4('0177.0.0.1'), '127.0.0.1');
    assert.equal(normalizeIPv4('127.1'), '127.0.0.1');
    assert.equal(normalizeIPv4('0x7f.1'), '127.0.0.1');
    assert.equal(normalizeIPv4('example.com'), null);
  });
});

describe('checkUrl', () => {
  const opts = { allowPrivate: false, lookup: noDns };
  const urls = [
    'http://127.0.0.1/',
    'http://localhost:8080/',
    'http://LOCALHOST./x',
    'http://foo.localhost/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fe80::1%25eth0]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/admin',
  ];
  for (const u of urls)
    it(`blocks ${u}`, async () => {
      const v = await checkUrl(u, opts);
      assert.equal(v.ok, false);
      if (!v.ok) assert.match(v.reason, /HERMES_ALLOW_PRIVATE_URLS|not a valid URL/);
    });

  it('blocks DNS names that resolve to loopback or private addresses (any of them)', async () => {
    const lookup = dns({ 'evil.test': ['93.184.216.34', '127.0.0.1'], 'rebind.test': ['10.0.0.7'], 'v6.test': ['::1'], 'ok.test': ['93.184.216.34'] });
    for (const h of ['evil.test', 'rebind.test', 'v6.test']) {
      const v = await checkUrl(`https://${h}/`, { allowPrivate: false, lookup });
      assert.equal(v.ok, false, h);
    }
    const ok = await checkUrl('https://ok.test/page', { allowPrivate: false, lookup });
    assert.equal(ok.ok, true);
  });

  it('resolves real names: localhost through the system resolver is blocked', async () => {
    const { lookup } = await import('node:dns/promises');
    const real = async (h: string) => (await lookup(h, { all: true })).map((a) => a.address);
    const v = await checkUrl('http://localhost.:1/', { allowPrivate: false, lookup: real });
    assert.equal(v.ok, false);
  });

  it('rejects other schemes and embedded credentials', async () => {
    assert.equal((await checkUrl('file:///etc/passwd', opts)).ok, false);
    assert.equal((await checkUrl('ftp://example.com/', opts)).ok, false);
    assert.equal((await checkUrl('gopher://127.0.0.1:6379/_', opts)).ok, false);
    assert.equal((await checkUrl('http://user:pw@93.184.216.34/', opts)).ok, false);
    assert.equal((await checkUrl('not a url', opts)).ok, false);
  });

  it('allows everything when private URLs are opted in', async () => {
    assert.equal((await checkUrl('http://127.0.0.1:9/', { allowPrivate: true, lookup: noDns })).ok, true);
    assert.equal(privateUrlsAllowed({ HERMES_ALLOW_PRIVATE_URLS: '1' }), true);
    assert.equal(privateUrlsAllowed({}), false);
    assert.equal(privateUrlsAllowed({}, { security: { allow_private_urls: true } }), true);
    assert.equal(privateUrlsAllowed({ HERMES_ALLOW_PRIVATE_URLS: '0' }, { security: { allow_private_urls: true } }), false);
  });
});

describe('write safety', () => {
  const home = mkdtempSync(join(tmpdir(), 'ws-home-'));
  const hermesHome = join(home, '.hermes');
  const ctx = { userHome: home, hermesHome };
  it('denies credentials, shell start-up files, .env files and Hermes state', () => {
    for (const p of [
      join(home, '.ssh/authorized_keys'),
      join(home, '.ssh'),
      join(home, '.aws/credentials'),
      join(home, '.bashrc'),
      join(home, '.netrc'),
      join(hermesHome, '.env'),
      join(hermesHome, 'auth.json'),
      join(hermesHome, 'config.yaml'),
      '/etc/passwd',
      '/etc/sudoers.d/x',
      '/project/.env',
      '/project/.env.local',
      '/project/.env.production',
    ])
      assert.ok(writeDenied(p, ctx), p);
  });
  it('allows ordinary files and .env templates', () => {
    for (const p of [join(home, 'project/app.ts'), join(home, 'project/.env.example'), join(hermesHome, 'skills/x/SKILL.md'), '/tmp/x.txt'])
      assert.equal(writeDenied(p, ctx), null, p);
  });
  it('sees through symlinks of existing parents', () => {
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const link = join(home, 'innocent');
    symlinkSync(join(home, '.ssh'), link);
    assert.ok(writeDenied(join(link, 'authorized_keys'), ctx));
  });
  it('confines writes to HERMES_WRITE_SAFE_ROOT', () => {
    const root = join(home, 'sandbox');
    mkdirSync(root, { recursive: true });
    assert.equal(writeDenied(join(root, 'a/b.txt'), { ...ctx, safeRoot: root }), null);
    assert.match(writeDenied(join(home, 'elsewhere.txt'), { ...ctx, safeRoot: root }) ?? '', /HERMES_WRITE_SAFE_ROOT/);
    assert.ok(writeDenied(join(root, '../escape.txt'), { ...ctx, safeRoot: root }));
  });
});
