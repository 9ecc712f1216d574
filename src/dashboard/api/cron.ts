// Cron tab: jobs with next run and last status, their saved outputs, create / edit / pause /
// resume / run now / remove. The same CronStore as `hermes cron` and the cronjob tool; "run now"
// hands the job to the running gateway's ticker, or runs `hermes cron run` in the background.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Hono, Context } from 'hono';
import { cronStoreFor } from '../../cron/jobs.ts';
import { formatJob, NO_TICKER_NOTE, tickerAlive } from '../../cron/format.ts';
import { AmbiguousJobError, CronError, JobNotFoundError, ScheduleError, type CronStore } from '../../cron/jobs.ts';
import { inferenceSnapshot } from '../../cron/snapshot.ts';
import { redactSecrets } from '../../policy/redact.ts';
import { body, fail, str, type DashboardContext } from '../context.ts';
import type { CronListResponse, CronRunsResponse } from '../api-types.ts';

const list = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.map(String).map((s) => s.trim()).filter(Boolean) : typeof v === 'string' && v.trim() ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined;

export function registerCron(app: Hono, ctx: DashboardContext): void {
  const store = (): CronStore => {
    const loaded = ctx.config();
    return cronStoreFor(ctx.home, loaded.config, ctx.env());
  };
  const guard = async (c: Context, fn: () => Promise<Response> | Response): Promise<Response> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof AmbiguousJobError || e instanceof CronError || e instanceof ScheduleError) return fail(c, e instanceof JobNotFoundError ? 404 : 400, e.message);
      throw e;
    }
  };

  app.get('/api/cron', (c) => {
    const s = store();
    const jobs = s.list({ all: true }).map((j) => ({ ...formatJob(j, s), prompt: j.prompt, created_at: j.created_at }));
    return c.json({ jobs, tickerAlive: tickerAlive(s), note: tickerAlive(s) ? null : NO_TICKER_NOTE, lastTickError: s.lastTickError() } satisfies CronListResponse);
  });

  app.post('/api/cron', (c) =>
    guard(c, async () => {
      const b = await body(c);
      const schedule = str(b?.schedule).trim();
      const prompt = str(b?.prompt);
      if (!schedule) return fail(c, 400, 'A job needs a schedule: "30m", "every 2h", "every monday 9am", "0 9 * * *" or a date.');
      if (!prompt.trim() && !str(b?.script)) return fail(c, 400, 'A job needs a prompt (what the agent should do each time).');
      const loaded = ctx.config();
      const s = store();
      const job = await s.create({
        schedule,
        prompt,
        name: str(b?.name) || null,
        deliver: str(b?.deliver) || null,
        repeat: b?.repeat === undefined || b.repeat === '' ? null : (b.repeat as number | string),
        skills: list(b?.skills) ?? [],
        paused: b?.paused === true,
        continuity: b?.continuity === true || undefined,
        snapshot: inferenceSnapshot(loaded.config, ctx.env()),
      });
      ctx.log?.write('INFO', 'dashboard.cron', `created job ${job.id} (${job.schedule_display})`);
      return c.json({ ok: true, job: formatJob(job, s) });
    }),
  );

  app.put('/api/cron/:id', (c) =>
    guard(c, async () => {
      const b = await body(c);
      if (!b) return fail(c, 400, 'Send the fields to change: schedule, prompt, name, deliver, skills, repeat, continuity.');
      const u: Record<string, unknown> = {};
      for (const k of ['schedule', 'prompt', 'name', 'deliver'] as const) if (typeof b[k] === 'string') u[k] = b[k];
      if (b.skills !== undefined) u.skills = list(b.skills) ?? [];
      if (b.repeat !== undefined) u.repeat = b.repeat === '' ? null : b.repeat;
      if (typeof b.continuity === 'boolean') u.continuity = b.continuity;
      const s = store();
      const job = await s.update(c.req.param('id'), u);
      return c.json({ ok: true, job: formatJob(job, s) });
    }),
  );

  app.post('/api/cron/:id/pause', (c) =>
    guard(c, async () => {
      const s = store();
      const b = await body(c);
      const job = await s.pause(c.req.param('id'), str(b?.reason) || 'paused from the dashboard');
      ctx.log?.write('INFO', 'dashboard.cron', `paused job ${job.id}`);
      return c.json({ ok: true, job: formatJob(job, s) });
    }),
  );

  app.post('/api/cron/:id/resume', (c) =>
    guard(c, async () => {
      const s = store();
      const job = await s.resume(c.req.param('id'));
      return c.json({ ok: true, job: formatJob(job, s) });
    }),
  );

  app.post('/api/cron/:id/run', (c) =>
    guard(c, async () => {
      const s = store();
      const job = s.get(c.req.param('id'));
      if (tickerAlive(s)) {
        const t = await s.trigger(job.id);
        return c.json({ ok: true, how: 'ticker', message: `The running gateway will run “${t.name}” within a minute and deliver it to ${t.deliver}.` });
      }
      // No gateway: run it like `hermes cron run <id>` does, in a process of its own.
      const child = spawn(process.execPath, [ctx.bin, 'cron', 'run', job.id], { env: { ...ctx.baseEnv, HERMES_HOME: ctx.home }, stdio: 'ignore', detached: true });
      child.unref();
      ctx.log?.write('INFO', 'dashboard.cron', `running job ${job.id} now (pid ${child.pid})`);
      return c.json({ ok: true, how: 'process', message: `Running “${job.name}” now; its output appears under Runs when it finishes.` });
    }),
  );

  app.delete('/api/cron/:id', (c) =>
    guard(c, async () => {
      const job = await store().remove(c.req.param('id'));
      ctx.log?.write('INFO', 'dashboard.cron', `removed job ${job.id}`);
      return c.json({ ok: true });
    }),
  );

  app.get('/api/cron/:id/runs', (c) =>
    guard(c, () => {
      const s = store();
      const job = s.get(c.req.param('id'));
      const runs = s.outputs(job.id, 30).map((p) => {
        const st = statSync(p);
        const text = readFileSync(p, 'utf8');
        return { file: basename(p), at: st.mtimeMs, size: st.size, output: redactSecrets(text.length > 20_000 ? `${text.slice(0, 20_000)}\n… (${text.length - 20_000} more characters in ${p})` : text) };
      });
      return c.json({ job: formatJob(job, s), runs } satisfies CronRunsResponse);
    }),
  );
}
