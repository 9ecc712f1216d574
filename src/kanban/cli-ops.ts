// `hermes kanban` task verbs (and `/kanban …`): create, list, show, assign, link, claim, comment,
// complete, block, unblock, review handoffs, archive, reclaim, heartbeat, context, runs.
import { readFileSync } from 'node:fs';
import { expandHome } from '../state/paths.ts';
import { listBoards } from './boards.ts';
import { CommandFailed, counts, dispatcherPresence, fmtTs, json, parseDuration, parseMetadata, profileAuthor, taskDict, taskLine, withStore, workerRunId, type KanbanIO } from './cli-io.ts';
import { buildWorkerContext } from './context.ts';
import { archive as archiveTask, block as blockTask, claim as claimTask, complete as completeTask, deleteArchived, heartbeat as heartbeatTask, releaseClaim, requestChanges as changes, requestReview as review, unblock as unblockTask } from './lifecycle.ts';
import { terminateWorker } from './procs.ts';
import { DEFAULT_FAILURE_LIMIT, type KanbanStore } from './store.ts';
import { resolveWorkspace, setWorkspace } from './workspace.ts';

type Opts = Record<string, unknown>;

/** One line per id, "ok" or the failure; exit 1 when any failed. */
function bulk(io: KanbanIO, ids: string[], op: (id: string) => boolean | string, okMsg: (id: string) => string): number {
  let failed = false;
  for (const id of ids) {
    const r = op(id);
    if (r === true) io.out(okMsg(id));
    else {
      failed = true;
      io.err(typeof r === 'string' ? r : `cannot change ${id}`);
    }
  }
  return failed ? 1 : 0;
}

function parseWorkspace(v: string | undefined): { kind: string; path: string | null } {
  const w = (v ?? 'scratch').trim();
  if (w === 'scratch' || w === 'worktree') return { kind: w, path: null };
  for (const [prefix, kind] of [
    ['dir:', 'dir'],
    ['worktree:', 'worktree'],
  ] as const) {
    if (!w.startsWith(prefix)) continue;
    const p = w.slice(prefix.length).trim();
    if (!p) throw new CommandFailed(`--workspace ${prefix} needs a path after the colon`, 2);
    return { kind, path: expandHome(p) };
  }
  throw new CommandFailed(`unknown --workspace value ${JSON.stringify(v)}: use scratch, worktree, worktree:<path> or dir:<path>`, 2);
}

export async function create(io: KanbanIO, title: string, o: Opts): Promise<number> {
  let body = (o.body as string | undefined) ?? null;
  if (o.body !== undefined && o.bodyFile !== undefined) throw new CommandFailed('--body and --body-file are mutually exclusive', 2);
  if (o.bodyFile !== undefined) {
    try {
      body = readFileSync(o.bodyFile === '-' ? 0 : String(o.bodyFile), 'utf8');
    } catch (e) {
      throw new CommandFailed(`--body-file: ${(e as Error).message}`, 2);
    }
  }
  const ws = parseWorkspace(o.workspace as string | undefined);
  if (o.branch && ws.kind !== 'worktree') throw new CommandFailed('--branch is only valid with --workspace worktree', 2);
  if (o.maxRetries !== undefined && Number(o.maxRetries) < 1) throw new CommandFailed(`--max-retries must be at least 1 (got ${o.maxRetries}); 1 blocks on the first failure`, 2);
  const initial = String(o.initialStatus ?? 'running');
  if (initial !== 'running' && initial !== 'blocked') throw new CommandFailed(`--initial-status must be running or blocked, got ${JSON.stringify(initial)}`, 2);
  return withStore(io, (s) => {
    const id = s.create({
      title,
      body,
      assignee: (o.assignee as string | undefined) ?? null,
      createdBy: (o.createdBy as string | undefined) || profileAuthor(io),
      workspaceKind: ws.kind,
      workspacePath: ws.path,
      branchName: (o.branch as string | undefined) ?? null,
      tenant: (o.tenant as string | undefined) ?? null,
      priority: Number(o.priority ?? 0),
      parents: (o.parent as string[] | undefined) ?? [],
      triage: !!o.triage,
      idempotencyKey: (o.idempotencyKey as string | undefined) ?? null,
      maxRuntimeSeconds: parseDuration(o.maxRuntime as string | undefined),
      skills: (o.skill as string[] | undefined)?.length ? (o.skill as string[]) : null,
      maxRetries: o.maxRetries === undefined ? null : Number(o.maxRetries),
      modelOverride: (o.model as string | undefined) ?? null,
      providerOverride: (o.provider as string | undefined) ?? null,
      initialStatus: initial as 'running' | 'blocked',
    });
    if (io.origin && io.kanbanConfig.auto_subscribe_on_create !== false)
      s.subscribe({ taskId: id, platform: io.origin.platform, chatId: io.origin.chatId, threadId: io.origin.threadId ?? null, userId: io.origin.userId ?? null, notifierProfile: io.env.HERMES_PROFILE ?? null });
    const t = s.get(id)!;
    if (o.json) json(io, taskDict(t));
    else {
      io.out(`Created ${id}  (${t.status}, assignee=${t.assignee ?? '-'})`);
      if (t.status === 'ready' && t.assignee && !io.origin) {
        const d = dispatcherPresence(io);
        if (!d.running && d.message) io.warn(`\n⚠  ${d.message}`);
      }
    }
    return 0;
  });
}

