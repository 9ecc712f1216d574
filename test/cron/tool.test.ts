// The cronjob tool: bound through the real registry, and driven by the model in `hermes chat -q`.
import { standaloneMessaging } from '../../src/gateway/messaging.ts';
import { cronService } from '../../src/cron/service.ts';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CronStore } from '../../src/cron/jobs.ts';
import { startCronTicker } from '../../src/cron/scheduler.ts';
import { loadConfig } from '../../src/state/config.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { makeCtx, makeServices } from '../tools/helpers.ts';
import { cronHome, readJobs, testEnv, userText } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function servicesFor(home: string, over: Partial<ToolSession> = {}): ToolSession {
  const config = loadConfig(home, testEnv(home)).config;
  // As a CLI session gives it: a send-only router over the platforms' APIs.
  return makeServices({ home, config, env: testEnv(home), messaging: standaloneMessaging(testEnv(home), config), cron: cronService, ...over });
}

async function call(services: ToolSession, args: Record<string, unknown>): Promise<{ json: Record<string, any>; isError: boolean }> {
  const tools = builtinRegistry().build(['cronjob'], services);
  const tool = tools.find((t) => t.name === 'cronjob');
  assert.ok(tool, 'cronjob is available');
  const r = await tool.execute(args, makeCtx());
  return { json: JSON.parse(r.content), isError: !!r.isError };
}

