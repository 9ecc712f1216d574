// The checkpoint store (Hermes v2 layout): take, list, diff, safe restore (the ledger keeps the
// person's own later edits), --all, one file, excludes, self-exclusion, prune/clear, and which
// terminal commands count as destructive.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CheckpointStore, checkpointBase, isDestructiveCommand, projectHash } from '../../src/state/checkpoints.ts';
import { tempHome } from '../helpers/cli.ts';

const hasGit = spawnSync('git', ['--version']).status === 0;

function project() {
  const home = tempHome();
  const dir = join(tempHome(), 'proj');
  mkdirSync(join(dir, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(dir, 'a.txt'), 'a1\n');
  writeFileSync(join(dir, 'b.txt'), 'b1\n');
  writeFileSync(join(dir, '.env'), 'SECRET=1\n');
  writeFileSync(join(dir, 'node_modules', 'x', 'i.js'), '1');
  return { home, dir, store: new CheckpointStore(home) };
}

describe('checkpoint store', { skip: hasGit ? false : 'git is not installed' }, () => {
  it('takes, lists, diffs; nothing new → no checkpoint; excludes stay out; Hermes layout', () => {
    const { home, dir, store } = project();
    const c1 = store.take(dir, 'before write_file');
    assert.match(c1!, /^[0-9a-f]{40}$/);
    assert.equal(store.take(dir, 'again'), null, 'nothing changed');
    writeFileSync(join(dir, 'a.txt'), 'a2\n');
    const c2 = store.take(dir, 'before patch')!;
    const list = store.list(dir);
    assert.deepEqual(list.map((c) => c.reason), ['before patch', 'before write_file']);
    assert.equal(list[0].hash, c2);
    const d = store.diff(dir, c1!);
    assert.match(d.diff, /-a1\n\+a2/);
    const h = projectHash(dir);
    const base = join(checkpointBase(home), 'store');
    assert.ok(existsSync(join(base, 'refs', 'hermes', h)));
    assert.ok(existsSync(join(base, 'indexes', h)));
    assert.equal(JSON.parse(readFileSync(join(base, 'projects', `${h}.json`), 'utf8')).workdir, dir);
    const files = spawnSync('git', ['--git-dir', base, 'ls-tree', '-r', '--name-only', c2], { encoding: 'utf8' }).stdout.trim().split('\n');
    assert.deepEqual(files.sort(), ['a.txt', 'b.txt'], '.env and node_modules are never copied');
  });

  it('safe restore keeps files the person edited after Hermes wrote them; --all and one file restore everything asked', () => {
    const { dir, store } = project();
    const c1 = store.take(dir, 'before write_file')!;
    writeFileSync(join(dir, 'a.txt'), 'hermes wrote\n');
    store.recordWrite(join(dir, 'a.txt'));
    writeFileSync(join(dir, 'b.txt'), 'the person wrote\n');
    writeFileSync(join(dir, 'new.txt'), 'hermes made\n');
    store.recordWrite(join(dir, 'new.txt'));
    const r = store.restore(dir, c1);
    assert.deepEqual(r.restored.sort(), ['a.txt', 'new.txt']);
    assert.deepEqual(r.skipped, ['b.txt']);
    assert.equal(readFileSync(join(dir, 'a.txt'), 'utf8'), 'a1\n');
    assert.equal(existsSync(join(dir, 'new.txt')), false, 'a file Hermes created is removed');
    assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'the person wrote\n');
    assert.equal(store.list(dir)[0].reason, `pre-rollback snapshot (restoring to ${c1.slice(0, 8)})`, 'a rollback can be rolled back');
    store.restore(dir, c1, { file: 'b.txt' });
    assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'b1\n');
    writeFileSync(join(dir, 'b.txt'), 'again\n');
    store.restore(dir, c1, { all: true });
    assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'b1\n');
    assert.throws(() => store.restore(dir, c1, { file: '../outside' }), /outside/);
    assert.throws(() => store.restore(dir, 'zzzz'), /./);
  });

  it('never snapshots the home directory, HERMES_HOME holding its own store, or the store itself', () => {
    const home = tempHome();
    const store = new CheckpointStore(home);
    writeFileSync(join(home, 'notes.txt'), 'x');
    const c = store.take(home, 'home as a project');
    assert.ok(c, 'HERMES_HOME itself can be a project');
    const files = spawnSync('git', ['--git-dir', join(checkpointBase(home), 'store'), 'ls-tree', '-r', '--name-only', c!], { encoding: 'utf8' }).stdout;
    assert.doesNotMatch(files, /^checkpoints\//m, 'but its checkpoint store stays out');
    assert.equal(store.take(join(checkpointBase(home), 'store'), 'inside'), null);
  });

  it('status, prune (gone projects) and clear', () => {
    const { home, dir, store } = project();
    store.take(dir, 'one');
    const gone = join(tempHome(), 'gone');
    mkdirSync(gone);
    writeFileSync(join(gone, 'f'), '1');
    store.take(gone, 'two');
    spawnSync('rm', ['-rf', gone]);
    assert.equal(store.status().projects.length, 2);
    assert.deepEqual(store.prune().removed, [gone]);
    assert.deepEqual(store.status().projects.map((p) => p.workdir), [dir]);
    assert.ok(store.clear() > 0);
    assert.deepEqual(readdirSync(home).includes('checkpoints'), false);
  });

  it('keeps about max_snapshots per project', () => {
    const { home, dir } = project();
    const store = new CheckpointStore(home, { maxSnapshots: 4 });
    for (let i = 0; i < 12; i++) {
      writeFileSync(join(dir, 'a.txt'), `v${i}\n`);
      assert.ok(store.take(dir, `edit ${i}`));
    }
    const list = store.list(dir, 100);
    assert.ok(list.length >= 4 && list.length <= 8, `${list.length} kept`);
    assert.equal(list[0].reason, 'edit 11');
    assert.match(store.diff(dir, list.at(-1)!.hash).diff, /\+v11/);
  });

  it('destructive terminal commands', () => {
    for (const c of ['rm -rf build', 'mv a b', 'echo x > f.txt', "sed -i 's/a/b/' f", 'git reset --hard', 'cd x && cp a b', 'git checkout -- .'])
      assert.ok(isDestructiveCommand(c), c);
    for (const c of ['ls -la', 'cat f.txt', 'echo hi 2>&1', 'git status', 'npm test']) assert.ok(!isDestructiveCommand(c), c);
  });
});
