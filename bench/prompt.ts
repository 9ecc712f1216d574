// Prompt budget: what every request carries before the conversation starts — the system prompt plus
// the tool schemas — for the default one-shot toolset, `all`, the gateway's toolset and a subagent's
// first request (delegate_task). Measured on the request the real `hermes` binary sends to the fake
// LLM, with every optional tool's credentials set (so no toolset is hidden by a missing key). Tokens
// are estimated as characters / 4 (the same estimate src/agent/tokens.ts budgets with; real BPE
// counts for JSON schemas are close to it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { timeCommand, type Bench, type BenchRow } from './lib.ts';

/** Dummy credentials that make every optional built-in tool available. */
export const FULL_TOOL_ENV: Record<string, string> = {
  HASS_TOKEN: 'bench',
  HASS_URL: 'http://127.0.0.1:9',
  FAL_KEY: 'bench',
  OPENAI_API_KEY: 'bench',
  ELEVENLABS_API_KEY: 'bench',
  FIRECRAWL_API_KEY: 'bench',
  EXA_API_KEY: 'bench',
  TAVILY_API_KEY: 'bench',
  TELEGRAM_BOT_TOKEN: 'bench',
};

export interface PromptSize {
  tools: number;
  names: string[];
  systemChars: number;
  toolChars: number;
  tokens: number;
}

/** One request's fixed part: the system prompt and the tool schemas, as sent on the wire. */
export function promptSize(body: { messages?: { role: string; content: unknown }[]; tools?: unknown[] }): PromptSize {
  const system = (body.messages ?? []).filter((m) => m.role === 'system' || m.role === 'developer').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  const tools = body.tools ?? [];
  const toolChars = JSON.stringify(tools).length;
  const names = tools.map((t) => (t as { function?: { name?: string } }).function?.name ?? '?');
  return { tools: tools.length, names, systemChars: system.length, toolChars, tokens: Math.ceil((system.length + toolChars) / 4) };
}

const bench: Bench = async () => {
  spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-prompt-'));
  const env: NodeJS.ProcessEnv = { ...cleanEnv(home), ...FULL_TOOL_ENV };
  delete env.HERMES_FROM_SOURCE;
  const fake = await startFakeLlm();
  try {
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench-model\n  api_key: k\n`);
    const measure = async (args: string[]): Promise<PromptSize> => {
      fake.requests.length = 0;
      const r = await timeCommand(process.execPath, [BIN, 'chat', '-q', 'hello', ...args], env, home);
      if (r.code !== 0 || !fake.requests.length) throw new Error(`chat ${args.join(' ')} failed (exit ${r.code})`);
      return promptSize(fake.requests[0].body);
    };
    const cases: [string, string[], boolean][] = [
      ['default one-shot (hermes-cli)', [], true],
      ['toolsets all', ['-t', 'all'], false],
      ['gateway (hermes-telegram)', ['-t', 'hermes-telegram'], false],
    ];
    for (const [label, args, budgeted] of cases) {
      const s = await measure(args);
      const ok = s.tokens <= 6000 && s.tools >= 18;
      rows.push({
        name: `prompt budget, ${label}`,
        value: s.tokens,
        unit: 'tokens',
        ...(budgeted ? { target: '≤ 6000 tok, ≥ 18 tools', ok } : {}),
        note: `${s.tools} tools; system ${s.systemChars} + schemas ${s.toolChars} chars`,
      });
      if (process.env.BENCH_VERBOSE) process.stderr.write(`${label}: ${s.names.join(', ')}\n`);
    }
    // A subagent's first request (delegate_task with the default toolsets): the same budget applies.
    fake.requests.length = 0;
    fake.enqueue({ toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Summarise README.md' } }] }, { text: 'summary' }, { text: 'done' });
    const r = await timeCommand(process.execPath, [BIN, 'chat', '-q', 'delegate'], env, home);
    const child = fake.requests[1];
    if (r.code !== 0 || !child) throw new Error(`delegate_task run failed (exit ${r.code})`);
    const s = promptSize(child.body);
    rows.push({
      name: 'prompt budget, subagent (delegate_task)',
      value: s.tokens,
      unit: 'tokens',
      target: '≤ 6000 tok, ≥ 12 tools',
      ok: s.tokens <= 6000 && s.tools >= 12,
      note: `${s.tools} tools; system ${s.systemChars} + schemas ${s.toolChars} chars`,
    });
    if (process.env.BENCH_VERBOSE) process.stderr.write(`subagent: ${s.names.join(', ')}\n`);
  } finally {
    await fake.close();
  }
  return rows;
};

export default bench;
