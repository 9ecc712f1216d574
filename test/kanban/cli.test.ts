// `hermes kanban …` as a person uses it: boards, creating and linking tasks (cycles refused), the
// block → comment → unblock loop, review handoffs, archive, the event tail, and clear errors.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { kb } from './helpers.ts';

const idOf = (stdout: string) => /Created (t_[0-9a-f]+)/.exec(stdout)?.[1] ?? assert.fail(`no task id in: ${stdout}`);

describe('hermes kanban', () => {
  test('links are a DAG: a cycle or a self-link is refused with one clear line', async () => {
    const home = tempHome();
    const a = idOf((await kb(home, ['create', 'a'])).stdout);
    const b = idOf((await kb(home, ['create', 'b', '--parent', a])).stdout);
    const c = idOf((await kb(home, ['create', 'c', '--parent', b])).stdout);
    const cyc = await kb(home, ['link', c, a]);
    assert.equal(cyc.code, 1);
    assert.equal(cyc.stderr.trim(), `hermes: linking ${c} -> ${a} would create a cycle`);
    const self = await kb(home, ['link', a, a]);
    assert.equal(self.code, 1);
    assert.match(self.stderr, /a task cannot depend on itself/);
    const unknown = await kb(home, ['link', a, 't_deadbeef']);
    assert.match(unknown.stderr, /unknown task\(s\): t_deadbeef/);
    // A fine link onto a ready task sends it back to todo.
    const d = idOf((await kb(home, ['create', 'd'])).stdout);
    const ok = await kb(home, ['link', a, d]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`Linked ${a} -> ${d}\\nNote: ${d} was ready and is now todo`));
    const un = await kb(home, ['unlink', a, d]);
    assert.match(un.stdout, new RegExp(`Unlinked ${a} -> ${d}`));
    assert.match((await kb(home, ['list', '--status', 'ready'])).stdout, new RegExp(d));
  });

  test('block → comment → unblock, complete with parents open, review handoff, archive', async () => {
    const home = tempHome();
    const p = idOf((await kb(home, ['create', 'parent', '--assignee', 'Alice'])).stdout);
    const c = idOf((await kb(home, ['create', 'child', '--assignee', 'bob', '--parent', p, '--body', 'do the thing'])).stdout);
    const early = await kb(home, ['complete', c]);
    assert.equal(early.code, 1);
    assert.match(early.stderr, new RegExp(`cannot complete ${c}: unfinished parent\\(s\\): ${p} \\(ready\\)`));

    const blocked = await kb(home, ['block', p, 'need', 'the', 'API', 'key']);
    assert.equal(blocked.stdout.trim(), `Blocked ${p}: need the API key`);
    await kb(home, ['comment', p, 'key is in the vault', '--author', 'ops']);
    const un = await kb(home, ['unblock', p, '--reason', 'done']);
    assert.equal(un.stdout.trim(), `Unblocked ${p}: done`);
    const shown = await kb(home, ['show', p]);
    assert.match(shown.stdout, /assignee:\s+alice/);
    assert.match(shown.stdout, /Comments \(3\):[\s\S]*BLOCKED: need the API key[\s\S]*ops: key is in the vault[\s\S]*UNBLOCK: done/);
    assert.match(shown.stdout, /\] blocked \{"reason":"need the API key"/);

    const done = await kb(home, ['complete', p, '--summary', 'all set', '--metadata', '{"files":2}']);
    assert.equal(done.stdout.trim(), `Completed ${p}`);
    assert.match((await kb(home, ['list'])).stdout, new RegExp(`▶ ${c}  ready`));
    const ctx = await kb(home, ['context', c]);
    assert.match(ctx.stdout, new RegExp(`# Kanban task ${c}: child[\\s\\S]*## Body\\ndo the thing[\\s\\S]*### ${p} \\(completed just now\\)\\nall set\\n_metadata_: \`\\{"files":2\\}\``));

    const bad = await kb(home, ['complete', c, '--metadata', '[1]']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--metadata: must be a JSON object/);

    const rev = await kb(home, ['request-review', c, '--summary', 'implemented', '--reviewer', 'carol']);
    assert.equal(rev.stdout.trim(), `Requested review for ${c}: implemented`);
    const json = JSON.parse((await kb(home, ['show', c, '--json'])).stdout);
    assert.equal(json.task.status, 'review');
    assert.equal(json.task.assignee, 'carol');
    assert.deepEqual(json.parents, [p]);

    const arch = await kb(home, ['archive', c]);
    assert.equal(arch.stdout.trim(), `Archived ${c}`);
    assert.doesNotMatch((await kb(home, ['list'])).stdout, new RegExp(c));
    assert.match((await kb(home, ['list', '--archived'])).stdout, new RegExp(`— ${c}  archived`));
    assert.equal((await kb(home, ['archive', '--rm', c])).stdout.trim(), `Deleted ${c}`);

    const missing = await kb(home, ['show', 't_nothere']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'hermes: no such task: t_nothere');
    const badStatus = await kb(home, ['list', '--status', 'doing']);
    assert.equal(badStatus.code, 1);
    assert.match(badStatus.stderr, /status must be one of triage, todo, scheduled, ready, running, blocked, review, done, archived/);
  });

  test('boards: create, switch, --board, list; files where Hermes keeps them', async () => {
    const home = tempHome();
    assert.match((await kb(home, ['boards', 'create', 'Atm10-Server'])).stdout, /Board 'atm10-server' created\.\n\s+Display name: Atm10 Server/);
    const bad = await kb(home, ['boards', 'create', '../x']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid board slug/);
    idOf((await kb(home, ['create', 'on default'])).stdout);
    idOf((await kb(home, ['--board', 'atm10-server', 'create', 'on atm'])).stdout);
    assert.ok(existsSync(join(home, 'kanban.db')));
    assert.ok(existsSync(join(home, 'kanban', 'boards', 'atm10-server', 'kanban.db')));
    assert.match((await kb(home, ['boards', 'switch', 'atm10-server'])).stdout, /Active board is now 'atm10-server'/);
    assert.equal(readFileSync(join(home, 'kanban', 'current'), 'utf8'), 'atm10-server\n');
    const list = await kb(home, ['list']);
    assert.match(list.stdout, /^Board: atm10-server \(1 other board/);
    assert.match(list.stdout, /on atm/);
    assert.doesNotMatch(list.stdout, /on default/);
    assert.match((await kb(home, ['list'], { HERMES_KANBAN_BOARD: 'default' })).stdout, /on default/);
    const boards = await kb(home, ['boards', 'list']);
    assert.match(boards.stdout, /default\s+Default\s+ready=1/);
    assert.match(boards.stdout, /●\s+atm10-server\s+Atm10 Server\s+ready=1/);
    const nope = await kb(home, ['--board', 'nope', 'list']);
    assert.equal(nope.code, 1);
    assert.match(nope.stderr, /board "nope" does not exist\. Create it with `hermes kanban boards create nope`/);
  });

  test('tail follows a task’s events as they happen', async () => {
    const home = tempHome();
    const id = idOf((await kb(home, ['create', 'watched'])).stdout);
    const child = spawn(process.execPath, [BIN, 'kanban', 'tail', id, '--interval', '0.2'], { env: cleanEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const waitFor = (re: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`tail never printed ${re}: ${out}`)), 30_000);
        const check = () => (re.test(out) ? (clearTimeout(t), resolve()) : setTimeout(check, 50));
        check();
      });
    try {
      await waitFor(/Tailing events[\s\S]*\] created /);
      await kb(home, ['comment', id, 'hello']);
      await waitFor(/\] commented \{"author":"user","len":5\}/);
      await kb(home, ['block', id, 'stuck']);
      await waitFor(/\] blocked \{"reason":"stuck"/);
    } finally {
      child.kill('SIGINT');
    }
  });
});

