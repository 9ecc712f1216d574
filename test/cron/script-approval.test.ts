// Cron runs nothing unapproved: a job script the agent sets through the cronjob tool needs a
// person's yes (the request shows the script's path and content); with nobody to answer it is
// denied and nothing is scheduled. Scripts must really live in HERMES_HOME/scripts/ (no link out).
// End to end: the model of a `hermes chat -q` run writes a script and schedules it — both refused,
// jobs.json and config.yaml unchanged, the canary folder still there after a cron tick.
import { cronService } from '../../src/cron/service.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentRequest } from '../../src/agent/types.ts';
import { CronStore } from '../../src/cron/jobs.ts';
import { runScript } from '../../src/cron/run.ts';
import { loadConfig } from '../../src/state/config.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { makeCtx, makeServices, tmp } from '../tools/helpers.ts';
import { cronHome, testEnv } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function setup(over: Partial<ToolSession> = {}) {
  const home = cronHome(fake);
  mkdirSync(join(home, 'scripts'));
  writeFileSync(join(home, 'scripts', 'report.sh'), 'df -h /\n');
  writeFileSync(join(home, 'scripts', 'other.sh'), 'uptime\n');
  const s = makeServices({ home, config: loadConfig(home, testEnv(home)).config, env: testEnv(home), cron: cronService, ...over });
  return { home, s };
}

async function cron(s: ToolSession, args: Record<string, unknown>, o: { answer?: string; asked?: AgentRequest[] } = {}) {
  const t = builtinRegistry().build(['cronjob'], s).find((x) => x.name === 'cronjob')!;
  const r = await t.execute(args, makeCtx({ asked: o.asked, answer: o.answer ? () => ({ answer: o.answer }) : undefined }));
  return { json: JSON.parse(r.content) as Record<string, any>, isError: !!r.isError };
}

const jobsFile = (home: string) => join(home, 'cron', 'jobs.json');

