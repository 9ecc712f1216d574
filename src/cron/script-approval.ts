// A cron job's script runs unattended on every tick, outside any conversation. When the agent sets
// one through the cronjob tool, a person approves it first, seeing its path and content; with
// nobody to answer it is denied (approvals.*_mode: approve and --yolo apply as they do to
// commands). Scripts live in HERMES_HOME/scripts/, which the agent's file tools may not write, and
// must really be there: a link out of that folder is refused when the job is set and when it runs.
import { readFileSync, realpathSync } from 'node:fs';
import { relative, isAbsolute } from 'node:path';
import type { ToolContext } from '../tools/types.ts';
import { CronError, resolveScriptPath, scriptsDir, validateScriptPath } from './job-record.ts';

/** What the person sees of the script at most. */
const SHOW_CHARS = 4000;

/**
 * Why the script `script` may not run: it resolves (links followed) outside HERMES_HOME/scripts/.
 * Null when it is inside, or does not exist yet.
 */
export function scriptLinkProblem(home: string, script: string): string | null {
  const path = resolveScriptPath(home, script);
  let real: string;
  let dir: string;
  try {
    real = realpathSync(path);
    dir = realpathSync(scriptsDir(home));
  } catch {
    return null;
  }
  const rel = relative(dir, real);
  if (!rel || rel.startsWith('..') || isAbsolute(rel))
    return `The script ${path} is a link to ${real}, outside ${dir}/. Cron runs only scripts that are really in that folder (which the agent cannot change); copy the script there.`;
  return null;
}

/** The script as the person is shown it: its path and (the start of) its content. */
function describe(home: string, script: string): string {
  const path = resolveScriptPath(home, script);
  let body: string;
  try {
    const text = readFileSync(path, 'utf8');
    body = text.length > SHOW_CHARS ? `${text.slice(0, SHOW_CHARS)}\n[… ${text.length - SHOW_CHARS} more characters]` : text;
  } catch {
    body = '(the file does not exist yet: whatever is put there later will run)';
  }
  return `cron script ${path}\n${body.trimEnd()}`;
}

/**
 * Approval for a job script the agent set: null when allowed, else the reason (for the model).
 * `job` says what the job is (name, schedule, whether its output is delivered as is).
 */
export async function approveJobScript(ctx: ToolContext, script: string, job: { name?: string; schedule?: string; noAgent?: boolean }): Promise<string | null> {
  const s = ctx;
  validateScriptPath(s.home, script);
  const link = scriptLinkProblem(s.home, script);
  if (link) throw new CronError(link);
  if (s.yolo) return null;
  const what = [job.name ? `"${job.name}"` : 'a cron job', job.schedule ? `(${job.schedule})` : ''].filter(Boolean).join(' ');
  const approval = await import('../tools/approval.ts');
  const { answer, source } = await ctx.ask({
    kind: 'approval',
    command: describe(s.home, script),
    description: `${what} will run this script unattended on every tick${job.noAgent ? ', its output sent as is with no model in between' : ''}`,
    choices: ['once', 'deny'],
  });
  if (source === 'no_responder' && approval.unattendedPolicy(s) === 'approve') return null;
  if (answer === 'once' && source === 'person') return null;
  const why = approval.deniedBecause(source);
  return `BLOCKED: a cron job's script runs unattended, so a person must approve it, and ${why}. Nothing was scheduled or changed. Tell the user which script you wanted to schedule and why; they can add it themselves with \`hermes cron create "<schedule>" --script ${script.trim()}\` (or \`hermes cron edit <job> --script …\`).`;
}
