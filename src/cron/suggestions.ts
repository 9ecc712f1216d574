// Suggested automations (Hermes's cron/suggestions.py): ready-to-run cron job specs a person accepts
// (the real job is created then, through the cronjob tool) or dismisses (latched by a dedup key, so
// it is never offered again). HERMES_HOME/cron/suggestions.json in Hermes's format; at most
// MAX_PENDING wait at a time. Nothing here schedules anything by itself.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';
import { paths } from '../state/paths.ts';

export const MAX_PENDING = 5;
export const SUGGESTION_SOURCES = ['catalog', 'blueprint', 'usage', 'integration'] as const;
export type SuggestionSource = (typeof SUGGESTION_SOURCES)[number];

/** What accepting creates: the cronjob tool's create arguments. */
export interface JobSpec {
  prompt: string;
  schedule: string;
  name?: string;
  deliver?: string;
  skills?: string[];
}

export interface Suggestion {
  id: string;
  title: string;
  description: string;
  source: SuggestionSource;
  job_spec: JobSpec;
  dedup_key: string;
  status: 'pending' | 'accepted' | 'dismissed';
  created_at: string;
  resolved_at?: string;
}

const file = (home: string) => join(paths.cron(home), 'suggestions.json');

export function loadSuggestions(home: string): Suggestion[] {
  const f = file(home);
  if (!existsSync(f)) return [];
  try {
    const data = JSON.parse(readFileSync(f, 'utf8')) as unknown;
    if (Array.isArray(data)) return data as Suggestion[];
    const list = (data as { suggestions?: unknown }).suggestions;
    return Array.isArray(list) ? (list as Suggestion[]) : [];
  } catch {
    return [];
  }
}

function save(home: string, suggestions: Suggestion[]): void {
  mkdirSync(paths.cron(home), { recursive: true });
  writeFileAtomic(file(home), JSON.stringify({ suggestions, updated_at: new Date().toISOString() }, null, 2), 0o600);
}

export const listPending = (home: string) => loadSuggestions(home).filter((s) => s.status === 'pending');

/** Registers a pending suggestion; null when its key was decided on already, is pending, or the list is full. */
export function addSuggestion(home: string, s: { title: string; description: string; source: SuggestionSource; job_spec: JobSpec; dedup_key: string }): Suggestion | null {
  if (!SUGGESTION_SOURCES.includes(s.source)) throw new Error(`unknown suggestion source: ${s.source}`);
  if (!s.title.trim() || !s.dedup_key.trim()) throw new Error('a suggestion needs a title and a dedup key');
  const all = loadSuggestions(home);
  if (all.some((x) => x.dedup_key === s.dedup_key)) return null;
  if (all.filter((x) => x.status === 'pending').length >= MAX_PENDING) return null;
  const rec: Suggestion = { id: randomUUID().replace(/-/g, '').slice(0, 12), title: s.title.trim(), description: s.description.trim(), source: s.source, job_spec: s.job_spec, dedup_key: s.dedup_key.trim(), status: 'pending', created_at: new Date().toISOString() };
  save(home, [...all, rec]);
  return rec;
}

/** By id, by 1-based position among the pending ones, or by exact title (any case). */
export function findSuggestion(home: string, ref: string): Suggestion | null {
  const all = loadSuggestions(home);
  const byId = all.find((s) => s.id === ref);
  if (byId) return byId;
  if (/^\d+$/.test(ref)) {
    const p = all.filter((s) => s.status === 'pending')[Number(ref) - 1];
    if (p) return p;
  }
  return all.find((s) => s.title.toLowerCase() === ref.toLowerCase()) ?? null;
}

export function setSuggestionStatus(home: string, id: string, status: 'accepted' | 'dismissed'): boolean {
  const all = loadSuggestions(home);
  const s = all.find((x) => x.id === id);
  if (!s) return false;
  s.status = status;
  s.resolved_at = new Date().toISOString();
  save(home, all);
  return true;
}

/** Drops accepted records (dismissed ones stay: their keys keep them from being offered again). */
export function clearResolved(home: string): number {
  const all = loadSuggestions(home);
  const kept = all.filter((s) => s.status !== 'accepted');
  if (kept.length !== all.length) save(home, kept);
  return all.length - kept.length;
}

/** The curated starter automations (Hermes's cron/suggestion_catalog.py). */
export const CATALOG: { key: string; title: string; description: string; job_spec: JobSpec }[] = [
  {
    key: 'catalog:daily-briefing',
    title: 'Daily briefing',
    description: "Every morning at 8am, a short briefing: today's calendar, weather, and anything urgent waiting on you.",
    job_spec: {
      prompt:
        "Produce a concise morning briefing for the user: today's calendar events, the local weather, and any urgent items (unread important email, due tasks). Keep it short and scannable. If you have no connected data sources, give a brief general good-morning with the date and offer to connect calendar/email.",
      schedule: '0 8 * * *',
      name: 'Daily briefing',
      deliver: 'origin',
    },
  },
  {
    key: 'catalog:important-mail-monitor',
    title: 'Important-mail monitor',
    description: 'Check your inbox periodically and ping you ONLY about mail that actually needs attention — never the newsletters.',
    job_spec: {
      prompt:
        "Check the user's inbox for new messages since the last run. Surface only mail that needs a reply today, is from a manager/family member, or mentions a deadline; score each candidate's urgency from 0 to 10 and deliver only those at 7 or above. If nothing clears the bar, respond with [SILENT] so the user is not pinged. Requires a connected mail source; if none is configured, explain how to connect one and then stop.",
      schedule: 'every 30m',
      name: 'Important-mail monitor',
      deliver: 'origin',
    },
  },
  {
    key: 'catalog:weekly-review',
    title: 'Weekly review',
    description: "Every Sunday evening, a recap of the week: what got done, what's still open, and what's coming up next week.",
    job_spec: {
      prompt:
        "Produce a weekly review for the user: summarize what was accomplished this week, list still-open items, and preview next week's calendar. Pull from whatever sources are connected (calendar, task tools, recent conversations). Keep it tight.",
      schedule: '0 18 * * 0',
      name: 'Weekly review',
      deliver: 'origin',
    },
  },
  {
    key: 'catalog:standup-reminder',
    title: 'Workday start reminder',
    description: "A weekday nudge at 9am with your day's agenda and top priorities, so you start focused.",
    job_spec: {
      prompt:
        "Give the user a brief weekday start-of-day nudge: their calendar for today and the 1-3 highest-priority things to focus on, inferred from recent context and any task tools. Encouraging, short, one message.",
      schedule: '0 9 * * 1-5',
      name: 'Workday start reminder',
      deliver: 'origin',
    },
  },
];

/** Offers the catalog's automations (those not decided on yet, up to the cap); the ones added. */
export function seedCatalog(home: string): Suggestion[] {
  const out: Suggestion[] = [];
  for (const e of CATALOG) {
    const rec = addSuggestion(home, { title: e.title, description: e.description, source: 'catalog', job_spec: { ...e.job_spec }, dedup_key: e.key });
    if (rec) out.push(rec);
  }
  return out;
}
