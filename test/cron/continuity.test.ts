// Cron memory and continuity (Hermes 0.21): `continuity` (stored as `self` in context_from) gives a
// run what the job's previous run reported — its answer only, never a monitor stub, a silent run or
// a failure, cut from the front when long — and every run has SOUL.md and memory while project
// rules stay out unless the job names a workdir.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { continuityBlock, previousReport, reportOf } from '../../src/cron/continuity.ts';
import { CronStore } from '../../src/cron/jobs.ts';
import { CronScheduler, type Deliver } from '../../src/cron/scheduler.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { cronHome, readJobs, testEnv, userText } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});
beforeEach(() => fake.setHandler(null));

const doc = (response: string, prompt = 'the prompt') => `# Cron Job: scout\n\n**Job ID:** abc\n\n## Prompt\n\n${prompt}\n\n## Response\n\n${response}\n`;

function writeDoc(home: string, id: string, name: string, text: string, ageS: number): void {
  const dir = join(home, 'cron', 'output', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
  const t = new Date(Date.now() - ageS * 1000);
  utimesSync(join(dir, name), t, t);
}

describe('the previous report', () => {
  it('is the answer section only, not the prompt above it', () => {
    assert.equal(reportOf(doc('Found 3 new papers: A, B, C.', 'x'.repeat(50_000))), 'Found 3 new papers: A, B, C.');
    assert.equal(reportOf('# Cron Job: s\n\n## Script Output\n\nDisk at 91%\n'), 'Disk at 91%');
  });

  it('skips monitor stubs, silent runs, empty answers and failures for the newest real report', () => {
    const home = cronHome(fake);
    writeDoc(home, 'abc', '2026-03-01_09-00-00.md', doc('Reported: outage in eu-west.'), 500);
    writeDoc(home, 'abc', '2026-03-01_10-00-00.md', '# Cron Job: scout (FAILED)\n\n## Prompt\n\np\n\n## Error\n\n```\nboom\n```\n', 400);
    writeDoc(home, 'abc', '2026-03-01_11-00-00.md', doc('[SILENT]'), 300);
    writeDoc(home, 'abc', '2026-03-01_12-00-00.md', doc('(No response generated)'), 200);
    writeDoc(home, 'abc', '2026-03-01_13-00-00.md', '# Cron Job: scout\n\n**Job ID:** abc\n**Mode:** monitor\n**Status:** no_change (agent run suppressed)\n', 100);
    assert.equal(previousReport(home, 'abc'), 'Reported: outage in eu-west.');
    assert.equal(previousReport(home, 'nothing-yet'), null);
    assert.equal(previousReport(home, '../etc'), null, 'an ID is never a path');
  });

  it('keeps the end of a long report (where its conclusion is)', () => {
    const block = continuityBlock(`${'old detail. '.repeat(2000)}CONCLUSION: ship it`, 500);
    assert.match(block, /^## Your previous run\n/);
    assert.match(block, /the start of the report was cut/);
    assert.match(block, /CONCLUSION: ship it\n```$/);
    assert.ok(block.length < 900, String(block.length));
  });
});

describe('a job with continuity', () => {
  const T0 = Date.parse('2026-03-02T10:00:00Z');
  function world() {
    const home = cronHome(fake);
    const deliveries: { target: string; content: string }[] = [];
    const deliver: Deliver = async (target, content) => {
      deliveries.push({ target, content });
      return { ok: true };
    };
    let t = T0;
    const now = () => t;
    const scheduler = new CronScheduler({ home, deliver, now, env: testEnv(home), log: () => {} });
    return {
      run: async (id: string) => (await scheduler.runNow(id)).done,
      home,
      deliveries,
      tick: (s: number) => void (t += s * 1000),
      store: new CronStore({ home, tz: 'UTC', now }),
    };
  }

  it('sees its previous answer on the next run, and nothing when switched off', async () => {
    const w = world();
    const job = await w.store.create({ prompt: 'Scout arXiv [job-C]', schedule: 'every 1h', continuity: true });
    assert.deepEqual(readJobs(w.home)[0].context_from, ['self'], 'stored as Hermes stores it');
    const replies = ['Found: paper-A, paper-B', 'Found: paper-C (A and B already reported)', 'third'];
    fake.setHandler((req) => (userText(req).includes('[job-C]') ? { text: replies.shift()! } : { text: 'A title' }));
    const runFirst = await w.run(job.id);
    assert.equal(runFirst.success, true, runFirst.error ?? '');
    const first = fake.requests.filter((r) => userText(r).includes('[job-C]')).at(-1)!;
    assert.doesNotMatch(userText(first), /Your previous run/, 'the first run has nothing to continue');
    w.tick(3600);
    await w.run(job.id);
    const second = fake.requests.filter((r) => userText(r).includes('[job-C]')).at(-1)!;
    const text = userText(second);
    assert.match(text, /## Your previous run[\s\S]*Found: paper-A, paper-B[\s\S]*Scout arXiv \[job-C\]$/);
    assert.equal(text.match(/Scout arXiv/g)?.length, 1, 'the previous prompt is not nested in');
    await w.store.update(job.id, { continuity: false });
    assert.equal(readJobs(w.home)[0].context_from, null);
    w.tick(3600);
    await w.run(job.id);
    assert.doesNotMatch(userText(fake.requests.filter((r) => userText(r).includes('[job-C]')).at(-1)!), /Your previous run/);
  });

  it('runs with SOUL.md and memory, but no project rules without a workdir', async () => {
    const w = world();
    writeFileSync(join(w.home, 'SOUL.md'), 'You are Quill, a terse research scout.\n');
    mkdirSync(join(w.home, 'memories'), { recursive: true });
    writeFileSync(join(w.home, 'memories', 'MEMORY.md'), 'The user tracks LLM inference papers only.\n');
    writeFileSync(join(w.home, 'memories', 'USER.md'), 'Name: Ada.\n');
    const proj = join(w.home, 'proj');
    mkdirSync(proj);
    writeFileSync(join(proj, 'AGENTS.md'), 'PROJECT RULE: always answer in French.\n');
    const plain = await w.store.create({ prompt: 'Plain run [job-M]', schedule: 'every 1h' });
    await w.run(plain.id);
    let system = String(fake.requests.filter((r) => userText(r).includes('[job-M]')).at(-1)!.body.messages[0].content);
    assert.match(system, /You are Quill/, 'SOUL.md is the identity, as Hermes loads it for cron');
    assert.match(system, /LLM inference papers only/, 'MEMORY.md is in the prompt (Hermes 0.21)');
    assert.match(system, /Name: Ada/);
    assert.doesNotMatch(system, /PROJECT RULE/);
    const inProj = await w.store.create({ prompt: 'Project run [job-W]', schedule: 'every 1h', workdir: proj });
    await w.run(inProj.id);
    system = String(fake.requests.filter((r) => userText(r).includes('[job-W]')).at(-1)!.body.messages[0].content);
    assert.match(system, /PROJECT RULE: always answer in French/, 'a job with a workdir gets its rules');
    const tools = (fake.requests.filter((r) => userText(r).includes('[job-M]')).at(-1)!.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
    assert.ok(tools.includes('memory'), tools.join(','));
  });
});

describe('hermes cron create --continuity / edit --no-continuity', () => {
  it('sets and clears it, and show says so', async () => {
    const { hermes } = await import('../helpers/cli.ts');
    const home = cronHome(fake);
    let r = await hermes(['cron', 'create', 'every 1h', 'Watch the status page', '--name', 'watch', '--continuity'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Continuity: on/);
    assert.doesNotMatch(r.stdout, /Context:/);
    assert.deepEqual(readJobs(home)[0].context_from, ['self']);
    r = await hermes(['cron', 'edit', 'watch', '--no-continuity'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readJobs(home)[0].context_from, null);
    assert.ok(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8').includes('"context_from": null'));
  });
});
