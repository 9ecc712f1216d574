// Instructions (callgrind) of whole `hermes` runs against the fake LLM: the one-shot (N=0) or a turn
// with N `todo` calls. Two Ns print the per-step difference, e.g. `node bench/callgrind.ts 1,401`
// ((N=401 − N=1)/400: long turns, because the start-up total varies by ±150 M instructions).
// Needs valgrind and a built dist/. BIN=<other checkout>/bin/hermes.mjs compares another build.
// BENCH_WIRE=anthropic|responses measures the Anthropic Messages or the Responses wire (api_mode
// codex_responses) instead of Chat Completions.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN as OWN_BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';

const BIN = process.env.BIN ?? OWN_BIN;
const ns = (process.argv[2] ?? '1,401').split(',').map(Number);
const fake = await startFakeLlm();
const home = mkdtempSync(join(tmpdir(), 'hermes-callgrind-'));
const env: NodeJS.ProcessEnv = { ...cleanEnv(home) };
delete env.HERMES_FROM_SOURCE;
// BENCH_WIRE picks the wire format the fake LLM is spoken to in (default: chat completions).
const WIRE: Record<string, string> = {
  chat: `  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench-model\n`,
  anthropic: `  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-sonnet-4-6\n`,
  responses: `  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench-model\n  api_mode: codex_responses\n`,
};
const model = WIRE[process.env.BENCH_WIRE ?? 'chat'];
if (model === undefined) throw new Error(`BENCH_WIRE must be one of: ${Object.keys(WIRE).join(', ')}`);
writeFileSync(join(home, 'config.yaml'), `model:\n${model}  api_key: k\nagent:\n  max_turns: 100000\n`);
const total: number[] = [];
try {
  // One run outside valgrind first: a build leaves Node's compile cache cold, and the first measured
  // run would pay for filling it (skewing N=1 against N=401 by tens of millions of instructions).
  const warm = spawn(process.execPath, [BIN, 'chat', '-q', 'hello'], { env, cwd: home, stdio: 'ignore' });
  await new Promise((r) => warm.on('close', r));
  for (const n of ns) {
    let count = 0;
    fake.setHandler(() => {
      fake.requests.length = 0;
      return ++count <= n ? { toolCalls: [{ name: 'todo', arguments: {} }] } : { text: 'done' };
    });
    const out = join(home, `callgrind.${n}.out`);
    const args = ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, BIN, 'chat', '-q', n === 0 ? 'hello' : 'loop', '--yolo'];
    const code = await new Promise<number | null>((resolve) => {
      const c = spawn('valgrind', args, { env, cwd: home, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      c.stderr.on('data', (d) => (err += d));
      c.on('close', (x) => {
        if (x) console.error(err.slice(-2000));
        resolve(x);
      });
    });
    if (code !== 0) throw new Error(`hermes under valgrind exited ${code} (N=${n})`);
    const ir = Number(/summary: (\d+)/.exec(readFileSync(out, 'utf8'))?.[1]) / 1e6;
    total.push(ir);
    console.log(`N=${n}: ${ir.toFixed(1)} M instructions (${out})`);
  }
  if (ns.length === 2) console.log(`per step: ${((total[1] - total[0]) / (ns[1] - ns[0])).toFixed(3)} M instructions`);
} finally {
  await fake.close();
}
