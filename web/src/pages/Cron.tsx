// Cron: scheduled jobs with their next run and last result; create, edit, pause/resume, run now,
// delete, and each job's saved outputs.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, del, post, put } from '../api.ts';
import { Badge, Confirm, Empty, ErrorBox, failText, Loading, useToast } from '../ui.tsx';
import type { CronListResponse, CronRunsResponse } from '../../../src/dashboard/api-types.ts';

type Job = CronListResponse['jobs'][number];

const EMPTY = { name: '', schedule: '', prompt: '', deliver: '', skills: '', continuity: false };

function JobForm({ initial, onDone }: { initial?: Job; onDone: () => void }) {
  const toast = useToast();
  const qc = useQueryClient();
  const [f, setF] = useState(initial ? { name: initial.name, schedule: initial.schedule, prompt: initial.prompt, deliver: initial.deliver, skills: initial.skills.join(', '), continuity: !!initial.context_from?.includes('self') } : EMPTY);
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    setSaving(true);
    try {
      if (initial) await put(`/api/cron/${initial.job_id}`, f);
      else await post('/api/cron', f);
      toast(initial ? 'Job saved.' : 'Job created.');
      qc.invalidateQueries({ queryKey: ['cron'] });
      onDone();
    } catch (e) {
      toast(failText(e), 'error');
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="card stack" onSubmit={(e) => (e.preventDefault(), void submit())}>
      <div className="grid2">
        <label>
          Name <input value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} placeholder="(from the prompt)" />
        </label>
        <label>
          Schedule <input required value={f.schedule} onChange={(e) => setF({ ...f, schedule: e.target.value })} placeholder='30m · every 2h · every monday 9am · 0 9 * * *' />
        </label>
        <label>
          Deliver to <input value={f.deliver} onChange={(e) => setF({ ...f, deliver: e.target.value })} placeholder="local · telegram · telegram:123 · origin" />
        </label>
        <label>
          Skills <input value={f.skills} onChange={(e) => setF({ ...f, skills: e.target.value })} placeholder="comma-separated" />
        </label>
      </div>
      <label>
        Prompt <textarea required rows={3} value={f.prompt} onChange={(e) => setF({ ...f, prompt: e.target.value })} placeholder="What the agent should do each time" />
      </label>
      <label className="row small">
        <input type="checkbox" checked={f.continuity} onChange={(e) => setF({ ...f, continuity: e.target.checked })} /> Continuity: each run sees what the previous run reported
      </label>
      <div className="row">
        <button className="btn primary" disabled={saving}>
          {initial ? 'Save job' : 'Create job'}
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Runs({ id }: { id: string }) {
  const data = useQuery({ queryKey: ['cron', id, 'runs'], queryFn: () => api<CronRunsResponse>(`/api/cron/${id}/runs`) });
  if (data.isLoading) return <Loading what="runs" />;
  if (data.isError) return <ErrorBox error={data.error} />;
  if (!data.data!.runs.length) return <div className="muted small">No saved output yet.</div>;
  return (
    <div className="stack">
      {data.data!.runs.map((r) => (
        <details key={r.file}>
          <summary>
            {new Date(r.at).toLocaleString()} <span className="muted small">{r.file}</span>
          </summary>
          <pre>{r.output}</pre>
        </details>
      ))}
    </div>
  );
}

export default function Cron() {
  const toast = useToast();
  const qc = useQueryClient();
  const data = useQuery({ queryKey: ['cron'], queryFn: () => api<CronListResponse>('/api/cron'), refetchInterval: 10_000 });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [runs, setRuns] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Job | null>(null);
  const act = async (fn: () => Promise<{ message?: string }>, ok: string) => {
    try {
      const r = await fn();
      toast(r?.message ?? ok);
      qc.invalidateQueries({ queryKey: ['cron'] });
    } catch (e) {
      toast(failText(e), 'error');
    }
  };
  return (
    <div className="stack">
      <div className="row between">
        <h1>Cron</h1>
        {!creating && (
          <button className="btn primary" onClick={() => setCreating(true)}>
            New job
          </button>
        )}
      </div>
      {data.data?.note && <div className="state warn small">{data.data.note}</div>}
      {data.data?.lastTickError && <div className="state error small">Last tick failed: {data.data.lastTickError}</div>}
      {creating && <JobForm onDone={() => setCreating(false)} />}
      {data.isLoading ? (
        <Loading what="jobs" />
      ) : data.isError ? (
        <ErrorBox error={data.error} retry={() => data.refetch()} />
      ) : !data.data!.jobs.length ? (
        <Empty title="No scheduled jobs.">Create one here, or ask the agent: “every morning at 9, summarise my inbox”.</Empty>
      ) : (
        <div className="stack" data-testid="cron-jobs">
          {data.data!.jobs.map((j) =>
            editing === j.job_id ? (
              <JobForm key={j.job_id} initial={j} onDone={() => setEditing(null)} />
            ) : (
              <div key={j.job_id} className="card job" data-job={j.name}>
                <div className="row between wrap">
                  <div>
                    <strong>{j.name}</strong> <Badge kind={j.state === 'scheduled' ? 'ok' : j.state === 'paused' ? 'warn' : j.state === 'running' ? 'info' : ''}>{j.state}</Badge> <span className="mono small">{j.schedule}</span>
                  </div>
                  <div className="row wrap">
                    {j.state === 'paused' ? (
                      <button className="btn small" onClick={() => act(() => post(`/api/cron/${j.job_id}/resume`), `Resumed ${j.name}.`)}>
                        Resume
                      </button>
                    ) : (
                      <button className="btn small" onClick={() => act(() => post(`/api/cron/${j.job_id}/pause`), `Paused ${j.name}.`)}>
                        Pause
                      </button>
                    )}
                    <button className="btn small" onClick={() => act(() => post(`/api/cron/${j.job_id}/run`), 'Started.')}>
                      Run now
                    </button>
                    <button className="btn small" onClick={() => setEditing(j.job_id)}>
                      Edit
                    </button>
                    <button className="btn small" onClick={() => setRuns(runs === j.job_id ? null : j.job_id)}>
                      Runs
                    </button>
                    <button className="btn small danger" onClick={() => setRemoving(j)}>
                      Delete
                    </button>
                  </div>
                </div>
                <div className="small">{j.prompt.length > 200 ? `${j.prompt.slice(0, 200)}…` : j.prompt}</div>
                <div className="muted small">
                  next {j.next_run_at ?? '—'} · last {j.last_run_at ?? 'never'}
                  {j.last_status && ` (${j.last_status}${j.last_error ? `: ${j.last_error}` : ''})`} · deliver {j.deliver} · repeat {j.repeat}{j.context_from?.includes('self') && ' · continuity'}
                  {j.paused_reason && ` · paused: ${j.paused_reason}`}
                </div>
                {j.last_delivery_error && <div className="error small">Delivery failed: {j.last_delivery_error}</div>}
                {runs === j.job_id && <Runs id={j.job_id} />}
              </div>
            ),
          )}
        </div>
      )}
      {removing && (
        <Confirm
          text={`Delete the job “${removing.name}”? Its saved outputs stay on disk.`}
          yes="Delete"
          onNo={() => setRemoving(null)}
          onYes={() => {
            const j = removing;
            setRemoving(null);
            void act(() => del(`/api/cron/${j.job_id}`), `Deleted ${j.name}.`);
          }}
        />
      )}
    </div>
  );
}
