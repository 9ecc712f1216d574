// send_message is offered when any chat platform is configured (the platform catalog decides, for
// every built-in platform), and deciding that loads no platform adapter or SDK.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configuredChatPlatforms } from '../../src/gateway/platforms/catalog.ts';
import { platformEnabled } from '../../src/gateway/config.ts';
import { listPlatforms } from '../../src/gateway/platforms/registry.ts';
import { hermes, ROOT, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startFakeTelegram } from '../helpers/fake-telegram.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const MATRIX = { MATRIX_HOMESERVER: 'https://matrix.example.org', MATRIX_ACCESS_TOKEN: 'syt_secret' };

function home(extra = ''): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: m\n  api_key: k\n${extra}`);
  return h;
}

const toolNames = (r: RecordedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);

describe('send_message availability', () => {
  it('a Matrix account in the environment makes send_message available; switched off, it is not', async () => {
    const on = await hermes(['status'], { home: home(), env: MATRIX });
    assert.equal(on.code, 0, on.stderr);
    assert.doesNotMatch(on.stdout, /send_message unavailable/);
    const off = await hermes(['status'], { home: home('platforms:\n  matrix:\n    enabled: false\n'), env: MATRIX });
    assert.match(off.stdout, /send_message unavailable: needs a messaging platform: none is configured/);
  });

  it('Slack tokens in config.yaml count too (both the bot and the app token)', async () => {
    const both = await hermes(['status'], { home: home('platforms:\n  slack:\n    bot_token: xoxb-1\n    app_token: xapp-1\n') });
    assert.doesNotMatch(both.stdout, /send_message unavailable/);
    const half = await hermes(['status'], { home: home('platforms:\n  slack:\n    bot_token: xoxb-1\n') });
    assert.match(half.stdout, /send_message unavailable/);
  });

  it('the one-shot offers send_message for a configured Matrix without loading the Matrix SDK or any adapter', async () => {
    const h = home();
    const record = join(h, 'modules.txt');
    fake.enqueue({ text: 'hi' });
    const before = fake.requests.length;
    const r = await hermes(['chat', '-q', 'hello'], {
      home: h,
      env: { ...MATRIX, NODE_OPTIONS: `--import ${join(ROOT, 'test/helpers/record-modules.mjs')}`, HERMES_RECORD_MODULES: record },
    });
    assert.equal(r.code, 0, r.stderr);
    const req = fake.requests[before];
    const catalog = JSON.stringify(req.body.tools);
    // Offered directly, or listed behind tool_search with the rest of its toolset.
    assert.ok(toolNames(req).includes('send_message') || catalog.includes('send_message'), `send_message not offered: ${toolNames(req).join(',')}`);
    const mods = readFileSync(record, 'utf8').split('\n');
    assert.ok(mods.includes('node:http'), 'the recorder sees the imports of the run');
    assert.ok(!mods.some((m) => m === 'matrix-js-sdk' || m.startsWith('matrix-js-sdk/')), 'matrix-js-sdk loaded');
    // From the sources the adapters are their own modules: none of them (nor the router) loads.
    const adapters = mods.filter((m) => /(^|\/)platforms\/builtin\.ts$|(^|\/)gateway\/delivery\.ts$|^\.\/matrix\.ts$/.test(m));
    assert.deepEqual(adapters, []);
  });

  it('the catalog and the adapters agree on which platforms are configured', () => {
    const h = tempHome();
    mkdirSync(join(h, 'weixin', 'accounts'), { recursive: true });
    writeFileSync(join(h, 'weixin', 'accounts', 'bot1.json'), JSON.stringify({ token: 'saved-token' }));
    const env = {
      ...MATRIX,
      HERMES_HOME: h,
      TELEGRAM_BOT_TOKEN: '1:x',
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_PHONE_NUMBER: '+15550001111',
      LINE_CHANNEL_ACCESS_TOKEN: 'a',
      LINE_CHANNEL_SECRET: 'b',
      TEAMS_CLIENT_ID: 'id',
      TEAMS_CLIENT_SECRET: 'secret',
      WEIXIN_ACCOUNT_ID: 'bot1',
    };
    const config = {
      platforms: { mattermost: { url: 'https://mm.example.org', token: 't' }, telegram: { enabled: false }, feishu: { app_id: 'cli_1', app_secret: 's' }, wecom: { bot_id: 'b', secret: '   ' } },
      irc: { server: 'irc.example.org', nick: 'hermes' },
    };
    const fromCatalog = configuredChatPlatforms(env, config).sort();
    // Teams lacks its tenant id, WeCom's secret is blank, Telegram is switched off; Weixin's token was saved by setup.
    assert.deepEqual(fromCatalog, ['feishu', 'irc', 'line', 'matrix', 'mattermost', 'sms', 'weixin']);
    // The full registry (adapters loaded through config.ts) gives the same answer for every platform.
    const fromAdapters = listPlatforms('chat').filter((d) => platformEnabled(d.name, config, env)).map((d) => d.name).sort();
    assert.deepEqual(fromAdapters, fromCatalog);
  });

  it('outside the gateway the model sends through the CLI session\'s messaging service (list, then send)', async () => {
    const tg = await startFakeTelegram();
    try {
      const h = home();
      const env = { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_HOME_CHANNEL: '777' };
      fake.enqueue(
        { toolCalls: [{ name: 'send_message', arguments: { action: 'list' } }] },
        { toolCalls: [{ name: 'send_message', arguments: { target: 'telegram', message: 'build is green' } }] },
        { text: 'sent' },
      );
      const before = fake.requests.length;
      const r = await hermes(['chat', '-q', 'tell my phone the build is green'], { home: h, env });
      assert.equal(r.code, 0, r.stderr);
      const toolResults = fake.requests.slice(before + 1).map((q) => q.body.messages.at(-1)?.content as string);
      assert.match(toolResults[0], /"name":"telegram"/);
      assert.match(toolResults[1], /"success":true/);
      const sent = tg.calls.filter((c) => c.method === 'sendMessage').map((c) => [String(c.params.chat_id), String(c.params.text)]);
      assert.deepEqual(sent, [['777', 'build is green']]);
    } finally {
      await tg.close();
    }
  });
});
