// The TUI's pure parts: wrapping styled text, syntax colours, the theme, `@` completion, the
// transcript's rendering, mouse reports, the composer's menus, request keys and which interface opens.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { wantsTui } from '../../src/cli/interactive.ts';
import { Composer } from '../../src/cli/repl/composer.ts';
import { highlightLine, languageOf, type HighlightState } from '../../src/cli/repl/highlight.ts';
import { History } from '../../src/cli/repl/history.ts';
import { KeyDecoder } from '../../src/cli/repl/keys.ts';
import { openRequest, requestKey } from '../../src/cli/repl/requests.ts';
import { makeStyle } from '../../src/cli/repl/style.ts';
import { stringWidth, stripAnsi, wrapAnsi } from '../../src/cli/repl/width.ts';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { TUI_COMMANDS } from '../../src/tui/commands.ts';
import { MentionIndex, mentionAt } from '../../src/tui/mentions.ts';
import { tuiSettings } from '../../src/tui/run.ts';
import width from '../../src/tui/string-width.ts';
import { detectTheme } from '../../src/tui/theme.ts';
import { entriesFromHistory, mdFactory, Transcript, type RenderContext } from '../../src/tui/transcript.ts';
import { tempHome } from '../helpers/cli.ts';

const color = makeStyle(true);
const plain = makeStyle(false);

describe('wrapAnsi', () => {
  it('wraps at spaces, cuts long words, keeps lines within the width', () => {
    assert.deepEqual(wrapAnsi('the quick brown fox jumps', 10), ['the quick', 'brown fox', 'jumps']);
    assert.deepEqual(wrapAnsi('abcdefghijklmnopqrstuvwxyz', 10), ['abcdefghij', 'klmnopqrst', 'uvwxyz']);
    assert.deepEqual(wrapAnsi('short', 10), ['short']);
    for (const l of wrapAnsi('中文字符测试一下宽度', 7)) assert.ok(stringWidth(l) <= 7);
  });

  it('closes styles at the cut and opens them again on the next line', () => {
    const lines = wrapAnsi(`plain ${color.bold('bold words that wrap')} end`, 12);
    assert.deepEqual(lines.map(stripAnsi), ['plain bold', 'words that', 'wrap end']);
    assert.ok(lines[0].endsWith('\x1b[0m'));
    assert.ok(lines[1].startsWith('\x1b[1m'), JSON.stringify(lines[1]));
    assert.ok(!lines[2].startsWith('\x1b[1m\x1b[1m'));
  });
});

