// `hermes batch`: a JSONL dataset of prompts through the agent, several at a time, each in its own
// session with a sampled toolset; ShareGPT trajectories per batch file and merged, per-tool statistics,
// and a checkpoint so an interrupted run resumes by prompt text.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseMaxTurns } from '../agent/budget.ts';
import { hasReasoning, toShareGpt, type ShareGptTurn } from '../agent/trajectory.ts';
import { describeError, ResolveError } from '../llm/index.ts';
import { Session } from '../session/session.ts';
import { writeFileAtomic } from '../state/fsutil.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import { knownToolsets } from '../tools/toolsets.ts';
import type { BatchOptions } from './commands/batch.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { standalonePorts } from '../gateway/messaging.ts';

/** Toolset distributions: each toolset is included with its percentage, independently per prompt. */
export const DISTRIBUTIONS: Record<string, { description: string; toolsets: Record<string, number> }> = {
  default: { description: 'every tool', toolsets: { web: 100, vision: 100, image_gen: 100, terminal: 100, file: 100, browser: 100 } },
  image_gen: { description: 'image generation and vision', toolsets: { image_gen: 90, vision: 90, web: 55, terminal: 45 } },
  research: { description: 'web research', toolsets: { web: 90, browser: 70, vision: 50, terminal: 10 } },
  science: { description: 'research with a terminal', toolsets: { web: 94, terminal: 94, file: 94, vision: 65, browser: 50, image_gen: 15 } },
  development: { description: 'coding', toolsets: { terminal: 80, file: 80, web: 30, vision: 10 } },
  safe: { description: 'no terminal', toolsets: { web: 80, browser: 70, vision: 60, image_gen: 60 } },
  balanced: { description: 'every toolset at 50%', toolsets: { web: 50, vision: 50, image_gen: 50, terminal: 50, file: 50, browser: 50 } },
  minimal: { description: 'web only', toolsets: { web: 100 } },
  terminal_only: { description: 'terminal and files', toolsets: { terminal: 100, file: 100 } },
  terminal_web: { description: 'terminal, files and web', toolsets: { terminal: 100, file: 100, web: 100 } },
  creative: { description: 'images', toolsets: { image_gen: 90, vision: 90, web: 30 } },
  browser_use: { description: 'browser first', toolsets: { browser: 100, web: 80, vision: 70 } },
  browser_only: { description: 'browser only', toolsets: { browser: 100 } },
  terminal_tasks: { description: 'terminal-heavy tasks', toolsets: { terminal: 97, file: 97, web: 97, browser: 75, vision: 50, image_gen: 10 } },
};

/** Rolls each toolset independently; when none comes up, the most likely one is taken. */
export function sampleToolsets(dist: Record<string, number>, random: () => number = Math.random): string[] {
  const picked = Object.entries(dist)
    .filter(([, p]) => random() * 100 < p)
    .map(([t]) => t);
  if (picked.length) return picked;
  const best = Object.entries(dist).sort((a, b) => b[1] - a[1])[0];
  return best ? [best[0]] : [];
}

export const promptKey = (prompt: string): string => createHash('sha256').update(prompt).digest('hex').slice(0, 32);

export interface DatasetEntry {
  index: number;
  prompt: string;
  cwd?: string;
}

interface Checkpoint {
  run_name: string;
  completed: Record<string, number>;
  updated_at: string;
}

export interface ToolStat {
  count: number;
  success: number;
  failure: number;
}

export interface BatchEntry {
  prompt_index: number;
  conversations: ShareGptTurn[];
  metadata: { batch_num: number; timestamp: string; model: string; toolsets: string[] };
  completed: boolean;
  partial: boolean;
  api_calls: number;
  toolsets_used: string[];
  tool_stats: Record<string, ToolStat>;
  tool_error_counts: Record<string, number>;
}

