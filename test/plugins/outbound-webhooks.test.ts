// test-timeout: 60
// Outbound webhooks (hooks.outbound): a delivery to a local server checked with an independent
// HMAC implementation (written here from the wire spec, not our signer), retries on 503 but not on
// 400, the delivery log, our inbound webhook verifying the same scheme (tampered body, stale
// timestamp), and the real binary delivering on_session_end after a one-shot.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '../../src/gateway/platforms/webhook.ts';
import { deliver, deliveryLogPath, parseOutbound, type OutboundTarget } from '../../src/plugins/outbound-webhooks.ts';
import { chatHarness } from '../helpers/chat-harness.ts';
import { hermes } from '../helpers/cli.ts';

const SECRET = 'out-secret-ẞ-42';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

/** The receiver's check, from the spec: sha256=hex(HMAC-SHA256(secret, ts + "." + raw body)), ts within 300 s. */
function independentVerify(secret: string, headers: IncomingHttpHeaders, raw: string): boolean {
  const ts = String(headers['x-hermes-timestamp'] ?? '');
  const sig = String(headers['x-hermes-signature-v2'] ?? '');
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const want = Buffer.from('sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.concat([Buffer.from(ts + '.', 'utf8'), Buffer.from(raw, 'utf8')])).digest('hex'));
  const got = Buffer.from(sig);
  return got.length === want.length && timingSafeEqual(got, want);
}

describe('outbound webhooks', () => {
  let server: Server;
  let base: string;
  const got: Received[] = [];
  const script: number[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-outbound-'));

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        got.push({ headers: req.headers, body, verified: independentVerify(SECRET, req.headers, body) });
        res.writeHead(script.shift() ?? 200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const target = (path: string, secret: string | undefined = SECRET): OutboundTarget => ({ url: `${base}${path}?token=hidden`, events: ['on_session_end'], name: '', secret, timeoutS: 5 });

  it('a delivery is signed: an independent HMAC check accepts it; tampering is caught', async () => {
    got.length = 0;
    const rec = await deliver(target('/hook'), 'on_session_end', { hook_event_name: 'on_session_end', session_id: 's1' }, { home, retryBaseMs: 5 });
    assert.equal(rec.ok, true, rec.error);
    assert.equal(got.length, 1);
    const r = got[0];
    assert.ok(r.verified, 'the V2 signature verifies independently');
    assert.equal(r.headers['x-hermes-signature-256'], 'sha256=' + createHmac('sha256', SECRET).update(r.body).digest('hex'));
    assert.equal(r.headers['x-hermes-event'], 'on_session_end');
    assert.equal(r.headers['x-hermes-schema-version'], '1');
    assert.equal(r.headers['user-agent'], 'Hermes-Agent-Outbound-Webhook/1');
    const body = JSON.parse(r.body);
    assert.equal(body.delivery_id, r.headers['x-hermes-delivery']);
    assert.equal(body.session_id, 's1');
    assert.equal(body.schema_version, 1);
    assert.equal(independentVerify(SECRET, r.headers, r.body.replace('s1', 's2')), false, 'a changed body fails');
    assert.equal(independentVerify('other', r.headers, r.body), false, 'another secret fails');
  });

  it('503 twice then 200: delivered once after 3 attempts with one delivery id; the log says so', async () => {
    got.length = 0;
    script.push(503, 503, 200);
    const rec = await deliver(target('/flaky'), 'on_session_end', { session_id: 's2' }, { home, retryBaseMs: 5 });
    assert.equal(rec.ok, true);
    assert.equal(rec.attempts, 3);
    assert.equal(got.length, 3);
    assert.equal(new Set(got.map((g) => g.headers['x-hermes-delivery'])).size, 1, 'retries keep the delivery id');
    assert.ok(got.every((g) => g.verified));
    const lines = readFileSync(deliveryLogPath(home), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const last = lines[lines.length - 1];
    assert.equal(last.attempts, 3);
    assert.equal(last.status, 200);
    assert.equal(last.ok, true);
    assert.equal(last.url, `${base}/flaky`, 'no query string in the log');
    assert.equal(typeof last.duration_ms, 'number');
    const log = readFileSync(deliveryLogPath(home), 'utf8');
    assert.ok(!log.includes(SECRET) && !log.includes('hidden') && !log.includes('s2'), 'no secret, query or body in the log');
    assert.equal(statSync(deliveryLogPath(home)).mode & 0o777, 0o600);
  });

  it('400 is not retried; 5xx gives up after 3 attempts; a refused connection is retried', async () => {
    got.length = 0;
    script.push(400);
    const bad = await deliver(target('/bad'), 'on_session_end', {}, { home, retryBaseMs: 5 });
    assert.deepEqual([bad.ok, bad.attempts, bad.status, got.length], [false, 1, 400, 1]);
    got.length = 0;
    script.push(500, 502, 503);
    const down = await deliver(target('/down'), 'on_session_end', {}, { home, retryBaseMs: 5 });
    assert.deepEqual([down.ok, down.attempts, down.status, got.length], [false, 3, 503, 3]);
    const closed = await deliver({ ...target('/'), url: 'http://127.0.0.1:1/x' }, 'on_session_end', {}, { home, retryBaseMs: 5 });
    assert.equal(closed.attempts, 3);
    assert.match(closed.error ?? '', /network error/);
    const meta = await deliver({ ...target('/'), url: 'http://169.254.169.254/latest' }, 'on_session_end', {}, { home, retryBaseMs: 5 });
    assert.deepEqual([meta.ok, meta.attempts], [false, 0]);
    assert.match(meta.error ?? '', /metadata/);
  });

  it('config: inline secrets are refused, a missing secret_ref disables the target, bad entries are named', () => {
    const warns: string[] = [];
    const t = parseOutbound(
      [
        { url: 'https://a.example/h', events: ['on_session_end'], secret_ref: 'OUT_SECRET', name: 'ci' },
        { url: 'https://b.example/h', events: ['on_session_end'], secret: 'inline' },
        { url: 'https://c.example/h', events: ['on_session_end'], secret_env: 'NOT_SET_ANYWHERE' },
        { url: 'ftp://d.example/h', events: ['on_session_end'] },
        { url: 'https://e.example/h', events: ['on_sesion_end'] },
      ],
      { OUT_SECRET: 'xyz' },
      (w) => warns.push(w),
    );
    assert.deepEqual(t.map((x) => [x.name, x.secret]), [['ci', 'xyz']]);
    assert.equal(warns.length, 5, warns.join('\n'));
    assert.match(warns.join('\n'), /inline secrets are not accepted/);
    assert.match(warns.join('\n'), /NOT_SET_ANYWHERE is not set; target disabled/);
  });

  it('our inbound webhook verifies the same scheme: good passes, tampered body and stale timestamp fail', () => {
    const body = '{"hook_event_name":"on_session_end"}';
    const now = Math.floor(Date.now() / 1000);
    const sign = (ts: number, b: string) => ({ 'x-hermes-timestamp': String(ts), 'x-hermes-signature-v2': 'sha256=' + createHmac('sha256', SECRET).update(`${ts}.${b}`).digest('hex') });
    assert.deepEqual(verifySignature(SECRET, Buffer.from(body), sign(now, body), now), { ok: true, method: 'hermes-v2' });
    assert.equal(verifySignature(SECRET, Buffer.from(body.replace('end', 'End')), sign(now, body), now).ok, false);
    const stale = verifySignature(SECRET, Buffer.from(body), sign(now - 301, body), now);
    assert.equal(stale.ok, false);
    assert.match((stale as { reason: string }).reason, /5-minute window/);
    assert.equal(verifySignature(SECRET, Buffer.from(body), { ...sign(now, body), 'x-hermes-timestamp': String(now + 1) }, now).ok, false, 'the timestamp is bound into the signature');
    const v1 = { 'x-hermes-signature-256': 'sha256=' + createHmac('sha256', SECRET).update(body).digest('hex') };
    assert.deepEqual(verifySignature(SECRET, Buffer.from(body), v1, now), { ok: true, method: 'hermes' });
  });

  describe('through the binary', () => {
    const { enqueue, home: chatHome } = chatHarness();
    it('a one-shot delivers a signed on_session_end before exiting', async () => {
      got.length = 0;
      const h = chatHome(`hooks:\n  outbound:\n    - url: ${base}/session\n      events: [on_session_end]\n      secret_ref: HERMES_OUTBOUND_WEBHOOK_SECRET\n      name: ci-notify\n`);
      appendFileSync(join(h, '.env'), `HERMES_OUTBOUND_WEBHOOK_SECRET=${SECRET}\n`);
      enqueue({ text: 'hello there' });
      const r = await hermes(['chat', '-q', 'hi'], { home: h });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /hello there/);
      const ends = got.filter((g) => g.headers['x-hermes-event'] === 'on_session_end');
      assert.equal(ends.length, 1, `deliveries: ${got.map((g) => g.headers['x-hermes-event']).join(',')}`);
      assert.ok(ends[0].verified, 'signed with the secret from HERMES_HOME/.env');
      const body = JSON.parse(ends[0].body);
      assert.equal(body.hook_event_name, 'on_session_end');
      assert.ok(body.session_id, 'names the session');
      const log = readFileSync(join(h, 'logs', 'outbound_webhooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual([log[0].target, log[0].ok, log[0].attempts, log[0].status], ['ci-notify', true, 1, 200]);
      const l = await hermes(['hooks', 'list'], { home: h });
      assert.equal(l.code, 0, l.stderr);
      assert.match(l.stdout, new RegExp(`Outbound webhooks \\(hooks\\.outbound, 1\\):\\n  - ci-notify ${base.replace(/\./g, '\\.')}/session  \\[on_session_end\\] \\(timeout=10s, signed\\)`));
      assert.ok(!l.stdout.includes(SECRET));
    });
  });
});
