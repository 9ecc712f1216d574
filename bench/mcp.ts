// MCP and ACP: connecting config.yaml's servers (what a session start waits for), tool call round
// trips over stdio and Streamable HTTP, and an editor's prompt round trip through `hermes acp`.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { AgentTool } from '../src/agent/types.ts';
import { McpManager } from '../src/mcp/manager.ts';
import { defaultConfig } from '../src/state/defaults.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { startHttpMcp } from '../test/mcp/http-server.ts';
import { type Bench, type BenchRow, median } from './lib.ts';
import { Slots } from '../src/state/slots.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const env = { PATH: process.env.PATH, HOME: process.env.HOME };

function toolsOf(m: McpManager): Map<string, AgentTool> {
  const r = new ToolRegistry();
  m.syncInto(r);
  const services = { home: tmpdir(), config: defaultConfig(), env, cwd: tmpdir(), platform: 'cli', sessionId: 'b', taskId: 'b', slots: new Slots(), yolo: false };
  return new Map(r.build(['all'], services).map((t) => [t.name, t]));
}

const ctx = () => ({ callId: 'b', signal: new AbortController().signal, ask: async () => ({ answer: 'deny' as never, source: 'no_responder' as const }), progress: () => {} });

async function callRate(t: AgentTool, args: Record<string, unknown>, n: number): Promise<number> {
  for (let i = 0; i < 20; i++) await t.execute(args, ctx());
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = process.hrtime.bigint();
    await t.execute(args, ctx());
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return median(times);
}

async function acpRoundTrip(): Promise<{ startMs: number; promptMs: number }> {
  const acp = await import('@agentclientprotocol/sdk/unstable');
  const fake = await startFakeLlm({ defaultReply: { text: 'ok' } });
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'bench-acp-')));
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: m\n  api_key: k\nauxiliary:\n  title_generation:\n    provider: custom\n    base_url: ${fake.openaiBaseUrl}\n    model: m\n    api_key: k\n`);
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'hermes.mjs'), 'acp'], { cwd: home, env: { ...env, HOME: home, HERMES_HOME: home }, stdio: ['pipe', 'pipe', 'ignore'] });
  const conn = acp.client({ name: 'bench' }).connect(acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const s = await conn.agent.request(acp.methods.agent.session.new, { cwd: home, mcpServers: [] });
  const startMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = process.hrtime.bigint();
    await conn.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: `hi ${i}` }] });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  conn.close();
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  await fake.close();
  return { startMs, promptMs: median(times.slice(5)) };
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
  writeFileSync(join(dir, 'a.txt'), 'hello\n');
  const http = await startHttpMcp();

  const starts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const m = new McpManager({ env }).configure({ everything: { command: 'node', args: [EVERYTHING, 'stdio'] }, fs: { command: 'node', args: [FILESYSTEM, dir] }, web: { url: http.url } });
    const t = process.hrtime.bigint();
    await m.start();
    starts.push(Number(process.hrtime.bigint() - t) / 1e6);
    await m.close();
  }
  rows.push({ name: 'connect 3 MCP servers in parallel (2 stdio + 1 HTTP)', value: median(starts), unit: 'ms', target: '≤ 1500 ms', ok: median(starts) <= 1500 });

  const m = new McpManager({ env }).configure({ everything: { command: 'node', args: [EVERYTHING, 'stdio'] }, web: { url: http.url } });
  await m.start();
  const tools = toolsOf(m);
  const stdio = await callRate(tools.get('mcp_everything_echo')!, { message: 'x' }, 200);
  rows.push({ name: 'MCP tool call, stdio (median)', value: stdio, unit: 'ms', target: '≤ 5 ms', ok: stdio <= 5 });
  const viaHttp = await callRate(tools.get('mcp_web_add')!, { a: 1, b: 2 }, 200);
  rows.push({ name: 'MCP tool call, Streamable HTTP (median)', value: viaHttp, unit: 'ms', target: '≤ 10 ms', ok: viaHttp <= 10 });
  await m.close();
  await http.close();

  const a = await acpRoundTrip();
  rows.push({ name: 'hermes acp: spawn → initialize → session/new', value: a.startMs, unit: 'ms', target: '≤ 1000 ms', ok: a.startMs <= 1000 });
  rows.push({ name: 'hermes acp: prompt round trip (fake LLM, median)', value: a.promptMs, unit: 'ms', target: '≤ 50 ms', ok: a.promptMs <= 50 });
  return rows;
};

export default bench;
