import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineSlot } from '../../state/slots.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';

const STATUS = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TodoItem = { id: string; content: string; status: (typeof STATUS)[number] };

const item = (z: Zod) =>
  z.object({
  id: z.coerce.string().min(1),
  content: z.string().optional().describe('Required for new items'),
  status: z.enum(STATUS).optional(),
});

/** The session's todo list lives on the agent (a session slot), not in the messages; /new empties it. */
export const todoSlot = defineSlot('todo', (): TodoItem[] => []);

function summary(list: TodoItem[]) {
  const count = (s: TodoItem['status']) => list.filter((t) => t.status === s).length;
  return { total: list.length, pending: count('pending'), in_progress: count('in_progress'), completed: count('completed'), cancelled: count('cancelled') };
}

export default defineTool({
  name: 'todo',
  toolset: 'todo',
  emoji: '📋',
  description:
    'Track multi-step work in a todo list: no arguments reads it; todos replaces it (merge=true updates by id). Keep one item in_progress.',
  schema: (z) =>
    z.object({
    todos: z.array(item(z)).optional(),
    merge: z.boolean().optional(),
  }),
  handler(a, ctx) {
    const list = ctx.slot(todoSlot);
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
