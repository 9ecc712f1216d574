// A cron job as people and the model see it: Hermes's field names. Types only and free of Node's
// types, so the dashboard's web app can read it through src/dashboard/api-types.ts.
/** A job as `hermes cron list --json`, the cronjob tool and the dashboard show it. */
export interface JobView {
  job_id: string;
  name: string;
  skill: string | null;
  skills: string[];
  prompt_preview: string;
  model: string | null;
  provider: string | null;
  base_url: string | null;
  schedule: string;
  repeat: string;
  deliver: string;
  next_run_at: string | null;
  last_run_at: string | null;
  last_status: string | null;
  last_error: string | null;
  last_delivery_error: string | null;
  enabled: boolean;
  state: string;
  paused_at: string | null;
  paused_reason: string | null;
  script?: string;
  no_agent?: true;
  context_from?: string[];
  enabled_toolsets?: string[];
  runs_on?: string;
  workdir?: string;
}