describe('cronjob tool', () => {
  it('is offered to chat sessions, never to cron runs or subagents', () => {
    const home = cronHome(fake);
    const names = (s: ToolSession, sets: string[]) => builtinRegistry().build(sets, s).map((t) => t.name);
    assert.ok(names(servicesFor(home), ['hermes-cli']).includes('cronjob'));
    assert.ok(names(servicesFor(home, { platform: 'telegram' }), ['hermes-telegram']).includes('cronjob'));
    assert.ok(!names(servicesFor(home), ['hermes-cron']).includes('cronjob'));
    assert.ok(!names(servicesFor(home, { platform: 'cron' }), ['all']).includes('cronjob'));
    assert.ok(!names(servicesFor(home, { depth: 1 }), ['all']).includes('cronjob'));
  });

  it('create from a chat delivers back to it; from the CLI, locally', async () => {
    const home = cronHome(fake);
    const chat = servicesFor(home, { platform: 'telegram', origin: { platform: 'telegram', chatId: '-100555', threadId: '9', userId: '7' } });
    const { json, isError } = await call(chat, { action: 'create', prompt: 'Morning digest', schedule: '0 8 * * *', skills: ['news'] });
    assert.equal(isError, false, JSON.stringify(json));
    assert.equal(json.success, true);
    assert.equal(json.deliver, 'origin');
    assert.equal(json.schedule, '0 8 * * *');
    assert.equal(json.repeat, 'forever');
    assert.deepEqual(json.skills, ['news']);
    assert.match(json.note, /No gateway is running/);
    const [job] = readJobs(home);
    assert.deepEqual(job.origin, { platform: 'telegram', chat_id: '-100555', thread_id: '9', user_id: '7' });

    const cli = await call(servicesFor(home), { action: 'create', prompt: 'Tidy downloads', schedule: '30m', name: 'tidy' });
    assert.equal(cli.json.deliver, 'local');
    assert.equal(cli.json.repeat, 'once');
    assert.match(cli.json.message, /saved under .*cron\/output\/[0-9a-f]{12}\/ \(not sent anywhere\)/);
  });

  it('list, update, pause, resume, remove; errors the model can act on', async () => {
    const home = cronHome(fake);
    const s = servicesFor(home);
    const a = await call(s, { action: 'create', prompt: 'A', schedule: 'every 1h', name: 'same', skills: ['x', 'y'] });
    await call(s, { action: 'create', prompt: 'B', schedule: 'every 1h', name: 'Same' });
    let r = await call(s, { action: 'list' });
    assert.equal(r.json.count, 2);
    assert.deepEqual(Object.keys(r.json.jobs[0]).slice(0, 6), ['job_id', 'name', 'skill', 'skills', 'prompt_preview', 'model']);

    r = await call(s, { action: 'update', job_id: a.json.job_id, skills: [], schedule: 'every 2h', prompt: 'A2' });
    assert.deepEqual([r.json.job.skills, r.json.job.schedule, r.json.job.prompt_preview], [[], 'every 120m', 'A2']);
    r = await call(s, { action: 'pause', job_id: a.json.job_id, reason: 'later' });
    assert.deepEqual([r.json.job.state, r.json.job.paused_reason], ['paused', 'later']);
    r = await call(s, { action: 'resume', job_id: a.json.job_id });
    assert.equal(r.json.job.state, 'scheduled');

    r = await call(s, { action: 'pause', job_id: 'same' });
    assert.equal(r.isError, true);
    assert.match(r.json.error, /matches 2 jobs/);
    assert.equal(r.json.matches.length, 2);
    r = await call(s, { action: 'remove' });
    assert.match(r.json.error, /`job_id` is required for remove/);
    r = await call(s, { action: 'update', job_id: a.json.job_id });
    assert.match(r.json.error, /Nothing to update/);
    r = await call(s, { action: 'create', prompt: 'x', schedule: 'sometime' });
    assert.match(r.json.error, /Invalid schedule "sometime"/);
    r = await call(s, { action: 'create', prompt: 'x', schedule: 'every 1h', script: '/etc/passwd' });
    assert.match(r.json.error, /must be inside/);
    r = await call(s, { action: 'explode' });
    assert.match(r.json.error, /Invalid arguments for cronjob/);

    r = await call(s, { action: 'remove', job_id: a.json.job_id });
    assert.equal(r.json.removed_job.id, a.json.job_id);
    assert.equal(readJobs(home).length, 1);
  });

  it('run without a gateway: runs now and reports the outcome', async () => {
    const home = cronHome(fake);
    const s = servicesFor(home);
    fake.setHandler((req) => ({ text: userText(req).includes('[run-now]') ? 'It ran.' : 'other' }));
    const c = await call(s, { action: 'create', prompt: 'Do it [run-now]', schedule: 'every 1d', deliver: 'discord:#ops' });
    const r = await call(s, { action: 'run', job_id: c.json.job_id });
    fake.setHandler(null);
    assert.equal(r.json.success, true);
    assert.equal(r.json.job.executed, true);
    assert.equal(r.json.job.execution_success, true);
    assert.equal(r.json.job.delivery_error, 'discord:#ops: discord is not configured (no credentials in ~/.hermes/.env) and no gateway connection is up for it.');
    assert.equal(r.json.job.last_status, 'ok');
    assert.match(readFileSync(r.json.job.output_file, 'utf8'), /## Response\n\nIt ran\./);
  });

  it('run inside the gateway: handed to the ticker, delivered by its router in the background', async () => {
    const home = cronHome(fake);
    const s = servicesFor(home);
    fake.setHandler((req) => ({ text: userText(req).includes('[bg]') ? 'background result' : 'other', delayMs: 20 }));
    const c = await call(s, { action: 'create', prompt: 'Background [bg]', schedule: 'every 1d', deliver: 'telegram:3' });
    let delivered!: (v: string) => void;
    const got = new Promise<string>((r) => (delivered = r));
    const ticker = startCronTicker({
      home,
      intervalMs: 60_000,
      env: testEnv(home),
      deliver: async (target, content) => {
        delivered(`${target}|${content}`);
        return { ok: true };
      },
    });
    try {
      const r = await call(s, { action: 'run', job_id: c.json.job_id });
      assert.equal(r.json.job.executed, 'started');
      assert.match(r.json.note, /running in the background; its output goes to telegram:3/);
      assert.match(await got, /^telegram:3\|Cronjob Response: Background \[bg\][\s\S]*background result/);
    } finally {
      await ticker.stop();
      fake.setHandler(null);
    }
    const [job] = readJobs(home);
    assert.deepEqual([job.last_status, job.last_delivery_error, job.repeat.completed], ['ok', null, 1]);
    assert.equal(new CronStore({ home, tz: 'UTC' }).isRunning(job), false);
  });

  it('the model schedules a job from `hermes chat -q`', async () => {
    const home = cronHome(fake);
    fake.enqueue(
      { toolCalls: [{ name: 'cronjob', arguments: { action: 'create', prompt: 'Check HN for AI news and summarise it.', schedule: 'every monday 9am', name: 'HN digest' } }] },
      { text: 'Scheduled: every Monday at 9:00.' },
    );
    const r = await hermes(['chat', '-q', 'every monday at 9 check HN for AI news'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Scheduled: every Monday at 9:00\./);
    assert.match(r.stderr, /┊ \S+ cron create HN digest/);
    const [job] = readJobs(home);
    assert.deepEqual([job.name, job.schedule, job.deliver], ['HN digest', { kind: 'cron', expr: '0 9 * * 1', display: 'every monday 9am' }, 'local']);
    const toolResult = JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1));
    assert.match(toolResult, /Cron job 'HN digest' created/);
  });
});
