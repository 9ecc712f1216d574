// The gateway runs the board: a parent task created from a Telegram chat (/kanban create) and two
// children assigned to other profiles run to done in order, each by its own worker process, started
// by the gateway's embedded dispatcher; the chat hears about each completion; the kanban_task_*
// hooks fire; every step is in task_events.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { loadConfig } from '../../src/state/config.ts';
import { openBoard } from '../../src/kanban/store.ts';
import { cleanEnv } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { until } from '../gateway/helpers.ts';
import { kanbanHome, kb, scriptWorkers, type WorkerScript } from './helpers.ts';

const OWNER = 4242;
const said = (re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && re.test(String(c.params.text));

describe('kanban in the gateway', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let gw: RunningGateway;
  let home: string;
  let script: WorkerScript;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    script = scriptWorkers(llm);
    home = kanbanHome(llm, { profiles: ['lead', 'writer', 'checker'], yaml: 'kanban:\n  dispatch_interval_seconds: 1\n' });
    const hook = join(home, 'hooks', 'kanban-log');
    mkdirSync(hook, { recursive: true });
    writeFileSync(join(hook, 'HOOK.yaml'), 'name: kanban-log\nevents: ["kanban_task_*"]\n');
    writeFileSync(
      join(hook, 'handler.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport function handle(event, ctx) { appendFileSync(${JSON.stringify(join(home, 'hooks.log'))}, event + ' ' + ctx.task_id + '\\n'); }\n`,
    );
    const env = cleanEnv(home, { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), HERMES_GATEWAY_CONNECT_TIMEOUT: '10', MESSAGING_CWD: home });
    gw = await runGateway({ home, config: loadConfig(home, env).config, env, backgroundTasks: false, cron: false });
    await until(() => tg.pollers() > 0, 5000, 'telegram');
  });
  after(async () => {
    await gw?.shutdown();
    await tg?.close();
    await llm?.close();
  });

  test('a parent and two children run to done in order, reported to the chat that made them', async () => {
    tg.userMessage({ chatId: OWNER, text: '/kanban create "Plan launch" --assignee lead --body "outline the steps"' });
    const created = await tg.waitFor(said(/Created t_[0-9a-f]+ +\(ready, assignee=lead\)/), 15_000, 'the /kanban reply');
    const parent = /Created (t_[0-9a-f]+)/.exec(String(created.params.text))![1];
    const w = /Created (t_\w+)/.exec((await kb(home, ['create', 'Write copy', '--assignee', 'writer', '--parent', parent])).stdout)![1];
    const c = /Created (t_\w+)/.exec((await kb(home, ['create', 'Check copy', '--assignee', 'checker', '--parent', parent])).stdout)![1];

    await tg.waitFor(said(new RegExp(`✅ Kanban task ${parent} done: Plan launch\\ndone:Plan launch\\(\\)`)), 60_000, 'the parent report');
    await tg.waitFor(said(new RegExp(`✅ Kanban task ${w} done: Write copy\\ndone:Write copy\\(Plan\\)`)), 60_000, 'a child report');
    await tg.waitFor(said(new RegExp(`✅ Kanban task ${c} done: Check copy\\ndone:Check copy\\(Plan\\)`)), 60_000, 'the other child report');
    assert.equal(script.completions[0], parent);
    assert.deepEqual(script.completions.slice(1).sort(), [w, c].sort());

    const s = openBoard({ env: { HERMES_HOME: home } });
    try {
      for (const [id, who] of [
        [parent, 'lead'],
        [w, 'writer'],
        [c, 'checker'],
      ]) {
        assert.equal(s.get(id)!.status, 'done');
        assert.equal(s.runs(id)[0].profile, who);
        const kinds = s.events(id).map((e) => e.kind);
        assert.deepEqual(kinds.filter((k) => ['claimed', 'spawned', 'heartbeat', 'completed'].includes(k)), ['claimed', 'spawned', 'heartbeat', 'completed']);
      }
      // The children were claimed only after the parent completed.
      const parentDone = s.events(parent).find((e) => e.kind === 'completed')!.id;
      for (const id of [w, c]) assert.ok(s.events(id).find((e) => e.kind === 'claimed')!.id > parentDone);
    } finally {
      s.close();
    }
    const hooks = () => (readFileSync(join(home, 'hooks.log'), 'utf8') as string).split('\n');
    await until(() => hooks().includes(`kanban_task_completed ${c}`) && hooks().includes(`kanban_task_completed ${w}`), 15_000, 'the hooks');
    for (const id of [parent, w, c]) {
      assert.ok(hooks().includes(`kanban_task_claimed ${id}`), hooks().join('|'));
      assert.ok(hooks().includes(`kanban_task_completed ${id}`));
    }
    const show = await kb(home, ['runs', w]);
    assert.match(show.stdout, /completed\s+writer/);
  });
});
