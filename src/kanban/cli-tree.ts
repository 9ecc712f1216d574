// The `kanban` command tree (Hermes's subcommands and flags), shared by `hermes kanban …` and the
// `/kanban …` slash command. Declaring it loads nothing heavy: each action is bound by the caller,
// which loads the implementation (cli-ops.ts) when a command runs.
import type { Command } from 'commander';

/** `act('create')` is the action for `kanban create`: it receives commander's (args…, opts, cmd). */
export type Binder = (name: string) => (...args: unknown[]) => Promise<void>;

const repeat = (v: string, prev: string[] = []) => [...prev, v];
const int = (flag: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new Error(`${flag} needs a whole number, got ${JSON.stringify(v)}`);
  return n;
};

export function defineKanbanCommands(k: Command, act: Binder): Command {
  k.option('--board <slug>', 'board to operate on (default: HERMES_KANBAN_BOARD, then the current board, then "default")');

  k.command('init').description('create kanban.db if missing (idempotent)').action(act('init'));

  const boards = k.command('boards').description('manage boards (one board per project or workstream)');
  boards.command('list', { isDefault: true }).alias('ls').description('list boards with task counts').option('--json', 'JSON output').option('--all', 'include archived boards').action(act('boardsList'));
  boards
    .command('create <slug>')
    .alias('new')
    .description('create a board')
    .option('--name <name>', 'display name (default: the slug in Title Case)')
    .option('--description <text>', 'description')
    .option('--icon <icon>', 'emoji or one-character icon')
    .option('--color <hex>', 'color, e.g. #8b5cf6')
    .option('--switch', 'make it the current board')
    .option('--default-workdir <path>', 'default workspace path for its tasks')
    .action(act('boardsCreate'));
  boards.command('rm <slug>').aliases(['remove', 'delete']).description('archive (default) or delete a board').option('--delete', 'delete instead of archiving').action(act('boardsRm'));
  boards.command('switch <slug>').alias('use').description('set the current board').action(act('boardsSwitch'));
  boards.command('show').alias('current').description('show the current board').action(act('boardsShow'));
  boards.command('rename <slug> <name>').description("change a board's display name").action(act('boardsRename'));
  boards.command('set-default-workdir <slug> [path]').description("set (or, without a path, clear) a board's default workspace path").action(act('boardsWorkdir'));

  k.command('create <title>')
    .description('create a task')
    .option('--body <text>', 'the opening post (spec, acceptance criteria)')
    .option('--body-file <path>', 'read the body from a file (- = stdin)')
    .option('--assignee <profile>', 'profile that does it')
    .option('--parent <id>', 'parent task id (repeatable)', repeat, [])
    .option('--workspace <kind>', 'scratch | worktree | worktree:<path> | dir:<path>', 'scratch')
    .option('--branch <name>', 'branch for worktree tasks')
    .option('--tenant <name>', 'tenant namespace')
    .option('--priority <n>', 'priority (higher runs first)', int('--priority'), 0)
    .option('--triage', 'park it in triage for someone to specify')
    .option('--idempotency-key <key>', 'return the live task with this key instead of creating a duplicate')
    .option('--max-runtime <duration>', 'runtime cap: seconds or 90s, 30m, 2h, 1d')
    .option('--created-by <name>', 'author recorded on the task', 'user')
    .option('--skill <name>', 'skill to load into the worker (repeatable)', repeat, [])
    .option('--max-retries <n>', 'failures before the task is blocked (default kanban.failure_limit)', int('--max-retries'))
    .option('--model <model>', 'model for the worker')
    .option('--provider <id>', 'provider of --model')
    .option('--initial-status <status>', 'running (normal flow) or blocked', 'running')
    .option('--json', 'JSON output')
    .action(act('create'));
  k.command('list')
    .alias('ls')
    .description('list tasks')
    .option('--mine', 'only tasks of $HERMES_PROFILE')
    .option('--assignee <profile>', 'only this assignee')
    .option('--status <status>', 'only this status')
    .option('--tenant <name>', 'only this tenant')
    .option('--session <id>', 'only tasks created from this session')
    .option('--archived', 'include archived tasks')
    .option('--sort <order>', 'created, created-desc, priority, priority-desc, status, assignee, title, updated')
    .option('--json', 'JSON output')
    .action(act('list'));
  k.command('show <task>').description('show a task with its comments, events and runs').option('--json', 'JSON output').action(act('show'));
  k.command('assign <task> <profile>').description("assign or reassign a task ('none' unassigns)").action(act('assign'));
  k.command('link <parent> <child>').description('add a parent → child dependency').action(act('link'));
  k.command('unlink <parent> <child>').description('remove a parent → child dependency').action(act('unlink'));
  k.command('claim <task>').description('claim a ready task (prints its workspace)').option('--ttl <seconds>', 'claim TTL in seconds (default 900)', int('--ttl')).action(act('claim'));
  k.command('comment <task> <text...>')
    .description('add a comment')
    .option('--author <name>', 'author (default $HERMES_PROFILE or user)')
    .option('--max-len <n>', 'trim the stored comment to this many characters', int('--max-len'))
    .action(act('comment'));
  k.command('complete <tasks...>')
    .description('mark one or more tasks done')
    .option('--result <text>', 'result line')
    .option('--summary <text>', 'handoff summary for the tasks that depend on it')
    .option('--metadata <json>', 'JSON object of structured facts, stored on the closing run')
    .action(act('complete'));
  k.command('block <task> [reason...]')
    .description('mark a task blocked (the reason is also added as a comment)')
    .option('--ids <ids...>', 'more tasks to block with the same reason')
    .option('--kind <kind>', 'dependency | needs_input | capability | transient')
    .action(act('block'));
  k.command('unblock <tasks...>').description('return blocked tasks to ready (todo while a parent is open)').option('--reason <text>', 'note recorded as a comment').action(act('unblock'));
  k.command('request-review <task>')
    .description("move a task to 'review' (work done, awaiting a reviewer)")
    .option('--summary <text>', 'what was done and how it was verified')
    .option('--reviewer <profile>', 'reviewer profile (reassigns the task)')
    .option('--metadata <json>', 'JSON object for the reviewer')
    .option('--force', "move it even while a worker holds the claim")
    .action(act('requestReview'));
  k.command('request-changes <task> <reason...>').description('reviewer verdict: send the task back to its implementer').action(act('requestChanges'));
  k.command('archive [tasks...]').description('archive tasks').option('--rm <ids...>', 'permanently delete already-archived tasks').action(act('archive'));
  k.command('reclaim <task>').description("release a running task's claim (its worker is stopped)").option('--reason <text>', 'why').action(act('reclaim'));
  k.command('heartbeat <task>').description('record a worker heartbeat').option('--note <text>', 'progress note').action(act('heartbeat'));
  k.command('tail <task>').description("follow a task's events").option('--interval <seconds>', 'poll interval', '1').action(act('tail'));
  k.command('watch')
    .description('follow the events of the whole board')
    .option('--assignee <profile>', 'only this assignee')
    .option('--tenant <name>', 'only this tenant')
    .option('--kinds <list>', 'comma-separated event kinds')
    .option('--interval <seconds>', 'poll interval', '0.5')
    .action(act('watch'));
  k.command('dispatch')
    .description('one dispatcher pass: reclaim stale claims, promote ready tasks, spawn workers')
    .option('--once', 'one pass and exit (the default)')
    .option('--dry-run', 'spawn nothing; print what would happen')
    .option('--max <n>', 'cap on running workers of this board', int('--max'))
    .option('--failure-limit <n>', 'consecutive failures before a task is blocked', int('--failure-limit'))
    .option('--json', 'JSON output')
    .action(act('dispatch'));
  k.command('daemon')
    .description('run the dispatcher in a loop (the gateway normally runs it: `hermes gateway start`)')
    .option('--interval <seconds>', 'seconds between ticks', '60')
    .option('--max <n>', 'cap on running workers', int('--max'))
    .option('--failure-limit <n>', 'consecutive failures before a task is blocked', int('--failure-limit'))
    .option('--force', 'run even though the gateway is the usual dispatcher')
    .option('-v, --verbose', 'log every tick that did something')
    .action(act('daemon'));
  k.command('context <task>').description('print the context a worker sees for a task').action(act('context'));
  k.command('runs <task>').description("a task's attempts").option('--json', 'JSON output').action(act('runs'));
  k.command('log <task>').description("print a task's worker log").option('--tail <bytes>', 'only the last N bytes', int('--tail')).action(act('log'));
  k.command('stats').description('counts per status and assignee').option('--json', 'JSON output').action(act('stats'));
  k.command('notify-subscribe <task>')
    .description("send a task's events to a chat")
    .requiredOption('--platform <name>', 'telegram, discord, slack, …')
    .requiredOption('--chat-id <id>', 'chat id')
    .option('--thread-id <id>', 'thread id')
    .option('--user-id <id>', 'user id')
    .action(act('notifySubscribe'));
  k.command('notify-list [task]').description('list chat subscriptions').option('--json', 'JSON output').action(act('notifyList'));
  k.command('notify-unsubscribe <task>')
    .description('stop sending a task’s events to a chat')
    .requiredOption('--platform <name>', 'platform')
    .requiredOption('--chat-id <id>', 'chat id')
    .option('--thread-id <id>', 'thread id')
    .action(act('notifyUnsubscribe'));
  k.command('gc')
    .description('remove archived tasks’ workspaces, old events and old worker logs')
    .option('--event-retention-days <n>', 'delete events of finished tasks older than this', int('--event-retention-days'), 30)
    .option('--log-retention-days <n>', 'delete worker logs older than this', int('--log-retention-days'), 30)
    .action(act('gc'));
  return k;
}