describe('/kanban (the slash command)', () => {
  test('runs the same commands from a chat, with output as text; allowed mid-turn', async () => {
    const { kanbanCommand } = await import('../../src/commands/kanban.ts');
    const { loadConfig } = await import('../../src/state/config.ts');
    const home = tempHome();
    const env = { HERMES_HOME: home, HOME: home };
    const def = kanbanCommand();
    assert.equal(def.midTurn, true);
    const origin = { platform: 'telegram', chatId: '77' };
    const run = (args: string, surface: 'cli' | 'gateway' = 'gateway') =>
      def.run({ surface, hooks: {}, session: { services: { env, home, config: loadConfig(home, env).config, origin } } } as never, args) as Promise<{ output: string }>;

    assert.match((await run('')).output, /^\/kanban — the shared task board/);
    const created = (await run('create "Ship it" --assignee Ops --body "by friday"')).output;
    const id = /^Created (t_[0-9a-f]+) +\(ready, assignee=ops\)$/.exec(created)?.[1] ?? assert.fail(created);
    assert.match((await run('list')).output, new RegExp(`▶ ${id}  ready     ops\\s+Ship it`));
    assert.match((await run(`show ${id}`)).output, /Body:\nby friday/);
    assert.match((await run(`tail ${id}`)).output, /\] created \{/);
    assert.match((await run('frobnicate')).output, /unknown command 'frobnicate'/);
    assert.match((await run('show t_missing')).output, /^no such task: t_missing$/);
    // Created from a gateway chat: that chat is subscribed to the task's events.
    const subs = (await run(`notify-list ${id}`)).output;
    assert.match(subs, new RegExp(`${id}\\s+telegram:77`));
    // From the CLI REPL there is no chat to report to.
    const quiet = /Created (t_\w+)/.exec((await run('create "local"', 'cli')).output)![1];
    assert.equal((await run(`notify-list ${quiet}`)).output, '(no subscriptions)');
  });
});