describe('syntax colours', () => {
  it('colours keywords, strings, numbers and comments by language', () => {
    const st: HighlightState = { open: null };
    const ts = highlightLine('const x = "hi"; // note', languageOf('ts'), color, st);
    assert.equal(stripAnsi(ts), 'const x = "hi"; // note');
    assert.match(ts, /\x1b\[35mconst\x1b\[39m/);
    assert.match(ts, /\x1b\[32m"hi"\x1b\[39m/);
    assert.match(ts, /\x1b\[90m\/\/ note\x1b\[39m/);
    assert.match(highlightLine('n = 42', languageOf('python'), color, st), /\x1b\[33m42/);
  });

  it('carries a multi-line string or comment to the next lines', () => {
    const st: HighlightState = { open: null };
    const py = languageOf('py');
    highlightLine('s = """start', py, color, st);
    assert.deepEqual(st.open, { close: '"""', kind: 'string' });
    assert.match(highlightLine('still in the string', py, color, st), /^\x1b\[32mstill in the string/);
    highlightLine('end""" + 1', py, color, st);
    assert.equal(st.open, null);
    const c: HighlightState = { open: null };
    highlightLine('/* a block', languageOf('c'), color, c);
    assert.equal(c.open?.kind, 'comment');
  });

  it('leaves unknown languages in the code colour and plain text without colours', () => {
    assert.equal(highlightLine('whatever x = 1', languageOf('brainfuck'), color, { open: null }), color.cyan('whatever x = 1'));
    assert.equal(highlightLine('const x = 1', languageOf('ts'), plain, { open: null }), 'const x = 1');
    assert.match(highlightLine('+added', 'diff', color, { open: null }), /^\x1b\[32m\+added/);
  });
});

describe('theme', () => {
  it('HERMES_TUI_THEME wins, then COLORFGBG, else dark', () => {
    assert.equal(detectTheme({}), 'dark');
    assert.equal(detectTheme({ HERMES_TUI_THEME: 'light' }), 'light');
    assert.equal(detectTheme({ HERMES_TUI_THEME: '#fdf6e3' }), 'light');
    assert.equal(detectTheme({ HERMES_TUI_THEME: '1a1a2e', COLORFGBG: '0;15' }), 'dark');
    assert.equal(detectTheme({ COLORFGBG: '0;15' }), 'light');
    assert.equal(detectTheme({ COLORFGBG: '15;0' }), 'dark');
    assert.equal(detectTheme({ COLORFGBG: '0;default;7' }), 'light');
    // Light colours are darker shades, not the bright ones.
    assert.notEqual(makeStyle(true, 'light').yellow('x'), makeStyle(true, 'dark').yellow('x'));
  });
});

describe('@ references', () => {
  it('offers the reference kinds, then files and folders below the directory', () => {
    const root = tempHome('hermes-mentions-');
    mkdirSync(join(root, 'src', 'tui'), { recursive: true });
    mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(root, 'src', 'tui', 'app.ts'), '');
    writeFileSync(join(root, 'src', 'main.ts'), '');
    writeFileSync(join(root, 'node_modules', 'pkg', 'app.ts'), '');
    writeFileSync(join(root, 'README.md'), '');
    const m = new MentionIndex(root);
    assert.deepEqual(mentionAt('look at @src/ma', 15), { token: '@src/ma', from: 8 });
    assert.equal(mentionAt('mail me@example.com', 19), null);
    const kinds = m.complete('@', 1)!;
    assert.deepEqual(kinds.items.map((i) => i.label), ['@file:', '@folder:']);
    const app = m.complete('see @app', 8)!;
    assert.deepEqual(app.items.map((i) => i.value), ['@file:src/tui/app.ts ']);
    assert.equal(app.from, 4);
    const folder = m.complete('@file:src/', 10)!;
    assert.deepEqual(folder.items.map((i) => i.label), ['src/main.ts', 'src/tui/']);
    assert.deepEqual(m.complete('@folder:', 8)!.items.map((i) => i.label), ['src/']);
  });
});

const ctx: RenderContext = { style: plain, tick: 0, now: 0, inlineDiffs: true };

describe('transcript', () => {
  it('a tool call is one line until opened; opened it shows arguments, output and the diff', () => {
    const t = new Transcript();
    const e = t.add({
      kind: 'tool',
      expanded: false,
      call: { callId: 'c1', name: 'terminal', args: { command: 'echo hi' }, started: 0, durationMs: 1200, content: JSON.stringify({ output: 'hi\nthere', exit_code: 0 }) },
    });
    assert.deepEqual(t.render(e, 60, ctx, false), ['▸ ┊ 💻 $ echo hi  1.2s']);
    if (e.kind === 'tool') e.expanded = true;
    t.touch(e);
    assert.deepEqual(t.render(e, 60, ctx, false), ['▾ ┊ 💻 $ echo hi  1.2s', '  arguments', '    command: echo hi', '  output', '    hi', '    there']);
    const w = t.add({ kind: 'tool', expanded: false, call: { callId: 'c2', name: 'write_file', args: { path: 'a.txt' }, started: 0, durationMs: 10, diff: '--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n' } });
    assert.deepEqual(t.render(w, 60, ctx, false).slice(1), ['    --- a', '    +++ b', '    @@ -1 +1 @@', '    -old', '    +new']);
  });

  it('a long line of command output wraps on words, a list description hanging under itself (/help)', () => {
    const t = new Transcript();
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike';
    const e = t.add({ kind: 'note', text: `Skills:\n  /phonetic  —  ${words}`, tone: 'plain' });
    assert.deepEqual(t.render(e, 40, ctx, false), ['Skills:', '  /phonetic  —  alpha bravo charlie', '                delta echo foxtrot golf', '                hotel india juliet kilo', '                lima mike']);
  });

  it('a stored conversation becomes entries: messages, tool calls with their results, no timings', () => {
    const newMd = mdFactory('render', plain, () => 80);
    const bodies = entriesFromHistory(
      [
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: '', tool_calls: [{ id: 't1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } }] },
        { role: 'tool', content: '{"output":"a.txt"}', tool_call_id: 't1' },
        { role: 'assistant', content: 'There is **a.txt**.' },
      ],
      newMd,
    );
    const t = new Transcript();
    const lines = bodies.flatMap((b) => t.render(t.add(b), 80, ctx, false));
    assert.deepEqual(lines, ['', '❯ list files', '▸ ┊ 💻 $ ls', 'There is a.txt.']);
  });

  it('reasoning folds to one line; the window follows the end or stays where it was scrolled', () => {
    const t = new Transcript();
    const md = mdFactory('render', plain, () => 80)();
    md.push('first thought\nsecond thought\n');
    md.end();
    const r = t.add({ kind: 'reasoning', text: md, collapsed: true });
    assert.deepEqual(t.render(r, 80, ctx, false), ['▸ 💭 Reasoning · 2 lines']);
    for (let i = 1; i <= 10; i++) t.add({ kind: 'note', text: `note ${i}`, tone: 'plain' });
    assert.deepEqual(t.window(80, 3, null, ctx, null).lines, ['note 8', 'note 9', 'note 10']);
    const w = t.window(80, 3, 1, ctx, null);
    assert.deepEqual(w.lines, ['note 1', 'note 2', 'note 3']);
    assert.equal(w.total, 11);
    assert.equal(w.owners[0], t.entries[1].id);
  });
});

describe('keys and input', () => {
  it('decodes SGR mouse reports: the wheel and clicks', () => {
    const keys = new KeyDecoder().feed('\x1b[<64;10;5M\x1b[<65;10;5M\x1b[<0;3;4M\x1b[<0;3;4m');
    assert.deepEqual(
      keys.map((k) => [k.name, k.mouse?.action, k.mouse?.x, k.mouse?.y]),
      [
        ['mouse', 'wheelup', 10, 5],
        ['mouse', 'wheeldown', 10, 5],
        ['mouse', 'press', 3, 4],
        ['mouse', 'release', 3, 4],
      ],
    );
  });

  it('the palette lists the registry’s commands and the TUI’s own; Tab accepts an @ path in place', () => {
    const root = tempHome('hermes-composer-');
    writeFileSync(join(root, 'notes.md'), '');
    const c = new Composer({ registry: createCommandRegistry({ home: root }), history: new History(null), home: root, mentions: new MentionIndex(root), extraCommands: TUI_COMMANDS, passModifiedKeys: true });
    const type = (s: string) => new KeyDecoder().feed(s).forEach((k) => c.onKey(k));
    type('/det');
    assert.deepEqual(c.menu?.items.map((i) => i.label), ['/details [collapsed|expanded]']);
    c.clear();
    type('read @not and more');
    for (let i = 0; i < ' and more'.length; i++) c.onKey({ name: 'left', seq: '' });
    c.refreshMenu(false);
    assert.equal(c.menu?.source, 'mention');
    c.onKey({ name: 'tab', seq: '\t' });
    assert.equal(c.text, 'read @file:notes.md and more');
    // Shift+↑ is for scrolling: it goes back to the caller.
    assert.deepEqual(c.onKey({ name: 'up', shift: true, seq: '' }).kind, 'pass');
  });

  it('approval keys: arrows move the highlight from Deny, Enter takes it; a letter answers at once', () => {
    const req = openRequest('r1', { kind: 'approval', command: 'rm -rf x', description: 'recursive delete', choices: ['once', 'session', 'always', 'deny'] }, 0);
    assert.equal(req.selected, 3);
    assert.equal(requestKey(req, { name: 'left', seq: '' }, '/tmp', { arrows: true }), null);
    assert.equal(req.selected, 2);
    assert.equal(requestKey(req, { name: 'enter', seq: '\r' }, '/tmp', { arrows: true })?.value, 'always');
    const other = openRequest('r2', { kind: 'approval', command: 'rm -rf y', description: 'recursive delete', choices: ['once', 'session', 'always', 'deny'] }, 0);
    assert.equal(requestKey(other, { name: 'enter', seq: '\r' }, '/tmp')?.value, 'deny');
    assert.equal(requestKey(other, { name: 'text', text: 'o', seq: 'o' }, '/tmp')?.value, 'once');
  });
});

describe('choosing the interface', () => {
  it('--cli and --tui win, then HERMES_TUI, then display.interface', () => {
    assert.equal(wantsTui({}, {}, undefined), false);
    assert.equal(wantsTui({ tui: true }, {}, undefined), true);
    assert.equal(wantsTui({}, { HERMES_TUI: '1' }, undefined), true);
    assert.equal(wantsTui({}, {}, { display: { interface: 'tui' } }), true);
    assert.equal(wantsTui({ cli: true }, { HERMES_TUI: '1' }, { display: { interface: 'tui' } }), false);
    assert.equal(wantsTui({}, { HERMES_TUI: '0' }, { display: { interface: 'tui' } }), false);
  });

  it('alternate screen and mouse from flags and config', () => {
    assert.deepEqual(tuiSettings({}, undefined), { fullscreen: true, mouse: true });
    assert.deepEqual(tuiSettings({ altScreen: false }, {}), { fullscreen: false, mouse: false });
    assert.deepEqual(tuiSettings({}, { tui_alt_screen: false }), { fullscreen: false, mouse: false });
    assert.deepEqual(tuiSettings({ altScreen: true }, { tui_alt_screen: false, mouse_tracking: 'off' }), { fullscreen: true, mouse: false });
  });

  it('Ink measures text with Hermes’s widths', () => {
    assert.equal(width('⚕ héllo 中文 💻'), stringWidth('⚕ héllo 中文 💻'));
    assert.equal(width('\x1b[31mred\x1b[39m'), 3);
    assert.equal(width('\x1b[31mred\x1b[39m', { countAnsiEscapeCodes: true }), 11);
  });
});
