// The full-screen TUI (`hermes --tui`), driven through tmux as a person would: type, press keys,
// resize the window, read the rendered screen. The model is the fake LLM on loopback.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringWidth, stripAnsi } from '../../src/cli/repl/width.ts';
import { bodyText, chatHarness, userText } from '../helpers/chat-harness.ts';
import { fakeSudo } from '../helpers/fake-sudo.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable, type TmuxOptions, type TmuxTerm } from '../helpers/tmux.ts';

const skip = tmuxAvailable();
const { describe, it } = gatedSuite(skip);
const { enqueue, main, requests, home } = chatHarness({ models: ['test-model', 'other-model'] });

/** An SGR-styled run as tmux redraws it (it may add resets between the style and the text). */
const sgr = (code: string, text: string) => new RegExp(`\\x1b\\[${code}m(?:\\x1b\\[[\\d;]*m)*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

/** Starts the TUI and waits until it is ready for input. */
async function tui(args: string[], o: TmuxOptions): Promise<TmuxTerm> {
  const t = startHermes(args, o);
  await t.waitFor(/● ready/, { timeoutMs: 30_000 });
  return t;
}

/** Sends a message and waits for `done` on screen. */
async function say(t: TmuxTerm, text: string, done: RegExp): Promise<string> {
  t.type(text);
  await t.waitFor(new RegExp(`❯ ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  t.keys('Enter');
  return t.waitFor(done);
}

