import type { Command } from 'commander';
import { collectList, lazyActions } from '../errors.ts';


export default function register(program: Command): void {
  const cron = program.command('cron').description('scheduled jobs: list, create, edit, pause, resume, run, remove, status, tick');
  const run = lazyActions(() => import('../cron-cmd.ts'));

  cron.command('list', { isDefault: true }).alias('ls').description('list scheduled jobs').option('-a, --all', 'include paused and completed jobs').action(run('list'));
  cron
    .command('create <schedule> [prompt]')
    .alias('add')
    .description('schedule a job: "30m", "every 2h", "every monday 9am", "0 9 * * *" or an ISO time')
    .option('--name <name>', 'a short name')
    .option('--deliver <target>', 'origin, local, telegram, telegram:<chat_id>[:<thread_id>], … (comma-separated; default local)')
    .option('--repeat <n>', 'how many times to run (default: once for one-shots, forever otherwise)')
    .option('--skill <name>', 'load a skill before the prompt (repeatable)', collectList)
    .option('--script <path>', 'a script in HERMES_HOME/scripts/ whose output is given to the agent')
    .option('--workdir <dir>', 'absolute directory the job works in')
    .option('--model <model>', 'model for this job')
    .option('--provider <id>', 'provider for this job')
    .option('--no-agent', 'no LLM: run --script on schedule and deliver its output as it is')
    .option('--paused', 'create it paused (resume it to schedule)')
    .option('--continuity', 'each run sees what the previous run reported (stored as "self" in context_from)')
    .action(run('create'));
  cron
    .command('edit <job>')
    .description('change a job (by ID or name)')
    .option('--schedule <schedule>', 'new schedule')
    .option('--prompt <text>', 'new prompt')
    .option('--name <name>', 'new name')
    .option('--deliver <target>', 'new delivery target(s)')
    .option('--repeat <n>', 'new repeat count (0 or "forever" for no limit)')
    .option('--skill <name>', 'replace the skills with these (repeatable)', collectList)
    .option('--add-skill <name>', 'add a skill (repeatable)', collectList)
    .option('--remove-skill <name>', 'remove a skill (repeatable)', collectList)
    .option('--clear-skills', 'remove all skills')
    .option('--script <path>', 'new pre-run script ("" clears it)')
    .option('--workdir <dir>', 'new working directory ("" clears it)')
    .option('--model <model>', 'model for this job ("" = the configured one)')
    .option('--provider <id>', 'provider for this job ("" = the configured one)')
    .option('--no-agent', 'no LLM: run the job’s script and deliver its output as it is')
    .option('--agent', 'back to an LLM-driven job (undoes --no-agent)')
    .option('--continuity', 'each run sees what the previous run reported')
    .option('--no-continuity', 'runs no longer see the previous run')
    .action(run('edit'));
  cron.command('pause <job>').description('stop scheduling a job (keep it)').option('--reason <text>', 'why').action(run('pause'));
  cron.command('resume <job>').description('schedule a paused job again from now').action(run('resume'));
  cron.command('run <job>').description('run a job now (through the running gateway when there is one)').action(run('runJob'));
  cron.command('remove <job>').aliases(['rm', 'delete']).description('delete a job and its saved output').action(run('remove'));
  cron.command('status').description('is the ticker running, what runs next').action(run('status'));
  cron.command('tick').description('run the jobs that are due, once, and exit (for a system crontab)').action(run('tick'));
}
