// One curator run, as Hermes's curator does it: a snapshot of skills/ first (state/curator-backup.ts),
// the deterministic pass (stale / archived / reactivated, state/curator.ts), then — when
// consolidation is on (`curator.consolidate: true` or `hermes curator run --consolidate`) — the LLM
// review: a background session on the auxiliary curator model (auxiliary.curator.*, else the main
// model) with only the skills tools, asked to merge narrow agent-written skills into class-level
// umbrellas. It can only change agent-created, unpinned skills, and deleting archives (never erases).
// A dry run snapshots nothing, changes nothing and gives the reviewer read-only tools. Every run
// writes logs/curator/<stamp>/run.json and REPORT.md and updates skills/.curator_state.
import { existsSync } from 'node:fs';
import type { HermesConfig } from '../state/defaults.ts';
import { backupSettings, snapshotSkills } from '../state/curator-backup.ts';
import { classifyRemoved, cronReferencedSkills, writeRunReport, type RunRecord, type ToolCallRecord } from '../state/curator-report.ts';
import { curatorSettings, loadCuratorState, runCurator, saveCuratorState } from '../state/curator.ts';
import { paths } from '../state/paths.ts';
import { curatedReport } from '../state/skill-usage.ts';
import { sqlite } from '../state/sqlite.ts';
import { Session, type ExplicitChoices, type SessionOptions } from './session.ts';

const PROMPT = [
  'You are Hermes’s skill curator, running in the background with nobody watching. Your job is to keep the',
  'library of skills the agent wrote for itself useful: a set of broad, class-level skills that each cover a',
  'kind of task, rather than many narrow skills that each remember one session’s specific problem. Another',
  'agent finds skills by their descriptions, so one well-described umbrella with labeled sections beats five',
  'near-duplicates.',
  '',
  'Rules:',
  '1. Only the agent-created skills listed at the end are yours. Never touch bundled or hub-installed skills.',
  '   Leave skills marked pinned=yes or cron=yes exactly as they are.',
  '2. Nothing is ever erased: skill_manage action=delete moves a skill to the archive, where the user can',
  '   restore it. When you merged its knowledge into another skill, pass absorbed_into=<that skill>; when',
  '   you retire it without a merge (obsolete, wrong, unused), pass absorbed_into="".',
  '3. To consolidate a cluster: choose the best existing skill as the umbrella or create one (skill_manage',
  '   create/edit/patch), carry over every specific, still-useful detail (a labeled section, or a file under',
  '   references/ with write_file), then delete the narrow skills with absorbed_into set to the umbrella.',
  '4. Keep skills that are distinct and useful. When unsure, leave a skill alone.',
  '5. Read before writing: skills_list, then skill_view on every skill you consider.',
  '',
  'Finish with a short summary of the clusters you handled and what you left alone, then exactly this block',
  '(empty lists when there is nothing):',
  '',
  '## Structured summary (required)',
  '```yaml',
  'consolidations:',
  '  - from: <old skill>',
  '    into: <umbrella skill>',
  '    reason: <one sentence: why these belong together>',
  'prunings:',
  '  - name: <skill>',
  '    reason: <one sentence: why it is retired without a merge>',
  '```',
].join('\n');

const DRY_RUN_BANNER = [
  'DRY RUN — REPORT ONLY. You have read-only tools (skills_list, skill_view) and must not change anything.',
  'Follow the instructions below, but describe the actions you WOULD take, in the same summary and YAML',
  'block. A person reads the report and decides whether to run the curator for real.',
  '',
].join('\n');

/** The candidate list the reviewer sees: each agent-created skill with its usage. */
export function candidateList(home: string): string | null {
  const rows = curatedReport(home).filter((r) => (r.state ?? 'active') !== 'archived');
  if (!rows.length) return null;
  const cron = cronReferencedSkills(home);
  return [
    `Agent-created skills (${rows.length}):`,
    ...rows.map((r) => `- ${r.name}  state=${r.state ?? 'active'}  pinned=${r.pinned ? 'yes' : 'no'}  cron=${cron.has(r.name) ? 'yes' : 'no'}  use=${r.use_count}  view=${r.view_count}  patches=${r.patch_count}  last_activity=${r.last_activity_at ?? 'never'}`),
  ].join('\n');
}

/** auxiliary.curator.{provider,model,base_url,api_key} when set (not auto), else the legacy curator.auxiliary, else the main model. */
export function reviewModel(config: HermesConfig): ExplicitChoices {
  const pick = (c: unknown): ExplicitChoices | null => {
    const o = (c ?? {}) as Record<string, unknown>;
    const provider = typeof o.provider === 'string' ? o.provider.trim() : '';
    const model = typeof o.model === 'string' ? o.model.trim() : '';
    if (!provider || provider === 'auto' || !model) return null;
    return { provider, model, baseUrl: typeof o.base_url === 'string' && o.base_url ? o.base_url : undefined, apiKey: typeof o.api_key === 'string' && o.api_key ? o.api_key : undefined };
  };
  const cfg = config as { auxiliary?: Record<string, unknown>; curator?: { auxiliary?: unknown } };
  return pick(cfg.auxiliary?.curator) ?? pick(cfg.curator?.auxiliary) ?? {};
}

export interface ReviewOutcome {
  final: string;
  summary: string;
  model: string;
  provider: string;
  error: string | null;
  toolCalls: ToolCallRecord[];
}

