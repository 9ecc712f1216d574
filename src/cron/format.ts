// How jobs are shown to the model (the cronjob tool's JSON) and to people (hermes cron list).
import { CronStore, TICKER_STALE_SECONDS, type CronJob } from './jobs.ts';
import { activeTicker } from './tickers.ts';
import type { JobView } from './job-view.ts';

export function repeatDisplay(job: CronJob): string {
  const { times, completed } = job.repeat;
  if (times === null) return 'forever';
  if (times === 1) return completed === 0 ? 'once' : '1/1';
  return completed ? `${completed}/${times}` : `${times} times`;
}

/** The state a person should see: running while a live claim is held. */
export function displayState(job: CronJob, store: CronStore): string {
  if (store.isRunning(job)) return 'running';
  return job.state;
}

export type { JobView } from './job-view.ts';

export function formatJob(job: CronJob, store: CronStore): JobView {
  const out: JobView = {
    job_id: job.id,
    name: job.name,
    skill: job.skills[0] ?? null,
    skills: job.skills,
    prompt_preview: job.prompt.length > 100 ? `${job.prompt.slice(0, 100)}...` : job.prompt,
    model: job.model,
    provider: job.provider,
    base_url: job.base_url,
    schedule: job.schedule_display,
    repeat: repeatDisplay(job),
    deliver: job.deliver,
    next_run_at: job.next_run_at,
    last_run_at: job.last_run_at,
    last_status: job.last_status,
    last_error: job.last_error,
    last_delivery_error: job.last_delivery_error,
    enabled: job.enabled,
    state: displayState(job, store),
    paused_at: job.paused_at,
    paused_reason: job.paused_reason,
  };
  if (job.script) out.script = job.script;
  if (job.no_agent) out.no_agent = true;
  if (job.context_from?.length) out.context_from = job.context_from;
  if (job.enabled_toolsets?.length) out.enabled_toolsets = job.enabled_toolsets;
  if (!job.model && !job.provider && (job.model_snapshot || job.provider_snapshot)) out.runs_on = `${job.provider_snapshot ?? '?'}/${job.model_snapshot ?? '?'} (resolved when the job was made)`;
  if (job.workdir) out.workdir = job.workdir;
  return out;
}

/** Whether something ticks this HERMES_HOME: a ticker in this process, or a fresh heartbeat file. */
export function tickerAlive(store: CronStore): boolean {
  if (activeTicker(store.home)) return true;
  const age = store.markerAge('ticker_heartbeat');
  return age !== null && age <= TICKER_STALE_SECONDS;
}

export const NO_TICKER_NOTE =
  'No gateway is running for this Hermes home, so jobs will not fire on schedule until one runs (`hermes gateway run`, or `hermes cron tick` from a system crontab).';
