// /cron in a chat: the same operations as the tool, in words a person reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { splitArgs } from '../../src/policy/split-args.ts';
import { runCommand, type Surface } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { cronHome, readJobs, testEnv } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function chat(surface: Surface = 'cli') {
  const home = cronHome(fake);
  const env = testEnv(home);
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: surface === 'cli' ? 'cli' : 'telegram', interactive: true });
  if (surface === 'gateway') session.services.origin = { platform: 'telegram', chatId: '99' };
  const registry = createCommandRegistry();
  const cmd = async (line: string) => (await runCommand(registry, line, { session, surface, hooks: {} }))?.output ?? '';
  return { home, session, cmd };
}

describe('/cron', () => {
  it('splits quoted arguments', () => {
    assert.deepEqual(splitArgs(`add "every 2h" 'Check it' --skill a --name "x y"`), ['add', 'every 2h', 'Check it', '--skill', 'a', '--name', 'x y']);
  });

  it('add (schedule found without quotes), list, edit, pause, resume, remove', async () => {
    const c = chat();
    let out = await c.cmd('/cron add every monday 9am Summarise the week --skill digest --name Weekly');
    assert.match(out, /^Created job [0-9a-f]{12}: Weekly\n  every monday 9am · forever · deliver: local\n  next: \S+/);
    out = await c.cmd('/cron add "in 30m" "Stretch"');
    assert.match(out, /Created job .*: Stretch\n  once in 30m · once/);
    out = await c.cmd('/cron');
    assert.match(out, /\[scheduled\] Weekly\n  every monday 9am · forever · deliver: local\n  next: .*\n  skills: digest/);
    out = await c.cmd('/cron edit weekly --add-skill charts --schedule "0 8 * * 1"');
    assert.match(out, /^Updated:\n.*Weekly\n  0 8 \* \* 1 · forever[\s\S]*skills: digest, charts/);
    out = await c.cmd('/cron pause Weekly');
    assert.match(out, /^Paused:\n.*\[paused\] Weekly/);
    out = await c.cmd('/cron resume Weekly');
    assert.match(out, /^Resumed:\n.*\[scheduled\] Weekly/);
    out = await c.cmd('/cron remove Stretch');
    assert.equal(out, "Cron job 'Stretch' removed.");
    assert.deepEqual(readJobs(c.home).map((j) => j.name), ['Weekly']);
    out = await c.cmd('/cron pause nothing-like-it');
    assert.match(out, /^✗ No cron job with ID or name "nothing-like-it"/);
    out = await c.cmd('/cron add whenever do things');
    assert.match(out, /^✗ Invalid schedule/);
    out = await c.cmd('/cron frobnicate x');
    assert.match(out, /Unknown \/cron subcommand "frobnicate"/);
    await c.session.close();
  });

  it('in the gateway, jobs deliver back to the chat they were made in', async () => {
    const c = chat('gateway');
    const out = await c.cmd('/cron add every 1h Check the queue');
    assert.match(out, /deliver: origin/);
    const [job] = readJobs(c.home);
    assert.deepEqual(job.origin, { platform: 'telegram', chat_id: '99', thread_id: null, user_id: null });
    await c.session.close();
  });

  it('run: runs the job now and says how it went', async () => {
    const c = chat();
    fake.setHandler(() => ({ text: 'slash result' }));
    await c.cmd('/cron add every 1d "Ping [slash]" --deliver local');
    const out = await c.cmd('/cron run Ping [slash]');
    fake.setHandler(null);
    assert.match(out, /^✓ Ping \[slash\]: ok\n  output: .*\.md$/);
    await c.session.close();
  });
});

describe('/suggestions', () => {
  it('catalog offers the starter automations; accept creates the cron job delivering to the chat; dismiss latches; clear prunes', async () => {
    const c = chat('gateway');
    assert.match(await c.cmd('/suggestions'), /^No suggested automations right now/);
    let out = await c.cmd('/suggestions catalog');
    assert.match(out, /^Added 4 suggestion\(s\): Daily briefing, Important-mail monitor, Weekly review, Workday start reminder\./);
    out = await c.cmd('/suggestions');
    assert.match(out, /^Suggested automations/);
    assert.match(out, /  1\. Daily briefing  \[0 8 \* \* \*\]  \(catalog\)\n     Every morning at 8am/);
    out = await c.cmd('/suggestions accept 1');
    assert.match(out, /^Scheduled 'Daily briefing' \(0 8 \* \* \*\)\. Ask me to list, pause, or remove it/);
    const job = readJobs(c.home).find((j) => j.name === 'Daily briefing')!;
    assert.equal(job.deliver, 'origin');
    assert.deepEqual({ platform: job.origin?.platform, chat: job.origin?.chat_id }, { platform: 'telegram', chat: '99' });
    assert.match(await c.cmd('/suggest dismiss Weekly review'), /^Dismissed\. Won't suggest that again\./);
    assert.doesNotMatch(await c.cmd('/suggestions'), /Weekly review|Daily briefing/);
    assert.match(await c.cmd('/suggestions accept 9'), /^No pending suggestion matches '9'/);
    assert.match(await c.cmd('/suggestions accept'), /^Usage: \/suggestions accept/);
    // Decided ones are never offered again.
    assert.match(await c.cmd('/suggestions catalog'), /^No new catalog automations to add/);
    assert.match(await c.cmd('/suggestions clear'), /^Cleared 1 resolved suggestion record\(s\)\./);
    // Clearing drops the accepted record (its job exists); the dismissed key stays latched.
    assert.match(await c.cmd('/suggestions catalog'), /^Added 1 suggestion\(s\): Daily briefing\./);
    assert.match(await c.cmd('/suggestions frobnicate'), /^Usage:\n  \/suggestions/);
    await c.session.close();
  });
});
