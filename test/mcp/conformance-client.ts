// The client command the MCP conformance suite (@modelcontextprotocol/conformance) runs per scenario:
// `node test/mcp/conformance-client.ts <server-url>`, with MCP_CONFORMANCE_SCENARIO (and for some
// scenarios MCP_CONFORMANCE_CONTEXT) set. It drives the real `hermes` binary: a one-shot run on a
// pseudo-terminal (`script`), its MCP server "conf" pointing at the scenario's server, the fake LLM
// calling that server's tool, a person pressing Enter at each question (an elicitation's fields keep
// their defaults) and a "browser" ($BROWSER) that follows the authorization server's redirect to
// Hermes's loopback callback, as a person's browser would. Exits with hermes's exit code.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { BIN, cleanEnv, homeWithModel } from '../helpers/cli.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!url) {
  process.stderr.write('usage: conformance-client.ts <server-url>\n');
  process.exit(2);
}
const context = process.env.MCP_CONFORMANCE_CONTEXT ? (JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) as Record<string, string>) : {};

const UTILITY = /_(list_resources|read_resource|list_prompts|get_prompt)$/;

interface ChatTool {
  function?: { name: string; parameters?: { properties?: Record<string, { type?: string }> } };
}

/** Arguments for a tool from its schema: numbers 2 and 3, strings "test", booleans true. */
function argsFor(tool: ChatTool): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 2;
  for (const [k, p] of Object.entries(tool.function?.parameters?.properties ?? {})) {
    out[k] = p.type === 'number' || p.type === 'integer' ? n++ : p.type === 'boolean' ? true : 'test';
  }
  return out;
}

const llm = await startFakeLlm();
llm.setHandler((req: RecordedRequest) => {
  const messages = (req.body.messages ?? []) as { role: string }[];
  if (messages.at(-1)?.role === 'tool') return { text: 'done' };
  const tool = ((req.body.tools ?? []) as ChatTool[]).find((t) => t.function?.name.startsWith('mcp_conf_') && !UTILITY.test(t.function.name));
  if (!tool) return { text: 'no MCP tool was offered' };
  return { toolCalls: [{ name: tool.function!.name, arguments: argsFor(tool) }] };
});

const oauth: string[] = [];
if (scenario.startsWith('auth/')) {
  oauth.push('    auth: oauth', '    oauth:', '      timeout: 20');
  if (context.client_id) oauth.push(`      client_id: ${JSON.stringify(context.client_id)}`);
  if (context.client_secret) oauth.push(`      client_secret: ${JSON.stringify(context.client_secret)}`);
  // The document the scenario's authorization server expects (it cannot fetch Hermes's own).
  if (scenario === 'auth/basic-cimd') oauth.push('      client_metadata_url: https://conformance-test.local/client-metadata.json');
}
const home = homeWithModel(llm.openaiBaseUrl, ['mcp_servers:', '  conf:', `    url: ${url}`, '    connect_timeout: 20', '    timeout: 20', ...oauth, ''].join('\n'));
const browser = join(home, 'browser.mjs');
writeFileSync(browser, "await fetch(process.argv[2]).then((r) => r.text()).catch((e) => console.error('browser:', e.message));\n");

const hermesCmd = [process.execPath, BIN, 'chat', '-q', 'Call the MCP tool once.', '-t', 'mcp-conf'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
const child = spawn('script', ['-qefc', hermesCmd, '/dev/null'], {
  cwd: HERE,
  env: cleanEnv(home, { BROWSER: `${process.execPath} ${browser}`, TERM: 'xterm', COLUMNS: '200' }),
  stdio: ['pipe', 'pipe', 'inherit'],
});
let seen = '';
child.stdout.on('data', (d: Buffer) => {
  const text = d.toString('utf8');
  process.stdout.write(text);
  seen += text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  // A question (the person's prompt "> "): Enter, keeping the default.
  if (/❓[\s\S]*> $/.test(seen.trimEnd() + ' ')) {
    seen = '';
    child.stdin.write('\r');
  }
});
const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
await llm.close();
process.exit(code);
