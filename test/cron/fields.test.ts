// jobs.json fields of Hermes 0.18 — context_from, enabled_toolsets, no_agent, provider_snapshot and
// model_snapshot: kept byte-for-byte through our writes of a jobs.json Python Hermes 0.18.2 made,
// set by the cronjob tool, and honoured when jobs run (scheduler with the fake LLM).
import { cronService } from '../../src/cron/service.ts';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CronStore } from '../../src/cron/jobs.ts';
import { CronScheduler, type Deliver } from '../../src/cron/scheduler.ts';
import { loadConfig } from '../../src/state/config.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { makeCtx, makeServices } from '../tools/helpers.ts';
import { cronHome, readJobs, testEnv, toolNames, userText } from './helpers.ts';

const FIXTURE_JOBS = join(import.meta.dirname, '..', 'fixtures', 'hermes-0.18.2-home', 'cron', 'jobs.json');

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});
beforeEach(() => fake.setHandler(null));

function servicesFor(home: string): ToolSession {
  return makeServices({ home, config: loadConfig(home, testEnv(home)).config, env: testEnv(home), cron: cronService });
}

async function tool(services: ToolSession, args: Record<string, unknown>, ctx = makeCtx()) {
  const t = builtinRegistry().build(['cronjob'], services).find((x) => x.name === 'cronjob')!;
  const r = await t.execute(args, ctx);
  return { json: JSON.parse(r.content) as Record<string, any>, isError: !!r.isError };
}

describe('jobs.json written by Python Hermes 0.18.2', () => {
  it('survives our writes unchanged: every field, its value and its place', async () => {
    const home = cronHome(fake);
    mkdirSync(join(home, 'cron'), { recursive: true });
    cpSync(FIXTURE_JOBS, join(home, 'cron', 'jobs.json'));
    const original = JSON.parse(readFileSync(FIXTURE_JOBS, 'utf8')) as { jobs: Record<string, unknown>[] };
    const store = new CronStore({ home, tz: 'UTC' });
    const jobs = store.read();
    const follow = jobs.find((j) => j.id === 'f7f1aa89a509')!;
    assert.deepEqual(follow.context_from, ['d6493ef250d1']);
    assert.deepEqual(follow.enabled_toolsets, ['file', 'web']);
    assert.equal(follow.model_snapshot, 'mock-model');
    assert.equal(follow.provider_snapshot, 'custom');
    assert.equal(follow.no_agent, false);
    // A write that touches one job (pause the digest) must leave every Python-made field as it was.
    await store.pause('d6493ef250d1', 'holiday');
    const after = JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: Record<string, unknown>[] };
    for (const [i, o] of original.jobs.entries()) {
      const n = after.jobs[i];
      assert.deepEqual(Object.keys(n).filter((k) => k !== 'fire_claim'), Object.keys(o), `keys and their order of ${String(o.id)}`);
      for (const k of Object.keys(o)) {
        if (o.id === 'd6493ef250d1' && ['enabled', 'state', 'paused_at', 'paused_reason'].includes(k)) continue;
        assert.deepEqual(n[k], o[k], `${String(o.id)}.${k}`);
      }
    }
    assert.equal(after.jobs[0].state, 'paused');
  });
});