/** Runs the reviewer session on `prompt`; never throws (a failure comes back in `error`). */
export async function runLlmReview(o: { home: string; config: HermesConfig; env: NodeJS.ProcessEnv; prompt: string; readOnly: boolean; makeSession?: (o: SessionOptions) => Session }): Promise<ReviewOutcome> {
  const res: ReviewOutcome = { final: '', summary: '', model: '', provider: '', error: null, toolCalls: [] };
  let session: Session | null = null;
  try {
    const opts: SessionOptions = {
      home: o.home,
      config: o.config,
      env: o.env,
      cwd: o.home,
      platform: 'curator',
      source: 'curator',
      interactive: false,
      explicit: { ...reviewModel(o.config), maxTurns: 200 },
      toolNames: o.readOnly ? ['skills_list', 'skill_view'] : ['skills_list', 'skill_view', 'skill_manage'],
      ignoreRules: true,
      backgroundTasks: false,
      seedBundledSkills: false,
    };
    session = o.makeSession ? o.makeSession(opts) : new Session(opts);
    const turn = await session.prompt(o.prompt);
    res.model = session.llm.active.model;
    res.provider = session.llm.active.provider;
    for (const m of session.history) for (const tc of m.tool_calls ?? []) res.toolCalls.push({ name: tc.function.name, arguments: tc.function.arguments.length > 4000 ? `${tc.function.arguments.slice(0, 4000)}…` : tc.function.arguments });
    res.final = turn.finalText.trim();
    if (turn.failed) res.error = turn.error?.message ?? 'the review turn failed';
    res.summary = res.error ? `error (${res.error})` : res.final ? (res.final.length > 240 ? `${res.final.slice(0, 240)}…` : res.final) : 'no change';
  } catch (e) {
    res.error = (e as Error).message;
    res.summary = `error (${res.error})`;
  } finally {
    await session?.close('curator review done').catch(() => {});
  }
  return res;
}

/** Seconds since the last message in state.db (any session), or null when it cannot be told. */
export function idleSeconds(home: string, now = Date.now()): number | null {
  const file = paths.stateDb(home);
  if (!existsSync(file)) return null;
  try {
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const row = db.prepare('SELECT MAX(timestamp) AS t FROM messages').get() as { t: number | null };
      return row.t ? Math.max(0, now / 1000 - Number(row.t)) : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

export interface CuratorPassResult {
  summary: string;
  reportDir: string;
  record: RunRecord;
}

/** A whole curator run (see the top of this file). `consolidate` overrides curator.consolidate. */
export async function runCuratorPass(o: { home: string; config: HermesConfig; env: NodeJS.ProcessEnv; dryRun?: boolean; consolidate?: boolean; makeSession?: (o: SessionOptions) => Session; say?: (line: string) => void }): Promise<CuratorPassResult> {
  const started = new Date();
  const s = curatorSettings(o.config);
  const consolidate = o.consolidate ?? s.consolidate;
  let backup: string | null = null;
  if (!o.dryRun) {
    try {
      const dir = snapshotSkills(o.home, 'pre-curator-run', backupSettings(o.config));
      backup = dir ? dir.split(/[\\/]/).pop()! : null;
      if (backup) o.say?.(`curator: snapshot created (${backup})`);
    } catch (e) {
      o.say?.(`curator: snapshot failed (${(e as Error).message}); continuing`);
    }
  }
  const auto = runCurator(o.home, s, { dryRun: o.dryRun });
  const autoSummary = auto.summary.split('\n')[0];
  const before = curatedReport(o.home).filter((r) => (r.state ?? 'active') !== 'archived').map((r) => r.name);
  let llm: ReviewOutcome = { final: '', summary: consolidate ? '' : 'skipped (consolidation off)', model: '', provider: '', error: null, toolCalls: [] };
  if (consolidate) {
    const list = candidateList(o.home);
    if (!list) llm.summary = 'skipped (no candidates)';
    else {
      o.say?.('curator: consolidation pass running (this asks the model; it can take a while)…');
      llm = await runLlmReview({ home: o.home, config: o.config, env: o.env, prompt: `${o.dryRun ? DRY_RUN_BANNER : ''}${PROMPT}\n\n${list}`, readOnly: !!o.dryRun, makeSession: o.makeSession });
    }
  }
  const after = curatedReport(o.home).filter((r) => (r.state ?? 'active') !== 'archived').map((r) => r.name);
  const removed = before.filter((n) => !after.includes(n));
  const added = after.filter((n) => !before.includes(n));
  const { consolidated, pruned } = classifyRemoved(removed, new Set(after), llm.toolCalls, llm.final);
  const record: RunRecord = {
    started_at: started.toISOString(),
    duration_seconds: (Date.now() - started.getTime()) / 1000,
    dry_run: !!o.dryRun,
    consolidate,
    auto_summary: autoSummary,
    state_transitions: auto.transitions.map((t) => ({ name: t.name, from: t.from, to: t.to, idle_days: t.idleDays })),
    backup,
    llm: { model: llm.model, provider: llm.provider, summary: llm.summary, final: llm.final, error: llm.error, tool_calls: llm.toolCalls },
    before,
    after,
    added,
    removed,
    consolidated,
    pruned,
  };
  const renames = [...auto.summary.split('\n').slice(1), ...consolidated.map((c) => `${c.name} → ${c.into}`)];
  const summary = `${o.dryRun ? 'dry-run ' : ''}auto: ${autoSummary}; llm: ${llm.summary.split('\n')[0]}${consolidated.length || pruned.length ? ` (${consolidated.length} consolidated, ${pruned.length} pruned)` : ''}${renames.length ? `\n${renames.join('\n')}` : ''}`;
  const reportDir = writeRunReport(o.home, record);
  const st = loadCuratorState(o.home);
  saveCuratorState(o.home, { ...st, last_run_summary: summary, last_report_path: reportDir, ...(o.dryRun ? {} : { last_run_duration_seconds: Math.round(record.duration_seconds * 10) / 10 }) });
  return { summary, reportDir, record };
}
