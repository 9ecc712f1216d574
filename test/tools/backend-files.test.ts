// The file tools follow the execution backend: over SSH they read, write, patch and search on the
// remote side (relative to the remote shell's directory, `~` = the remote home), with the same
// write-safety and stale-file checks; and the local backend's persistent-shell mode keeps cd and
// exports between commands.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import patch from '../../src/tools/defs/patch.ts';
import readFile from '../../src/tools/defs/read-file.ts';
import searchFiles from '../../src/tools/defs/search-files.ts';
import terminal from '../../src/tools/defs/terminal.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import writeFile from '../../src/tools/defs/write-file.ts';
import { call, closeServices, makeServices, tmp } from './helpers.ts';
import { sshdUnavailable, startSshd, type TestSshd } from './sshd.ts';

const skip = sshdUnavailable();
if (skip) console.log(`# skipping file tools over SSH: ${skip}`);

describe('file tools over SSH', { skip: skip ?? false }, () => {
  let sshd: TestSshd;
  let s: ToolSession;
  let remoteDir: string;

  before(async () => {
    sshd = await startSshd();
    s = makeServices();
    Object.assign(s.env, {
      TERMINAL_ENV: 'ssh',
      TERMINAL_SSH_HOST: '127.0.0.1',
      TERMINAL_SSH_PORT: String(sshd.port),
      TERMINAL_SSH_USER: sshd.user,
      TERMINAL_SSH_KEY: sshd.key,
    });
    // The "remote" side is this machine through sshd: a directory the host session does not use.
    remoteDir = tmp('hermes-remote-');
    const r = await call(terminal, { command: `cd ${remoteDir}` }, s);
    assert.equal(r.json.exit_code, 0, r.raw);
  });
  after(async () => {
    if (s) await closeServices(s);
    sshd?.stop();
  });

  it('write_file and read_file act in the remote shell directory, not the host one', async () => {
    const w = await call(writeFile, { path: 'notes/a.txt', content: 'alpha\nbeta\n' }, s);
    assert.equal(w.isError, false, w.raw);
    assert.equal(w.json.path, join(remoteDir, 'notes/a.txt'));
    assert.equal(w.json.dirs_created, true);
    assert.equal(readFileSync(join(remoteDir, 'notes/a.txt'), 'utf8'), 'alpha\nbeta\n');
    assert.ok(!existsSync(join(s.cwd, 'notes')), 'nothing is written in the host working directory');
    const r = await call(readFile, { path: 'notes/a.txt' }, s);
    assert.equal(r.json.content, '1|alpha\n2|beta');
    const missing = await call(readFile, { path: 'notes/a.md' }, s);
    assert.match(missing.json.error, /not found.*on ssh/i);
    assert.deepEqual(missing.json.similar_files, [join(remoteDir, 'notes/a.txt')]);
  });

  it('patch edits remotely; a file changed behind the agent is refused until re-read', async () => {
    const p = await call(patch, { path: 'notes/a.txt', old_string: 'beta', new_string: 'gamma' }, s);
    assert.equal(p.json.success, true, p.raw);
    assert.equal(readFileSync(join(remoteDir, 'notes/a.txt'), 'utf8'), 'alpha\ngamma\n');
    // Someone else changes it (size differs, so the guard sees it even within the same second).
    writeFileSync(join(remoteDir, 'notes/a.txt'), 'alpha\ngamma\nmore from someone else\n');
    const stale = await call(patch, { path: 'notes/a.txt', old_string: 'alpha', new_string: 'ALPHA' }, s);
    assert.match(stale.json.error, /modified since you last read it/);
    await call(readFile, { path: 'notes/a.txt' }, s);
    const v4a = await call(
      patch,
      { mode: 'patch', patch: '*** Begin Patch\n*** Update File: notes/a.txt\n-alpha\n+ALPHA\n*** Add File: notes/new.txt\n+fresh\n*** End Patch' },
      s,
    );
    assert.equal(v4a.json.success, true, v4a.raw);
    assert.match(readFileSync(join(remoteDir, 'notes/a.txt'), 'utf8'), /^ALPHA\n/);
    assert.equal(readFileSync(join(remoteDir, 'notes/new.txt'), 'utf8'), 'fresh\n');
  });

  it('search_files searches the remote files (grep/find where the host has no rg)', async () => {
    mkdirSync(join(remoteDir, 'src'), { recursive: true });
    writeFileSync(join(remoteDir, 'src/x.ts'), 'const needle = 1;\nother\n');
    const c = await call(searchFiles, { pattern: 'needle' }, s);
    assert.equal(c.json.total_count, 1, c.raw);
    assert.deepEqual(c.json.matches, [{ path: 'src/x.ts', line: 1, content: 'const needle = 1;' }]);
    const f = await call(searchFiles, { pattern: '*.ts', target: 'files' }, s);
    assert.deepEqual(f.json.files, ['src/x.ts']);
    const n = await call(searchFiles, { pattern: 'ALPHA|fresh', output_mode: 'files_only' }, s);
    assert.deepEqual(n.json.files, ['notes/a.txt', 'notes/new.txt']);
  });

  it('keeps the write denylist on the remote home, follows remote links, refuses secret /proc files', async () => {
    const r = await call(writeFile, { path: '~/.ssh/authorized_keys', content: 'ssh-ed25519 AAAA attacker' }, s);
    assert.equal(r.isError, true);
    assert.match(r.json.error, /\.ssh/);
    // A link made on the remote side that points at a protected file is refused, naming the link.
    const home = (await call(terminal, { command: 'printf %s "$HOME"' }, s)).json.output;
    await call(terminal, { command: `ln -sf ${home}/.ssh/authorized_keys innocent.txt` }, s);
    const viaLink = await call(writeFile, { path: 'innocent.txt', content: 'x' }, s);
    assert.equal(viaLink.isError, true, viaLink.raw);
    assert.match(viaLink.json.error, /is a link to it/);
    const env = await call(readFile, { path: '/proc/self/environ' }, s);
    assert.equal(env.isError, true);
    assert.match(env.json.error, /environment or memory|not a regular file/);
  });
});

describe('local persistent shell (TERMINAL_LOCAL_PERSISTENT)', () => {
  it('keeps cd and exports between commands; file tools follow its directory', async () => {
    const s = makeServices();
    s.env.TERMINAL_LOCAL_PERSISTENT = 'true';
    const sub = join(s.cwd, 'sub');
    mkdirSync(sub);
    await call(terminal, { command: 'cd sub && export HERMES_KEEP=yes' }, s);
    const r = await call(terminal, { command: 'pwd; echo "$HERMES_KEEP"' }, s);
    assert.equal(r.json.output, `${sub}\nyes\n`);
    const w = await call(writeFile, { path: 'here.txt', content: 'x' }, s);
    assert.equal(w.json.path, join(sub, 'here.txt'));
    await closeServices(s);
  });

  it('is off by default: each command starts fresh', async () => {
    const s = makeServices();
    await call(terminal, { command: 'cd / && export HERMES_KEEP=yes' }, s);
    const r = await call(terminal, { command: 'pwd; echo "[$HERMES_KEEP]"' }, s);
    assert.equal(r.json.output, `${s.cwd}\n[]\n`);
    await closeServices(s);
  });
});
