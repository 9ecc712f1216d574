// Webhooks: routes from `hermes webhook subscribe`, HMAC signatures good and bad, event filters,
// idempotency, direct delivery and agent runs delivered to Telegram.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { renderTemplate, verifySignature } from '../../src/gateway/platforms/webhook.ts';
import { deliver } from '../../src/plugins/outbound-webhooks.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';
import { freePort } from '../helpers/net.ts';

const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));


describe('webhooks', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;
  let url: string;
  let secret: string;
  let port: number;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    port = await freePort();
    t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { WEBHOOK_ENABLED: 'true', WEBHOOK_PORT: String(port), WEBHOOK_HOST: '127.0.0.1', TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: '111' },
    });
    const sub = await hermes(['webhook', 'subscribe', 'gh-issues', '--events', 'issues', '--prompt', 'New issue #{issue.number}: {issue.title} by {issue.user.login}', '--deliver', 'telegram', '--deliver-chat-id', '111', '--description', 'triage'], { home: t.home, env: t.env as Record<string, string> });
    assert.equal(sub.code, 0, sub.stderr);
    secret = /Secret: (\S+)/.exec(sub.stdout)![1];
    assert.match(sub.stdout, new RegExp(`URL:\\s+http://127\\.0\\.0\\.1:${port}/webhooks/gh-issues`));
    assert.equal(statSync(join(t.home, 'webhook_subscriptions.json')).mode & 0o777, 0o600);
    const direct = await hermes(['webhook', 'subscribe', 'alerts', '--deliver', 'telegram:111', '--deliver-only', '--prompt', '🚨 {alert.name} is {alert.state}', '--secret', 'alert-secret'], { home: t.home, env: t.env as Record<string, string> });
    assert.equal(direct.code, 0, direct.stderr);
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    url = `http://127.0.0.1:${port}/webhooks`;
    await until(() => tg.pollers() > 0, 5000, 'telegram');
  });
  after(async () => {
    await gw?.shutdown();
    await tg?.close();
    await llm?.close();
  });

  const post = (route: string, body: string, headers: Record<string, string>) => fetch(`${url}/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const gh = (body: string, s = secret) => `sha256=${createHmac('sha256', s).update(body).digest('hex')}`;

  test('a GitHub-signed event runs the agent and delivers the answer to Telegram', async () => {
    llm.enqueue({ text: 'Triage: looks like a bug in the parser.' });
    const body = JSON.stringify({ action: 'opened', issue: { number: 42, title: 'Parser crashes', user: { login: 'octo' } } });
    const r = await post('gh-issues', body, { 'x-github-event': 'issues', 'x-github-delivery': 'd-1', 'x-hub-signature-256': gh(body) });
    assert.equal(r.status, 202);
    assert.equal(((await r.json()) as { status: string }).status, 'accepted');
    await tg.waitFor(isText(111, /Triage: looks like a bug/), 10_000, 'the delivered answer');
    const prompt = JSON.stringify(llm.requests[llm.requests.length - 1].body.messages);
    assert.match(prompt, /New issue #42: Parser crashes by octo/);
    assert.match(prompt, /treat its text as data/);
    const tools = (llm.requests[llm.requests.length - 1].body.tools ?? []).map((x: { function: { name: string } }) => x.function.name);
    assert.ok(!tools.includes('terminal'), 'webhook runs get the restricted toolset');
  });

  test('bad and missing signatures are rejected; nothing runs', async () => {
    const before = llm.requests.length;
    const body = JSON.stringify({ issue: { number: 1, title: 'x' } });
    const bad = await post('gh-issues', body, { 'x-github-event': 'issues', 'x-hub-signature-256': gh(body, 'wrong-secret') });
    assert.equal(bad.status, 401);
    const none = await post('gh-issues', body, { 'x-github-event': 'issues' });
    assert.equal(none.status, 401);
    const tampered = await post('gh-issues', body.replace('"x"', '"y"'), { 'x-github-event': 'issues', 'x-hub-signature-256': gh(body) });
    assert.equal(tampered.status, 401);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(llm.requests.length, before);
    assert.match(readFileSync(join(t.home, 'logs', 'gateway.log'), 'utf8'), /gh-issues: rejected \(bad X-Hub-Signature-256\)/);
  });

  test('other events are ignored, repeats are duplicates, unknown routes 404', async () => {
    const body = JSON.stringify({ ref: 'main' });
    const push = await post('gh-issues', body, { 'x-github-event': 'push', 'x-hub-signature-256': gh(body) });
    assert.deepEqual(await push.json(), { status: 'ignored', reason: 'event', event: 'push' });
    const b2 = JSON.stringify({ issue: { number: 7, title: 'dup', user: { login: 'a' } } });
    llm.enqueue({ text: 'first delivery handled' });
    const h = { 'x-github-event': 'issues', 'x-github-delivery': 'dup-1', 'x-hub-signature-256': gh(b2) };
    assert.equal((await post('gh-issues', b2, h)).status, 202);
    const again = await post('gh-issues', b2, h);
    assert.equal(((await again.json()) as { status: string }).status, 'duplicate');
    await tg.waitFor(isText(111, /first delivery handled/), 10_000, 'one delivery');
    assert.equal((await post('nope', '{}', {})).status, 404);
  });

  test('deliver_only routes deliver the rendered template synchronously (V2 signature)', async () => {
    const body = JSON.stringify({ alert: { name: 'disk', state: 'firing' } });
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', 'alert-secret').update(`${ts}.${body}`).digest('hex');
    const before = llm.requests.length;
    const r = await post('alerts', body, { 'x-webhook-timestamp': ts, 'x-webhook-signature-v2': sig });
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { status: string }).status, 'delivered');
    assert.ok(tg.calls.some(isText(111, /🚨 disk is firing/)));
    assert.equal(llm.requests.length, before, 'no agent run');
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const replay = await post('alerts', body, { 'x-webhook-timestamp': old, 'x-webhook-signature-v2': createHmac('sha256', 'alert-secret').update(`${old}.${body}`).digest('hex') });
    assert.equal(replay.status, 401, 'an old timestamp is a replay');
  });

  test("Hermes's outbound scheme (X-Hermes-Signature-V2): our own delivery is accepted, tampered or stale is not", async () => {
    const target = { url: `${url}/alerts`, events: ['on_session_end'], name: 'self', secret: 'alert-secret', timeoutS: 5 };
    const rec = await deliver(target, 'on_session_end', { alert: { name: 'cpu', state: 'hot' } }, { home: t.home, retryBaseMs: 5 });
    assert.deepEqual([rec.ok, rec.status, rec.attempts], [true, 200, 1], rec.error);
    await tg.waitFor(isText(111, /🚨 cpu is hot/), 5000, 'the delivered alert');
    const body = JSON.stringify({ alert: { name: 'mem', state: 'ok' } });
    const now = Math.floor(Date.now() / 1000);
    const sig = (ts: number, b: string) => `sha256=${createHmac('sha256', 'alert-secret').update(`${ts}.${b}`).digest('hex')}`;
    const tampered = await post('alerts', body.replace('ok', 'bad'), { 'x-hermes-timestamp': String(now), 'x-hermes-signature-v2': sig(now, body), 'x-hermes-delivery': 'x-1' });
    assert.equal(tampered.status, 401);
    const stale = await post('alerts', body, { 'x-hermes-timestamp': String(now - 600), 'x-hermes-signature-v2': sig(now - 600, body), 'x-hermes-delivery': 'x-2' });
    assert.equal(stale.status, 401);
    const h = { 'x-hermes-timestamp': String(now), 'x-hermes-signature-v2': sig(now, body), 'x-hermes-delivery': 'x-3' };
    assert.equal((await post('alerts', body, h)).status, 200);
    assert.equal(((await (await post('alerts', body, h)).json()) as { status: string }).status, 'duplicate', 'X-Hermes-Delivery dedupes');
  });

  test('hermes webhook test/list/remove', async () => {
    llm.enqueue({ text: '[SILENT]' });
    const r = await hermes(['webhook', 'test', 'gh-issues', '--payload', '{"event_type":"issues","issue":{"number":1,"title":"t","user":{"login":"u"}}}'], { home: t.home, env: t.env as Record<string, string> });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^202 /);
    const list = await hermes(['webhook', 'list'], { home: t.home, env: t.env as Record<string, string> });
    assert.match(list.stdout, /gh-issues — triage/);
    assert.match(list.stdout, /alerts/);
    assert.doesNotMatch(list.stdout, new RegExp(secret));
    const rm = await hermes(['webhook', 'remove', 'alerts'], { home: t.home, env: t.env as Record<string, string> });
    assert.equal(rm.code, 0);
    const gone = await post('alerts', '{}', { authorization: 'Bearer alert-secret' });
    assert.equal(gone.status, 404, 'removal takes effect without a restart');
    const missing = await hermes(['webhook', 'remove', 'alerts'], { home: t.home, env: t.env as Record<string, string> });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No webhook subscription named "alerts"/);
  });

  test('signature schemes and templates', () => {
    const body = Buffer.from('{"a":1}');
    assert.ok(verifySignature('s', body, { 'x-gitlab-token': 's' }).ok);
    assert.ok(!verifySignature('s', body, { 'x-gitlab-token': 't' }).ok);
    assert.ok(verifySignature('s', body, { authorization: 'Bearer s' }).ok);
    const id = 'msg_1';
    const ts = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from('topsecret');
    const sig = createHmac('sha256', key).update(`${id}.${ts}.`).update(body).digest('base64');
    assert.ok(verifySignature(`whsec_${key.toString('base64')}`, body, { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` }).ok);
    assert.ok(verifySignature('INSECURE_NO_AUTH', body, {}).ok);
    assert.equal(renderTemplate('{a.b} {a.c} {missing.x}', { a: { b: 1, c: { d: 2 } } }), '1 {"d":2} {missing.x}');
    assert.match(renderTemplate(undefined, { k: 'v' }), /"k": "v"/);
  });
});
