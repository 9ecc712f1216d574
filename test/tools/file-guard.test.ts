// The deny-list by real paths: protected places reached through links (HERMES_HOME itself linked,
// scripts/ or ~/.ssh linked elsewhere) stay protected at their real location; and the remote write
// path refuses a name that turned into a link after it was checked.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeDenied } from '../../src/policy/write-safety.ts';
import { ShellFileOps } from '../../src/tools/env/files.ts';
import { WriteRefused } from '../../src/tools/env/safe-write.ts';
import type { ExecutionBackend } from '../../src/tools/env/types.ts';
import writeFile from '../../src/tools/defs/write-file.ts';
import { call, makeServices, tmp } from './helpers.ts';

describe('protected places reached through links', () => {
  it('HERMES_HOME that is a link: its real config.yaml is protected', () => {
    const user = tmp('hermes-user-');
    const data = tmp('hermes-data-');
    writeFileSync(join(data, 'config.yaml'), 'model: x\n');
    symlinkSync(data, join(user, '.hermes'));
    const ctx = { userHome: user, hermesHome: join(user, '.hermes') };
    assert.match(writeDenied(join(data, 'config.yaml'), ctx) ?? '', /Hermes's own configuration/);
    assert.match(writeDenied(join(data, 'scripts', 'x.sh'), ctx) ?? '', /scripts\//);
    assert.equal(writeDenied(join(data, 'notes.md'), ctx), null);
  });

  it('scripts/, ~/.ssh and a profile linked into other folders: refused there, the rest of those folders is not', async () => {
    const s = makeServices();
    const user = tmp('hermes-user-');
    s.env.HOME = user;
    const dotfiles = tmp('dotfiles-');
    mkdirSync(join(dotfiles, 'scripts'));
    mkdirSync(join(dotfiles, 'ssh'));
    symlinkSync(join(dotfiles, 'scripts'), join(s.home, 'scripts'));
    symlinkSync(join(dotfiles, 'ssh'), join(user, '.ssh'));
    const elsewhere = tmp('profile-data-');
    mkdirSync(join(s.home, 'profiles'));
    symlinkSync(elsewhere, join(s.home, 'profiles', 'work'));
    for (const p of [join(dotfiles, 'scripts', 'backup.sh'), join(dotfiles, 'ssh', 'authorized_keys'), join(elsewhere, 'config.yaml'), join(elsewhere, 'hooks', 'h.py')]) {
      const r = await call(writeFile, { path: p, content: 'rm -rf ~\n' }, s);
      assert.match(r.json.error ?? '', /not allowed.*reached through a link/, p);
    }
    for (const p of [join(dotfiles, 'README.md'), join(elsewhere, 'memories', 'MEMORY.md')]) {
      const r = await call(writeFile, { path: p, content: 'ok\n' }, s);
      assert.equal(r.isError, false, `${p}: ${r.raw}`);
    }
  });
});

/** A backend that runs its commands in a local shell (the remote write path, without a remote). */
function shellBackend(cwd: string): ExecutionBackend {
  return {
    kind: 'ssh',
    isContainer: false,
    label: 'test-shell',
    currentCwd: async () => cwd,
    exec: async (command, o) => {
      const r = spawnSync('sh', ['-c', command], { cwd, input: o.stdin ?? '', encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cwd } });
      return { output: (r.stdout ?? '') + (r.stderr ?? ''), exitCode: r.status, timedOut: false, interrupted: false };
    },
    spawn: async () => {
      throw new Error('not used');
    },
    close: async () => {},
  };
}

describe('remote writes (through a backend shell)', () => {
  it('write into the checked directory, and refuse a name that became a link after the check', async () => {
    const root = tmp('remote-');
    const ops = new ShellFileOps(shellBackend(root));
    const guard = { userHome: root, hermesHome: join(root, '.hermes') };
    mkdirSync(join(root, '.hermes'));
    writeFileSync(join(root, '.hermes', 'config.yaml'), 'model: x\n');
    await ops.writeFile(join(root, 'work', 'a.txt'), 'hello\n', guard);
    assert.equal(readFileSync(join(root, 'work', 'a.txt'), 'utf8'), 'hello\n');
    await assert.rejects(ops.writeFile(join(root, '.hermes', 'config.yaml'), 'x', guard), WriteRefused);
    // The check saw a plain name; by the time of the write it is a link to config.yaml.
    const racy = Object.create(ops) as ShellFileOps;
    racy.realTarget = async (p: string) => {
      const t = await ops.realTarget(p);
      symlinkSync(join(root, '.hermes', 'config.yaml'), join(root, 'work', 'b.txt'));
      return t;
    };
    await assert.rejects(racy.writeFile(join(root, 'work', 'b.txt'), 'approvals: {mode: off}\n', guard), /changed while it was being written/);
    assert.equal(readFileSync(join(root, '.hermes', 'config.yaml'), 'utf8'), 'model: x\n');
  });
});
