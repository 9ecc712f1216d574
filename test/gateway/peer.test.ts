// `hermes peer` (Hermes 0.21) and the API server's session resource API it drives: two homes on
// loopback — home A registers home B's gateway as a peer and DMs its Bot Chat through the real
// binary; a bad key is refused; the hop count travels with a DM into the peer's commands and a
// ping-pong is cut off on both sides.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const KEY = 'sk-peer-b-key-0123456789';

describe('hermes peer and /api/sessions', () => {
  let llm: FakeLlm;
  let b: TestHome;
  let gw: RunningGateway;
  let base: string;
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, json: (await r.json()) as Record<string, any> };
  };

  before(async () => {
    llm = await startFakeLlm();
    b = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: KEY } });
    gw = await runGateway({ home: b.home, config: b.config, env: b.env, cron: false, backgroundTasks: false });
    const port = (gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number }).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  test('the session API: create, find by title, chat, messages, rename, delete; keys and bad input refused', async () => {
    assert.equal((await fetch(`${base}/api/sessions`)).status, 401, 'no key, no sessions');
    const made = await api('POST', '/api/sessions', { id: 'api_test_1', title: 'Planning', system_prompt: 'SECRET-SYSTEM' });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    assert.equal(made.json.session.id, 'api_test_1');
    assert.equal(made.json.session.has_system_prompt, true);
    assert.ok(!JSON.stringify(made.json).includes('SECRET-SYSTEM'), 'the system prompt is never sent back');
    assert.equal((await api('POST', '/api/sessions', { id: 'api_test_1' })).status, 409);
    assert.equal((await api('POST', '/api/sessions', { title: 'Planning' })).json.error.code, 'invalid_title');
    assert.equal((await api('POST', '/api/sessions', { id: '../etc' })).json.error.code, 'invalid_session_id');
    const byTitle = await api('GET', `/api/sessions?title=${encodeURIComponent('Planning')}`);
    assert.deepEqual(byTitle.json.data.map((s: { id: string }) => s.id), ['api_test_1']);
    assert.deepEqual((await api('GET', '/api/sessions?title=Plan')).json.data, [], 'the title must match exactly');

    llm.enqueue({ text: 'Noted: ship on Friday.' });
    const chat = await api('POST', '/api/sessions/api_test_1/chat', { message: 'We ship Friday.' });
    assert.equal(chat.status, 200, JSON.stringify(chat.json));
    assert.equal(chat.json.message.content, 'Noted: ship on Friday.');
    assert.equal(chat.json.session_id, 'api_test_1');
    assert.match(String(llm.requests.at(-1)!.body.messages[0].content), /SECRET-SYSTEM/, 'the stored system prompt is the turn’s');
    llm.enqueue({ text: 'You said Friday.' });
    await api('POST', '/api/sessions/api_test_1/chat', { message: 'When do we ship?' });
    const sent = llm.requests.at(-1)!.body.messages.map((m: { content: unknown }) => m.content);
    assert.ok(sent.includes('We ship Friday.'), 'the second turn carries the first');
    const msgs = await api('GET', '/api/sessions/api_test_1/messages');
    assert.deepEqual(msgs.json.data.map((m: { role: string }) => m.role), ['user', 'assistant', 'user', 'assistant']);

    assert.equal((await api('PATCH', '/api/sessions/api_test_1', { title: 'Release' })).json.session.title, 'Release');
    assert.equal((await api('PATCH', '/api/sessions/api_test_1', { model: 'x' })).json.error.code, 'unsupported_session_field');
    assert.equal((await api('GET', '/api/sessions/nope')).status, 404);
    assert.equal((await api('DELETE', '/api/sessions/api_test_1')).json.deleted, true);
    assert.equal((await api('GET', '/api/sessions/api_test_1')).status, 404);
  });

  test('peer add / list / dm / remove through the binary; the Bot Chat is reused; a bad key is refused', async () => {
    const a = tempHome('hermes-peer-a-');
    let r = await hermes(['peer', 'add', 'bravo', '--url', base, '--key', KEY, '--note', 'the build box'], { home: a });
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(join(a, '.env'), 'utf8'), new RegExp(`^HERMES_PEER_BRAVO_KEY=${KEY}$`, 'm'));
    const yaml = readFileSync(join(a, 'config.yaml'), 'utf8');
    assert.match(yaml, /bot_peers:\s*\n\s+bravo:\s*\n\s+url: http:\/\/127\.0\.0\.1:\d+/);
    assert.ok(!yaml.includes(KEY), 'the key is not in config.yaml');
    r = await hermes(['peer', 'list'], { home: a });
    assert.match(r.stdout, /bravo\s+http:\/\/127\.0\.0\.1:\d+\s+— the build box/);
    assert.ok(!r.stdout.includes(KEY), 'list never prints the key');

    llm.enqueue({ text: 'Hello from bravo.' });
    r = await hermes(['peer', 'dm', 'bravo', 'hi', 'there'], { home: a });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'Hello from bravo.');
    llm.enqueue({ text: 'Second answer.' });
    r = await hermes(['peer', 'dm', 'bravo', '-q', 'again'], { home: a });
    assert.equal(r.stdout.trim(), 'Second answer.');
    const chats = (await api('GET', `/api/sessions?title=${encodeURIComponent('Bot Chat')}`)).json.data;
    assert.equal(chats.length, 1, 'one Bot Chat, found again by title');
    const shown = (await api('GET', `/api/sessions/${chats[0].id}/messages`)).json.data.map((m: { content: string }) => m.content);
    assert.deepEqual(shown, ['hi there', 'Hello from bravo.', 'again', 'Second answer.'], 'the exchange is in the peer’s transcript');

    const wrong = tempHome('hermes-peer-wrong-');
    await hermes(['peer', 'add', 'bravo', '--url', base, '--key', 'wrong-key'], { home: wrong });
    r = await hermes(['peer', 'dm', 'bravo', 'x'], { home: wrong });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused the key \(401\)/);
    r = await hermes(['peer', 'dm', 'nobody', 'x'], { home: a });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /No peer named "nobody"/);

    r = await hermes(['peer', 'remove', 'bravo'], { home: a });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(readFileSync(join(a, '.env'), 'utf8'), /HERMES_PEER_BRAVO_KEY/);
    assert.doesNotMatch(readFileSync(join(a, 'config.yaml'), 'utf8'), /bravo/);
  });

  test('the hop count reaches the peer’s commands, and a ping-pong is cut off on both sides', async () => {
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo hops=$HERMES_PEER_HOPS' } }] }, { text: 'checked' });
    const s = (await api('POST', '/api/sessions', { title: 'Hops' })).json.session;
    const r = await api('POST', `/api/sessions/${s.id}/chat`, { message: 'how far?' }, { 'x-hermes-peer-hops': '2' });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const tool = llm.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'tool');
    assert.match(String(tool?.content), /hops=2/, 'a DM back from this turn would count on from 2');
    const loop = await api('POST', `/api/sessions/${s.id}/chat`, { message: 'again' }, { 'x-hermes-peer-hops': '5' });
    assert.equal(loop.status, 508);
    assert.equal(loop.json.error.code, 'peer_loop');

    const a = tempHome('hermes-peer-loop-');
    await hermes(['peer', 'add', 'bravo', '--url', base, '--key', KEY], { home: a });
    const before = llm.requests.length;
    const c = await hermes(['peer', 'dm', 'bravo', 'ping'], { home: a, env: { HERMES_PEER_HOPS: '4' } });
    assert.equal(c.code, 1);
    assert.match(c.stderr, /Not sent: this conversation has already crossed 3 bot-to-bot hops/);
    assert.equal(llm.requests.length, before, 'nothing reached the peer');
  });
});