function positive(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${name} expects a positive whole number, got "${v}".`, 2);
  return n;
}

function readDataset(path: string, max?: number): { entries: DatasetEntry[]; skipped: string[] } {
  if (!existsSync(path)) throw new CliError(`No dataset file at ${path}.`, 2);
  const entries: DatasetEntry[] = [];
  const skipped: string[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim() || (max !== undefined && entries.length >= max)) return;
      try {
        const v = JSON.parse(line) as { prompt?: unknown; cwd?: unknown };
        if (typeof v.prompt !== 'string' || !v.prompt.trim()) throw new Error('no "prompt" string');
        entries.push({ index: entries.length, prompt: v.prompt, cwd: typeof v.cwd === 'string' ? v.cwd : undefined });
      } catch (e) {
        skipped.push(`line ${i + 1}: ${(e as Error).message}`);
      }
    });
  return { entries, skipped };
}

/** What every prompt of a run shares: the context, toolsets and model choices (local and queued runs). */
export interface RunSpec {
  ctx: ReturnType<typeof loadContext>;
  env: NodeJS.ProcessEnv;
  fixed?: string[];
  distToolsets: Record<string, number>;
  distName: string;
  maxTurns: number | ReturnType<typeof parseMaxTurns>;
  batchSize: number;
  toolNames: string[];
  opts: BatchOptions;
}

/** Checks a run's options against this machine's tools and config (every worker does it too). */
export function prepareRun(opts: BatchOptions): RunSpec {
  const batchSize = positive(opts.batchSize, '--batch-size', 10);
  const maxTurns = opts.maxTurns === undefined ? 10 : parseMaxTurns(positive(opts.maxTurns, '--max-turns', 10));
  if (opts.toolsets && opts.distribution) throw new CliError('Use either --toolsets or --distribution, not both.', 2);
  const distName = opts.distribution ?? 'default';
  const dist = DISTRIBUTIONS[distName];
  if (!opts.toolsets && !dist) throw new CliError(`Unknown distribution "${distName}". See --list-distributions.`, 2);
  const ctx = loadContext({ strict: true });
  const registry = builtinRegistry();
  const known = new Set(knownToolsets(registry.toolsets(), ctx.loaded.config.custom_toolsets ?? {}));
  const fixed = opts.toolsets?.split(',').map((t) => t.trim()).filter(Boolean);
  for (const t of fixed ?? []) if (!known.has(t) && !registry.get(t)) throw new CliError(`Unknown toolset or tool "${t}".`, 2);
  const distToolsets = dist ? Object.fromEntries(Object.entries(dist.toolsets).filter(([t]) => known.has(t))) : {};
  const env = { ...ctx.env };
  if (opts.ephemeralSystemPrompt) env.HERMES_EPHEMERAL_SYSTEM_PROMPT = opts.ephemeralSystemPrompt;
  return { ctx, env, fixed, distToolsets, distName, maxTurns, batchSize, toolNames: registry.all().map((d) => d.name).sort(), opts };
}

export type PromptOutcome = { kind: 'done'; entry: BatchEntry } | { kind: 'discarded' } | { kind: 'failed'; error: string };

/** One prompt in its own session: its ShareGPT entry, or why it failed. */
export async function runPrompt(spec: RunSpec, e: DatasetEntry): Promise<PromptOutcome> {
  const { ctx, opts } = spec;
  const toolsets = spec.fixed ?? sampleToolsets(spec.distToolsets);
  let session: Session;
  try {
    session = new Session({
      home: ctx.home,
      config: ctx.loaded.config,
      env: spec.env,
      cwd: e.cwd ? (isAbsolute(e.cwd) ? e.cwd : resolve(e.cwd)) : process.cwd(),
      platform: 'batch',
      source: 'batch',
      interactive: false,
      explicit: { provider: opts.provider, model: opts.model, baseUrl: opts.baseUrl, toolsets: toolsets.length ? toolsets : ['todo'], maxTurns: spec.maxTurns },
      dotenvNames: ctx.dotenvNames,
      ports: standalonePorts,
      backgroundTasks: false,
      seedBundledSkills: false,
    });
  } catch (err) {
    if (err instanceof ResolveError) throw new CliError(err.message);
    throw err;
  }
  const stats: Record<string, ToolStat> = Object.fromEntries(spec.toolNames.map((n) => [n, { count: 0, success: 0, failure: 0 }]));
  session.on((ev) => {
    if (ev.type !== 'tool_end') return;
    const s = (stats[ev.name] ??= { count: 0, success: 0, failure: 0 });
    s.count++;
    if (ev.isError) s.failure++;
    else s.success++;
  });
  try {
    const r = await session.prompt(e.prompt);
    if (r.failed || r.interrupted) return { kind: 'failed', error: r.error && 'provider' in r.error ? describeError(r.error) : (r.error?.message ?? 'interrupted') };
    const conversations = toShareGpt(session.history, session.tools.map((t) => t.schema));
    if (opts.discardNoReasoning && !hasReasoning(conversations)) return { kind: 'discarded' };
    const batchNum = Math.floor(e.index / spec.batchSize);
    return {
      kind: 'done',
      entry: {
        prompt_index: e.index,
        conversations,
        metadata: { batch_num: batchNum, timestamp: new Date().toISOString(), model: session.runtime.model, toolsets },
        completed: r.completed,
        partial: r.partial,
        api_calls: r.apiCalls,
        toolsets_used: [...new Set(session.tools.map((t) => t.toolset))].sort(),
        tool_stats: stats,
        tool_error_counts: Object.fromEntries(Object.entries(stats).map(([k, v]) => [k, v.failure])),
      },
    };
  } finally {
    await session.close('batch');
  }
}

export async function runBatch(opts: BatchOptions): Promise<void> {
  if (opts.listDistributions) {
    for (const [name, d] of Object.entries(DISTRIBUTIONS))
      process.stdout.write(`${name.padEnd(16)} ${d.description.padEnd(26)} ${Object.entries(d.toolsets).map(([t, p]) => `${t} ${p}%`).join(', ')}\n`);
    return;
  }
  if (!opts.datasetFile) throw new CliError('--dataset-file is required (a JSONL file with one {"prompt": "…"} per line).', 2);
  if (!opts.runName || !/^[\w.-]+$/.test(opts.runName)) throw new CliError('--run-name is required (letters, digits, ".", "_" or "-").', 2);
  const workers = positive(opts.numWorkers, '--num-workers', 4);
  const maxSamples = opts.maxSamples === undefined ? undefined : positive(opts.maxSamples, '--max-samples', 1);
  const spec = prepareRun(opts);
  const { fixed, distName, toolNames } = spec;

  const datasetPath = resolve(opts.datasetFile);
  const { entries, skipped } = readDataset(datasetPath, maxSamples);
  for (const s of skipped) process.stderr.write(`⚠ ${opts.datasetFile} ${s}: skipped\n`);
  if (!entries.length) throw new CliError(`${opts.datasetFile} has no usable prompts.`, 2);
  if (opts.queue) {
    const { enqueueBatch } = await import('./batch-queue.ts');
    return enqueueBatch(opts.queue, spec, entries);
  }

  const outDir = join(resolve(opts.outputDir ?? 'data'), opts.runName);
  const ckPath = join(outDir, 'checkpoint.json');
  if (existsSync(ckPath) && !opts.resume) throw new CliError(`${outDir} already holds a run. Continue it with --resume, or pick another --run-name.`, 2);
  mkdirSync(outDir, { recursive: true });
  let ck: Checkpoint = { run_name: opts.runName, completed: {}, updated_at: new Date().toISOString() };
  if (opts.resume && existsSync(ckPath)) {
    try {
      ck = JSON.parse(readFileSync(ckPath, 'utf8')) as Checkpoint;
      ck.completed ??= {};
    } catch {
      throw new CliError(`${ckPath} is not valid JSON; move it aside to start the run over.`);
    }
  }
  const todo = entries.filter((e) => ck.completed[promptKey(e.prompt)] === undefined);
  const resumedSkipped = entries.length - todo.length;
  const started = Date.now();
  let completed = 0;
  let failed = 0;
  let discarded = 0;
  const failures: string[] = [];

  const runOne = async (e: DatasetEntry): Promise<void> => {
    const r = await runPrompt(spec, e);
    if (r.kind === 'failed') {
      failed++;
      failures.push(`#${e.index}: ${r.error}`);
      if (opts.verbose) process.stderr.write(`✗ #${e.index} ${r.error}\n`);
      return;
    }
    ck.completed[promptKey(e.prompt)] = e.index;
    if (r.kind === 'discarded') {
      discarded++;
      return;
    }
    appendFileSync(join(outDir, `batch_${r.entry.metadata.batch_num}.jsonl`), `${JSON.stringify(r.entry)}\n`);
    ck.updated_at = new Date().toISOString();
    writeFileAtomic(ckPath, `${JSON.stringify(ck)}\n`);
    completed++;
    if (opts.verbose) process.stderr.write(`✓ #${e.index} ${e.prompt.slice(0, 100).replace(/\s+/g, ' ')}\n`);
  };

  // A fixed pool of workers pulling from the queue.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(workers, todo.length) }, async () => {
      while (next < todo.length) await runOne(todo[next++]);
    }),
  );
  writeFileAtomic(ckPath, `${JSON.stringify({ ...ck, updated_at: new Date().toISOString() })}\n`);

  // Merge every batch file into trajectories.jsonl, dropping samples that call tools that do not exist.
  const valid = new Set(toolNames);
  const merged: string[] = [];
  let dropped = 0;
  const totals: Record<string, ToolStat> = Object.fromEntries(toolNames.map((n) => [n, { count: 0, success: 0, failure: 0 }]));
  let withReasoning = 0;
  for (const f of readdirSync(outDir).filter((n) => /^batch_\d+\.jsonl$/.test(n)).sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]))) {
    for (const line of readFileSync(join(outDir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const entry = JSON.parse(line) as BatchEntry;
      const calls = entry.conversations
        .filter((t) => t.from === 'gpt')
        .flatMap((t) => [...t.value.matchAll(/<tool_call>\n(\{.*\})\n<\/tool_call>/g)].map((m) => (JSON.parse(m[1]) as { name: string }).name));
      if (calls.some((c) => !valid.has(c))) {
        dropped++;
        continue;
      }
      if (hasReasoning(entry.conversations)) withReasoning++;
      for (const [k, v] of Object.entries(entry.tool_stats)) {
        const t = (totals[k] ??= { count: 0, success: 0, failure: 0 });
        t.count += v.count;
        t.success += v.success;
        t.failure += v.failure;
      }
      merged.push(line);
    }
  }
  writeFileAtomic(join(outDir, 'trajectories.jsonl'), merged.length ? `${merged.join('\n')}\n` : '');
  const statistics = {
    run_name: opts.runName,
    dataset: datasetPath,
    distribution: fixed ? null : distName,
    toolsets: fixed ?? null,
    prompts: entries.length,
    completed_this_run: completed,
    skipped_already_done: resumedSkipped,
    failed_this_run: failed,
    discarded_no_reasoning: discarded,
    dropped_invalid_tool_names: dropped,
    trajectories: merged.length,
    reasoning_coverage: merged.length ? withReasoning / merged.length : 0,
    duration_s: Math.round((Date.now() - started) / 100) / 10,
    tool_stats: totals,
  };
  writeFileSync(join(outDir, 'statistics.json'), `${JSON.stringify(statistics, null, 2)}\n`);
  process.stdout.write(
    `Run ${opts.runName}: ${completed} completed, ${failed} failed${resumedSkipped ? `, ${resumedSkipped} already done` : ''}${discarded ? `, ${discarded} discarded (no reasoning)` : ''}; ` +
      `${merged.length} trajectories in ${join(outDir, 'trajectories.jsonl')}\n`,
  );
  for (const f of failures.slice(0, 10)) process.stderr.write(`✗ ${f}\n`);
  if (failed) {
    process.stderr.write(`${failed} prompt${failed === 1 ? '' : 's'} failed; run again with --resume to retry ${failed === 1 ? 'it' : 'them'}.\n`);
    process.exitCode = 1;
  }
}
