// write_file and patch against a link flipped while they work: a helper process swaps a symlink
// (or a directory link, or the file's own name) between a harmless file and HERMES_HOME/config.yaml
// as fast as it can while the tool writes 300 times. The protected file must stay byte-identical,
// and both outcomes (written to the harmless file, refused) must have happened — the race was real.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import patch from '../../src/tools/defs/patch.ts';
import writeFile from '../../src/tools/defs/write-file.ts';
import { call, makeServices, tmp } from './helpers.ts';

const CONFIG = 'model: test/model\napprovals:\n  mode: manual\n';
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

/**
 * Starts a process that keeps replacing `at` (atomically, by rename) with each of `forms` in turn:
 * `{ link: target }` for a symlink, `{ file: text }` for a regular file. Resolves once it runs.
 */
function flipper(at: string, forms: ({ link: string } | { file: string })[]): Promise<ChildProcess> {
  const src = `
    const fs = require('node:fs');
    const forms = ${JSON.stringify(forms)};
    const at = ${JSON.stringify(at)};
    let i = 0, n = 0;
    for (;;) {
      const f = forms[i++ % forms.length];
      const tmp = at + '.flip-' + (n++ % 2);
      try { fs.rmSync(tmp, { force: true }); } catch {}
      if (f.link) fs.symlinkSync(f.link, tmp); else fs.writeFileSync(tmp, f.file);
      fs.renameSync(tmp, at);
      if (n === 2) process.stdout.write('go\\n');
    }`;
  const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`flipper exited (${code})`)));
  });
}

function setup() {
  const s = makeServices();
  s.env.HOME = tmp('hermes-user-');
  // The same path written again and again: the "changed since you read it" guard is not what is tested.
  s.env.HERMES_DISABLE_FILE_STATE_GUARD = '1';
  const config = join(s.home, 'config.yaml');
  writeFileSync(config, CONFIG);
  return { s, config };
}

async function hammer(s: ReturnType<typeof setup>['s'], args: () => { tool: 'write' | 'patch'; a: Record<string, unknown> }, n = 300) {
  let written = 0;
  let refused = 0;
  for (let i = 0; i < n; i++) {
    const { tool, a } = args();
    const r = await call(tool === 'write' ? writeFile : patch, a, s);
    if (r.isError) refused++;
    else written++;
  }
  return { written, refused };
}

describe('write_file / patch while a link is flipped under them', () => {
  it('a symlink at the given path flipping between a harmless file and config.yaml', async () => {
    const { s, config } = setup();
    const harmless = join(s.cwd, 'harmless.txt');
    writeFileSync(harmless, 'notes\n');
    const child = await flipper(join(s.cwd, 'flip'), [{ link: harmless }, { link: config }]);
    let i = 0;
    const r = await hammer(s, () => (i++ % 2 ? { tool: 'patch', a: { path: 'flip', old_string: 'mode: manual', new_string: 'mode: off' } } : { tool: 'write', a: { path: 'flip', content: `approvals:\n  mode: off # ${i}\n` } }));
    child.kill('SIGKILL');
    assert.equal(readFileSync(config, 'utf8'), CONFIG);
    assert.ok(r.written > 0 && r.refused > 0, `both outcomes happened: ${JSON.stringify(r)}`);
    assert.match(readFileSync(harmless, 'utf8'), /mode: off/);
  });

  it("the file's own name flipping between a regular file and a symlink to config.yaml", async () => {
    const { s, config } = setup();
    // Mostly a regular file, so that some writes get through the checks at all.
    const child = await flipper(join(s.cwd, 'target.txt'), [{ file: 'plain\n' }, { file: 'plain\n' }, { file: 'plain\n' }, { link: config }]);
    let i = 0;
    const r = await hammer(s, () => ({ tool: 'write', a: { path: 'target.txt', content: `written ${i++}\n` } }));
    child.kill('SIGKILL');
    assert.equal(readFileSync(config, 'utf8'), CONFIG);
    assert.ok(r.written > 0 && r.refused > 0, `both outcomes happened: ${JSON.stringify(r)}`);
  });

  it('a directory link flipping between a work directory and HERMES_HOME', async () => {
    const { s, config } = setup();
    const work = join(s.cwd, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'config.yaml'), 'mine: 1\n');
    const child = await flipper(join(s.cwd, 'd'), [{ link: work }, { link: s.home }]);
    let i = 0;
    const r = await hammer(s, () => ({ tool: 'write', a: { path: 'd/config.yaml', content: `approvals:\n  mode: off # ${i++}\n` } }));
    child.kill('SIGKILL');
    assert.equal(readFileSync(config, 'utf8'), CONFIG);
    assert.ok(r.written > 0 && r.refused > 0, `both outcomes happened: ${JSON.stringify(r)}`);
    assert.match(readFileSync(join(work, 'config.yaml'), 'utf8'), /mode: off/);
  });

  it('patch mode (V4A) deletes through a flipping directory link never remove a protected file', async () => {
    const { s, config } = setup();
    const work = join(s.cwd, 'work');
    mkdirSync(work);
    const child = await flipper(join(s.cwd, 'd'), [{ link: work }, { link: s.home }]);
    let i = 0;
    const r = await hammer(
      s,
      () => {
        writeFileSync(join(work, 'config.yaml'), `scratch ${i++}\n`);
        return { tool: 'patch', a: { mode: 'patch', patch: '*** Begin Patch\n*** Delete File: d/config.yaml\n*** End Patch' } };
      },
      150,
    );
    child.kill('SIGKILL');
    assert.equal(readFileSync(config, 'utf8'), CONFIG);
    assert.ok(r.written > 0 && r.refused > 0, `both outcomes happened: ${JSON.stringify(r)}`);
  });
});

describe('writes through links without a race still work', () => {
  it('a stable symlink to a harmless file is written through (its target changes, the link stays)', async () => {
    const { s } = setup();
    const real = join(s.cwd, 'real.txt');
    writeFileSync(real, 'old\n');
    symlinkSync(real, join(s.cwd, 'alias.txt'));
    const r = await call(writeFile, { path: 'alias.txt', content: 'new\n' }, s);
    assert.equal(r.isError, false, r.raw);
    assert.equal(readFileSync(real, 'utf8'), 'new\n');
    const created = await call(writeFile, { path: 'a/b/c/new.txt', content: 'x' }, s);
    assert.equal(created.json.dirs_created, true);
    assert.equal(readFileSync(join(s.cwd, 'a/b/c/new.txt'), 'utf8'), 'x');
  });
});
