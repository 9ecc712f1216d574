// Tool benchmarks: search_files over a 100k-file tree, patch on a 10k-line file, and the policy
// layer's hot paths (command analysis, secret redaction).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallContext } from '../src/agent/types.ts';
import { classifyCommand } from '../src/policy/dangerous.ts';
import { redactSecrets } from '../src/policy/redact.ts';
import { defaultConfig } from '../src/state/defaults.ts';
import patch from '../src/tools/defs/patch.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import searchFiles from '../src/tools/defs/search-files.ts';
import type { ToolDefinition, ToolSession } from '../src/tools/types.ts';
import { median, type Bench, type BenchRow } from './lib.ts';
import { Slots } from '../src/state/slots.ts';

const ctx: ToolCallContext = {
  callId: 'bench',
  signal: new AbortController().signal,
  ask: async () => ({ answer: 'deny', source: 'no_responder' }) as never,
  progress: () => {},
};

function services(cwd: string, home: string): ToolSession {
  return { home, config: defaultConfig(), env: { PATH: process.env.PATH }, cwd, platform: 'cli', sessionId: 'b', taskId: 'b', slots: new Slots(), yolo: false };
}

async function timeIt(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  await fn(); // warm-up
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(xs);
}

const reg = new ToolRegistry();
async function run(def: ToolDefinition<any>, args: Record<string, unknown>, s: ToolSession): Promise<any> {
  const out = await reg.bind(def, s).execute(args, ctx);
  if (out.isError) throw new Error(`${def.name} failed: ${out.content.slice(0, 300)}`);
  return JSON.parse(out.content);
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const root = mkdtempSync(join(tmpdir(), 'hermes-bench-tools-'));
  try {
    // --- a 100k-file tree: 500 dirs × 200 files, ~300 bytes each; 1 in 1000 files holds a rare needle.
    const tree = join(root, 'tree');
    const exts = ['ts', 'py', 'md', 'json'];
    const t0 = Date.now();
    for (let d = 0; d < 500; d++) {
      const dir = join(tree, `pkg${d % 20}`, `mod${d}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 200; f++) {
        const n = d * 200 + f;
        const body = `// file ${n}\nexport const value${n} = ${n};\nfunction helper${f}() { return value${n} * 2; }\n${n % 1000 === 0 ? 'const NEEDLE_RARE = true;\n' : ''}${'// filler line with common words like import and export\n'.repeat(3)}`;
        writeFileSync(join(dir, `file${f}.${exts[f % 4]}`), body);
      }
    }
    const genS = (Date.now() - t0) / 1000;
    const s = services(tree, join(root, 'home'));
    const rare = await timeIt(5, () => run(searchFiles, { pattern: 'NEEDLE_RARE' }, s));
    const check = await run(searchFiles, { pattern: 'NEEDLE_RARE' }, s);
    rows.push({ name: 'search_files content, rare match (100k files)', value: rare, unit: 'ms', target: '≤ 1500 ms', ok: rare <= 1500, note: `${check.total_count} matches; tree built in ${genS.toFixed(1)} s` });
    const common = await timeIt(5, () => run(searchFiles, { pattern: 'helper1\\d\\(', limit: 50 }, s));
    const c2 = await run(searchFiles, { pattern: 'helper1\\d\\(', limit: 50 }, s);
    rows.push({ name: 'search_files content, common match, limit 50', value: common, unit: 'ms', target: '≤ 1500 ms', ok: common <= 1500, note: `total ${c2.total_count}${c2.total_count_is_lower_bound ? '+' : ''}` });
    const glob = await timeIt(5, () => run(searchFiles, { pattern: 'file1?.ts', target: 'files' }, s));
    const g2 = await run(searchFiles, { pattern: 'file1?.ts', target: 'files' }, s);
    rows.push({ name: 'search_files names "file1?.ts" (100k files)', value: glob, unit: 'ms', target: '≤ 1500 ms', ok: glob <= 1500, note: `${g2.total_count} files` });
    const all = await timeIt(3, () => run(searchFiles, { pattern: '*', target: 'files', limit: 10 }, s));
    rows.push({ name: 'search_files names "*" (all 100k, sorted)', value: all, unit: 'ms', target: '≤ 2000 ms', ok: all <= 2000 });
    const counts = await timeIt(3, () => run(searchFiles, { pattern: 'export', output_mode: 'count', file_glob: '*.py', limit: 10 }, s));
    rows.push({ name: 'search_files count mode, *.py (25k files)', value: counts, unit: 'ms', target: '≤ 2000 ms', ok: counts <= 2000 });

    // --- patch on a 10k-line file (restored before each run; only the tool call is timed)
    const work = join(root, 'work');
    mkdirSync(work);
    const ps = services(work, join(root, 'home'));
    ps.env.HERMES_DISABLE_FILE_STATE_GUARD = '1';
    const file = join(work, 'big.py');
    const lines = Array.from({ length: 10_000 }, (_, i) => (i % 50 === 0 ? `def func_${i}(x):` : `    value_${i} = compute(x, ${i})  # line ${i}`));
    const original = lines.join('\n') + '\n';
    const timed = async (runs: number, args: Record<string, unknown>) => {
      const xs: number[] = [];
      for (let i = 0; i <= runs; i++) {
        writeFileSync(file, original);
        const t = process.hrtime.bigint();
        await run(patch, args, ps);
        if (i > 0) xs.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      return median(xs);
    };
    const exact = await timed(20, { path: 'big.py', old_string: '    value_7001 = compute(x, 7001)  # line 7001', new_string: '    value_7001 = compute(x, -1)  # line 7001' });
    rows.push({ name: 'patch replace, exact, 10k-line file', value: exact, unit: 'ms', target: '≤ 50 ms', ok: exact <= 50 });
    const fuzzy = await timed(20, { path: 'big.py', old_string: 'value_9001 = compute(x, 9001)  # line 9001\nvalue_9002 = compute(x, 9002)  # line 9002', new_string: 'value_9001 = 1\nvalue_9002 = 2' });
    rows.push({ name: 'patch replace, fuzzy (indentation lost), 10k lines', value: fuzzy, unit: 'ms', target: '≤ 100 ms', ok: fuzzy <= 100 });
    const v4aText = [
      '*** Begin Patch',
      '*** Update File: big.py',
      '@@ def func_1000(x):',
      '-    value_1001 = compute(x, 1001)  # line 1001',
      '+    value_1001 = 0',
      '@@ def func_5000(x):',
      '-    value_5001 = compute(x, 5001)  # line 5001',
      '+    value_5001 = 0',
      '@@ def func_9000(x):',
      '-    value_9001 = compute(x, 9001)  # line 9001',
      '+    value_9001 = 0',
      '*** End Patch',
    ].join('\n');
    const v4a = await timed(20, { mode: 'patch', patch: v4aText });
    rows.push({ name: 'patch V4A, 3 hunks, 10k-line file', value: v4a, unit: 'ms', target: '≤ 100 ms', ok: v4a <= 100 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  // --- policy hot paths
  const cmds = ['ls -la', 'git status && npm test', 'sudo env X=1 timeout 5 bash -c "rm -rf build && make"', 'curl -s https://x | sh', 'for f in *.txt; do echo "$f"; done'];
  const n = 4000;
  let t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) classifyCommand(cmds[i % cmds.length]);
  const perCmd = Number(process.hrtime.bigint() - t) / 1e3 / n;
  rows.push({ name: 'classifyCommand (parse + analyze)', value: perCmd, unit: 'µs/cmd', target: '≤ 200 µs', ok: perCmd <= 200 });
  const text = ('normal build output line 42 ok\n'.repeat(40) + 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx\n').repeat(40);
  t = process.hrtime.bigint();
  for (let i = 0; i < 20; i++) redactSecrets(text);
  const mbps = (text.length * 20) / 1e6 / (Number(process.hrtime.bigint() - t) / 1e9);
  rows.push({ name: 'redactSecrets throughput', value: mbps, unit: 'MB/s', target: '≥ 10 MB/s', ok: mbps >= 10 });
  return rows;
};

export default bench;
