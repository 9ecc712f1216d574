// Screens a new user sees in the first hour, read from tmux as rendered: /help wraps long
// descriptions on words within the width, no stale "Interrupting…" under the prompt after the turn
// stopped, /model as a picker of what the provider serves (refusing what it does not), and a
// one-shot run's approval taking a single key, its tool line not counting the time spent deciding.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type FakeReply, type RecordedRequest } from '../helpers/fake-llm.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes } from '../helpers/tmux.ts';
import { tmuxAvailable } from '../helpers/tmux.ts';

const { describe, it } = gatedSuite(tmuxAvailable());
let fake: FakeLlm;
// Replies for the conversations' own requests (they carry tool schemas); requests made on the side
// (a title after the first turn) get a plain answer and do not take these.
const isMain = (r: RecordedRequest) => Array.isArray(r.body.tools) && r.body.tools.length > 0;
const queue: FakeReply[] = [];
const enqueue = (...r: FakeReply[]) => void queue.push(...r);
before(async () => {
  fake = await startFakeLlm();
  fake.models = ['fake-model', 'fake-model-large', 'zeta-model'];
  fake.setHandler((r) => (isMain(r) ? (queue.shift() ?? { text: 'ok' }) : { text: 'A title' }));
});
after(async () => {
  await fake?.close();
});

function home(): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: fake-model\n  api_key: test-key\n`);
  return h;
}

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu';

describe('REPL screens', () => {
  it('/help wraps a long skill description on words, within the width', async () => {
    const h = home();
    mkdirSync(join(h, 'skills', 'notes', 'phonetic'), { recursive: true });
    writeFileSync(join(h, 'skills', 'notes', 'phonetic', 'SKILL.md'), `---\nname: phonetic\ndescription: ${WORDS}\n---\nSpell things.\n`);
    // Only this skill: the bundled library's would push it off the 40-row screen.
    writeFileSync(join(h, '.no-bundled-skills'), '');
    const t = startHermes([], { home: h, cols: 60 });
    try {
      await t.waitFor(/❯/);
      // `/help skills`: the whole /help no longer fits a 40-row screen, so the skill list scrolls off.
      t.type('/help skills');
      t.keys('Enter');
      await t.waitFor(/\/phonetic/);
      const lines = t.visible().split('\n');
      const start = lines.findIndex((l) => l.includes('/phonetic'));
      const block = lines.slice(start, start + 4);
      // tmux would cut an over-long line at column 60, mid-word; every word must arrive whole.
      for (const w of WORDS.split(' ').slice(0, 15)) assert.ok(block.some((l) => new RegExp(`(^|\\s)${w}(\\s|$)`).test(l)), `"${w}" split or missing:\n${block.join('\n')}`);
      assert.ok(block.every((l) => l.length <= 60));
      assert.match(block[1], /^\s{10,}\S/, 'continuation lines hang under the description');
    } finally {
      t.kill();
    }
  });

  it('after Ctrl+C stops a turn, no "Interrupting…" stays under the prompt', async () => {
    const t = startHermes([], { home: home() });
    try {
      await t.waitFor(/❯/);
      enqueue({ text: 'streaming slowly '.repeat(60), chunkDelayMs: 100 });
      t.type('tell me a long story');
      t.keys('Enter');
      await t.waitFor(/streaming slowly streaming slowly/);
      t.keys('C-c');
      await t.waitFor(/⏹ Interrupted\./);
      assert.doesNotMatch(t.visible(), /Interrupting…/);
      t.type('x');
      await t.waitFor(/❯ x/);
      assert.doesNotMatch(t.visible(), /Interrupting…/);
    } finally {
      t.kill();
    }
  });

  it('/model without a name is a picker of the provider’s models; a model it does not serve is refused', async () => {
    const t = startHermes([], { home: home() });
    try {
      await t.waitFor(/❯/);
      t.type('/model');
      t.keys('Enter');
      await t.waitFor(/3 model\(s\) from custom: pick one below/);
      await t.waitFor(/fake-model-large/);
      t.type('zet');
      await t.waitFor(/❯ \/model zet/);
      const menu = t.visible();
      assert.match(menu, /zeta-model/);
      assert.doesNotMatch(menu.split('❯ /model zet')[1] ?? '', /fake-model-large/, 'the menu filters as you type');
      t.keys('Enter');
      await t.waitFor(/Now using zeta-model via custom for this session/);
      const n = fake.requests.filter(isMain).length;
      enqueue({ text: 'zeta here' });
      t.type('hello');
      t.keys('Enter');
      await t.waitFor(/zeta here/);
      assert.equal(fake.requests.filter(isMain)[n].body.model, 'zeta-model');

      t.type('/model fake-modle');
      t.keys('Enter');
      await t.waitFor(/✗ fake-modle is not served by custom\. Did you mean `fake-model`\?/);
      t.type('/model');
      t.keys('Enter');
      await t.waitFor(/Model: zeta-model via custom/);
    } finally {
      t.kill();
    }
  });
});

describe('one-shot in a terminal', () => {
  it('an approval takes one key like the REPL; the tool’s time leaves out the wait for it', async () => {
    const h = home();
    const victim = join(h, 'victim');
    mkdirSync(join(victim, 'sub'), { recursive: true });
    enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}/sub` } }] }, { text: 'Deleted.' });
    const t = startHermes(['chat', '-q', 'delete the sub folder'], { home: h });
    try {
      await t.waitFor(/\[o\]nce {2}\[s\]ession {2}\[a\]lways {2}\[d\]eny · Enter = deny:/);
      // Decide slowly: the 2.5 s of thinking are not the command's.
      await new Promise((r) => setTimeout(r, 2500));
      t.type('o'); // no Enter
      await t.waitFor(/Enter = deny: approved once/);
      const screen = await t.waitFor(/Deleted\./);
      const secs = Number(/┊ 💻 \$ rm -rf \S+\s+(\d+\.\d)s/.exec(screen)?.[1]);
      assert.ok(secs < 2, `the tool line counts the wait: ${secs}s\n${screen}`);
      assert.equal(await t.exitCode(), 0);
      assert.equal(existsSync(join(victim, 'sub')), false);
    } finally {
      t.kill();
    }
  });
});
