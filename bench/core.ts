// Foundation benchmarks: start-up, one-shot wall time and memory, loop overhead per tool iteration.
// Everything runs the real `hermes` binary (the bundle in dist/) against the zero-latency fake LLM.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { median, nodeBaselineMs, timeCommand, type Bench, type BenchRow } from './lib.ts';

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-'));
  const env: NodeJS.ProcessEnv = { ...cleanEnv(home), HERMES_FROM_SOURCE: '' };
  delete env.HERMES_FROM_SOURCE;

  // --version against bare node
  const base = nodeBaselineMs(15);
  const versions: number[] = [];
  for (let i = 0; i < 15; i++) versions.push((await timeCommand(process.execPath, [BIN, '--version'], env)).ms);
  const v = median(versions);
  rows.push({ name: 'node -e 0', value: base, unit: 'ms' });
  rows.push({ name: 'hermes --version', value: v, unit: 'ms', target: `≤ 2.0× node (${(2 * base).toFixed(0)} ms)`, ok: v <= 2 * base, note: `${(v / base).toFixed(2)}× node` });

  const fake = await startFakeLlm();
  try {
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench-model\n  api_key: k\nagent:\n  max_turns: 500\n`,
    );

    // One-shot hello: wall time and peak RSS
    const walls: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await timeCommand(process.execPath, [BIN, 'chat', '-q', 'hello'], env, home);
      if (r.code !== 0) throw new Error(`one-shot failed (exit ${r.code})`);
      walls.push(r.ms);
      if (r.rssMb !== null) rss.push(r.rssMb);
    }
    const wall = median(walls);
    rows.push({ name: 'chat -q hello (wall)', value: wall, unit: 'ms', target: `≤ 3.5× node (${(3.5 * base).toFixed(0)} ms)`, ok: wall <= 3.5 * base, note: `${(wall / base).toFixed(2)}× node, median of 10` });
    if (rss.length) {
      const peak = Math.max(...rss);
      rows.push({ name: 'chat -q hello (peak RSS)', value: peak, unit: 'MB', target: '≤ 100 MB', ok: peak <= 100 });
    }

    // Loop overhead: a turn of 1 + N tool iterations minus a turn of 1, divided by N — the steady
    // state. The first tool call's one-time work (zod for argument validation, the tool's module) is
    // its own row: a turn of one call minus the toolless turn.
    const turnMs = async (toolCall: { name: string; arguments: Record<string, unknown> }, calls: number, cwd = home) => {
      let count = 0;
      fake.setHandler(() => {
        fake.requests.length = 0; // the bench does not inspect requests; keep the fake's heap flat
        return ++count <= calls ? { toolCalls: [toolCall] } : { text: 'done' };
      });
      const r = await timeCommand(process.execPath, [BIN, 'chat', '-q', 'loop', '--yolo'], { ...env, HOME: cwd, HERMES_HOME: cwd }, cwd);
      fake.setHandler(null);
      if (r.code !== 0) throw new Error(`loop run failed (exit ${r.code})`);
      return r.ms;
    };
    const perIteration = async (toolCall: { name: string; arguments: Record<string, unknown> }, n: number, cwd = home) => {
      const first: number[] = [];
      const samples: number[] = [];
      for (let run = 0; run < 5; run++) {
        const one = await turnMs(toolCall, 1, cwd);
        first.push(one - wall);
        samples.push(((await turnMs(toolCall, n + 1, cwd)) - one) / n);
      }
      return { perIter: median(samples), first: median(first) };
    };
    const noSpawn = await perIteration({ name: 'todo', arguments: {} }, 100);
    rows.push({ name: 'loop overhead, no-spawn tool', value: noSpawn.perIter, unit: 'ms/iter', target: '≤ 2 ms', ok: noSpawn.perIter <= 2, note: '100 iterations of todo after the first' });
    rows.push({ name: 'first tool call (one-time)', value: noSpawn.first, unit: 'ms', note: 'a turn with one todo call minus a toolless turn' });
    const sandboxNote = 'the OS sandbox included (its process server) where bwrap works';
    const shell = await perIteration({ name: 'terminal', arguments: { command: 'true' } }, 100);
    rows.push({ name: 'loop overhead, shell `true`', value: shell.perIter, unit: 'ms/iter', target: '≤ 6 ms', ok: shell.perIter <= 6, note: `100 iterations of terminal after the first; ${sandboxNote}` });

    // Memory after a long turn: 400 steps (terminal `true`, the common case), peak RSS of the run.
    const longRss: number[] = [];
    for (let run = 0; run < 3; run++) {
      let count = 0;
      fake.setHandler(() => {
        fake.requests.length = 0;
        return ++count <= 400 ? { toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] } : { text: 'done' };
      });
      const r = await timeCommand(process.execPath, [BIN, 'chat', '-q', 'loop', '--yolo'], env, home);
      fake.setHandler(null);
      if (r.code !== 0) throw new Error(`400-step run failed (exit ${r.code})`);
      if (r.rssMb !== null) longRss.push(r.rssMb);
    }
    if (longRss.length) {
      const m = median(longRss);
      rows.push({ name: 'peak RSS, a 400-step loop (terminal `true`)', value: m, unit: 'MB', target: '≤ 110 MB', ok: m <= 110, note: `median of 3; the one-shot hello peaks at ${Math.max(...rss).toFixed(0)} MB` });
    }

    // The same no-spawn loop on the other two wire formats (each its own home and config).
    const wires = [
      { name: 'Anthropic Messages', model: `  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-sonnet-4-6\n` },
      { name: 'Responses', model: `  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench-model\n  api_mode: codex_responses\n` },
    ];
    for (const w of wires) {
      const h = mkdtempSync(join(tmpdir(), 'hermes-bench-wire-'));
      writeFileSync(join(h, 'config.yaml'), `model:\n${w.model}  api_key: k\nagent:\n  max_turns: 500\n`);
      const r = await perIteration({ name: 'todo', arguments: {} }, 100, h);
      rows.push({ name: `loop overhead, no-spawn tool (${w.name} wire)`, value: r.perIter, unit: 'ms/iter', target: '≤ 2 ms', ok: r.perIter <= 2, note: '100 iterations of todo after the first' });
    }
  } finally {
    await fake.close();
  }
  return rows;
};

export default bench;
