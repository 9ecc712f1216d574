// The cronjob tool's actions (loaded on its first call).
import type { ToolOutcome } from '../agent/types.ts';
import { fail, ok } from '../tools/result.ts';
import type { CronjobArgs } from '../tools/defs/cronjob.ts';
import type { ToolContext } from '../tools/types.ts';
import { formatJob, NO_TICKER_NOTE, repeatDisplay, tickerAlive } from './format.ts';
import { AmbiguousJobError, CronError, CronStore, ScheduleError, type UpdateJobInput } from './jobs.ts';
import { activeTicker, CronScheduler, fromDeliveryOrigin, type Deliver } from './scheduler.ts';
import { approveJobScript } from './script-approval.ts';
import { resolveTimezone } from './time.ts';
import { inferenceSnapshot } from './snapshot.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import { resolveToolsetNames, UnknownToolsetError } from '../tools/toolsets.ts';

function storeFor(ctx: ToolContext): CronStore {
  return new CronStore({ home: ctx.home, tz: resolveTimezone(ctx.config.timezone, ctx.env) });
}

/** Toolsets a job may name: what the session could resolve (built-in, composite, custom, `mcp-…`). */
function checkToolsets(names: string[] | undefined, ctx: ToolContext): string[] | undefined {
  if (!names?.length) return names;
  const mcp = Object.keys(ctx.config.mcp_servers ?? {});
  const own = names.filter((n) => !n.startsWith('mcp-') && !mcp.includes(n));
  try {
    resolveToolsetNames(own, [], builtinRegistry().toolsets(), ctx.config.custom_toolsets ?? {});
  } catch (e) {
    if (e instanceof UnknownToolsetError) throw new CronError(`enabled_toolsets: ${e.message}`);
    throw e;
  }
  return names;
}

function skillsArg(a: CronjobArgs): string[] | undefined {
  if (a.skills !== undefined) return a.skills;
  if (a.skill !== undefined) return a.skill.trim() ? [a.skill] : [];
  return undefined;
}

