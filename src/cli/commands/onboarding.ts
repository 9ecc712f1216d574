// Onboarding and care: `hermes setup`, `hermes model`, `hermes status`, `hermes doctor`,
// `hermes completion`. Implementations load only when a command runs.
import { Option, type Command } from 'commander';
import { action, CliError } from '../errors.ts';

export default function register(program: Command): void {
  program
    .command('setup')
    .description('set up a provider, API key and model (a wizard; --non-interactive with flags)')
    .option('--non-interactive', 'no prompts: take everything from the flags (and the environment)')
    .option('--provider <id>', 'provider id (openrouter, anthropic, openai, custom, …)')
    .option('--api-key <key>', 'API key, saved to ~/.hermes/.env (- reads it from stdin)')
    .option('-m, --model <model>', 'model name (default: the provider’s default, or the first it serves)')
    .option('--base-url <url>', 'endpoint of an OpenAI-compatible server (custom provider)')
    .option('--name <name>', 'the name a custom endpoint is remembered by (`hermes model custom:<name>`)')
    .addOption(new Option('--api-mode <mode>', 'wire format, when the URL does not tell').choices(['chat_completions', 'anthropic_messages', 'codex_responses']))
    .option('--no-test', 'skip the test call')
    .action(
      action(async (opts) => {
        const { runSetup } = await import('../setup.ts');
        await runSetup(opts);
      }),
    );

  program
    .command('model [model]')
    .description('choose the default provider and model (a picker, or `hermes model provider:model`)')
    .option('--provider <id>', 'provider for the model')
    .option('--base-url <url>', 'endpoint of an OpenAI-compatible server (custom provider)')
    .option('--name <name>', 'the name a custom endpoint is remembered by (`hermes model custom:<name>`)')
    .addOption(new Option('--api-mode <mode>', 'wire format, when the URL does not tell').choices(['chat_completions', 'anthropic_messages', 'codex_responses']))
    .option('--list', 'print the models the provider serves')
    .option('--test', 'make a test call before saving')
    .action(
      action(async (model: string | undefined, opts) => {
        const { runModel } = await import('../model-cmd.ts');
        await runModel(model, opts);
      }),
    );

  program
    .command('status')
    .description('provider, model, which keys are set (never their values), tools, sessions')
    .option('--all', 'list every key Hermes reads, set or not')
    .option('--json', 'print as JSON')
    .action(
      action(async (opts) => {
        const { runStatus } = await import('../status.ts');
        await runStatus(opts);
      }),
    );

  program
    .command('doctor')
    .description('check the installation and configuration; --fix repairs what is safe to repair')
    .option('--fix', 'apply safe repairs (permissions, missing folders)')
    .option('--timeout <seconds>', 'network timeout per check (with --model: per request, default 60)')
    .option('--model', "test the configured model: what its server serves and a tool-calling self-test (native / text / failing)")
    .option('--apply', 'with --model: write the suggested settings to config.yaml')
    .action(
      action(async (opts) => {
        if (opts.apply && !opts.model) throw new CliError('--apply goes with --model (hermes doctor --model --apply).', 2);
        if (opts.model) {
          const { runModelDoctor } = await import('../doctor-model.ts');
          return runModelDoctor(opts);
        }
        const { runDoctor } = await import('../doctor.ts');
        await runDoctor({ ...opts, timeout: opts.timeout ?? '10' });
      }),
    );

  program
    .command('completion [shell]')
    .description('print a shell completion script (bash, zsh or fish)')
    .action(
      action(async (shell: string | undefined) => {
        const { runCompletion } = await import('../completion.ts');
        await runCompletion(shell);
      }),
    );
}