export async function list(io: KanbanIO, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    s.recomputeReady(Number(io.kanbanConfig.failure_limit) || DEFAULT_FAILURE_LIMIT);
    const assignee = (o.assignee as string | undefined) ?? (o.mine ? profileAuthor(io) : undefined);
    const tasks = s.list({ assignee, status: o.status as string | undefined, tenant: o.tenant as string | undefined, sessionId: o.session as string | undefined, includeArchived: !!o.archived, sort: o.sort as string | undefined });
    if (o.json) return json(io, tasks.map(taskDict)), 0;
    const boards = listBoards({ includeArchived: false }, io.env);
    if (boards.length > 1) io.out(`Board: ${s.board} (${boards.length - 1} other board${boards.length === 2 ? '' : 's'} — \`hermes kanban boards list\`)\n`);
    if (!tasks.length) io.out('(no matching tasks)');
    for (const t of tasks) io.out(taskLine(t));
    return 0;
  });
}

export async function show(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    const t = s.get(id);
    if (!t) throw new CommandFailed(`no such task: ${id}`);
    const comments = s.comments(id);
    const events = s.events(id);
    const runs = s.runs(id);
    const parents = s.parents(id);
    const children = s.children(id);
    const latest = s.latestSummary(id);
    if (o.json) {
      json(io, {
        task: taskDict(t),
        latest_summary: latest,
        parents,
        children,
        comments: comments.map((c) => ({ author: c.author, body: c.body, created_at: c.created_at })),
        events: events.map((e) => ({ kind: e.kind, payload: e.payload, created_at: e.created_at, run_id: e.run_id })),
        runs: runs.map((r) => ({ id: r.id, profile: r.profile, step_key: r.step_key, status: r.status, outcome: r.outcome, summary: r.summary, error: r.error, metadata: r.metadata, worker_pid: r.worker_pid, started_at: r.started_at, ended_at: r.ended_at })),
      });
      return 0;
    }
    const field = (label: string, v: unknown) => io.out(`  ${(label + ':').padEnd(11)}${v}`);
    io.out(`Task ${t.id}: ${t.title}`);
    field('status', t.status);
    field('assignee', t.assignee ?? '-');
    if (t.tenant) field('tenant', t.tenant);
    field('workspace', t.workspace_kind + (t.workspace_path ? ` @ ${t.workspace_path}` : ''));
    if (t.branch_name) field('branch', t.branch_name);
    if (t.skills?.length) field('skills', t.skills.join(', '));
    if (t.model_override) field('model', t.model_override + (t.provider_override ? ` (provider: ${t.provider_override})` : ''));
    const cfgLimit = Number(io.kanbanConfig.failure_limit);
    if (t.max_retries !== null) io.out(`  max-retries: ${t.max_retries} (task)`);
    else if (Number.isInteger(cfgLimit) && cfgLimit !== DEFAULT_FAILURE_LIMIT) io.out(`  max-retries: ${cfgLimit} (config kanban.failure_limit)`);
    else io.out(`  max-retries: ${DEFAULT_FAILURE_LIMIT} (default)`);
    field('created', `${fmtTs(t.created_at)} by ${t.created_by ?? '-'}`);
    if (t.started_at) field('started', fmtTs(t.started_at));
    if (t.completed_at) field('completed', fmtTs(t.completed_at));
    if (parents.length) field('parents', parents.join(', '));
    if (children.length) field('children', children.join(', '));
    if (t.last_failure_error && t.status !== 'done') field('last error', t.last_failure_error.split('\n')[0].slice(0, 200));
    const section = (title: string, lines: string[]) => {
      io.out('');
      io.out(title);
      for (const l of lines) io.out(l);
    };
    if (t.body) section('Body:', [t.body]);
    if (t.result) section('Result:', [t.result]);
    else if (latest) section('Latest summary:', [latest]);
    if (comments.length) section(`Comments (${comments.length}):`, comments.map((c) => `  [${fmtTs(c.created_at)}] ${c.author}: ${c.body}`));
    if (events.length)
      section(
        `Events (${events.length}):`,
        events.slice(-20).map((e) => `  [${fmtTs(e.created_at)}]${e.run_id ? ` [run ${e.run_id}]` : ''} ${e.kind}${e.payload ? ` ${JSON.stringify(e.payload)}` : ''}`),
      );
    if (runs.length) {
      io.out('');
      io.out(`Runs (${runs.length}):`);
      for (const r of runs) {
        const el = r.ended_at ? `${Math.max(0, r.ended_at - r.started_at)}s` : 'active';
        io.out(`  #${String(r.id).padEnd(3)} ${(r.outcome ?? r.status ?? 'active').padEnd(12)} @${r.profile ?? '-'}  ${el}  ${fmtTs(r.started_at)}`);
        if (r.summary) io.out(`        → ${r.summary.split('\n')[0].slice(0, 160)}`);
        if (r.error) io.out(`        ! ${r.error.split('\n')[0].slice(0, 160)}`);
      }
    }
    return 0;
  });
}

