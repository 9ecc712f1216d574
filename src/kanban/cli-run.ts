// Runs a `kanban` verb for a surface: from the command line (`hermes kanban …`) or from a chat
// (`/kanban …`, output captured, same parser and formats).
import type { Command } from 'commander';
import { KanbanError } from './boards.ts';
import * as boardOps from './cli-board-ops.ts';
import { CommandFailed, type KanbanIO } from './cli-io.ts';
import * as taskOps from './cli-ops.ts';
import { defineKanbanCommands } from './cli-tree.ts';

type Handler = (io: KanbanIO, ...args: never[]) => Promise<number>;
const HANDLERS: Record<string, Handler> = { ...(taskOps as unknown as Record<string, Handler>), ...(boardOps as unknown as Record<string, Handler>) };

/** Runs handler `name` with commander's action arguments; known failures become one error line. */
export async function runAction(name: string, io: KanbanIO, actionArgs: unknown[]): Promise<number> {
  const cmd = actionArgs[actionArgs.length - 1] as Command;
  const positional = actionArgs.slice(0, -2);
  const opts = (actionArgs[actionArgs.length - 2] ?? {}) as Record<string, unknown>;
  const board = (cmd.optsWithGlobals?.() as { board?: string } | undefined)?.board;
  const handler = HANDLERS[name];
  if (!handler) throw new Error(`kanban: no handler for ${name}`);
  try {
    return await (handler as (io: KanbanIO, ...a: unknown[]) => Promise<number>)({ ...io, board: board ?? io.board }, ...positional, opts);
  } catch (e) {
    if (e instanceof CommandFailed) {
      io.err(e.message);
      return e.code;
    }
    if (e instanceof KanbanError) {
      io.err(e.message);
      return 1;
    }
    throw e;
  }
}

export const SLASH_HELP = [
  '/kanban — the shared task board.',
  '  list                     tasks on the current board',
  '  show <id>                a task with comments, events and runs',
  '  create "<title>" --assignee <profile> [--parent <id>] [--body …]',
  '                           (this chat is told when it finishes or blocks)',
  '  comment <id> <text>      add a comment',
  '  complete <id> [--summary …]   block <id> [reason]   unblock <id>',
  '  assign <id> <profile>    link <parent> <child>',
  '  context <id>             what the worker sees     runs <id>   tail <id>',
  '  stats                    counts per status and assignee',
  '  boards list              all boards',
  'Every `hermes kanban` command works here; add -h for its options.',
].join('\n');

/** Splits a chat command line into words, keeping "quoted strings" together. */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return out;
}

/** `/kanban <args>` from a chat surface: the same commands, output returned as text. */
export async function runSlash(args: string, io: Omit<KanbanIO, 'out' | 'err' | 'warn' | 'follow'>): Promise<string> {
  const tokens = words(args);
  if (!tokens.length || ['help', '-h', '--help', '?'].includes(tokens[0])) return SLASH_HELP;
  const lines: string[] = [];
  const { Command } = await import('commander');
  const sink: KanbanIO = { ...io, out: (l) => lines.push(l), err: (l) => lines.push(l), warn: (l) => lines.push(l.trim()), follow: false };
  const k = new Command('/kanban')
    .exitOverride()
    .configureOutput({ writeOut: (s) => lines.push(s.trimEnd()), writeErr: (s) => lines.push(s.trimEnd()), outputError: (s, write) => write(s.replace(/^error:/, 'kanban:')) });
  defineKanbanCommands(k, (name) => async (...a: unknown[]) => {
    await runAction(name, sink, a);
  });
  try {
    await k.parseAsync(tokens, { from: 'user' });
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (!code.startsWith('commander.')) lines.push(`kanban: ${(e as Error).message}`);
  }
  return lines.join('\n').trim() || '(no output)';
}
