import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';

const STATUS = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TodoItem = { id: string; content: string; status: (typeof STATUS)[number] };

const item = (z: Zod) =>
  z.object({
  id: z.coerce.string().min(1).describe('Stable id of the item'),
  content: z.string().optional().describe('What to do (required for new items)'),
  status: z.enum(STATUS).optional().describe('pending | in_progress | completed | cancelled'),
});

/** The session's todo list lives on the agent (services.state), not in the messages. */
export function todoList(state: Map<string, unknown>): TodoItem[] {
  let list = state.get('todo') as TodoItem[] | undefined;
  if (!list) {
    list = [];
    state.set('todo', list);
  }
  return list;
}

function summary(list: TodoItem[]) {
  const count = (s: TodoItem['status']) => list.filter((t) => t.status === s).length;
  return { total: list.length, pending: count('pending'), in_progress: count('in_progress'), completed: count('completed'), cancelled: count('cancelled') };
}

export default defineTool({
  name: 'todo',
  toolset: 'todo',
  emoji: '📋',
  description:
    'Plan and track multi-step work with a todo list for this session. Call with no arguments to read the list. ' +
    'With `todos` and merge=false (default) the list is replaced; with merge=true items are updated by id and new ids are added. ' +
    'Keep exactly one item in_progress while working, and mark items completed as soon as they are done.',
  schema: (z) =>
    z.object({
    todos: z.array(item(z)).optional().describe('Items to write'),
    merge: z.boolean().optional().describe('Update by id instead of replacing the whole list'),
  }),
  handler(a, ctx) {
    const list = todoList(ctx.services.state);
    if (a.todos) {
      const next: TodoItem[] = a.merge ? list.map((t) => ({ ...t })) : [];
      for (const t of a.todos) {
        const existing = next.find((x) => x.id === t.id);
        if (existing) {
          if (t.content !== undefined) existing.content = t.content;
          if (t.status) existing.status = t.status;
        } else {
          if (!t.content) return fail(`Item "${t.id}" is new and needs \`content\`.`);
          next.push({ id: t.id, content: t.content, status: t.status ?? 'pending' });
        }
      }
      const active = next.filter((t) => t.status === 'in_progress');
      if (active.length > 1) return fail(`Only one item may be in_progress at a time (got: ${active.map((t) => t.id).join(', ')}).`);
      list.splice(0, list.length, ...next);
    }
    return ok({ todos: list, summary: summary(list) });
  },
});