export async function assign(io: KanbanIO, id: string, profile: string): Promise<number> {
  return withStore(io, (s) => {
    const who = ['none', '-', 'null'].includes(profile.toLowerCase()) ? null : profile;
    if (!s.assign(id, who)) throw new CommandFailed(`no such task: ${id}`);
    io.out(`Assigned ${id} to ${s.get(id)?.assignee ?? '(unassigned)'}`);
    return 0;
  });
}

export async function link(io: KanbanIO, parent: string, child: string): Promise<number> {
  return withStore(io, (s) => {
    const gated = s.link(parent, child);
    io.out(`Linked ${parent} -> ${child}`);
    if (gated) io.out(`Note: ${child} was ready and is now todo until ${parent} is done; \`hermes kanban unlink ${parent} ${child}\` lets it run now.`);
    return 0;
  });
}

export async function unlink(io: KanbanIO, parent: string, child: string): Promise<number> {
  return withStore(io, (s) => {
    if (!s.unlink(parent, child)) throw new CommandFailed(`No such link: ${parent} -> ${child}`);
    io.out(`Unlinked ${parent} -> ${child}`);
    return 0;
  });
}

export async function claim(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    const t = claimTask(s, id, { ttlSeconds: (o.ttl as number | undefined) ?? null });
    if (!t) {
      const e = s.get(id);
      if (!e) throw new CommandFailed(`no such task: ${id}`);
      throw new CommandFailed(`cannot claim ${id}: status=${e.status} lock=${e.claim_lock ?? '(none)'}`);
    }
    const ws = resolveWorkspace(t, s.board, io.env);
    setWorkspace(s, id, ws.path, ws.branch);
    io.out(`Claimed ${id}\nWorkspace: ${ws.path}`);
    return 0;
  });
}

export async function comment(io: KanbanIO, id: string, words: string[], o: Opts): Promise<number> {
  let body = words.join(' ').trim();
  const max = o.maxLen as number | undefined;
  if (max !== undefined) {
    if (max < 1) throw new CommandFailed('--max-len must be positive', 2);
    if (body.length > max) {
      const suffix = `\n\n[trimmed to ${max} chars by --max-len]`;
      body = body.slice(0, Math.max(0, max - suffix.length)).trimEnd() + suffix;
    }
  }
  return withStore(io, (s) => {
    s.comment(id, (o.author as string | undefined) || profileAuthor(io), body);
    io.out(`Comment added to ${id}`);
    return 0;
  });
}