describe('the cronjob tool sets the fields', () => {
  it('context_from (by ID or name), enabled_toolsets, no_agent and the model snapshot', async () => {
    const home = cronHome(fake);
    mkdirSync(join(home, 'scripts'));
    writeFileSync(join(home, 'scripts', 'disk.sh'), 'df -h / | tail -1\n');
    const s = servicesFor(home);
    const a = await tool(s, { action: 'create', name: 'collect', prompt: 'Collect the headlines', schedule: 'every 1h' });
    assert.equal(a.json.success, true, JSON.stringify(a.json));
    const b = await tool(s, { action: 'create', prompt: 'Digest what collect found', schedule: 'every 1d', context_from: ['collect'], enabled_toolsets: ['file', 'web'] });
    assert.equal(b.json.success, true, JSON.stringify(b.json));
    assert.deepEqual(b.json.job.context_from, [a.json.job_id], 'a name is stored as its ID');
    assert.deepEqual(b.json.job.enabled_toolsets, ['file', 'web']);
    const stored = readJobs(home).find((j) => j.id === b.json.job_id)!;
    assert.equal(stored.provider_snapshot, 'custom');
    assert.equal(stored.model_snapshot, 'test-model');
    assert.equal(stored.no_agent, false);

    assert.match((await tool(s, { action: 'create', prompt: 'x', schedule: 'every 1h', context_from: ['nope'] })).json.error, /context_from: no cron job with ID or name "nope"/);
    assert.match((await tool(s, { action: 'create', prompt: 'x', schedule: 'every 1h', enabled_toolsets: ['webb'] })).json.error, /Unknown toolset or tool "webb"/);
    assert.match((await tool(s, { action: 'create', prompt: 'x', schedule: 'every 1h', no_agent: true })).json.error, /no_agent needs a `script`/);
    // Naming the job itself is continuity: stored as Hermes's reserved `self`.
    const selfRef = await tool(s, { action: 'update', job_id: a.json.job_id, context_from: [a.json.job_id] });
    assert.deepEqual(selfRef.json.job.context_from, ['self'], JSON.stringify(selfRef.json));

    // A script set by the agent needs a person's yes (see script-approval.test.ts).
    const w = await tool(s, { action: 'create', name: 'disk', script: 'disk.sh', no_agent: true, schedule: 'every 1h' }, makeCtx({ answer: () => ({ answer: 'once' }) }));
    assert.equal(w.json.job.no_agent, true);
    const wj = readJobs(home).find((j) => j.id === w.json.job_id)!;
    assert.equal(wj.model_snapshot, null, 'a script-only job never uses a model');

    // [] clears on update.
    const u = await tool(s, { action: 'update', job_id: b.json.job_id, context_from: [], enabled_toolsets: [] });
    assert.equal(u.json.success, true);
    const cleared = readJobs(home).find((j) => j.id === b.json.job_id)!;
    assert.equal(cleared.context_from, null);
    assert.equal(cleared.enabled_toolsets, null);
  });
});

