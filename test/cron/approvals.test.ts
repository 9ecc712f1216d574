// Issue 38 in a cron tick (unattended: approvals.cron_mode deny): a due job's model sends one
// command per class of programs that run another command (and the missing classes); nothing runs,
// nothing changes, the model is told why, and the job's saved output holds no secret.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CronStore } from '../../src/cron/jobs.ts';
import { CronScheduler } from '../../src/cron/scheduler.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { askCases, world } from '../policy/e2e-cases.ts';
import { cronHome, outputFiles, testEnv, userText } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const T0 = Date.parse('2026-03-02T10:00:00Z');

describe('cron tick: commands handed to another program are classified', () => {
  it('runs none of them, changes nothing, and tells the model why for each', async () => {
    const home = cronHome(fake);
    const w = world(join(home, 'user-home'), home, readFileSync(join(home, 'config.yaml'), 'utf8'));
    let now = T0;
    const scheduler = new CronScheduler({ home, deliver: async () => ({ ok: true }), now: () => now, env: testEnv(home, { HOME: w.home }), log: () => {} });
    const store = new CronStore({ home, tz: 'UTC', now: () => now });
    const job = await store.create({ prompt: 'Tidy up [job-R]', schedule: 'every 1h' });
    const cases = askCases(w);
    const seen: string[] = [];
    fake.setHandler((req) => {
      if (!userText(req).includes('[job-R]')) return { text: 'ok' };
      const msgs = req.body.messages as { role: string; tool_call_id?: string; content: unknown }[];
      if (!msgs.some((m) => m.role === 'tool')) return { toolCalls: cases.map((c, i) => ({ id: `call_${i}`, name: 'terminal', arguments: { command: c.command } })) };
      for (const m of msgs) if (m.role === 'tool') seen[Number(m.tool_call_id!.slice(5))] = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
      return { text: 'Nothing ran.' };
    });
    now = T0 + 3600_000;
    const [r] = await (await scheduler.tick()).done;
    fake.setHandler(null);
    assert.equal(r.success, true, r.error ?? '');
    assert.deepEqual(w.traces(), []);
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const text = seen[i] ?? '(no result)';
      if (!/BLOCKED/.test(text) || !c.why.test(text)) wrong.push(`${c.cls}: ${text.slice(0, 300)}`);
    });
    assert.deepEqual(wrong, []);
    assert.match(seen[0], /cron_mode: approve/);
    for (const f of outputFiles(home, job.id)) assert.ok(!readFileSync(f, 'utf8').includes(w.secret), f);
  });
});
