// Run-to-run continuity (Hermes 0.21's `continuity`, stored as the reserved `self` entry of
// `context_from`): a recurring job sees what its own previous run reported, so a monitor or scout
// does not report the same thing twice and carries on where it stopped.
//
// Hermes injects the newest output document from its head, which three of its own bug reports
// show going wrong (a long prompt section pushes the answer past the cut; monitor `no_change`
// stubs and silent runs become "the previous run"; each run nests the last one's prompt). Here only
// the previous run's answer is given: the `## Response` (or `## Script Output`) section of the
// newest output document that has a real one, cut from the front when long so the end survives.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The reserved `context_from` entry that means "this job's own previous run". */
export const CONTINUITY_REF = 'self';

/** Characters of the previous report given to the next run (Hermes's 8K). */
export const CONTINUITY_CHARS = 8_000;

/** How many of the newest output documents are looked through for a real report. */
const LOOK_BACK = 25;

const ANSWER_HEADINGS = new Set(['## Response', '## Script Output']);
const NOT_A_REPORT = /^(\(No response generated\)|\(The script printed nothing; nothing was delivered\.\))$/;

/** The answer section of one output document, or null when it holds no report. */
export function reportOf(doc: string): string | null {
  const lines = doc.split('\n');
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i--)
    if (ANSWER_HEADINGS.has(lines[i].trim())) {
      at = i;
      break;
    }
  if (at < 0) return null; // a failed run, or a stub of a run that did not happen
  const text = lines.slice(at + 1).join('\n').trim();
  if (!text || NOT_A_REPORT.test(text) || text.toUpperCase().includes('[SILENT]')) return null;
  return text;
}

/** A job's output documents (cron/output/<id>/*.md), newest first; [] for a bad id or none yet. */
export function outputDocsNewestFirst(home: string, id: string): string[] {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return [];
  const dir = join(home, 'cron', 'output', id);
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.t - a.t || (a.f < b.f ? 1 : -1))
      .map(({ f }) => join(dir, f));
  } catch {
    return [];
  }
}

const readOr = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** The newest output document of a job, or null (context_from). */
export function latestOutput(home: string, id: string): string | null {
  const newest = outputDocsNewestFirst(home, id)[0];
  return newest ? readOr(newest) : null;
}

/** The previous run's report of job `id` (its newest output document with one), or null. */
export function previousReport(home: string, id: string): string | null {
  for (const path of outputDocsNewestFirst(home, id).slice(0, LOOK_BACK)) {
    const doc = readOr(path);
    const report = doc && reportOf(doc);
    if (report) return report;
  }
  return null;
}

/** The block a run's prompt starts with when the job has continuity and ran before. */
export function continuityBlock(report: string, max = CONTINUITY_CHARS): string {
  const text = report.length > max ? `[… the start of the report was cut …]\n${report.slice(report.length - max)}` : report;
  return (
    "## Your previous run\nThis job has run before. Below is what its last run reported. Continue from there: " +
    "do not report again what it already reported, and pick up anything it left unfinished.\n\n" +
    `\`\`\`\n${text}\n\`\`\``
  );
}
