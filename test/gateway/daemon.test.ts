// The gateway as a user runs it: `hermes gateway run|start|stop|status` as real processes, against
// the fake Telegram Bot API and the fake LLM. A graceful restart mid-conversation and a crash
// mid-turn never produce a duplicate reply, even when Telegram redelivers every update.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway } from '../../src/gateway/daemon.ts';
import { BIN, cleanEnv, hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, routeTitles, until } from './helpers.ts';

const OWNER = 111;
const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));

function spawnGateway(home: string, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: home, env: cleanEnv(home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

describe('gateway daemon', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let q: ReturnType<typeof routeTitles>;
  const children: ChildProcess[] = [];

  before(async () => {
    llm = await startFakeLlm();
    q = routeTitles(llm);
    tg = await startFakeTelegram();
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await tg.close();
    await llm.close();
  });

  const envFor = (): Record<string, string> => ({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), HERMES_RESTART_DRAIN_TIMEOUT: '20', MESSAGING_CWD: '/tmp' });

  test('no platform configured: one clear error', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const r = await hermes(['gateway', 'run'], { home: t.home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hermes: No messaging platform is configured\. Run `hermes gateway setup`/);
    assert.doesNotMatch(r.stderr, /\n {4}at /);
  });

  test('a configuration that can never serve (public API server without a key, nothing else): exit 1 with the reason', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const r = await hermes(['gateway', 'run'], { home: t.home, env: { API_SERVER_ENABLED: 'true', API_SERVER_HOST: '0.0.0.0', API_SERVER_PORT: '0' } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /hermes: No platform can start, so the gateway is not running:\n {2}api_server: API server: refusing to bind 0\.0\.0\.0 without API_SERVER_KEY/);
    assert.doesNotMatch(r.stderr, /gateway: running/);
    assert.equal(existsSync(join(t.home, 'gateway.pid')), false);
    const st = await hermes(['gateway', 'status', '--json'], { home: t.home });
    assert.equal(JSON.parse(st.stdout).running, false);
  });

  test('the API server answers unknown paths with a JSON 404, as OpenAI clients expect', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const g = spawnGateway(t.home, { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: 'k-123456' });
    children.push(g.child);
    await until(() => /api_server: listening on http:\/\/127\.0\.0\.1:\d+/.test(g.output()), 15_000, 'the API server');
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(g.output())![1];
    for (const [method, path] of [['GET', '/v1/nope'], ['GET', '/v1/chat/completions'], ['POST', '/v2/chat'], ['GET', '/']] as const) {
      const r = await fetch(base + path, { method, headers: { authorization: 'Bearer k-123456' } });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      const body = (await r.json()) as { error: { code: string; type: string; message: string } };
      assert.equal(body.error.code, 'not_found');
      assert.equal(body.error.type, 'invalid_request_error');
      assert.ok(body.error.message.startsWith(`No route ${method} ${path}.`), body.error.message);
    }
    g.child.kill('SIGTERM');
    assert.equal(await g.exited, 0);
  });

  test('a rejected Telegram token is not retried forever either', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const r = await hermes(['gateway', 'run'], { home: t.home, env: { ...envFor(), TELEGRAM_BOT_TOKEN: '999:wrong' } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /telegram: Telegram rejected TELEGRAM_BOT_TOKEN \(HTTP 401\)/);
  });

  test('one platform that cannot start does not stop the others; status shows it as failed', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const g = spawnGateway(t.home, { ...envFor(), API_SERVER_ENABLED: 'true', API_SERVER_HOST: '0.0.0.0', API_SERVER_PORT: '0' });
    children.push(g.child);
    await until(() => /gateway(\.run)?: running; connected: telegram/.test(g.output()), 15_000, 'the gateway to run');
    assert.match(g.output(), /api_server: cannot start: API server: refusing to bind/);
    const st = await hermes(['gateway', 'status'], { home: t.home });
    assert.match(st.stdout, /api_server\s+failed — API server: refusing to bind/);
    assert.match(st.stdout, /telegram\s+connected/);
    g.child.kill('SIGTERM');
    assert.equal(await g.exited, 0);
  });

  test('a graceful restart mid-turn finishes the turn and never answers twice', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const env = envFor();
    const since = tg.nextUpdateId();
    const first = spawnGateway(t.home, env);
    children.push(first.child);
    await until(() => tg.pollers() > 0, 15_000, 'the gateway to poll');
    q.enqueue({ text: 'Answer one.' });
    tg.userMessage({ chatId: OWNER, text: 'question one' });
    await tg.waitFor(isText(OWNER, /Answer one/), 10_000, 'answer one');

    q.enqueue({ text: 'Answer two, after a while.', delayMs: 1500 });
    tg.userMessage({ chatId: OWNER, text: 'question two' });
    await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages).includes('question two')), 10_000, 'request two');
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    assert.ok(tg.calls.some(isText(OWNER, /Answer two/)), 'the running turn finished during the drain');
    assert.ok(!existsSync(join(t.home, 'gateway.pid')), 'the PID file is removed');
    assert.match(readFileSync(join(t.home, 'logs', 'gateway.log'), 'utf8'), /draining \(1 running turn/);

    // Telegram redelivers everything of this conversation; the new process must not answer again.
    tg.forgetConfirmations(since);
    const requestsBefore = llm.requests.length;
    const second = spawnGateway(t.home, env);
    children.push(second.child);
    await until(() => tg.pollers() > 0, 15_000, 'the restarted gateway to poll');
    q.enqueue({ text: 'Answer three.' });
    tg.userMessage({ chatId: OWNER, text: 'question three' });
    await tg.waitFor(isText(OWNER, /Answer three/), 10_000, 'answer three');
    assert.equal(tg.calls.filter(isText(OWNER, /Answer one/)).length, 1);
    assert.equal(tg.calls.filter(isText(OWNER, /Answer two/)).length, 1);
    const turns = (from: number) => llm.requests.slice(from).filter((r) => !String(r.body.messages?.[0]?.content).startsWith('You name conversations'));
    assert.equal(turns(requestsBefore).length, 1, 'only the new message reached the model');
    const convo = JSON.stringify(turns(requestsBefore)[0].body.messages);
    assert.ok(convo.includes('question one') && convo.includes('Answer two'), 'the conversation continues from the store');
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  test('a crash mid-turn: after the restart the message is answered once (the model sees it once), no notice; a message that dies twice gets the notice', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const env = envFor();
    const g = spawnGateway(t.home, env);
    children.push(g.child);
    await until(() => tg.pollers() > 0, 15_000, 'the gateway to poll');
    q.enqueue({ text: 'never delivered', hang: true });
    const since = tg.nextUpdateId();
    tg.userMessage({ chatId: OWNER, text: 'question that dies' });
    await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages).includes('question that dies')), 30_000, 'the doomed request');
    g.child.kill('SIGKILL');
    await g.exited;
    tg.forgetConfirmations(since);
    const before = llm.requests.length;
    // The delivery ledger took the message before the crash: the restarted gateway answers it.
    q.enqueue({ text: 'answered after the restart' });
    const g2 = spawnGateway(t.home, env);
    children.push(g2.child);
    await tg.waitFor(isText(OWNER, /answered after the restart/), 60_000, 'the answer after the restart');
    // Turn requests only (they offer tools): a title request may quote the message too.
    const rerun = llm.requests.slice(before).filter((r) => Array.isArray(r.body.tools) && JSON.stringify(r.body.messages).includes('question that dies'));
    assert.equal(rerun.length, 1, 'run again exactly once');
    assert.equal(JSON.stringify(rerun[0].body.messages).split('question that dies').length - 1, 1, 'the model sees the message once');
    assert.equal(tg.calls.filter(isText(OWNER, /restarted before it finished/)).length, 0, 'no notice');
    assert.equal(tg.calls.filter(isText(OWNER, /answered after the restart/)).length, 1, 'answered once');

    // The loop guard: a message in flight at two crashes gets the notice instead of a third try.
    q.enqueue({ text: 'never delivered', hang: true });
    const since2 = tg.nextUpdateId();
    tg.userMessage({ chatId: OWNER, text: 'poison question' });
    await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages).includes('poison question')), 30_000, 'the poison request');
    g2.child.kill('SIGKILL');
    await g2.exited;
    tg.forgetConfirmations(since2);
    const seen = () => llm.requests.filter((r) => Array.isArray(r.body.tools) && JSON.stringify(r.body.messages).includes('poison question')).length;
    q.enqueue({ text: 'never delivered', hang: true });
    const g3 = spawnGateway(t.home, env);
    children.push(g3.child);
    await until(() => seen() >= 2, 60_000, 'the poison message run again once');
    g3.child.kill('SIGKILL');
    await g3.exited;
    tg.forgetConfirmations(since2);
    const tries = seen();
    const g4 = spawnGateway(t.home, env);
    children.push(g4.child);
    await tg.waitFor(isText(OWNER, /restarted before it finished/), 60_000, 'the notice');
    await until(() => tg.pollers() > 0, 15_000, 'polling');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(seen(), tries, 'not run a third time');
    assert.equal(tg.calls.filter(isText(OWNER, /restarted before it finished/)).length, 1);
    g4.child.kill('SIGTERM');
    await g4.exited;
  });

  test('start, status, a second gateway refused, stop', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const env = envFor();
    const start = await hermes(['gateway', 'start'], { home: t.home, env, timeoutMs: 40_000 });
    assert.equal(start.code, 0, start.stderr + start.stdout);
    assert.match(start.stdout, /Gateway started in the background \(pid \d+\)/);
    const pid = JSON.parse(readFileSync(join(t.home, 'gateway.pid'), 'utf8')).pid as number;
    const status = await hermes(['gateway', 'status'], { home: t.home, env });
    assert.match(status.stdout, new RegExp(`Gateway: running \\(pid ${pid}`));
    assert.match(status.stdout, /telegram\s+connected/);
    const again = await hermes(['gateway', 'run'], { home: t.home, env });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already running/);
    const stop = await hermes(['gateway', 'stop'], { home: t.home, env, timeoutMs: 40_000 });
    assert.equal(stop.code, 0);
    assert.match(stop.stdout, new RegExp(`Gateway stopped \\(pid ${pid}\\)`));
    const after = await hermes(['gateway', 'status'], { home: t.home, env });
    assert.match(after.stdout, /Gateway: not running/);
  });

  test('a platform that fails keeps reconnecting in the background while the others serve', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { ...envFor(), API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', HERMES_GATEWAY_CONNECT_TIMEOUT: '2' } });
    // Telegram down (5xx) is worth retrying, unlike a rejected token (above). grammy retries 5xx
    // itself with doubling delays, so six failures outlast the 2 s connect timeout of the first try.
    tg.failNext('getMe', 6, 502, 'Bad Gateway');
    const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false, backoff: () => 1500 });
    try {
      const api = gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number };
      assert.equal(gw.supervisor.status.get('api_server')?.state, 'connected');
      assert.notEqual(gw.supervisor.status.get('telegram')?.state, 'connected');
      q.enqueue({ text: 'api still works' });
      const r = await fetch(`http://127.0.0.1:${api.port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: 'hi' }] }) });
      assert.equal(((await r.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content, 'api still works');
      await until(() => gw.supervisor.status.get('telegram')?.state === 'connected', 10_000, 'telegram to reconnect');
      const state = JSON.parse(readFileSync(join(t.home, 'gateway_state.json'), 'utf8'));
      assert.equal(state.platforms.telegram.state, 'connected');
      assert.match(readFileSync(join(t.home, 'logs', 'gateway.log'), 'utf8'), /telegram: could not connect: no connection within 2s/);
    } finally {
      await gw.shutdown();
    }
  });
});
