// Cron runs get config.yaml's MCP servers, like any other session.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { EVERYTHING } from '../mcp/servers.ts';
import { cronHome, outputFiles, toolNames } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

describe('cron and MCP', () => {
  it('a run can call a configured MCP server’s tools', async () => {
    const home = cronHome(fake, `mcp_servers:\n  everything:\n    command: ${process.execPath}\n    args: [${JSON.stringify(EVERYTHING)}]\n`);
    const c = await hermes(['cron', 'create', 'every 1h', 'Echo the word cronpong through MCP', '--deliver', 'local'], { home });
    assert.equal(c.code, 0, c.stderr);
    const id = /Created job ([0-9a-f]{12})/.exec(c.stdout)![1];
    const before = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'cronpong' } }] }, { text: 'The server said cronpong.' });
    const r = await hermes(['cron', 'run', id], { home, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const reqs = fake.requests.slice(before);
    // A server with many tools is offered through tool_search (its tools listed there) and loaded when called.
    assert.ok(JSON.stringify(reqs[0].body.tools).includes('mcp_everything_echo'), 'the MCP tool is offered to the cron run');
    assert.match(JSON.stringify(reqs[1].body), /Echo: cronpong/);
    assert.match(readFileSync(outputFiles(home, id)[0], 'utf8'), /The server said cronpong\./);
  });
});
