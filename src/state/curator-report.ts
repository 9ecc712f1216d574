// What a curator run leaves behind, as Hermes writes it: logs/curator/<YYYYMMDD-HHMMSS>/run.json (the
// machine record) and REPORT.md (for a person), and how removed skills are classified: consolidated
// into an umbrella skill, or pruned. The model's own declaration at delete time (absorbed_into) wins,
// then its structured YAML summary when the umbrella exists, then evidence in its tool calls.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface ToolCallRecord {
  name: string;
  arguments: string;
}

export interface Consolidated {
  name: string;
  into: string;
  reason: string;
  source: string;
}

export interface Pruned {
  name: string;
  reason: string;
}

export function cronReferencedSkills(home: string): Set<string> {
  const names = new Set<string>();
  try {
    const v = JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs?: unknown } | unknown[];
    const jobs = Array.isArray(v) ? v : Array.isArray(v.jobs) ? v.jobs : [];
    for (const j of jobs as { skills?: unknown; skill?: unknown }[]) {
      if (Array.isArray(j?.skills)) for (const s of j.skills) if (typeof s === 'string') names.add(s);
      if (typeof j?.skills === 'string') names.add(j.skills);
      if (typeof j?.skill === 'string') names.add(j.skill);
    }
  } catch {
    /* no jobs: nothing protected */
  }
  return names;
}

/** The ```yaml block after "Structured summary" in the model's final answer. */
export function parseStructuredSummary(text: string): { consolidations: { from: string; into: string; reason: string }[]; prunings: { name: string; reason: string }[] } {
  const empty = { consolidations: [], prunings: [] };
  const m = /```ya?ml\s*\n([\s\S]*?)\n```/i.exec(text ?? '');
  if (!m) return empty;
  let data: unknown;
  try {
    data = parseYaml(m[1]);
  } catch {
    return empty;
  }
  if (!data || typeof data !== 'object') return empty;
  const d = data as { consolidations?: unknown; prunings?: unknown };
  const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  return {
    consolidations: (Array.isArray(d.consolidations) ? d.consolidations : []).map((e) => ({ from: str(e?.from), into: str(e?.into), reason: str(e?.reason) })).filter((e) => e.from && e.into),
    prunings: (Array.isArray(d.prunings) ? d.prunings : []).map((e) => ({ name: str(e?.name), reason: str(e?.reason) })).filter((e) => e.name),
  };
}

