// kanban_complete (worker): mark your task done with a handoff (summary + metadata) for the tasks
// that depend on it and for the people watching the board.
import type { Zod } from '../zod.ts';
import { clean, cleanMetadata, okResult, ownRunId, workerTool } from './kanban-common.ts';
import { fail } from '../result.ts';

export default workerTool({
  name: 'kanban_complete',
  emoji: '✔',
  description:
    'Mark your kanban task done with a structured handoff. `summary`: what you did, 1-3 sentences, for people and for the tasks that ' +
    'depend on this one. `metadata`: machine-readable facts (changed_files, tests_run, findings…). `artifacts`: absolute paths of ' +
    'deliverable files. At least one of summary or result is required.',
  fields: (z: Zod) => ({
    summary: z.string().optional().describe('What you did, 1-3 sentences. Downstream workers read it as your handoff.'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Structured facts about this attempt, e.g. {"changed_files": [...], "tests_run": 12}.'),
    result: z.string().optional().describe('Short result line (older field, stored as the task result). Prefer summary.'),
    artifacts: z.array(z.string()).optional().describe('Absolute paths of deliverable files you produced (reports, charts, archives).'),
  }),
  async run(a, { store, id, services }) {
    if (!a.summary?.trim() && !a.result?.trim()) return fail('provide at least one of: summary (preferred), result');
    let metadata = cleanMetadata(a.metadata);
    const artifacts = (a.artifacts ?? []).map((p) => p.trim()).filter(Boolean);
    if (artifacts.length) {
      const prior = Array.isArray(metadata?.artifacts) ? (metadata!.artifacts as unknown[]).map(String) : [];
      metadata = { ...metadata, artifacts: [...new Set([...prior, ...artifacts])] };
    }
    const { complete } = await import('../../kanban/lifecycle.ts');
    if (complete(store, id, { summary: a.summary ? clean(a.summary) : null, result: a.result ? clean(a.result) : null, metadata: metadata ?? null, expectedRunId: ownRunId(services, id) }))
      return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null });
    const t = store.get(id);
    if (!t) return fail(`could not complete ${id}: unknown task`);
    if (!store.parentsSatisfied(id)) return fail(`could not complete ${id}: a parent task is not done yet`);
    return fail(`could not complete ${id}: it is ${t.status}${t.status === 'running' ? ' under another run (this run was reclaimed)' : ''}`);
  },
});
