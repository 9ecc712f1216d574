// `hermes kanban …`: the kanban verbs (src/kanban/cli-*.ts) run with the CLI's context.
import { runAction } from '../kanban/cli-run.ts';
import { loadContext } from './context.ts';

export async function runFromCli(name: string, actionArgs: unknown[]): Promise<void> {
  const ctx = loadContext();
  const code = await runAction(name, {
    out: (l) => process.stdout.write(l + '\n'),
    err: (l) => process.stderr.write(`hermes: ${l}\n`),
    warn: (l) => process.stderr.write(l + '\n'),
    env: ctx.env,
    home: ctx.home,
    kanbanConfig: ctx.loaded.config.kanban ?? {},
    follow: true,
  }, actionArgs);
  if (code) process.exitCode = code;
}
