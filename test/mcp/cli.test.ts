// MCP from the command line: `hermes chat -q` with mcp_servers in config.yaml (tools reach the model,
// failures reach the person and the model), `hermes mcp add|list|test|remove`, and /reload-mcp.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { mcpManagers } from '../../src/mcp/session.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { EVERYTHING, TEST_SERVER } from './servers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const modelConfig = () => `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n`;

describe('MCP in hermes chat', () => {
  it('gives the model the configured servers\' tools, and tells person and model about the ones that failed', async () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'config.yaml'),
      `${modelConfig()}mcp_servers:\n  everything:\n    command: node\n    args: [${JSON.stringify(EVERYTHING)}, stdio]\n  broken:\n    command: hermes-no-such-server-binary\n`,
    );
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'over MCP' } }] }, { text: 'The server echoed it.' });
    const r = await hermes(['chat', '-q', 'echo something'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /The server echoed it\./);
    assert.match(r.stderr, /⚠ MCP server "broken" failed to connect: cannot start "hermes-no-such-server-binary": command not found/);
    const req = fake.requests[n];
    const names = (req.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    // A server with many tools is offered through tool_search (its tools listed there) and loaded when called.
    assert.ok(JSON.stringify(req.body.tools).includes('mcp_everything_echo') && names.includes('read_file'), names.join(','));
    assert.match(req.body.messages[0].content, /"broken": unavailable/);
    const toolMsg = fake.requests[n + 1].body.messages.find((m: { role: string }) => m.role === 'tool');
    assert.equal(toolMsg.content, JSON.stringify({ result: 'Echo: over MCP' }));
  });

  it('does not start servers when -t names only other toolsets', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `${modelConfig()}mcp_servers:\n  broken:\n    command: hermes-no-such-server-binary\n`);
    const n = fake.requests.length;
    fake.enqueue({ text: 'fine' });
    const r = await hermes(['chat', '-q', 'hi', '-t', 'file'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /MCP/);
    assert.ok((fake.requests[n].body.tools as { function: { name: string } }[]).every((t) => !t.function.name.startsWith('mcp_')));
  });
});

describe('hermes mcp add | list | test | remove', () => {
  it('adds a stdio server after checking it connects; lists, tests and removes it', async () => {
    const home = tempHome();
    const add = await hermes(['mcp', 'add', 'ev', '--', process.execPath, EVERYTHING, 'stdio'], { home });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /✓ Connected: \d+ tools/);
    assert.deepEqual(loadConfig(home).user.mcp_servers, { ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });

    const dup = await hermes(['mcp', 'add', 'ev', '--command', 'x', '--no-test'], { home });
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /already exists.*--force/);

    const list = await hermes(['mcp', 'list'], { home });
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^ev\s+.*node.*\s+all\s+✓ enabled$/m);

    const test = await hermes(['mcp', 'test', 'ev'], { home });
    assert.equal(test.code, 0, test.stderr);
    assert.match(test.stdout, /✓ Connected in \d+ ms to mcp-servers\/everything/);
    assert.match(test.stdout, /^ {2}echo {2}— {2}Echoes back the input string$/m);
    assert.match(test.stdout, /offers resources/);

    const rm = await hermes(['mcp', 'remove', 'ev'], { home });
    assert.equal(rm.code, 0);
    assert.deepEqual(loadConfig(home).user.mcp_servers, {});
    const again = await hermes(['mcp', 'remove', 'ev'], { home });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^hermes: No MCP server named "ev"/);
  });

  it('keeps secrets out of config.yaml: they go to .env (0600) and config.yaml refers to them', async () => {
    const home = tempHome();
    const r = await hermes(['mcp', 'add', 'gh', '--command', process.execPath, '--args', TEST_SERVER, '--env', 'GITHUB_TOKEN=ghp_0123456789abcdefghijklmn', '--env', 'MODE=normal'], { home });
    assert.equal(r.code, 0, r.stderr);
    const cfg = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.doesNotMatch(cfg, /ghp_/);
    assert.deepEqual((loadConfig(home).user.mcp_servers as Record<string, { env: unknown }>).gh.env, { GITHUB_TOKEN: '${GITHUB_TOKEN}', MODE: 'normal' });
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /^GITHUB_TOKEN=ghp_0123456789abcdefghijklmn$/m);
    assert.equal(statSync(join(home, '.env')).mode & 0o777, 0o600);
    // The server gets the secret from .env when it runs.
    const t = await hermes(['mcp', 'test', 'gh'], { home });
    assert.equal(t.code, 0, t.stderr);

    const http = await hermes(['mcp', 'add', 'api', '--url', 'https://mcp.example.invalid/mcp', '--header', 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz0123', '--no-test'], { home });
    assert.equal(http.code, 0, http.stderr);
    assert.deepEqual((loadConfig(home).user.mcp_servers as Record<string, { headers: unknown }>).api.headers, { Authorization: 'Bearer ${MCP_API_API_KEY}' });
    assert.match(readFileSync(join(home, '.env'), 'utf8'), /^MCP_API_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123$/m);
  });

  it('does not save a server that cannot connect, and says why and what to do', async () => {
    const home = tempHome();
    const r = await hermes(['mcp', 'add', 'nope', '--command', 'hermes-no-such-server-binary'], { home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hermes: Not saved: could not connect to "nope": cannot start "hermes-no-such-server-binary": command not found.*--no-test/m);
    assert.equal(loadConfig(home).exists, false);
    const bad = await hermes(['mcp', 'add', 'x'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--url <endpoint>.*--command/);
    const t = await hermes(['mcp', 'test', 'zzz'], { home });
    assert.equal(t.code, 1);
    assert.match(t.stderr, /No MCP server named "zzz".*hermes mcp add/);
  });
});

describe('/reload-mcp', () => {
  it('connects servers added to config.yaml since the session started, and drops removed ones', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), modelConfig());
    const loaded = loadConfig(home);
    const session = new Session({ home, config: loaded.config, env: { PATH: process.env.PATH }, cwd: home, platform: 'cli', interactive: false });
    const commands = createCommandRegistry();
    const ctx = { session, surface: 'cli' as const, hooks: {} };
    try {
      const none = await runCommand(commands, '/reload-mcp', ctx);
      assert.match(none!.output!, /No MCP servers are configured/);
      writeFileSync(join(home, 'config.yaml'), `${modelConfig()}mcp_servers:\n  t:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(TEST_SERVER)}]\n    tools:\n      include: [ok, env]\n`);
      const r = await runCommand(commands, '/reload-mcp', ctx);
      assert.match(r!.output!, /✓ t: 2 tools/);
      assert.match(r!.output!, /\+2 −0/);
      assert.deepEqual(session.tools.map((t) => t.name).filter((n) => n.startsWith('mcp_')).sort(), ['mcp_t_env', 'mcp_t_ok']);
      const ok = await session.tools.find((t) => t.name === 'mcp_t_ok')!.execute({}, { callId: 'x', signal: new AbortController().signal, ask: async () => ({ answer: 'deny' as never, source: 'no_responder' }), progress: () => {} });
      assert.match(ok.content, /fine from \d+/);
      writeFileSync(join(home, 'config.yaml'), modelConfig());
      const gone = await runCommand(commands, '/reload-mcp', ctx);
      assert.match(gone!.output!, /\+0 −2/);
      assert.ok(session.tools.every((t) => !t.name.startsWith('mcp_')));
      assert.equal(mcpManagers(session).length, 1);
    } finally {
      await session.close();
    }
    assert.equal(mcpManagers(session).length, 0);
  });
});
