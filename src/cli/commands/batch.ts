import { Command, Option } from 'commander';
import { action } from '../errors.ts';

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
    .option('-v, --verbose', 'print a line per prompt');
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
