import { Command, Option } from 'commander';
import { action, CliError } from '../errors.ts';

export interface BatchOptions {
  datasetFile?: string;
  runName?: string;
  batchSize?: string;
  numWorkers?: string;
  maxTurns?: string;
  maxSamples?: string;
  resume?: boolean;
  model?: string;
  provider?: string;
  baseUrl?: string;
  toolsets?: string;
  distribution?: string;
  listDistributions?: boolean;
  ephemeralSystemPrompt?: string;
  outputDir?: string;
  discardNoReasoning?: boolean;
  verbose?: boolean;
  /** A PostgreSQL URL: enqueue the dataset there for `hermes batch worker` processes. */
  queue?: string;
}

export default function register(program: Command): void {
  const cmd = program
    .command('batch')
    .description('run a JSONL dataset of prompts through the agent in parallel and save ShareGPT trajectories')
    .option('--dataset-file <path>', 'JSONL file, one {"prompt": "…", "cwd"?: "…"} per line')
    .option('--run-name <name>', 'output goes to <output-dir>/<run-name>/')
    .option('--batch-size <n>', 'prompts per batch_<n>.jsonl file (default 10)')
    .option('--num-workers <n>', 'prompts run at the same time (default 4)')
    .option('--max-turns <n>', 'tool-calling iterations per prompt (default 10)')
    .option('--max-samples <n>', 'stop after this many prompts of the dataset')
    .option('--resume', 'continue a run: prompts already completed (matched by their text) are skipped')
    .option('-m, --model <model>', 'model for the run')
    .option('--provider <id>', 'provider for the run')
    .option('--base-url <url>', 'OpenAI-compatible endpoint for the run')
    .option('-t, --toolsets <list>', 'toolsets for every prompt (instead of a distribution)')
    .option('--distribution <name>', 'toolset distribution sampled per prompt (default: default)')
    .option('--list-distributions', 'print the toolset distributions and exit')
    .option('--ephemeral-system-prompt <text>', 'extra system text used during the run, not saved in trajectories')
    .option('--output-dir <dir>', 'where runs are written (default ./data)')
    .option('--discard-no-reasoning', 'drop samples whose assistant turns carry no reasoning at all')
    .option('-v, --verbose', 'print a line per prompt')
    .option('--queue <url>', 'enqueue the dataset in PostgreSQL (postgres://…) for `hermes batch worker` processes on any machine');
  // The subcommands share the parent's options (--queue, --run-name, --num-workers, --output-dir,
  // -v), before the subcommand's name (the parent holds them) or after it (each subcommand takes
  // them too: options are positional, `hermes batch worker --queue …` reaches the worker).
  const withShared = (c: Command): Command =>
    c
      .option('--queue <url>', 'the PostgreSQL queue (default: HERMES_DATABASE_URL)')
      .option('--run-name <name>', 'the queued run')
      .option('--num-workers <n>', 'prompts this process runs at the same time (default 4)')
      .option('--output-dir <dir>', 'where runs are written (default ./data)')
      .option('-v, --verbose', 'print a line per prompt');
  const shared = (o: object): BatchOptions & Record<string, unknown> => {
    const all = { ...cmd.opts(), ...o } as BatchOptions & Record<string, unknown>;
    if (all.run_name !== undefined && all.runName === undefined) all.runName = all.run_name as string;
    if (all.num_workers !== undefined && all.numWorkers === undefined) all.numWorkers = all.num_workers as string;
    const url = all.queue || process.env.HERMES_DATABASE_URL || '';
    if (!url) throw new CliError('--queue postgres://user@host/db is required (or set HERMES_DATABASE_URL).', 2);
    if (!all.runName) throw new CliError('--run-name is required: the queued run to work on.', 2);
    all.queue = url;
    return all;
  };
  withShared(cmd.command('worker'))
    .description('run prompts of a queued run (hermes batch --queue …) until none are left; start any number, on any machine')
    .option('--visibility-timeout <s>', 'seconds a claimed prompt stays invisible to others; renewed while it runs (default 300)')
    .option('--max-attempts <n>', 'tries per prompt before it is marked failed, with exponential backoff (default 3)')
    .action(
      action(async (o: { visibilityTimeout?: string; maxAttempts?: string }) => {
        const all = shared(o);
        const { workBatch } = await import('../batch-queue.ts');
        await workBatch(all.queue!, all);
      }),
    );
  withShared(cmd.command('status'))
    .description('progress, throughput and failures of a queued run')
    .option('--json', 'one JSON object')
    .action(
      action(async (o: { json?: boolean }) => {
        const all = shared(o);
        const { batchStatus } = await import('../batch-queue.ts');
        await batchStatus(all.queue!, all);
      }),
    );
  withShared(cmd.command('collect'))
    .description("write a queued run's trajectories to <output-dir>/<run-name>/trajectories.jsonl")
    .action(
      action(async (o: object) => {
        const all = shared(o);
        const { collectBatch } = await import('../batch-queue.ts');
        await collectBatch(all.queue!, all);
      }),
    );
  // Hermes's batch_runner.py spells the flags with underscores; accept those too.
  for (const flag of [
    '--dataset_file <path>',
    '--run_name <name>',
    '--batch_size <n>',
    '--num_workers <n>',
    '--max_turns <n>',
    '--max_samples <n>',
    '--base_url <url>',
    '--ephemeral_system_prompt <text>',
    '--list_distributions',
  ])
    cmd.addOption(new Option(flag).hideHelp());
  cmd.action(
    action(async (opts: BatchOptions & Record<string, unknown>) => {
      const aliases: Record<string, keyof BatchOptions> = {
        dataset_file: 'datasetFile',
        run_name: 'runName',
        batch_size: 'batchSize',
        num_workers: 'numWorkers',
        max_turns: 'maxTurns',
        max_samples: 'maxSamples',
        base_url: 'baseUrl',
        ephemeral_system_prompt: 'ephemeralSystemPrompt',
        list_distributions: 'listDistributions',
      };
      for (const [from, to] of Object.entries(aliases)) if (opts[from] !== undefined && opts[to] === undefined) (opts as Record<string, unknown>)[to] = opts[from];
      const { runBatch } = await import('../batch.ts');
      await runBatch(opts);
    }),
  );
}