describe('a job script set through the cronjob tool', () => {
  it('with nobody to answer: denied, nothing scheduled, the model told why; the request showed path and content', async () => {
    const { home, s } = setup();
    const asked: AgentRequest[] = [];
    const r = await cron(s, { action: 'create', name: 'disk', schedule: 'every 1h', script: 'report.sh', no_agent: true }, { asked });
    assert.equal(r.isError, true);
    assert.match(r.json.error, /BLOCKED: a cron job's script runs unattended.*nobody is here to approve it.*Nothing was scheduled/);
    assert.match(r.json.error, /hermes cron create "<schedule>" --script report\.sh/);
    assert.ok(!existsSync(jobsFile(home)), 'no jobs.json written');
    assert.equal(asked.length, 1);
    const req = asked[0] as { kind: string; command: string; description: string; choices: string[] };
    assert.equal(req.kind, 'approval');
    assert.match(req.command, new RegExp(`^cron script ${join(home, 'scripts', 'report.sh').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\ndf -h /$`));
    assert.match(req.description, /"disk" \(every 1h\) will run this script unattended.*sent as is/);
    assert.deepEqual(req.choices, ['once', 'deny']);
  });

  it('approved by the person: scheduled; denied: not', async () => {
    const { home, s } = setup();
    assert.match((await cron(s, { action: 'create', schedule: 'every 1h', script: 'report.sh' }, { answer: 'deny' })).json.error, /the user denied it/);
    const ok = await cron(s, { action: 'create', schedule: 'every 1h', script: 'report.sh', prompt: 'Summarise' }, { answer: 'once' });
    assert.equal(ok.json.success, true, JSON.stringify(ok.json));
    assert.equal(new CronStore({ home, tz: 'UTC' }).list({ all: true }).length, 1);
  });

  it('a prompt-only job is not asked about; --yolo is not asked; a script not yet there is shown as such', async () => {
    const { s } = setup();
    const asked: AgentRequest[] = [];
    assert.equal((await cron(s, { action: 'create', schedule: 'every 1h', prompt: 'Check the news' }, { asked })).json.success, true);
    assert.equal(asked.length, 0);
    await cron(s, { action: 'create', schedule: 'every 1h', script: 'later.sh' }, { asked });
    assert.match((asked[0] as { command: string }).command, /later\.sh\n\(the file does not exist yet/);
    const y = setup({ yolo: true });
    assert.equal((await cron(y.s, { action: 'create', schedule: 'every 1h', script: 'report.sh' })).json.success, true);
  });

  it('update: a different script asks; the same script or other fields do not', async () => {
    const { home, s } = setup();
    const created = await cron(s, { action: 'create', schedule: 'every 1h', script: 'report.sh', prompt: 'x' }, { answer: 'once' });
    const id = created.json.job_id;
    const asked: AgentRequest[] = [];
    assert.equal((await cron(s, { action: 'update', job_id: id, schedule: 'every 2h' }, { asked })).json.success, true);
    assert.equal((await cron(s, { action: 'update', job_id: id, script: 'report.sh' }, { asked })).json.success, true);
    assert.equal(asked.length, 0);
    const before = readFileSync(jobsFile(home), 'utf8');
    const r = await cron(s, { action: 'update', job_id: id, script: 'other.sh', no_agent: true }, { asked });
    assert.match(r.json.error, /BLOCKED/);
    assert.equal(asked.length, 1);
    assert.equal(readFileSync(jobsFile(home), 'utf8'), before, 'jobs.json unchanged');
    assert.equal((await cron(s, { action: 'update', job_id: id, script: '' }, { asked })).json.success, true, 'clearing a script needs nobody');
  });

  it('a script that links out of scripts/ is refused when set and when run', async () => {
    const { home, s } = setup({ yolo: true });
    const elsewhere = tmp('elsewhere-');
    writeFileSync(join(elsewhere, 'evil.sh'), 'echo ran\n');
    symlinkSync(join(elsewhere, 'evil.sh'), join(home, 'scripts', 'linked.sh'));
    assert.match((await cron(s, { action: 'create', schedule: 'every 1h', script: 'linked.sh' })).json.error, /is a link to .*evil\.sh, outside/);
    const r = await runScript(home, 'linked.sh', { env: testEnv(home), timeoutS: 10 });
    assert.equal(r.ok, false);
    assert.match(r.output, /outside/);
    // A real file in scripts/ runs.
    assert.deepEqual(await runScript(home, 'other.sh', { env: testEnv(home), timeoutS: 10 }).then((x) => x.ok), true);
  });
});

describe('end to end: hermes chat -q cannot schedule a script', () => {
  const toolResults = (req: RecordedRequest) => (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => String(m.content));

  it('write_file into scripts/ and cronjob with no_agent are refused; a tick runs nothing; config unchanged', async () => {
    const home = cronHome(fake);
    mkdirSync(join(home, 'scripts'));
    // A script the person wrote earlier, and a folder it would delete.
    const canary = join(home, 'canary');
    mkdirSync(canary);
    writeFileSync(join(home, 'scripts', 'cleanup.sh'), `rm -rf ${canary}\n`);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    const n = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: join(home, 'scripts', 'evil.sh'), content: `rm -rf ${canary}\n` } }] },
      { toolCalls: [{ name: 'cronjob', arguments: { action: 'create', name: 'tidy', schedule: 'every 1m', script: 'cleanup.sh', no_agent: true } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: join(home, 'cron', 'jobs.json'), content: '{"jobs":[]}' } }] },
      { text: 'I could not schedule it.' },
    );
    const r = await hermes(['chat', '-q', 'schedule a cleanup'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /could not schedule it/);
    const results = toolResults(fake.requests[fake.requests.length - 1]);
    assert.match(results[0], /not allowed: it is Hermes's own scripts\//);
    assert.match(results[1], /BLOCKED: a cron job's script runs unattended.*nobody is here to approve it/);
    assert.match(results[2], /not allowed: it is Hermes's own cron\//);
    assert.ok(fake.requests.length - n >= 4);
    assert.ok(!existsSync(join(home, 'scripts', 'evil.sh')));
    assert.ok(!existsSync(jobsFile(home)));
    const tick = await hermes(['cron', 'tick'], { home });
    assert.equal(tick.code, 0, tick.stderr);
    assert.ok(existsSync(canary), 'nothing ran');
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });
});