export async function complete(io: KanbanIO, ids: string[], o: Opts): Promise<number> {
  if (ids.length > 1 && (o.summary || o.metadata))
    throw new CommandFailed('--summary and --metadata belong to one task; complete tasks one at a time to give each its handoff, or drop them for a bulk close.', 2);
  const metadata = parseMetadata(o.metadata as string | undefined);
  return withStore(io, (s) =>
    bulk(
      io,
      ids,
      (id) => {
        if (completeTask(s, id, { result: (o.result as string | undefined) ?? null, summary: (o.summary as string | undefined) ?? null, metadata, expectedRunId: workerRunId(io, id) })) return true;
        const open = s.parents(id).filter((p) => !['done', 'archived'].includes(s.status(p) ?? ''));
        if (open.length) return `cannot complete ${id}: unfinished parent(s): ${open.map((p) => `${p} (${s.status(p)})`).join(', ')}; complete them first, or \`hermes kanban unlink <parent> ${id}\``;
        return `cannot complete ${id} (unknown id or already finished)`;
      },
      (id) => `Completed ${id}`,
    ),
  );
}

export async function block(io: KanbanIO, id: string, words: string[], o: Opts): Promise<number> {
  const reason = words?.length ? words.join(' ').trim() : null;
  const ids = [id, ...((o.ids as string[] | undefined) ?? [])];
  const suffix = reason ? `: ${reason}` : '';
  return withStore(io, (s) =>
    bulk(
      io,
      ids,
      (tid) => {
        if (!s.get(tid)) return `cannot block ${tid}: unknown task`;
        if (reason) s.comment(tid, profileAuthor(io), `BLOCKED: ${reason}`);
        return blockTask(s, tid, { reason, kind: (o.kind as string | undefined) ?? null, expectedRunId: workerRunId(io, tid) }) || `cannot block ${tid} (not running or ready)`;
      },
      (tid) => {
        const st = s.status(tid);
        if (st === 'todo') return `${tid} → todo (dependency wait)${suffix}`;
        if (st === 'triage') return `${tid} → triage (unblock loop detected — needs a person)${suffix}`;
        return `Blocked ${tid}${suffix}`;
      },
    ),
  );
}

export async function unblock(io: KanbanIO, ids: string[], o: Opts): Promise<number> {
  if (io.env.HERMES_KANBAN_TASK) throw new CommandFailed('kanban unblock is for orchestrators; a worker hands off its own task instead');
  const reason = (o.reason as string | undefined)?.trim() || null;
  const suffix = reason ? `: ${reason}` : '';
  return withStore(io, (s) =>
    bulk(
      io,
      ids,
      (id) => {
        if (s.status(id) !== 'blocked' && s.status(id) !== 'scheduled') return `cannot unblock ${id} (not blocked)`;
        if (reason) s.comment(id, profileAuthor(io), `UNBLOCK: ${reason}`);
        return unblockTask(s, id) || `cannot unblock ${id} (not blocked)`;
      },
      (id) => `Unblocked ${id}${suffix}`,
    ),
  );
}

export async function requestReview(io: KanbanIO, id: string, o: Opts): Promise<number> {
  const metadata = parseMetadata(o.metadata as string | undefined);
  return withStore(io, (s) => {
    const summary = (o.summary as string | undefined)?.trim() || null;
    const r = review(s, id, { summary, metadata, reviewer: (o.reviewer as string | undefined) ?? null, expectedRunId: workerRunId(io, id), force: !!o.force });
    if (!r.ok) throw new CommandFailed(`cannot request review for ${id}: ${r.reason}`);
    io.out(`Requested review for ${id}${summary ? `: ${summary}` : ''}`);
    return 0;
  });
}

export async function requestChanges(io: KanbanIO, id: string, words: string[]): Promise<number> {
  return withStore(io, (s) => {
    const r = changes(s, id, { reason: words.join(' '), expectedRunId: workerRunId(io, id) });
    if (!r.ok) throw new CommandFailed(`cannot request changes for ${id}: ${r.detail}`);
    io.out(`Requested changes for ${id}; routed to ${r.detail}`);
    return 0;
  });
}

