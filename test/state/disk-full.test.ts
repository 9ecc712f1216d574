// A full disk and a damaged database, as a person meets them through the real binary: one line that
// names the file and what to do (`hermes sessions repair` / `recover` for state.db), a non-zero exit,
// nothing saved before lost. The full disk is a small tmpfs (root in a container may mount one; where
// mounting is not allowed those tests are skipped with the reason) and an ENOSPC injected at the fs
// layer (always runs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { describeDbError, dbFault } from '../../src/state/db-errors.ts';
import { SessionDB } from '../../src/state/db.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

const oneLine = (s: string) => s.split('\n').filter((l) => l.trim());

/** A tmpfs of `size` at a new folder, or the reason it cannot be mounted here. */
function mountTmpfs(size: string): { dir: string; unmount: () => void } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-full-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}); the injected-ENOSPC tests still run` };
  }
  return {
    dir,
    unmount: () => {
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes zeros into `file` until the disk is full. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    /* ENOSPC: full */
  } finally {
    closeSync(fd);
  }
}

const probe = mountTmpfs('8m');
describe('a full disk (tmpfs)', { skip: 'skip' in probe ? probe.skip : false }, () => {
  if ('skip' in probe) {
    console.log(`# ${probe.skip}`);
    return;
  }
  probe.unmount();
  let fs: { dir: string; unmount: () => void };
  let home: string;
  before(() => {
    const m = mountTmpfs('8m');
    if ('skip' in m) throw new Error(m.skip);
    fs = m;
    home = join(fs.dir, 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'config.yaml'), `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  api_key: k\ntoolsets: [todo]\n`);
  });
  after(() => {
    fs?.unmount();
  });

  test('a turn that could not be saved exits non-zero with one line naming state.db; what was saved stays', async () => {
    const filler = join(fs.dir, 'filler');
    llm.setHandler(() => ({ text: 'The first answer.' }));
    const first = await hermes(['chat', '-q', 'first question'], { home });
    assert.equal(first.code, 0, first.stderr);
    // The disk fills while the model thinks: the answer arrives and cannot be saved.
    llm.setHandler(() => {
      fillDisk(filler);
      return { text: 'The second answer, shown but not saved.' };
    });
    const r = await hermes(['chat', '-c', '-q', 'second question'], { home });
    assert.equal(r.code, 1, `exit code\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /The second answer, shown but not saved/);
    const lines = oneLine(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0].startsWith(`hermes: This turn was not saved: ${join(home, 'state.db')}: the disk is full (SQLITE_FULL)`), lines[0]);
    assert.match(lines[0], /Free space on that disk, then run `hermes sessions repair --check-only`/);
    assert.doesNotMatch(r.stderr, /^⚠/m, 'no warning besides the one line');

    // Other writers on the full disk name their file too (filled again: closing state.db let its WAL go).
    fillDisk(`${filler}2`);
    const set = await hermes(['config', 'set', 'display.timestamps', 'true'], { home });
    assert.equal(set.code, 1);
    assert.equal(oneLine(set.stderr).length, 1, set.stderr);
    assert.match(set.stderr, /config\.yaml was not written: the disk is full \(ENOSPC\)\. Free some space and try again; the file keeps its previous contents\./);
    const kb = await hermes(['kanban', 'create', 'a task on a full disk'], { home });
    assert.equal(kb.code, 1);
    assert.ok(kb.stderr.includes(`${join(home, 'kanban.db')}: the disk is full`), kb.stderr);
    for (const x of [r, set, kb]) assert.doesNotMatch(x.stderr, /^hermes: (ENOSPC|database or disk is full)/m, 'never the raw text alone');

    // With space again: the file is sound and the first turn is all there.
    rmSync(filler);
    rmSync(`${filler}2`);
    const check = await hermes(['sessions', 'repair', '--check-only'], { home });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    const db = SessionDB.open(join(home, 'state.db'));
    try {
      const [s] = db.listSessions();
      const contents = db.getMessages(s.id).map((m) => m.content);
      assert.deepEqual(contents.slice(0, 2), ['first question', 'The first answer.']);
    } finally {
      db.close();
    }
  });
});

describe('an ENOSPC injected at the fs layer', () => {
  // Every write under the home fails as a full disk would (the preload patches node:fs for the binary).
  const preload = join(mkdtempSync(join(tmpdir(), 'hermes-enospc-')), 'enospc.mjs');
  writeFileSync(
    preload,
    `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const home = process.env.HERMES_HOME;
const fds = new Set();
const open = fs.openSync;
fs.openSync = function (p, ...rest) { const fd = open.call(this, p, ...rest); if (typeof p === 'string' && p.startsWith(home) && /\\.tmp$/.test(p)) fds.add(fd); return fd; };
const write = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  if (fds.has(fd)) { const e = new Error('ENOSPC: no space left on device, write'); e.code = 'ENOSPC'; e.errno = -28; e.syscall = 'write'; throw e; }
  return write.call(this, fd, ...rest);
};
const close = fs.closeSync;
fs.closeSync = function (fd) { fds.delete(fd); return close.call(this, fd); };
syncBuiltinESMExports();
`,
  );

  test('a config change that cannot be written names config.yaml, keeps the old file and exits 1', async () => {
    const h = tempHome();
    const file = join(h, 'config.yaml');
    writeFileSync(file, 'display:\n  timestamps: false\n');
    const before = statSync(file).size;
    const r = await hermes(['config', 'set', 'display.timestamps', 'true'], { home: h, env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` } });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(oneLine(r.stderr), [`hermes: ${file} was not written: the disk is full (ENOSPC). Free some space and try again; the file keeps its previous contents.`]);
    assert.equal(statSync(file).size, before);
  });
});