describe('the fields when jobs run', () => {
  const T0 = Date.parse('2026-03-02T10:00:00Z');
  function world(extraYaml = '') {
    const home = cronHome(fake, extraYaml);
    const deliveries: { target: string; content: string }[] = [];
    const deliver: Deliver = async (target, content) => {
      deliveries.push({ target, content });
      return { ok: true };
    };
    const now = () => T0;
    return { home, deliveries, store: new CronStore({ home, tz: 'UTC', now }), scheduler: new CronScheduler({ home, deliver, now, env: testEnv(home), log: () => {} }) };
  }
  const run = async (w: ReturnType<typeof world>, id: string) => (await w.scheduler.runNow(id)).done;

  it('no_agent: the script\'s stdout is delivered as it is, empty stdout sends nothing, no LLM is asked', async () => {
    const w = world();
    mkdirSync(join(w.home, 'scripts'));
    writeFileSync(join(w.home, 'scripts', 'check.sh'), 'if [ -f "$HOME/alarm" ]; then echo "Disk at 91%"; fi\n');
    const job = await w.store.create({ schedule: 'every 1h', script: 'check.sh', no_agent: true, deliver: 'telegram:42' });
    const before = fake.requests.length;
    let r = await run(w, job.id);
    assert.equal(r.success, true, r.error ?? '');
    assert.equal(r.silent, true);
    assert.equal(w.deliveries.length, 0);
    writeFileSync(join(w.home, 'alarm'), '');
    r = await run(w, job.id);
    assert.deepEqual(w.deliveries, [{ target: 'telegram:42', content: 'Disk at 91%' }]);
    assert.equal(fake.requests.length, before, 'no model call');
    assert.match(readFileSync(r.outputPath!, 'utf8'), /\*\*Mode:\*\* no_agent \(script check\.sh\)[\s\S]*## Script Output\n\nDisk at 91%/);
    // A failing script is reported as a failure.
    writeFileSync(join(w.home, 'scripts', 'check.sh'), 'echo boom >&2; exit 4\n');
    r = await run(w, job.id);
    assert.equal(r.success, false);
    assert.match(w.deliveries.at(-1)!.content, /failed:[\s\S]*exited with code 4[\s\S]*boom/);
  });

  it('context_from: the latest output of the named job is in the prompt; enabled_toolsets limits the tools', async () => {
    const w = world();
    const a = await w.store.create({ prompt: 'Collect [job-A]', schedule: 'every 1h' });
    const b = await w.store.create({ prompt: 'Digest [job-B]', schedule: 'every 1h', context_from: [a.id], enabled_toolsets: ['file'] });
    fake.setHandler((req) => (userText(req).includes('[job-A]') && !userText(req).includes('[job-B]') ? { text: 'HEADLINE: rates cut' } : { text: 'digest done' }));
    // Before job A ever ran there is nothing to give: the prompt has no context block.
    await run(w, b.id);
    let req = fake.requests.at(-1)!;
    assert.doesNotMatch(userText(req), /## Output from job/);
    await run(w, a.id);
    await run(w, b.id);
    req = fake.requests.at(-1)!;
    assert.match(userText(req), new RegExp(`## Output from job '${a.id}'[\\s\\S]*HEADLINE: rates cut[\\s\\S]*Digest \\[job-B\\]$`));
    const tools = toolNames(req);
    assert.ok(tools.includes('read_file') && tools.includes('patch'), tools.join(','));
    assert.ok(!tools.includes('terminal') && !tools.includes('web_search'), tools.join(','));
  });

  it('an unpinned job runs on the model of its snapshot, a pinned one on its own', async () => {
    const w = world();
    const job = await w.store.create({ prompt: 'Snap [job-S]', schedule: 'every 1h', snapshot: { provider: 'custom', model: 'model-at-creation' } });
    await run(w, job.id);
    assert.equal(fake.requests.at(-1)!.body.model, 'model-at-creation');
    const pinned = await w.store.create({ prompt: 'Pinned [job-P]', schedule: 'every 1h', model: 'pinned-model', snapshot: { provider: 'custom', model: 'ignored' } });
    assert.equal(readJobs(w.home).find((j) => j.id === pinned.id)!.model_snapshot, null);
    await run(w, pinned.id);
    assert.equal(fake.requests.at(-1)!.body.model, 'pinned-model');
    const plain = await w.store.create({ prompt: 'Plain [job-D]', schedule: 'every 1h' });
    await run(w, plain.id);
    assert.equal(fake.requests.at(-1)!.body.model, 'test-model', 'no snapshot: the default');
  });
});

describe('hermes cron create / list', () => {
  it('--no-agent makes a script-only job; list shows the mode and the model an unpinned job runs on', async () => {
    const { hermes } = await import('../helpers/cli.ts');
    const home = cronHome(fake);
    mkdirSync(join(home, 'scripts'));
    writeFileSync(join(home, 'scripts', 'ping.sh'), 'echo pong\n');
    let r = await hermes(['cron', 'create', 'every 1h', '--script', 'ping.sh', '--no-agent', '--name', 'ping'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Mode:\s+no-agent \(script stdout delivered directly\)/);
    r = await hermes(['cron', 'create', 'every 1h', 'Summarise the logs', '--name', 'logs'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Model:\s+custom \/ test-model \(the default when it was created\)/);
    const jobs = readJobs(home);
    assert.deepEqual(jobs.map((j) => [j.name, j.no_agent, j.model_snapshot]), [['ping', true, null], ['logs', false, 'test-model']]);
    r = await hermes(['cron', 'create', 'every 1h', 'x', '--no-agent'], { home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hermes: no_agent runs a script without the LLM, so it needs `script`/);
  });
});
