// Prompt budget: what every request carries before the conversation starts — the system prompt plus
// the tool schemas — for the default one-shot toolset, `all`, every platform toolset (hermes-<name>)
// and a subagent's first request (delegate_task). Each is held to BUDGET tokens, and the default to
// at least MIN_TOOLS tools (test/helpers/prompt-size.ts). Measured on the request the real `hermes`
// binary sends to the fake LLM, with every optional tool's credentials set (so no toolset is hidden
// by a missing key). Tokens are estimated as characters / 4 (the same estimate src/agent/tokens.ts
// budgets with; real BPE counts for JSON schemas are close to it).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { PLATFORM_TOOLSETS } from '../src/tools/toolsets.ts';
import { BUDGET, FULL_TOOL_ENV, MIN_TOOLS, promptSize, type PromptSize } from '../test/helpers/prompt-size.ts';
import { timeCommand, type Bench, type BenchRow } from './lib.ts';

const bench: Bench = async () => {
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
      ['toolsets all', ['-t', 'all'], true],
      ['gateway (hermes-telegram)', ['-t', 'hermes-telegram'], true],
    ];
    const budget = (s: PromptSize, minTools: number) => ({ target: `≤ ${BUDGET} tok, ≥ ${minTools} tools`, ok: s.tokens <= BUDGET && s.tools >= minTools });
    for (const [label, args, budgeted] of cases) {
      const s = await measure(args);
      rows.push({
        name: `prompt budget, ${label}`,
        value: s.tokens,
        unit: 'tokens',
        ...(budgeted ? budget(s, MIN_TOOLS) : {}),
        note: `${s.tools} tools; system ${s.systemChars} + schemas ${s.toolChars} chars`,
      });
      if (process.env.BENCH_VERBOSE) process.stderr.write(`${label}: ${s.names.join(', ')}\n`);
    }
    // Every platform toolset within the same budget (each offers what its platform can use: ACP and
    // the webhook fewer tools by design); the largest one is the row.
    let worst: { name: string; s: PromptSize } | null = null;
    const misses: string[] = [];
    for (const ts of Object.keys(PLATFORM_TOOLSETS).filter((n) => n.startsWith('hermes-') && n !== 'hermes-subagent')) {
      const s = await measure(['-t', ts]);
      if (s.tokens > BUDGET) misses.push(`${ts} ${s.tokens} tok`);
      if (!worst || s.tokens > worst.s.tokens) worst = { name: ts, s };
    }
    if (worst)
      rows.push({
        name: 'prompt budget, largest platform toolset',
        value: worst.s.tokens,
        unit: 'tokens',
        target: `≤ ${BUDGET} tok each`,
        ok: !misses.length,
        note: `${worst.name}: ${worst.s.tools} tools${misses.length ? `; over: ${misses.join(', ')}` : ''}`,
      });
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
      ...budget(s, 12),
      note: `${s.tools} tools; system ${s.systemChars} + schemas ${s.toolChars} chars`,
    });
    if (process.env.BENCH_VERBOSE) process.stderr.write(`subagent: ${s.names.join(', ')}\n`);
  } finally {
    await fake.close();
  }
  return rows;
};

export default bench;