function args(tc: ToolCallRecord): Record<string, unknown> {
  try {
    const v = JSON.parse(tc.arguments);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return { _raw: tc.arguments };
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Splits the skills removed during the run into consolidated (with their umbrella) and pruned. */
export function classifyRemoved(removed: string[], destinations: Set<string>, calls: ToolCallRecord[], finalText: string): { consolidated: Consolidated[]; pruned: Pruned[] } {
  const manage = calls.filter((c) => c.name === 'skill_manage').map(args);
  const declared = new Map<string, string>();
  for (const a of manage) if (a.action === 'delete' && typeof a.name === 'string' && typeof a.absorbed_into === 'string') declared.set(a.name, a.absorbed_into.trim());
  const block = parseStructuredSummary(finalText);
  const consolidated: Consolidated[] = [];
  const pruned: Pruned[] = [];
  for (const name of removed) {
    const summary = block.consolidations.find((c) => c.from === name);
    const pruneReason = block.prunings.find((p) => p.name === name)?.reason ?? '';
    const dec = declared.get(name);
    if (dec !== undefined && dec && destinations.has(dec)) {
      consolidated.push({ name, into: dec, reason: summary?.reason ?? '', source: 'absorbed_into (declared at delete)' });
      continue;
    }
    if (dec === '') {
      pruned.push({ name, reason: pruneReason });
      continue;
    }
    if (summary && destinations.has(summary.into)) {
      consolidated.push({ name, into: summary.into, reason: summary.reason, source: 'structured summary' });
      continue;
    }
    const needles = [...new Set([name, name.replace(/-/g, '_'), name.replace(/_/g, '-')])];
    const hit = manage.find((a) => {
      if (typeof a.name !== 'string' || a.name === name || !destinations.has(a.name)) return false;
      return ['file_path', 'file_content', 'content', 'new_string', '_raw'].some((k) => typeof a[k] === 'string' && needles.some((n) => new RegExp(`\\b${escape(n)}\\b`).test(a[k] as string)));
    });
    if (hit) consolidated.push({ name, into: hit.name as string, reason: summary?.reason ?? '', source: 'tool-call audit' });
    else pruned.push({ name, reason: pruneReason });
  }
  return { consolidated, pruned };
}

export interface RunRecord {
  started_at: string;
  duration_seconds: number;
  dry_run: boolean;
  consolidate: boolean;
  auto_summary: string;
  state_transitions: { name: string; from: string; to: string; idle_days: number }[];
  backup: string | null;
  llm: { model: string; provider: string; summary: string; final: string; error: string | null; tool_calls: ToolCallRecord[] };
  before: string[];
  after: string[];
  added: string[];
  removed: string[];
  consolidated: Consolidated[];
  pruned: Pruned[];
}

function reportMarkdown(r: RunRecord): string {
  const lines = [`# Curator run — ${r.started_at}${r.dry_run ? ' (dry run)' : ''}`, '', `- Duration: ${r.duration_seconds.toFixed(1)}s`, `- Automatic pass: ${r.auto_summary}`, `- Consolidation: ${r.consolidate ? (r.llm.error ? `failed (${r.llm.error})` : `${r.llm.provider}/${r.llm.model}`) : 'off (prune-only)'}`];
  if (r.backup) lines.push(`- Snapshot before the run: \`${r.backup}\` (undo with \`hermes curator rollback --id ${r.backup}\`)`);
  lines.push(`- Agent-created skills: ${r.before.length} before, ${r.after.length} after`, '');
  if (r.consolidated.length) {
    lines.push(`## Consolidated into umbrella skills (${r.consolidated.length})`, '', 'Their content lives on in the umbrella; the old folders are in `skills/.archive/` (`hermes curator restore <name>`).', '');
    for (const c of r.consolidated) lines.push(`- \`${c.name}\` → \`${c.into}\`${c.reason ? ` — ${c.reason}` : ''}${c.source === 'tool-call audit' ? ' _(found in the tool calls)_' : ''}`);
    lines.push('');
  }
  if (r.pruned.length) {
    lines.push(`## Pruned — archived without a merge (${r.pruned.length})`, '');
    for (const p of r.pruned) lines.push(`- \`${p.name}\`${p.reason ? ` — ${p.reason}` : ''}`);
    lines.push('');
  }
  if (r.added.length) lines.push(`## New skills (${r.added.length})`, '', ...r.added.map((n) => `- \`${n}\``), '');
  if (r.state_transitions.length) lines.push(`## State transitions (${r.state_transitions.length})`, '', ...r.state_transitions.map((t) => `- \`${t.name}\`: ${t.from} → ${t.to}`), '');
  if (r.llm.final) lines.push('## The reviewer’s summary', '', r.llm.final, '');
  lines.push('## Recovery', '', '- Restore an archived skill: `hermes curator restore <name>`', '- Undo the whole run: `hermes curator rollback` (the snapshot taken before it)', '- Undo one change: `hermes curator ledger`, then `hermes curator rollback <entry id>`', '- `run.json` here has the full record.', '');
  return lines.join('\n');
}

/** Writes run.json and REPORT.md under logs/curator/<stamp>/; returns the folder. */
export function writeRunReport(home: string, r: RunRecord): string {
  const d = new Date(r.started_at);
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  let dir = join(home, 'logs', 'curator', stamp);
  for (let n = 1; existsSync(dir); n++) dir = join(home, 'logs', 'curator', `${stamp}-${n}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'run.json'), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, 'REPORT.md'), reportMarkdown(r));
  return dir;
}
