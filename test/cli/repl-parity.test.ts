// Slash commands added for parity, through the real REPL in tmux: display toggles render, /undo puts
// the text back in the input after the destructive question (Cancel, "Always approve"), /btw, /title,
// /snapshot, /rollback after a file edit. The registry test covers the rest.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type FakeReply, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const skip = tmuxAvailable() ?? (spawnSync('git', ['--version']).status === 0 ? null : 'git is not installed');
let fake: FakeLlm;
const queue: FakeReply[] = [];
const isMain = (r: RecordedRequest) => Array.isArray(r.body.tools) && r.body.tools.length > 0;
before(async () => {
  fake = await startFakeLlm();
  fake.setHandler((r) => (isMain(r) ? (queue.shift() ?? { text: 'ok' }) : JSON.stringify(r.body).includes('why that') ? { text: 'Because it is fast.' } : { text: 'A title' }));
});
after(async () => {
  await fake?.close();
});

describe('REPL slash commands added for parity', { skip: skip ?? false }, () => {
  it('display toggles, /undo confirmation and prefill, /btw, /title, /snapshot, /rollback', async () => {
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\ncheckpoints:\n  enabled: true\n`);
    const proj = join(tempHome(), 'proj');
    mkdirSync(proj);
    writeFileSync(join(proj, 'notes.txt'), 'version one\n');
    const t = startHermes([], { home: h, cwd: proj });
    const run = async (line: string, re: RegExp) => {
      const mark = t.mark();
      t.type(line);
      t.keys('Enter');
      return t.waitFor(re, { after: mark });
    };
    try {
      await t.waitFor(/❯/);
      // Timestamps and the status bar render.
      await run('/timestamps on', /Timestamps: on/);
      queue.push({ text: 'first answer' });
      let s = await run('hello', /first answer/);
      assert.match(s, /\[\d{2}:\d{2}\] ❯ hello/);
      await run('/statusbar', /Status bar: on/);
      await t.waitFor(/^\s+test-model · .*\d{8}_\d{6}_[0-9a-f]{6}$/m);
      await run('/statusbar off', /Status bar: off/);

      // /undo asks first (Hermes's three-choice question): Cancel keeps the turn…
      queue.push({ text: 'second answer' });
      await run('second question', /second answer/);
      let mark = t.mark();
      t.type('/undo');
      t.keys('Enter');
      s = await t.waitFor(/Take back your last message and the answer to it\? Go ahead\?/, { after: mark });
      assert.match(s, /Always approve/);
      t.type('3');
      await t.waitFor(/Nothing was undone\./, { after: mark });
      // …"Always approve" takes it back, puts the text in the input and stops asking.
      mark = t.mark();
      t.type('/undo');
      t.keys('Enter');
      await t.waitFor(/Go ahead\?/, { after: mark });
      t.type('2');
      await t.waitFor(/Undid .*"second question"/, { after: mark });
      await t.waitFor(/❯ second question$/m);
      assert.match(readFileSync(join(h, 'config.yaml'), 'utf8'), /destructive_slash_confirm: false/);
      t.keys('C-u');

      // /title, /btw (no history change), /snapshot.
      await run('/title Parity run', /Title set: Parity run/);
      s = await run('/btw why that answer?', /💬 Because it is fast\./);
      await run('/snapshot create marker', /State snapshot created: \S+/);

      // A file edit takes a checkpoint; /rollback lists and restores it.
      queue.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'version two\n' } }] }, { text: 'Edited.' });
      await run('edit the notes', /Edited\./);
      assert.equal(readFileSync(join(proj, 'notes.txt'), 'utf8'), 'version two\n');
      await run('/rollback', /1\. [0-9a-f]{7,}\s+\S+ \S+\s+before write_file/);
      await run('/rollback 1', /⏪ Restored .* to checkpoint [0-9a-f]+ \(before write_file\)/);
      assert.equal(readFileSync(join(proj, 'notes.txt'), 'utf8'), 'version one\n');
      await run('/new', /New session \d{8}_\d{6}_[0-9a-f]{6}/);
      t.type('/quit');
      t.keys('Enter');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('/resume goes back to the resumed session’s folder; --no-restore-cwd stays', async () => {
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
    const a = join(h, 'proj-a');
    const b = join(h, 'proj-b');
    mkdirSync(a);
    mkdirSync(b);
    queue.push({ text: 'began in a' });
    assert.equal((await hermes(['chat', '-q', 'begin in a'], { home: h, cwd: a })).code, 0);
    for (const [args, where] of [[[], a], [['--no-restore-cwd'], b]] as const) {
      const t = startHermes([...args], { home: h, cwd: b });
      try {
        await t.waitFor(/❯/);
        let mark = t.mark();
        t.type('/resume latest');
        t.keys('Enter');
        const s = await t.waitFor(/Resumed .*: \d+ messages\./, { after: mark });
        if (where === a) assert.match(s, /↪ restored workspace dir: .*proj-a/);
        else assert.doesNotMatch(s, /restored workspace dir/);
        mark = t.mark();
        t.type('/status');
        t.keys('Enter');
        await t.waitFor(new RegExp(`Directory: ${where.replace(/[/\\]/g, '.')}`), { after: mark });
        t.type('/quit');
        t.keys('Enter');
        assert.equal(await t.exitCode(), 0);
      } finally {
        t.kill();
      }
    }
  });

  it('/skin redraws the prompt with the skin and keeps it for the next start; /palette opens the command menu', async () => {
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
    let t = startHermes([], { home: h });
    try {
      await t.waitFor(/❯/);
      let mark = t.mark();
      t.type('/skin ares');
      t.keys('Enter');
      await t.waitFor(/Skin: ares — War-god theme/, { after: mark });
      await t.waitFor(/^⚔\s*$/m);
      mark = t.mark();
      t.type('/indicator ascii');
      t.keys('Enter');
      await t.waitFor(/Busy indicator: ascii/, { after: mark });
      mark = t.mark();
      t.type('/palette');
      t.keys('Enter');
      await t.waitFor(/\/help \[command[\s\S]*1\/\d+ · ↑↓ move · Tab accept · Esc close/, { after: mark });
      t.keys('BSpace');
      await t.waitFor(/^⚔\s*$/m);
      t.type('/quit');
      t.keys('Enter');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    assert.match(readFileSync(join(h, 'config.yaml'), 'utf8'), /skin: ares/);
    t = startHermes([], { home: h });
    try {
      const s = await t.waitFor(/^⚔\s*$/m);
      assert.match(s, /Ares Agent/);
      t.type('/quit');
      t.keys('Enter');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });
});