export async function archive(io: KanbanIO, ids: string[], o: Opts): Promise<number> {
  const purge = (o.rm as string[] | undefined) ?? [];
  if (ids.length && purge.length) throw new CommandFailed('give either task ids to archive or --rm with archived task ids, not both');
  if (!ids.length && !purge.length) throw new CommandFailed('at least one task id is required');
  return withStore(io, async (s) => {
    if (purge.length) return bulk(io, purge, (id) => deleteArchived(s, id) || `cannot delete ${id} (archive it first)`, (id) => `Deleted ${id}`);
    let failed = false;
    for (const id of ids) {
      const r = archiveTask(s, id);
      if (!r.ok) {
        failed = true;
        io.err(`cannot archive ${id}`);
        continue;
      }
      if (r.pid) {
        const term = await terminateWorker(r.pid, r.claimLock);
        s.txn(() => s.event(id, 'archive_worker_termination', term));
      }
      io.out(`Archived ${id}`);
    }
    return failed ? 1 : 0;
  });
}

export async function reclaim(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, async (s) => {
    const t = s.get(id);
    if (!t || (t.status !== 'running' && t.claim_lock === null)) throw new CommandFailed(`cannot reclaim ${id} (not running, or unknown id)`);
    const term = await terminateWorker(t.worker_pid, t.claim_lock);
    if (!releaseClaim(s, id, { reason: (o.reason as string | undefined) ?? null, prevLock: t.claim_lock, termination: term })) throw new CommandFailed(`cannot reclaim ${id} (it changed meanwhile)`);
    io.out(`Reclaimed ${id}`);
    return 0;
  });
}

export async function heartbeat(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    if (!heartbeatTask(s, id, { note: (o.note as string | undefined) ?? null, expectedRunId: workerRunId(io, id) })) throw new CommandFailed(`cannot heartbeat ${id} (not running?)`);
    io.out(`Heartbeat recorded for ${id}`);
    return 0;
  });
}

export async function context(io: KanbanIO, id: string): Promise<number> {
  return withStore(io, (s) => {
    io.out(buildWorkerContext(s, id));
    return 0;
  });
}

export async function runs(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, (s: KanbanStore) => {
    const rs = s.runs(id);
    if (o.json) return json(io, rs), 0;
    if (!rs.length) return io.out(`(no runs yet for ${id})`), 0;
    io.out(`${'#'.padEnd(3)}  ${'OUTCOME'.padEnd(12)}  ${'PROFILE'.padEnd(16)}  ${'ELAPSED'.padStart(8)}  STARTED`);
    rs.forEach((r, i) => {
      const el = Math.max(0, (r.ended_at ?? s.now()) - r.started_at);
      const elapsed = el < 60 ? `${el}s` : el < 3600 ? `${Math.floor(el / 60)}m` : `${(el / 3600).toFixed(1)}h`;
      io.out(`${String(i + 1).padStart(3)}  ${(r.outcome ?? (r.ended_at ? r.status : '(running)')).padEnd(12)}  ${(r.profile ?? '-').padEnd(16)}  ${elapsed.padStart(8)}  ${fmtTs(r.started_at)}`);
      if (r.summary) io.out(`     → ${r.summary.split('\n')[0].slice(0, 100)}`);
      if (r.error) io.out(`     ✖ ${r.error.slice(0, 100)}`);
    });
    return 0;
  });
}

export async function stats(io: KanbanIO, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    const st = s.stats();
    if (o.json) return json(io, st), 0;
    io.out('By status:');
    for (const k of ['triage', 'todo', 'ready', 'running', 'blocked', 'review', 'done']) io.out(`  ${k.padEnd(8)}  ${st.by_status[k] ?? 0}`);
    const who = Object.keys(st.by_assignee).sort();
    if (who.length) {
      io.out('\nBy assignee:');
      for (const w of who) io.out(`  ${w.padEnd(20)}  ${counts(st.by_assignee[w])}`);
    }
    if (st.oldest_ready_age_seconds !== null) io.out(`\nOldest ready task age: ${st.oldest_ready_age_seconds}s`);
    return 0;
  });
}
