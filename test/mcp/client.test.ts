// The MCP client against real servers: @modelcontextprotocol/server-filesystem and server-everything
// (stdio), a Streamable HTTP and an SSE server started here, a server that crashes mid-call, servers
// that never start — and the tools they give the model.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentTool, ToolOutcome } from '../../src/agent/types.ts';
import { mcpToolName, parseMcpServers, parseServer, stdioEnv, toolAllowed } from '../../src/mcp/config.ts';
import { McpManager } from '../../src/mcp/manager.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { startHttpMcp, type TestHttpMcp } from './http-server.ts';
import { EVERYTHING, FILESYSTEM, TEST_SERVER } from './servers.ts';
import { Slots } from '../../src/state/slots.ts';


const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-parent-secret-0123456789', MY_TOKEN: 'tok-123' };

function services(): ToolSession {
  return { home: tmpdir(), config: defaultConfig(), env, cwd: tmpdir(), platform: 'cli', sessionId: 's', taskId: 't', slots: new Slots(), yolo: false };
}

function tools(m: McpManager): Map<string, AgentTool> {
  const r = new ToolRegistry();
  m.syncInto(r);
  return new Map(r.build(['all'], services()).map((t) => [t.name, t]));
}

async function call(t: AgentTool | undefined, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<ToolOutcome> {
  assert.ok(t, 'tool missing');
  return t.execute(args, { callId: 'c1', signal: signal ?? new AbortController().signal, ask: async () => ({ answer: 'deny' as never, source: 'no_responder' }), progress: () => {} });
}

const json = (o: ToolOutcome) => JSON.parse(o.content) as Record<string, unknown>;

function waitState(m: McpManager, server: string, state: string): Promise<void> {
  return new Promise((resolve) => {
    if (m.connections.get(server)?.state === state) return resolve();
    const off = m.on((e) => {
      if (e.server === server && e.state === state) {
        off();
        resolve();
      }
    });
  });
}

describe('mcp_servers config', () => {
  it('expands ${VAR}, ${env:VAR} and ${VAR:-default}, and says which variables are missing', () => {
    const r = parseServer('gh', { command: 'srv', args: ['--token', '${MY_TOKEN}'], env: { T: '${env:MY_TOKEN}', D: '${NOPE:-dflt}' } }, env);
    assert.equal(r.problem, undefined);
    assert.deepEqual(r.config!.args, ['--token', 'tok-123']);
    assert.deepEqual(r.config!.env, { T: 'tok-123', D: 'dflt' });
    const missing = parseServer('x', { url: 'https://h/mcp', headers: { Authorization: 'Bearer ${MISSING_KEY}' } }, env);
    assert.match(missing.problem!, /\$\{MISSING_KEY\}.*not set.*\.env/);
  });

  it('reads transports, timeouts, filters and rejects bad entries with a fix', () => {
    const { servers, problems } = parseMcpServers(
      {
        a: { command: 'x', timeout: 5, connect_timeout: 2, tools: { include: ['read_*'] }, supports_parallel_tool_calls: true },
        b: { url: 'http://127.0.0.1:1/sse', transport: 'sse' },
        c: { url: 'http://127.0.0.1:1/mcp', enabled: false },
        d: { command: 'x', url: 'http://y' },
        e: { args: ['no command'] },
        f: { url: 'ftp://nope' },
        'bad name!': { command: 'x' },
      },
      env,
    );
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    assert.equal(byName.a.transport, 'stdio');
    assert.equal(byName.a.timeoutMs, 5000);
    assert.equal(byName.a.connectTimeoutMs, 2000);
    assert.equal(byName.a.parallel, true);
    assert.equal(toolAllowed(byName.a, 'read_file'), true);
    assert.equal(toolAllowed(byName.a, 'write_file'), false);
    assert.equal(byName.b.transport, 'sse');
    assert.equal(byName.c.enabled, false);
    assert.deepEqual(problems.map((p) => p.server).sort(), ['bad name!', 'd', 'e', 'f']);
    assert.match(problems.find((p) => p.server === 'd')!.message, /both `command` and `url`/);
  });

  it('names tools mcp_<server>_<tool>, sanitized, at most 64 characters', () => {
    assert.equal(mcpToolName('my-server', 'get.file'), 'mcp_my_server_get_file');
    const long = mcpToolName('server', 'x'.repeat(80));
    assert.equal(long.length, 64);
    assert.notEqual(long, mcpToolName('server', 'x'.repeat(81)));
  });

  it('gives stdio servers only safe variables plus their own env', () => {
    const e = stdioEnv({ PATH: '/bin', HOME: '/h', OPENAI_API_KEY: 'sk-x', AWS_SECRET_ACCESS_KEY: 'y', XDG_CONFIG_HOME: '/c', RANDOM: 'r' }, { GITHUB_TOKEN: 'g' });
    assert.deepEqual(e, { PATH: '/bin', HOME: '/h', XDG_CONFIG_HOME: '/c', GITHUB_TOKEN: 'g' });
  });
});

describe('MCP client against real servers', () => {
  let http: TestHttpMcp;
  let m: McpManager;
  let dir: string;
  before(async () => {
    http = await startHttpMcp({ token: 'http-secret-token' });
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-mcp-fs-')));
    writeFileSync(join(dir, 'hello.txt'), 'hello from disk\n');
    m = new McpManager({ env: { ...env, HTTP_TOKEN: 'http-secret-token' }, cwd: dir, backoffMs: [0] }).configure({
      fs: { command: 'node', args: [FILESYSTEM, dir] },
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      web: { url: http.url, headers: { Authorization: 'Bearer ${HTTP_TOKEN}' } },
      legacy: { url: http.sseUrl, transport: 'sse', headers: { Authorization: 'Bearer ${HTTP_TOKEN}' } },
      test: { command: process.execPath, args: [TEST_SERVER], env: { GIVEN: 'yes' }, timeout: 1, tools: { exclude: ['secret_*'] } },
      missing: { command: 'hermes-no-such-mcp-server' },
      silent: { command: process.execPath, args: [TEST_SERVER], env: { MODE: 'silent' }, connect_timeout: 1 },
      off: { command: 'whatever', enabled: false },
    });
    await m.start();
  });
  after(async () => {
    await m.close();
    await http.close();
  });

  it('connects all servers in parallel and reports the ones that failed, with why', () => {
    const st = Object.fromEntries(m.status().map((s) => [s.name, s]));
    for (const n of ['fs', 'everything', 'web', 'legacy', 'test']) assert.equal(st[n].state, 'ready', `${n}: ${st[n].error}`);
    assert.equal(st.missing.state, 'failed');
    assert.match(st.missing.error!, /command not found/);
    assert.equal(st.silent.state, 'failed');
    assert.match(st.silent.error!, /no answer within 1s \(connect_timeout\)/);
    assert.equal(st.off.state, 'disabled');
    const warnings = m.warnings().join('\n');
    assert.match(warnings, /"missing" failed to connect/);
    assert.match(warnings, /"silent" failed to connect/);
    const note = m.notes().join('\n');
    assert.match(note, /"missing": unavailable/);
    assert.match(note, /say so plainly/);
  });

  it('registers tools as mcp_<server>_<tool> in toolset mcp-<server>, with the server schema', () => {
    const r = new ToolRegistry();
    m.syncInto(r);
    const sets = r.toolsets();
    assert.ok(sets.get('mcp-fs')!.includes('mcp_fs_read_text_file'));
    assert.ok(sets.get('mcp-everything')!.includes('mcp_everything_echo'));
    assert.deepEqual(sets.get('mcp-web')!.sort(), ['mcp_web_add', 'mcp_web_get_prompt', 'mcp_web_list_prompts', 'mcp_web_list_resources', 'mcp_web_read_resource']);
    assert.ok(!sets.get('mcp-test')!.includes('mcp_test_secret_tool'), 'tools.exclude applies');
    assert.deepEqual(r.schemaOf(r.get('mcp_web_add')!), { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
  });

  it('platform toolsets include MCP tools; -t with other toolsets does not', () => {
    const r = builtinRegistry();
    m.syncInto(r);
    const cli = r.build(['hermes-cli'], services()).map((t) => t.name);
    assert.ok(cli.includes('mcp_web_add') && cli.includes('read_file'));
    const only = r.build(['file'], services()).map((t) => t.name);
    assert.ok(!only.some((n) => n.startsWith('mcp_')));
    assert.deepEqual(r.build(['web'].concat('mcp-web'), services()).map((t) => t.name).filter((n) => n.startsWith('mcp_')).length, 5);
    assert.ok(r.build(['hermes-cli'], services(), ['mcp-everything']).every((t) => !t.name.startsWith('mcp_everything')));
  });

  it('calls stdio tools (server-filesystem, server-everything)', async () => {
    const t = tools(m);
    assert.deepEqual(json(await call(t.get('mcp_fs_read_text_file'), { path: join(dir, 'hello.txt') })), { result: 'hello from disk\n' });
    assert.deepEqual(json(await call(t.get('mcp_everything_echo'), { message: 'hi' })), { result: 'Echo: hi' });
    const sum = json(await call(t.get('mcp_everything_get_sum'), { a: 2, b: 40 }));
    assert.match(String(sum.result), /42/);
    const denied = await call(t.get('mcp_fs_read_text_file'), { path: '/etc/hostname' });
    assert.equal(denied.isError, true);
    assert.match(json(denied).error as string, /denied|outside|not allowed/i);
  });

  it('offers resources and prompts as utility tools', async () => {
    const t = tools(m);
    const list = json(await call(t.get('mcp_web_list_resources')));
    assert.equal((list.resources as { uri: string }[])[0].uri, 'memo://readme');
    assert.deepEqual(json(await call(t.get('mcp_web_read_resource'), { uri: 'memo://readme' })), { uri: 'memo://readme', content: 'remember the milk' });
    const p = json(await call(t.get('mcp_web_get_prompt'), { name: 'greet', arguments: { name: 'Ada' } }));
    assert.deepEqual(p.messages, [{ role: 'user', content: 'Say hello to Ada' }]);
    assert.ok(t.has('mcp_everything_list_prompts') && t.has('mcp_everything_read_resource'));
  });

  it('calls Streamable HTTP and SSE servers with the configured (expanded) headers', async () => {
    const t = tools(m);
    assert.deepEqual(json(await call(t.get('mcp_web_add'), { a: 1, b: 2 })), { result: '3' });
    assert.deepEqual(json(await call(t.get('mcp_legacy_add'), { a: 5, b: 5 })), { result: '10' });
    assert.deepEqual(http.calls.slice(-2), ['add 1 2', 'add 5 5']);
    assert.ok(http.auth.every((a) => a === 'Bearer http-secret-token'));
  });

  it('starts stdio servers with safe variables and their own env only', async () => {
    const t = tools(m);
    const r = json(await call(t.get('mcp_test_env'), { names: ['OPENAI_API_KEY', 'MY_TOKEN', 'GIVEN', 'PATH'] }));
    const seen = JSON.parse(String(r.result)) as Record<string, string | null>;
    assert.equal(r.structuredContent, undefined);
    assert.equal(seen.OPENAI_API_KEY, null);
    assert.equal(seen.MY_TOKEN, null);
    assert.equal(seen.GIVEN, 'yes');
    assert.equal(seen.PATH, env.PATH);
    assert.equal(seen.cwd, dir);
  });

  it('redacts secrets from MCP errors', async () => {
    const r = await call(tools(m).get('mcp_test_fail'));
    assert.equal(r.isError, true);
    const err = json(r).error as string;
    assert.match(err, /upstream refused/);
    assert.doesNotMatch(err, /sk-live0123456789abcdefghijkl|supersecretvalue123/);
  });

  it('gives up on a call after the server timeout', async () => {
    const r = await call(tools(m).get('mcp_test_sleep'), { ms: 5000 });
    assert.equal(r.isError, true);
    assert.match(json(r).error as string, /did not answer within 1s/);
  });

  it('a server that crashes mid-call: the call fails with the reason, the server comes back, the next call works', async () => {
    const t = tools(m);
    const first = json(await call(t.get('mcp_test_ok')));
    const pid1 = /from (\d+)/.exec(String(first.result))![1];
    const back = new Promise<void>((resolve) => {
      let dropped = false;
      const off = m.on((e) => {
        if (e.server !== 'test') return;
        if (e.state === 'reconnecting') dropped = true;
        if (dropped && e.state === 'ready') {
          off();
          resolve();
        }
      });
    });
    const crashed = await call(t.get('mcp_test_crash'));
    assert.equal(crashed.isError, true);
    assert.match(json(crashed).error as string, /dropped the connection.*server stderr: .*fatal: simulated crash/);
    await back;
    const again = json(await call(t.get('mcp_test_ok'), { note: 'after' }));
    const pid2 = /from (\d+)/.exec(String(again.result))![1];
    assert.notEqual(pid1, pid2);
    assert.match(String(again.result), /: after$/);
  });

  it('a call that arrives while the server is reconnecting waits for it', async () => {
    const t = tools(m);
    const crashed = call(t.get('mcp_test_crash'));
    await crashed;
    const r = await call(t.get('mcp_test_ok'));
    assert.equal(r.isError, undefined, r.content);
    await waitState(m, 'test', 'ready');
  });

  it('an unavailable server answers its calls with why (never silently)', async () => {
    const dead = new McpManager({ env, backoffMs: [0] }).configure({ gone: { url: 'http://127.0.0.1:1/mcp', connect_timeout: 2 } });
    await dead.start();
    assert.equal(dead.status()[0].state, 'failed');
    assert.match(dead.status()[0].error!, /fetch failed|ECONNREFUSED/);
    assert.equal(dead.definitions().length, 0);
    await dead.close();
  });
});
