// kanban_create (orchestrator): put a task on the board for a profile to pick up; a gateway chat
// that creates one is told when it finishes or blocks.
import type { Zod } from '../zod.ts';
import { BOARD_DESCRIPTION, clean, isOrchestrator, okResult, withBoard } from './kanban-common.ts';
import { defineTool } from '../registry.ts';
import { fail } from '../result.ts';

export default defineTool({
  name: 'kanban_create',
  toolset: 'kanban',
  emoji: '➕',
  description:
    'Create a task on the kanban board for a profile (a worker agent) to pick up. Break larger work into tasks with specific assignees; ' +
    'list the ids of tasks it depends on in `parents` — it starts only when all of them are done, and receives their results. The ' +
    'dispatcher (in the gateway) starts the assigned profile on its next tick.',
  schema: (z: Zod) =>
    z.object({
      title: z.string().describe('Short task title.'),
      assignee: z.string().describe("Profile that executes the task (e.g. 'researcher', 'writer'). Tasks without one are never started."),
      body: z.string().optional().describe('The full spec: what to do, acceptance criteria, links. The worker reads it.'),
      parents: z.array(z.string()).optional().describe("Ids of tasks this one depends on; it waits in 'todo' until every one is done."),
      tenant: z.string().optional().describe('Namespace for multi-project isolation (default $HERMES_TENANT).'),
      priority: z.number().int().optional().describe('Higher runs sooner when several tasks are ready.'),
      workspace_kind: z.enum(['scratch', 'dir', 'worktree']).optional().describe("'scratch' (fresh directory, default), 'dir' (an absolute directory, kept), 'worktree' (a git worktree)."),
      workspace_path: z.string().optional().describe("Absolute path for 'dir' or 'worktree'."),
      triage: z.boolean().optional().describe("Park it in 'triage' for someone to flesh out before work starts."),
      idempotency_key: z.string().optional().describe('If a live task already has this key, its id is returned instead of a duplicate.'),
      max_runtime_seconds: z.number().int().positive().optional().describe('Runtime cap; the worker is stopped and the task retried when exceeded.'),
      skills: z.array(z.string()).optional().describe('Skills to load into the worker.'),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  check: isOrchestrator,
  async handler(a, ctx) {
    const s = ctx;
    if (!a.title?.trim()) return fail('title is required');
    if (!a.assignee?.trim()) return fail('assignee is required: name the profile that should do the task');
    if (a.workspace_path?.trim()) {
      // The dispatcher creates this folder and runs the worker (and git, for a worktree) in it:
      // never one of the places the agent may not write (Hermes's own folders, ~/.ssh, /etc, …).
      const { workspaceDenied } = await import('./kanban-workspace-guard.ts');
      const why = await workspaceDenied(s, a.workspace_path);
      if (why) return fail(why);
    }
    return withBoard(s, a.board, 'kanban_create', (store) => {
      const id = store.create({
        title: a.title,
        body: a.body ? clean(a.body) : null,
        assignee: a.assignee,
        parents: a.parents ?? [],
        tenant: a.tenant ?? s.env.HERMES_TENANT ?? null,
        priority: a.priority ?? 0,
        workspaceKind: a.workspace_kind ?? 'scratch',
        workspacePath: a.workspace_path ?? null,
        triage: a.triage,
        idempotencyKey: a.idempotency_key ?? null,
        maxRuntimeSeconds: a.max_runtime_seconds ?? null,
        skills: a.skills ?? null,
        createdBy: s.env.HERMES_PROFILE || 'agent',
        sessionId: s.sessionId,
      });
      let subscribed = false;
      const auto = (s.config as { kanban?: { auto_subscribe_on_create?: unknown } }).kanban?.auto_subscribe_on_create;
      if (s.origin && auto !== false) {
        store.subscribe({ taskId: id, platform: s.origin.platform, chatId: s.origin.chatId, threadId: s.origin.threadId ?? null, userId: s.origin.userId ?? null, notifierProfile: s.env.HERMES_PROFILE ?? null });
        subscribed = true;
      }
      return okResult({ task_id: id, status: store.status(id), subscribed });
    });
  },
});
