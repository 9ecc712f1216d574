// The gateway connects config.yaml's MCP servers once and offers their tools in every chat.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.ts';
import { EVERYTHING } from '../mcp/servers.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;

describe('gateway and MCP', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) },
      yaml: `mcp_servers:\n  everything:\n    command: ${process.execPath}\n    args: [${JSON.stringify(EVERYTHING)}]\n`,
    });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
  });

  test('a chat can call a configured MCP server’s tool', async () => {
    const before = llm.requests.length;
    llm.enqueue({ toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'gatewaypong' } }] }, { text: 'The server answered.' });
    tg.userMessage({ chatId: OWNER, text: 'echo through mcp' });
    await tg.waitFor((c) => c.method === 'sendMessage' && /The server answered/.test(String(c.params.text)), 15_000, 'the reply');
    const reqs = llm.requests.slice(before);
    // A server with many tools is offered through tool_search (its tools listed there) and loaded when called.
    assert.ok(JSON.stringify(reqs[0].body.tools).includes('mcp_everything_echo'), 'the MCP tool is offered');
    assert.match(JSON.stringify(reqs[1].body), /Echo: gatewaypong/);
  });
});
