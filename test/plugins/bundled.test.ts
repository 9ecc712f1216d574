// The bundled disk-cleanup plugin (Hermes's, ported): listed but idle until enabled — and then the
// plugin machinery is not even loaded; enabled, it tracks the test and temp files a chat creates in
// HERMES_HOME and deletes the test ones when the turn ends, never a file that existed before or a
// file outside its scope; /disk-cleanup reports and cleans from the REPL (tmux).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pluginsPresent } from '../../src/plugins/load.ts';
import { chatHarness } from '../helpers/chat-harness.ts';
import { hermes } from '../helpers/cli.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const { enqueue, main, requests, home } = chatHarness();

describe('bundled plugins: disk-cleanup', () => {
  it('is listed as bundled and not enabled; until it is, nothing plugin-related loads', async () => {
    const h = home();
    const l = await hermes(['plugins', 'list'], { home: h });
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /disk-cleanup\s+· not enabled\s+2\.2\.0\s+bundled/);
    assert.equal(pluginsPresent({ home: h, config: {}, env: { HOME: h }, cwd: h }), false, 'a bundled plugin nobody enabled costs nothing');
    assert.equal(pluginsPresent({ home: h, config: { plugins: { enabled: ['disk-cleanup'] } }, env: { HOME: h }, cwd: h }), true);
  });

  it('enabled: the test file a chat creates is gone when the turn ends; others stay', async () => {
    const h = home('plugins:\n  enabled: [disk-cleanup]\n');
    mkdirSync(join(h, 'scratch')); // the home's top level is sealed by the OS sandbox the terminal runs in
    writeFileSync(join(h, 'test_keep.py'), 'print("mine")\n');
    const n = main().length;
    enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: join(h, 'test_scratch.py'), content: 'assert 1 + 1 == 2\n' } },
          { name: 'write_file', arguments: { path: join(h, 'notes.txt'), content: 'keep me\n' } },
          { name: 'write_file', arguments: { path: join(h, 'test_keep.py'), content: 'print("edited")\n' } },
          { name: 'terminal', arguments: { command: `echo data > ${join(h, 'scratch', 'tmp_data.txt')}` } },
        ],
      },
      { text: 'Done.' },
    );
    const r = await hermes(['chat', '-q', 'write some files', '--yolo'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    await requests(n + 2);
    assert.ok(!existsSync(join(h, 'test_scratch.py')), 'the new test file was cleaned up at the end of the turn');
    assert.equal(readFileSync(join(h, 'notes.txt'), 'utf8'), 'keep me\n');
    assert.equal(readFileSync(join(h, 'test_keep.py'), 'utf8'), 'print("edited")\n', 'a file that existed before is never tracked');
    assert.ok(existsSync(join(h, 'scratch', 'tmp_data.txt')), 'temp files wait 7 days');
    const tracked = JSON.parse(readFileSync(join(h, 'disk-cleanup', 'tracked.json'), 'utf8')) as { files: { path: string; category: string }[] };
    assert.deepEqual(tracked.files.map((f) => [f.path, f.category]), [[join(h, 'scratch', 'tmp_data.txt'), 'temp']]);
    const log = readFileSync(join(h, 'disk-cleanup', 'cleanup.log'), 'utf8');
    assert.match(log, new RegExp(`DELETED test ${join(h, 'test_scratch.py').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  });

  it('/disk-cleanup in the REPL: track, status, dry-run, quick; refuses memories (tmux)', { skip: tmuxAvailable() ?? false }, async () => {
    const h = home('plugins:\n  enabled: [disk-cleanup]\n');
    writeFileSync(join(h, 'test_manual.py'), 'x\n');
    mkdirSync(join(h, 'memories'), { recursive: true });
    writeFileSync(join(h, 'memories', 'MEMORY.md'), 'facts\n');
    const term = startHermes([], { home: h, env: { LANG: 'C.UTF-8' } });
    try {
      await term.waitFor(/❯/);
      const say = async (line: string, re: RegExp) => {
        term.type(line);
        term.keys('Enter');
        return term.waitFor(re);
      };
      await say(`/disk-cleanup track ${join(h, 'memories', 'MEMORY.md')} test`, /is outside what this plugin may clean/);
      await say(`/disk-cleanup track ${join(h, 'test_manual.py')} test`, /tracking .*test_manual\.py as test/);
      await say('/disk-cleanup status', /1 tracked \(1 test\)/);
      await say('/disk-cleanup dry-run', /would delete 1 file/);
      assert.ok(existsSync(join(h, 'test_manual.py')), 'dry-run deletes nothing');
      await say('/disk-cleanup quick', /deleted 1 file/);
      assert.ok(!existsSync(join(h, 'test_manual.py')));
      assert.equal(readFileSync(join(h, 'memories', 'MEMORY.md'), 'utf8'), 'facts\n');
    } finally {
      term.kill();
    }
  });
});
