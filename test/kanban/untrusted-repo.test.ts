// Kanban runs nothing of a task's own: a worktree task can name any repository (an agent's
// kanban_create may point at one it prepared), and the dispatcher runs git there outside any
// sandbox or approval. The repository's hooks, fsmonitor and content filters must not run; and a
// task's workspace may not be one of the places the agent's file tools may not write.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openKanbanDb } from '../../src/kanban/db.ts';
import { claim, complete } from '../../src/kanban/lifecycle.ts';
import { KanbanStore } from '../../src/kanban/store.ts';
import { resolveWorkspace, setWorkspace } from '../../src/kanban/workspace.ts';
import kanbanCreate from '../../src/tools/defs/kanban-create.ts';
import { call, makeServices } from '../tools/helpers.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { kanbanHome } from './helpers.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'hermes-kanban-'));
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** A repository whose own config would run programs on checkout and status; each leaves a canary file. */
function hostileRepo(canaries: string): string {
  const repo = join(tmp(), 'repo');
  mkdirSync(repo, { recursive: true });
  const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { stdio: 'pipe', env: GIT_ENV });
  git('init', '-q');
  writeFileSync(join(repo, 'data.txt'), 'plain\n');
  writeFileSync(join(repo, '.gitattributes'), 'data.txt filter=evil\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  const hook = join(repo, '.git', 'hooks', 'post-checkout');
  writeFileSync(hook, `#!/bin/sh\ntouch ${join(canaries, 'hook')}\n`);
  chmodSync(hook, 0o755);
  git('config', 'filter.evil.smudge', `sh -c 'touch ${join(canaries, 'smudge')}; cat'`);
  git('config', 'filter.evil.clean', `sh -c 'touch ${join(canaries, 'clean')}; cat'`);
  git('config', 'core.fsmonitor', `sh -c 'touch ${join(canaries, 'fsmonitor')}; exit 1'`);
  return repo;
}

describe('the dispatcher runs git without the repository running anything', () => {
  test('the fixture is real: plain git runs the hook and the filter', () => {
    const canaries = tmp();
    const repo = hostileRepo(canaries);
    execFileSync('git', ['-C', repo, 'worktree', 'add', '-q', '-b', 'probe', join(repo, '.worktrees', 'probe'), 'HEAD'], { stdio: 'pipe', env: GIT_ENV });
    assert.ok(existsSync(join(canaries, 'hook')), 'post-checkout ran');
    assert.ok(existsSync(join(canaries, 'smudge')), 'smudge ran');
  });

  test('a worktree workspace is made and cleaned up with no hook, filter or fsmonitor running', () => {
    const canaries = tmp();
    const repo = hostileRepo(canaries);
    const home = tmp();
    const env = { HERMES_HOME: home };
    const s = new KanbanStore(openKanbanDb(join(home, 'kanban.db')), { board: 'default', env });
    try {
      const id = s.create({ title: 'wt', assignee: 'a', workspaceKind: 'worktree', workspacePath: repo });
      const w = resolveWorkspace(claim(s, id)!, 'default', env);
      assert.equal(readFileSync(join(w.path, 'data.txt'), 'utf8'), 'plain\n', 'checked out');
      setWorkspace(s, id, w.path, w.branch);
      assert.ok(complete(s, id, { summary: 'ok' }));
      assert.deepEqual(['hook', 'smudge', 'clean', 'fsmonitor'].filter((c) => existsSync(join(canaries, c))), []);
    } finally {
      s.close();
    }
  });
});

describe('kanban_create workspace paths', () => {
  test("refuses Hermes's own folders, ~/.ssh and system folders; takes a project folder", async () => {
    const s = makeServices();
    const user = tmp();
    s.env.HOME = user;
    s.env.HERMES_HOME = s.home;
    for (const p of [join(s.home, 'plugins', 'evil'), join(s.home, 'scripts'), s.home, join(user, '.ssh'), join(user, '.config', 'systemd', 'user'), '/etc/cron.d']) {
      const r = await call(kanbanCreate, { title: 't', assignee: 'default', workspace_kind: 'dir', workspace_path: p }, s);
      assert.match(r.json.error ?? '', /cannot be a task's workspace/, p);
    }
    const project = join(user, 'project');
    const ok = await call(kanbanCreate, { title: 't', assignee: 'default', workspace_kind: 'dir', workspace_path: project }, s);
    assert.equal(ok.isError, false, ok.raw);
    assert.ok(!existsSync(join(s.home, 'plugins', 'evil')));
  });
});

describe('end to end: hermes chat -q with the kanban toolset', () => {
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
  });
  after(async () => llm?.close());

  test("a task whose workspace is Hermes's plugins folder is refused and the model told why; nothing created", async () => {
    const home = kanbanHome(llm);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    llm.enqueue(
      { toolCalls: [{ name: 'kanban_create', arguments: { title: 'install', assignee: 'default', workspace_kind: 'dir', workspace_path: join(home, 'plugins', 'evil') } }] },
      { text: 'refused' },
    );
    const r = await hermes(['chat', '-q', 'make a task', '-t', 'hermes-cli,kanban'], { home });
    assert.equal(r.code, 0, r.stderr);
    const last = llm.requests[llm.requests.length - 1] as RecordedRequest;
    const results = (last.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => String(m.content));
    assert.match(results[0], /cannot be a task's workspace: it is Hermes's own plugins\//);
    assert.ok(!existsSync(join(home, 'plugins', 'evil')));
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });
});