describe('database errors in words', () => {
  const sqliteError = (errcode: number, errstr: string) => Object.assign(new Error(errstr), { code: 'ERR_SQLITE_ERROR', errcode, errstr });

  test('a full, damaged or foreign state.db is described with its file and repair/recover', () => {
    const f = '/data/hermes/state.db';
    const fullMsg = describeDbError(sqliteError(13, 'database or disk is full'), f, 'state');
    assert.equal(fullMsg.startsWith(`${f}: the disk is full (SQLITE_FULL)`), true, fullMsg);
    assert.match(fullMsg, /hermes sessions repair --check-only/);
    for (const [code, name] of [
      [11, 'SQLITE_CORRUPT'],
      [26, 'SQLITE_NOTADB'],
    ] as const) {
      const m = describeDbError(sqliteError(code, 'database disk image is malformed'), f, 'state');
      assert.ok(m.startsWith(`${f}: `), m);
      assert.match(m, new RegExp(name));
      assert.match(m, /`hermes sessions repair`/);
      assert.ok(m.includes(`\`hermes sessions recover --source ${f} --output <new.db>\``), m);
      assert.doesNotMatch(m, /move it aside/);
    }
    const kb = describeDbError(sqliteError(11, 'database disk image is malformed'), '/data/hermes/kanban.db', 'kanban');
    assert.match(kb, /^\/data\/hermes\/kanban\.db: the database is damaged \(SQLITE_CORRUPT/);
    assert.equal(dbFault(Object.assign(new Error('x'), { code: 'ENOSPC' })), 'full');
    assert.equal(dbFault(sqliteError(19, 'UNIQUE constraint failed')), null, 'an SQL error is not a file fault');
    assert.equal(describeDbError(sqliteError(19, 'UNIQUE constraint failed: t.x'), f), `${f}: UNIQUE constraint failed: t.x`);
  });

  test('a damaged kanban.db names its file through the binary', async () => {
    const h = tempHome();
    const made = await hermes(['kanban', 'create', 'first task'], { home: h });
    assert.equal(made.code, 0, made.stderr);
    writeFileSync(join(h, 'kanban.db'), Buffer.alloc(8192, 0xab));
    rmSync(join(h, 'kanban.db-wal'), { force: true });
    rmSync(join(h, 'kanban.db-shm'), { force: true });
    const r = await hermes(['kanban', 'list'], { home: h });
    assert.equal(r.code, 1);
    assert.deepEqual(oneLine(r.stderr).length, 1, r.stderr);
    assert.ok(r.stderr.includes(`${join(h, 'kanban.db')}: it is not a SQLite database, or its first page is damaged (SQLITE_NOTADB)`), r.stderr);
  });

  test('a damaged state.db: chat names it with repair/recover; repair that cannot fix it points to recover', async () => {
    const h = tempHome();
    const db = SessionDB.open(join(h, 'state.db'));
    db.createSession({ id: '20260101_000000_aaaaaa', source: 'cli', model: 'm' });
    for (let i = 0; i < 200; i++) db.appendMessage('20260101_000000_aaaaaa', { role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${'words '.repeat(100)}` });
    db.raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const pageSize = Number((db.raw.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    db.close();
    // Scribble over the b-tree headers of every page after the first.
    const file = join(h, 'state.db');
    const fd = openSync(file, 'r+');
    const pages = Math.floor(statSync(file).size / pageSize);
    for (let p = 1; p < pages; p++) writeSync(fd, Buffer.alloc(32, 0xff), 0, 32, p * pageSize);
    closeSync(fd);
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  api_key: k\n`);
    const r = await hermes(['chat', '-c', '-q', 'hello'], { home: h });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(oneLine(r.stderr).length, 1, r.stderr);
    assert.ok(r.stderr.startsWith(`hermes: ${file}: the database is damaged (SQLITE_CORRUPT`), r.stderr);
    assert.match(r.stderr, /`hermes sessions repair`/);
    assert.match(r.stderr, /hermes sessions recover --source/);
    const rep = await hermes(['sessions', 'repair', '--no-backup'], { home: h });
    assert.equal(rep.code, 1);
    assert.match(rep.stderr, /too damaged to repair in place .*: copy out what can still be read with `hermes sessions recover --source .*state\.db --output <new\.db>`/);
  });
});