export async function cronjobTool(a: CronjobArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
  const store = storeFor(ctx);
  try {
    switch (a.action) {
      case 'create': {
        if (!a.schedule?.trim()) return fail('`schedule` is required for create (e.g. "every 2h", "0 9 * * *", "30m").');
        const skills = skillsArg(a) ?? [];
        if (!a.prompt?.trim() && !skills.length && !a.script?.trim()) return fail('create needs a `prompt` (or at least one skill, or a script).');
        if (a.no_agent && !a.script?.trim()) return fail('no_agent needs a `script` (a file in HERMES_HOME/scripts/): its stdout is what gets delivered.');
        if (a.script?.trim()) {
          const blocked = await approveJobScript(ctx, a.script, { name: a.name, schedule: a.schedule, noAgent: a.no_agent });
          if (blocked) return fail(blocked);
        }
        const job = await store.create({
          prompt: a.prompt ?? '',
          schedule: a.schedule,
          name: a.name,
          repeat: a.repeat,
          deliver: a.deliver,
          origin: fromDeliveryOrigin(ctx.origin),
          skills,
          model: a.model,
          provider: a.provider,
          script: a.script,
          workdir: a.workdir,
          no_agent: a.no_agent,
          context_from: a.context_from,
          enabled_toolsets: checkToolsets(a.enabled_toolsets, ctx),
          snapshot: inferenceSnapshot(ctx.config, ctx.env),
        });
        const result: Record<string, unknown> = {
          success: true,
          job_id: job.id,
          name: job.name,
          skill: job.skill,
          skills: job.skills,
          schedule: job.schedule_display,
          repeat: repeatDisplay(job),
          deliver: job.deliver,
          next_run_at: job.next_run_at,
          job: formatJob(job, store),
          message: `Cron job '${job.name}' created.${job.deliver === 'local' ? ` Its output is saved under ${store.outputDir}/${job.id}/ (not sent anywhere).` : ''}`,
        };
        if (!tickerAlive(store)) result.note = NO_TICKER_NOTE;
        return ok(result);
      }
      case 'list': {
        const jobs = store.list({ all: a.include_disabled !== false });
        const result: Record<string, unknown> = { success: true, count: jobs.length, jobs: jobs.map((j) => formatJob(j, store)) };
        if (jobs.length && !tickerAlive(store)) result.note = NO_TICKER_NOTE;
        return ok(result);
      }
    }
    if (!a.job_id?.trim()) return fail(`\`job_id\` is required for ${a.action}. Use action "list" to find it.`);
    const ref = a.job_id.trim();
    switch (a.action) {
      case 'update': {
        const u: UpdateJobInput = {};
        if (a.prompt !== undefined) u.prompt = a.prompt;
        if (a.schedule !== undefined) u.schedule = a.schedule;
        if (a.name !== undefined) u.name = a.name;
        if (a.repeat !== undefined) u.repeat = a.repeat;
        if (a.deliver !== undefined) u.deliver = a.deliver;
        const skills = skillsArg(a);
        if (skills !== undefined) u.skills = skills;
        if (a.model !== undefined) u.model = a.model;
        if (a.provider !== undefined) u.provider = a.provider;
        if (a.script !== undefined) u.script = a.script;
        if (a.workdir !== undefined) u.workdir = a.workdir;
        if (a.no_agent !== undefined) u.no_agent = a.no_agent;
        if (a.context_from !== undefined) u.context_from = a.context_from;
        if (a.enabled_toolsets !== undefined) u.enabled_toolsets = checkToolsets(a.enabled_toolsets, ctx);
        if (a.model !== undefined || a.provider !== undefined) u.snapshot = inferenceSnapshot(ctx.config, ctx.env);
        if (!Object.keys(u).length) return fail('Nothing to update: pass the fields to change (prompt, schedule, deliver, skills, …).');
        if (u.script?.trim()) {
          // A different script needs a person; setting the same one again, or other changes, do not.
          const job = store.get(ref);
          if (u.script.trim() !== (job.script ?? '').trim()) {
            const blocked = await approveJobScript(ctx, u.script, { name: job.name, schedule: u.schedule ?? job.schedule_display, noAgent: u.no_agent ?? job.no_agent });
            if (blocked) return fail(blocked);
          }
        }
        const job = await store.update(ref, u);
        return ok({ success: true, job: formatJob(job, store) });
      }
      case 'pause':
        return ok({ success: true, job: formatJob(await store.pause(ref, a.reason), store) });
      case 'resume':
        return ok({ success: true, job: formatJob(await store.resume(ref), store) });
      case 'remove': {
        const job = await store.remove(ref);
        return ok({ success: true, message: `Cron job '${job.name}' removed.`, removed_job: { id: job.id, name: job.name, schedule: job.schedule_display } });
      }
      case 'run': {
        const ticker = activeTicker(ctx.home);
        if (ticker) {
          // Inside the gateway: the run goes on in the background and is delivered by the router.
          const { job } = await ticker.scheduler.runNow(ref);
          return ok({
            success: true,
            job: { ...formatJob(job, store), state: 'running', executed: 'started' },
            note: `The job is running in the background; its output goes to ${job.deliver}. Do not wait for it.`,
          });
        }
        // No gateway ticking here: deliver through the session's messaging service (a send-only
        // router over the platforms' APIs outside the gateway).
        const messaging = ctx.messaging;
        const deliver: Deliver = async (target, content, meta) => {
          if (!messaging) return { ok: false, error: 'no messaging service in this process' };
          const r = await messaging.send(target, content, meta.origin, `cron:${meta.jobId}`);
          return r.ok ? { ok: true } : { ok: false, error: r.error ?? 'delivery failed' };
        };
        const scheduler = new CronScheduler({ home: ctx.home, deliver, config: ctx.config, env: ctx.env });
        const { job, done } = await scheduler.runNow(ref);
        const onAbort = () => void scheduler.drain(0);
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        ctx.progress(`running cron job ${job.name}`);
        let report;
        try {
          report = await done;
        } finally {
          ctx.signal.removeEventListener('abort', onAbort);
        }
        const fresh = store.read().find((j) => j.id === job.id);
        const view: Record<string, unknown> = { ...(fresh ? formatJob(fresh, store) : { job_id: job.id, name: job.name }), executed: true, execution_success: report.success };
        if (report.error) view.execution_error = report.error;
        if (report.deliveryError) view.delivery_error = report.deliveryError;
        if (report.silent) view.delivery = 'suppressed ([SILENT])';
        if (report.outputPath) view.output_file = report.outputPath;
        return ok({ success: true, job: view });
      }
    }
    return fail(`Unknown cron action "${String(a.action)}".`);
  } catch (e) {
    if (e instanceof AmbiguousJobError)
      return fail(e.message, { matches: e.matches.map((m) => ({ id: m.id, name: m.name, schedule: m.schedule_display, next_run_at: m.next_run_at })) });
    if (e instanceof CronError || e instanceof ScheduleError) return fail(e.message);
    throw e;
  }
}
