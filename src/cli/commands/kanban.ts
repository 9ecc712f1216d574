import type { Command } from 'commander';
import { defineKanbanCommands } from '../../kanban/cli-tree.ts';
import { action } from '../errors.ts';

export default function register(program: Command): void {
  const k = program.command('kanban').description('multi-agent task board: tasks, dependencies, claims, worker agents');
  defineKanbanCommands(k, (name) =>
    action(async (...args: unknown[]) => {
      const { runFromCli } = await import('../kanban-cmd.ts');
      await runFromCli(name, args);
    }),
  );
}
