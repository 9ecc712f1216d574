// What a worker reads about its task (`hermes kanban context <id>`, kanban_show's worker_context):
// the header, the body, earlier attempts on this task, the handoffs of its done parents, the
// assignee's recent work elsewhere, and the comment thread. Lists keep their newest entries and long
// fields are cut, so a pathological board still gives a bounded prompt.
import type { Comment, KanbanStore, Run } from './store.ts';

const MAX_PRIOR_ATTEMPTS = 10;
const MAX_COMMENTS = 30;
const MAX_FIELD = 4 * 1024;
const MAX_BODY = 8 * 1024;
const MAX_COMMENT = 2 * 1024;

function cap(s: string | null | undefined, limit = MAX_FIELD): string {
  const t = (s ?? '').trim();
  return t.length <= limit ? t : `${t.slice(0, limit)}… [truncated, ${t.length - limit} chars omitted]`;
}

/** "just now", "5m ago", "18h ago", "3d ago": a bare timestamp reads as current fact to a model. */
export function relativeAge(ts: number | null | undefined, now: number): string {
  if (ts === null || ts === undefined || !Number.isFinite(ts)) return '';
  const d = now - ts;
  if (d < 60) return 'just now';
  if (d < 3600) return `${Math.floor(d / 60)}m ago`;
  if (d < 86400) return `${Math.floor(d / 3600)}h ago`;
  return `${Math.floor(d / 86400)}d ago`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM` in local time. */
export function fmtTs(ts: number | null | undefined): string {
  if (!ts) return '';
  const d = new Date(ts * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function stamp(ts: number, now: number): string {
  const age = relativeAge(ts, now);
  return age ? `${fmtTs(ts)}, ${age}` : fmtTs(ts);
}

function metadataLine(m: Record<string, unknown> | null): string | null {
  if (!m || !Object.keys(m).length) return null;
  const sorted = Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
  return `_metadata_: \`${cap(JSON.stringify(sorted))}\``;
}

function tail<T>(items: T[], max: number, noun: string): [T[], string | null] {
  const omitted = Math.max(0, items.length - max);
  return omitted ? [items.slice(-max), `_(${omitted} earlier ${noun}${omitted === 1 ? '' : 's'} omitted; showing most recent ${max})_`] : [items, null];
}

export function buildWorkerContext(s: KanbanStore, taskId: string): string {
  const t = s.require(taskId);
  const now = s.now();
  const lines: string[] = [`# Kanban task ${t.id}: ${t.title}`, '', `Assignee: ${t.assignee ?? '(unassigned)'}`, `Status:   ${t.status}`];
  if (t.tenant) lines.push(`Tenant:   ${t.tenant}`);
  lines.push(`Workspace: ${t.workspace_kind} @ ${t.workspace_path ?? '(unresolved)'}`);
  if (t.max_runtime_seconds !== null) lines.push(`Max runtime: ${t.max_runtime_seconds}s`);
  if (t.branch_name) lines.push(`Branch:   ${t.branch_name}`);
  lines.push('');
  if (t.body?.trim()) lines.push('## Body', cap(t.body, MAX_BODY), '');

  const prior = s.runs(taskId).filter((r) => r.ended_at !== null);
  const [shown, omitted] = tail(prior, MAX_PRIOR_ATTEMPTS, 'attempt');
  if (shown.length) {
    lines.push('## Prior attempts on this task');
    if (omitted) lines.push(omitted);
    const first = prior.length - shown.length + 1;
    shown.forEach((r, i) => {
      lines.push(`### Attempt ${first + i} — ${r.outcome ?? r.status} (${r.profile ?? '(unknown)'}, ${stamp(r.started_at, now)})`);
      if (r.summary?.trim()) lines.push(cap(r.summary));
      if (r.error?.trim()) lines.push(`_error_: ${cap(r.error)}`);
      const m = metadataLine(r.metadata);
      if (m) lines.push(m);
      lines.push('');
    });
  }

  let header = false;
  for (const pid of s.parents(taskId)) {
    const p = s.get(pid);
    if (!p || p.status !== 'done') continue;
    const run = s
      .runs(pid)
      .filter((r: Run) => r.outcome === 'completed')
      .sort((a, b) => b.started_at - a.started_at)[0];
    if (!header) {
      lines.push(
        '## Parent task results',
        '_Handoffs from upstream tasks, captured when each parent completed (see the age below). They are snapshots, not live state: if one drives your work and it is not recent, check it against the source before relying on it._',
      );
      header = true;
    }
    const age = relativeAge(run?.ended_at ?? p.completed_at, now);
    lines.push(`### ${pid}${age ? ` (completed ${age})` : ''}`);
    if (run?.summary?.trim()) lines.push(cap(run.summary));
    else if (p.result) lines.push(cap(p.result));
    else lines.push('(no result recorded)');
    const m = run ? metadataLine(run.metadata) : null;
    if (m) lines.push(m);
    lines.push('');
  }

  if (t.assignee) {
    const recent = s
      .q(
        "SELECT t.id, t.title, r.summary, r.ended_at FROM task_runs r JOIN tasks t ON r.task_id = t.id WHERE r.profile = ? AND r.task_id != ? AND r.outcome = 'completed' ORDER BY r.ended_at DESC LIMIT 5",
      )
      .all(t.assignee, t.id) as { id: string; title: string; summary: string | null; ended_at: number }[];
    if (recent.length) {
      lines.push(`## Recent work by @${t.assignee}`);
      for (const r of recent) lines.push(`- ${r.id} — ${r.title} (${stamp(Number(r.ended_at), now)}): ${(r.summary ?? '').trim().split('\n')[0].slice(0, 200) || '(no summary)'}`);
      lines.push('');
    }
  }

  const [comments, cOmitted] = tail<Comment>(s.comments(taskId), MAX_COMMENTS, 'comment');
  if (comments.length) {
    lines.push('## Comment thread');
    if (cOmitted) lines.push(cOmitted);
    for (const c of comments) {
      // "comment from worker" framing: an author name never reads as a system directive.
      lines.push(`comment from worker \`${c.author.replace(/`/g, '')}\` at ${stamp(c.created_at, now)}:`, cap(c.body, MAX_COMMENT), '');
    }
  }
  return lines.join('\n').trimEnd() + '\n';
}