describe('hermes --tui', () => {
  it('streams a Markdown answer with colours, opens a tool call, answers approvals both ways', async () => {
    const h = home();
    const victim = join(h, 'victim');
    mkdirSync(join(victim, 'sub'), { recursive: true });
    const t = await tui(['--tui'], { home: h });
    try {
      let s = t.visible();
      assert.match(s, /Hermes Agent/);
      assert.match(s, /test-model │ custom · chat_completions │ ctx \d+% │ 0 tok/);

      // A streamed answer: rendered Markdown, a highlighted code block, reasoning above it.
      let n = main().length;
      enqueue({ reasoning: 'Weighing it carefully.', text: '# Plan\nThis is **important**.\n\n```ts\nconst answer = 42;\n```\n\n- first item\n- second item\n' });
      s = await say(t, 'hello there', /second item/);
      assert.match(s, /💭 Reasoning\n\s+Weighing it carefully\./);
      assert.match(s, /^Plan$/m);
      assert.match(s, /^This is important\.$/m);
      assert.match(s, /─── ts\nconst answer = 42;\n───/);
      assert.match(s, /• first item/);
      assert.equal(userText((await requests(n + 1))[n]), 'hello there');
      // `const` is a keyword (magenta), 42 a number (yellow): syntax colours, not one code colour.
      const styled = t.styled();
      assert.match(styled, sgr('35', 'const'));
      assert.match(styled, sgr('33', '42'));

      // A tool call: one line, then Ctrl+O opens its arguments and output.
      n = main().length;
      enqueue({ text: 'Checking.', toolCalls: [{ name: 'terminal', arguments: { command: 'echo tool-ran-ok; echo second-line' } }] }, { text: 'The tool ran.' });
      s = await say(t, 'run the tool', /The tool ran\./);
      assert.match(s, /▸ ┊ 💻 \$ echo tool-ran-ok; echo second-line\s+\d+\.\ds/);
      assert.doesNotMatch(s, /^\s+second-line$/m);
      t.keys('C-o');
      s = await t.waitFor(/▾ ┊ 💻 \$ echo tool-ran-ok/);
      assert.match(s, /arguments\n\s+command: echo tool-ran-ok; echo second-line\n\s+output\n\s+tool-ran-ok\n\s+second-line/);
      t.keys('C-o');
      await t.waitFor(/▸ ┊ 💻 \$ echo tool-ran-ok/);
      assert.match(bodyText((await requests(n + 2))[n + 1]), /tool-ran-ok/);

      // While a tool runs, the status bar names it with its main argument (not a thinking verb).
      enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 3; echo slow-done' } }] }, { text: 'Slept.' });
      t.type('take a nap');
      t.keys('Enter');
      s = await t.waitFor(/💻 terminal sleep 3; echo slow-done \d+\.\ds$/m);
      assert.doesNotMatch(s.split('\n').filter(Boolean).at(-1) ?? '', /pondering|thinking|mulling|musing/);
      await t.waitFor(/Slept\./);

      // A dangerous command: the approval modal; Enter takes the highlighted Deny.
      n = main().length;
      enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}/sub` } }] }, { text: 'Not deleted then.' });
      t.type('clean up');
      t.keys('Enter');
      s = await t.waitFor(/\[o\]nce\s+\[s\]ession\s+\[a\]lways\s+\[d\]eny/);
      assert.match(s, /╭─+╮\n│ ⚠️ {2}Dangerous command — recursive delete/);
      assert.match(s, new RegExp(`│\\s+rm -rf ${victim}/sub`));
      assert.match(s, /◆ waiting for your answer/);
      assert.match(t.styled(), sgr('7', ' [d]eny '));
      t.keys('Enter');
      s = await t.waitFor(/Not deleted then\./);
      assert.match(s, /✗ Denied: rm -rf/);
      assert.ok(existsSync(join(victim, 'sub')));
      assert.match(bodyText((await requests(n + 2))[n + 1]), /denied/i);

      // Approve once with the arrow keys: the highlight moves from Deny to Once.
      enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}/sub` } }] }, { text: 'Deleted it.' });
      t.type('clean up again');
      t.keys('Enter');
      await t.waitFor(/\[d\]eny\s+←→ Enter/);
      t.keys('Left', 'Left', 'Left');
      await t.waitForStyled(sgr('7', ' [o]nce '));
      t.keys('Enter');
      s = await t.waitFor(/Deleted it\./);
      assert.match(s, /✓ Approved once: rm -rf/);
      assert.ok(!existsSync(join(victim, 'sub')));

      // clarify: a digit picks a choice.
      n = main().length;
      enqueue({ toolCalls: [{ name: 'clarify', arguments: { question: 'Which colour?', choices: ['red', 'green', 'blue'] } }] }, { text: 'Green it is.' });
      t.type('paint it');
      t.keys('Enter');
      s = await t.waitFor(/3\. blue/);
      assert.match(s, /│ ❓ Which colour\?/);
      t.keys('2');
      await t.waitFor(/Green it is\./);
      assert.match(bodyText((await requests(n + 2))[n + 1]), /green/);

      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
      assert.match(t.screen(), /Resume it with: hermes --resume \d{8}_\d{6}_[0-9a-f]{6}\nGoodbye\. ⚕/);
    } finally {
      t.kill();
    }
  });

  it('the session picker resumes an older session, found by what was said in it', async () => {
    const h = home();
    enqueue({ text: 'Noted: the pelican codeword.' });
    let t = await tui(['--tui'], { home: h });
    try {
      await say(t, 'remember pelican-7731 please', /Noted: the pelican codeword\./);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    enqueue({ text: 'A newer session.' });
    t = await tui(['--tui'], { home: h });
    try {
      await say(t, 'something else', /A newer session\./);
      t.type('/resume');
      t.keys('Enter');
      let s = await t.waitFor(/Resume a session/);
      // Both sessions are listed; the current one is marked.
      assert.match(s, /● .*· 2 msgs · cli ·/);
      t.type('pelican');
      // Wait for the filtered list (the unfiltered one already holds this line).
      s = await t.waitFor(/🔎 pelican\n[\s\S]* {2}A title .* · “remember pelican-7731 please”/);
      assert.doesNotMatch(s, /something else/);
      t.keys('Enter');
      s = await t.waitFor(/Resumed .*2 messages/);
      assert.match(s, /❯ remember pelican-7731 please\nNoted: the pelican codeword\./);
      assert.doesNotMatch(s, /A newer session/);
      const n = main().length;
      enqueue({ text: 'Still here.' });
      await say(t, 'what was the codeword', /Still here\./);
      const req = (await requests(n + 1))[n];
      assert.match(bodyText(req), /pelican-7731/);
      assert.doesNotMatch(bodyText(req), /something else/);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('the model picker lists the provider’s models and switches this session', async () => {
    const t = await tui(['--tui'], { home: home() });
    try {
      t.type('/model');
      t.keys('Enter');
      let s = await t.waitFor(/other-model/);
      assert.match(s, /Model · custom/);
      assert.match(s, /● test-model/);
      // A name the provider does not serve is refused, with the nearest; the picker stays open.
      t.type('other-modle');
      await t.waitFor(/nothing matches/);
      t.keys('Enter');
      await t.waitFor(/✗ other-modle is not served by custom\. Did you mean `other-model`\?/);
      assert.match(t.visible(), /Model · custom/);
      t.keys(...Array<string>(11).fill('BSpace'));
      await t.waitFor(/● test-model/);
      t.type('other');
      await t.waitFor(/🔎 other/);
      t.keys('Enter');
      s = await t.waitFor(/Now using other-model via custom for this session/);
      assert.match(s, /⚕ other-model │ custom/);
      const n = main().length;
      enqueue({ text: 'from the other model' });
      await say(t, 'who are you', /from the other model/);
      assert.equal((await requests(n + 1))[n].body.model, 'other-model');
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('redraws cleanly when the terminal shrinks from 120×40 to 80×24', async () => {
    const t = await tui(['--tui'], { home: home(), cols: 120, rows: 40 });
    try {
      const long = 'A fairly long answer line that certainly needs wrapping once the window is narrower than before. '.repeat(3);
      enqueue({ text: `${long}\n\n- point one\n- point two\n` });
      await say(t, 'tell me things', /point two/);
      t.resize(80, 24);
      await t.waitFor(/./);
      // Wait for the narrower frame (the rule is redrawn at the new width).
      const deadline = performance.now() + 10_000;
      let lines: string[] = [];
      for (;;) {
        lines = stripAnsi(t.visible()).replace(/\n+$/, '').split('\n');
        // The whole frame, not a partial repaint: the transcript's prompt line and the answer are back too.
        const text = lines.join('\n');
        if (lines.length <= 24 && lines.every((l) => stringWidth(l) <= 80) && /● ready$/.test(lines.at(-1) ?? '') && text.match(/^❯ /gm)?.length === 2 && /• point two/.test(text)) break;
        if (performance.now() > deadline) throw new Error(`no clean 80×24 frame:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const screen = lines.join('\n');
      // One status bar, one input rule, one prompt; the answer wrapped at the new width.
      assert.equal(screen.match(/● ready/g)?.length, 1);
      assert.equal(screen.match(/Enter send ·/g)?.length, 1);
      assert.equal(screen.match(/^❯ /gm)?.length, 2);
      assert.match(screen, /• point two/);
      assert.ok(lines.every((l) => !/─{81}/.test(l)), 'no line left over from the 120-column frame');
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('Ctrl+C stops a streaming answer; the next message works', async () => {
    const t = await tui(['--tui'], { home: home() });
    try {
      enqueue({ text: 'streaming slowly '.repeat(80), chunkDelayMs: 120 });
      await say(t, 'tell me a long story', /streaming slowly streaming slowly/);
      await t.waitFor(/Ctrl\+C stop/);
      t.keys('C-c');
      let s = await t.waitFor(/⏹ Interrupted\./);
      await t.waitFor(/● ready/);
      // The interrupt hint goes with the turn it was about.
      assert.doesNotMatch(t.visible(), /Interrupting…/);
      const n = main().length;
      enqueue({ text: 'back to normal' });
      s = await say(t, 'are you there', /back to normal/);
      await requests(n + 1);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('/help wraps a long skill description on words within a narrow window', async () => {
    const h = home();
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango';
    mkdirSync(join(h, 'skills', 'notes', 'phonetic'), { recursive: true });
    writeFileSync(join(h, 'skills', 'notes', 'phonetic', 'SKILL.md'), `---\nname: phonetic\ndescription: ${words}\n---\nSpell things.\n`);
    const t = await tui(['--tui'], { home: h, cols: 60, rows: 60 });
    try {
      // `/help skills`: the whole /help no longer fits the screen with every command, so the skills scroll off.
      await say(t, '/help skills', /\/phonetic/);
      const lines = stripAnsi(t.visible()).split('\n');
      const start = lines.findIndex((l) => l.includes('/phonetic'));
      const block = lines.slice(start, start + 4);
      // A cut at the window's edge would split a word; every word arrives whole, on lines that fit.
      // (/help shortens a description to its first ~100 characters: the first 15 words.)
      for (const w of words.split(' ').slice(0, 15)) assert.ok(block.some((l) => new RegExp(`(^|\\s)${w}(\\s|$)`).test(l)), `"${w}" split or missing:\n${block.join('\n')}`);
      assert.ok(block.every((l) => stringWidth(l) <= 60));
      assert.match(block[1], /^\s{10,}\S/, 'continuation lines hang under the description');
    } finally {
      t.kill();
    }
  });

  it('scrolls with PgUp/PgDn and the mouse wheel; Alt+↑ picks a block, Enter opens it; Ctrl+T folds reasoning', async () => {
    const t = await tui(['--tui'], { home: home(), cols: 80, rows: 20 });
    try {
      enqueue({ reasoning: 'Step one.\nStep two.\nStep three.', text: Array.from({ length: 40 }, (_, i) => `row ${i + 1}`).join('\n') + '\n' });
      await say(t, 'count to forty', /row 40/);
      assert.doesNotMatch(t.visible(), /row 1\n/);
      t.keys('PageUp', 'PageUp', 'PageUp');
      let s = await t.waitFor(/↑ scrolled/);
      assert.match(t.visible(), /❯ count to forty/);
      // The wheel scrolls back down; at the end the view follows the conversation again.
      for (let i = 0; i < 20; i++) t.raw('\x1b[<65;10;5M');
      await t.waitFor(/row 40\n/);
      s = t.visible();
      assert.doesNotMatch(s, /↑ scrolled/);
      // Alt+↑ highlights the reasoning block (the last block); Enter folds it.
      t.raw('\x1b[1;3A');
      await t.waitFor(/Enter open\/close · Alt\+↑↓ next · Esc done/);
      t.keys('Enter');
      s = await t.waitFor(/▸ 💭 Reasoning · 3 lines/);
      t.keys('Escape');
      await t.waitFor(/Enter send · Alt\+Enter new line/);
      t.keys('C-t');
      await t.waitFor(/▾ 💭 Reasoning\n\s+Step one\./);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('the skills browser puts /skill in the input; a sudo password is typed masked; typing while busy queues; /quit leaves', async () => {
    const h = home('approvals:\n  mode: "off"\n');
    const bin = fakeSudo(h, 'hunter2-secret');
    // The password flow is for unsandboxed runs: inside the OS sandbox sudo is refused (test/tools/terminal.test.ts).
    const t = await tui(['--tui'], { home: h, env: { PATH: `${bin}:${process.env.PATH}`, HERMES_SANDBOX: 'off' } });
    try {
      t.type('/skills');
      t.keys('Enter');
      let s = await t.waitFor(/⚕ Skills/);
      assert.match(s, /\/csv-analysis .*data/, 'the bundled skills, first category first');
      t.type('log-inv');
      s = await t.waitFor(/log-investigation [\d.]+ — Find the relevant logs/);
      assert.match(s, /skills\/devops\/log-investigation\/SKILL\.md/);
      t.keys('Enter');
      await t.waitFor(/❯ \/log-investigation$/m);
      t.keys('C-c');
      await t.waitFor(/❯ Message Hermes…/);

      let n = main().length;
      enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'sudo ls /root' } }] }, { text: 'sudo done' });
      t.type('list root');
      t.keys('Enter');
      s = await t.waitFor(/🔑 .*sudo password/);
      assert.match(s, /hidden input · Enter submit · Esc skip/);
      t.type('hunter2-secret');
      await t.waitFor(/│ ❯ •{14}/);
      t.keys('Enter');
      s = await t.waitFor(/sudo done/);
      assert.match(s, /🔑 sudo password entered/);
      assert.match(bodyText((await requests(n + 2))[n + 1]), /sudo-accepted/);
      assert.doesNotMatch(s, /hunter2/);

      // /busy queue: a message typed during a turn waits for it.
      t.type('/busy queue');
      t.keys('Enter');
      await t.waitFor(/Busy input mode: queue\./);
      n = main().length;
      enqueue({ text: 'finished the first. '.repeat(8), chunkDelayMs: 60 }, { text: 'answer to the queued one' });
      t.type('question one');
      t.keys('Enter');
      await t.waitFor(/finished the first\./);
      t.type('queued question');
      t.keys('Enter');
      await t.waitFor(/queued \(1 waiting\)/);
      s = await t.waitFor(/answer to the queued one/);
      assert.match(s, /❯ queued question \(queued\)/);
      assert.equal(userText((await requests(n + 2))[n + 1]), 'queued question');

      t.type('/quit');
      t.keys('Enter');
      assert.equal(await t.exitCode(), 0);
      assert.doesNotMatch(readFileSync(join(h, '.hermes_history'), 'utf8'), /hunter2/);
    } finally {
      t.kill();
    }
  });

  it('HERMES_TUI=1 and display.interface: tui open the TUI; --cli opens the REPL; inline mode keeps the transcript in the scrollback', async () => {
    let t = await tui([], { home: home(), env: { HERMES_TUI: '1' } });
    t.keys('C-d');
    assert.equal(await t.exitCode(), 0);
    t.kill();

    const h = home('display:\n  interface: tui\n');
    t = await tui([], { home: h });
    t.keys('C-d');
    assert.equal(await t.exitCode(), 0);
    t.kill();

    t = startHermes(['--cli'], { home: h });
    try {
      await t.waitFor(/Ctrl\+D quits/);
      await t.waitFor(/❯/);
      assert.doesNotMatch(t.screen(), /● ready/);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }

    t = await tui(['--tui', '--no-alt-screen'], { home: home(), rows: 15 });
    try {
      enqueue({ text: Array.from({ length: 30 }, (_, i) => `numbered line ${i + 1}`).join('\n\n') });
      await say(t, 'count for me', /numbered line 30/);
      // Everything went to the terminal's scrollback, in order, once.
      const s = t.screen();
      assert.equal(s.match(/numbered line 1$/gm)?.length, 1);
      assert.match(s, /❯ count for me\nnumbered line 1\n\nnumbered line 2\n/);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
  });

  it('NO_COLOR draws without colours; history is the REPL’s file', async () => {
    const h = home();
    writeFileSync(join(h, '.hermes_history'), '\n# 2026-01-01 00:00:00.000000\n+an older line from the REPL\n');
    const t = await tui(['--tui'], { home: h, env: { NO_COLOR: '1' } });
    try {
      enqueue({ text: '**bold** and `code`' });
      await say(t, 'plain please', /bold and code/);
      assert.doesNotMatch(t.styled(), /\x1b\[(3\d|9\d|38;5;\d+)m/);
      t.keys('Up');
      await t.waitFor(/❯ plain please/);
      t.keys('Up');
      await t.waitFor(/❯ an older line from the REPL/);
      t.keys('C-c');
      await t.waitFor(/❯ Message Hermes…/);
      t.keys('C-d');
      assert.equal(await t.exitCode(), 0);
      assert.match(readFileSync(join(h, '.hermes_history'), 'utf8'), /\n\+plain please\n/);
    } finally {
      t.kill();
    }
  });
});
