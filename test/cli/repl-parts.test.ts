// The REPL's pure parts: key decoding, the edit buffer, history, Markdown, layout, completion,
// pastes, quick commands and personalities.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fitTail } from '../../src/cli/repl/width.ts';
import { EditBuffer } from '../../src/cli/repl/buffer.ts';
import { slashCompletions } from '../../src/cli/repl/completion.ts';
import { formatEntry, History, parseHistory } from '../../src/cli/repl/history.ts';
import { KeyDecoder } from '../../src/cli/repl/keys.ts';
import { MarkdownStream } from '../../src/cli/repl/markdown.ts';
import { expandPastes, savePaste } from '../../src/cli/repl/pastes.ts';
import { layout } from '../../src/cli/repl/screen.ts';
import { makeStyle } from '../../src/cli/repl/style.ts';
import { stringWidth, truncate, truncateAnsi } from '../../src/cli/repl/width.ts';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { registerQuickCommands } from '../../src/commands/quick.ts';
import { listPersonalities, systemMessageFor } from '../../src/session/personality.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { tempHome } from '../helpers/cli.ts';

describe('KeyDecoder', () => {
  const keys = (...chunks: string[]) => {
    const d = new KeyDecoder();
    return chunks.flatMap((c) => d.feed(c)).map((k) => [k.name, k.text ?? '', k.ctrl ? 'C' : '', k.meta ? 'M' : '', k.shift ? 'S' : ''].join(':'));
  };
  it('decodes text, control keys, arrows and modifiers', () => {
    assert.deepEqual(keys('héllo 🙂'), ['text:héllo 🙂:::']);
    assert.deepEqual(keys('\r', '\n', '\t', '\x7f', '\x03', '\x04'), ['enter::::', 'newline::C::', 'tab::::', 'backspace::::', 'ctrl:c:C::', 'ctrl:d:C::']);
    assert.deepEqual(keys('\x1b[A\x1b[B\x1bOC\x1b[1;5D\x1b[3~\x1b[H\x1b[F\x1b[Z'), ['up::::', 'down::::', 'right::::', 'left::C::', 'delete::::', 'home::::', 'end::::', 'backtab::::']);
    assert.deepEqual(keys('\x1bb', '\x1b\r', '\x1b\x7f'), ['meta:b::M:', 'newline:::M:', 'backspace:::M:']);
  });
  it('treats Shift+Enter from kitty / modifyOtherKeys as a new line', () => {
    assert.deepEqual(keys('\x1b[13;2u', '\x1b[27;2;13~', '\x1b[13u'), ['newline::::S', 'newline::::S', 'enter::::']);
  });
  it('keeps escape sequences and bracketed pastes split across chunks', () => {
    assert.deepEqual(keys('a\x1b[', '1;5C'), ['text:a:::', 'right::C::']);
    assert.deepEqual(keys('\x1b[200~line 1\r\nline', ' 2\x1b[20', '1~x'), ['paste:line 1\nline 2:::', 'text:x:::']);
    assert.deepEqual(keys('\x1b'), ['escape::::']);
  });
});

describe('EditBuffer', () => {
  it('edits by grapheme and by word', () => {
    const b = new EditBuffer();
    b.insert('hi 👍🏽 there');
    b.left();
    b.left();
    b.left();
    b.left();
    b.left();
    b.left();
    b.backspace();
    assert.equal(b.text, 'hi  there');
    b.set('one two three');
    b.wordLeft();
    b.deleteWordBack();
    assert.equal(b.text, 'one three');
    b.end();
    b.killToStart();
    assert.equal(b.text, '');
    b.yank();
    assert.equal(b.text, 'one three');
  });
  it('moves between lines keeping the column, and reports the edges for history', () => {
    const b = new EditBuffer();
    b.set('abcdef\nab\nabcdef');
    b.cursor = 5;
    assert.equal(b.down(), true);
    assert.equal(b.cursor, 9); // end of "ab"
    assert.equal(b.down(), true);
    assert.equal(b.cursor, 10 + 5); // column 5 again
    assert.equal(b.down(), false);
    b.cursor = 0;
    assert.equal(b.up(), false);
  });
});

describe('History', () => {
  it('reads and writes prompt_toolkit’s FileHistory format', () => {
    const text = formatEntry('first') + formatEntry('multi\nline') + formatEntry('+plus');
    assert.deepEqual(parseHistory(text), ['first', 'multi\nline', '+plus']);
    const home = tempHome();
    const file = join(home, '.hermes_history');
    const h = new History(file);
    h.add('git status');
    h.add('git status');
    h.add('make test');
    assert.deepEqual(new History(file).entries, ['git status', 'make test']);
  });
  it('navigates by prefix, suggests and searches', () => {
    const h = new History(null);
    for (const e of ['git status', 'make test', 'git push', 'ls']) h.add(e);
    assert.equal(h.prev('git'), 'git push');
    assert.equal(h.prev('git'), 'git status');
    assert.equal(h.prev('git'), null);
    assert.equal(h.next(), 'git push');
    assert.equal(h.next(), 'git');
    assert.equal(h.suggest('mak'), 'make test');
    assert.deepEqual(h.search('st'), { index: 1, entry: 'make test' });
    assert.deepEqual(h.search('st', 1), { index: 0, entry: 'git status' });
  });
});

describe('MarkdownStream', () => {
  const md = (mode: 'render' | 'strip' | 'raw', text: string, chunk = 5) => {
    const m = new MarkdownStream({ mode, style: makeStyle(false), width: () => 80 });
    const out: string[] = [];
    for (let i = 0; i < text.length; i += chunk) out.push(...m.push(text.slice(i, i + chunk)));
    return [...out, ...m.end()];
  };
  const doc = '## Steps\n1. run **this**\n- [x] done\n- see [docs](https://x.example)\n> note\n```sh\nls *.md\n```\n| a | bb |\n|---|---|\n| 1 | 2 |\nsnake_case_name stays\n';
  it('strips the markers, keeps the layout, aligns tables, leaves code alone', () => {
    assert.deepEqual(md('strip', doc), [
      'Steps',
      '1. run this',
      '☑ done',
      '• see docs (https://x.example)',
      '│ note',
      'ls *.md',
      'a   │ bb',
      '────┼────',
      '1   │ 2',
      'snake_case_name stays',
    ]);
  });
  it('raw mode is the text as written; render mode adds styles', () => {
    assert.deepEqual(md('raw', doc), doc.replace(/\n$/, '').split('\n'));
    const m = new MarkdownStream({ mode: 'render', style: makeStyle(true), width: () => 80 });
    const [line] = m.push('a **b** `c`\n');
    assert.equal(line, 'a \x1b[1mb\x1b[22m \x1b[36mc\x1b[39m');
  });
  it('shows the partial line while it streams', () => {
    const m = new MarkdownStream({ mode: 'strip', style: makeStyle(false), width: () => 80 });
    assert.deepEqual(m.push('Hello **wor'), []);
    assert.deepEqual(m.pendingLines(), ['Hello **wor']);
    assert.deepEqual(m.push('ld**\nnext'), ['Hello world']);
    assert.deepEqual(m.flush(), ['next']);
  });
});

describe('layout and width', () => {
  it('measures wide characters, emoji and styled text', () => {
    assert.equal(stringWidth('abc'), 3);
    assert.equal(stringWidth('日本'), 4);
    assert.equal(stringWidth('🙂x'), 3);
    assert.equal(stringWidth('\x1b[1mbold\x1b[22m'), 4);
    assert.equal(truncate('abcdefgh', 5), 'abcd…');
    assert.equal(stringWidth(truncateAnsi('\x1b[2mabcdefgh\x1b[22m', 5)), 5);
  });
  it('counts wrapped rows and places the cursor', () => {
    const l = layout({ lines: ['x'.repeat(25), '❯ hello'], cursor: { line: 1, col: 7 } }, 10);
    assert.deepEqual(l.rows, [3, 1]);
    assert.equal(l.cursorRow, 3);
    assert.equal(l.cursorCol, 7);
    // A line that exactly fills the width with the cursor after it gets a row for the cursor.
    const e = layout({ lines: ['❯ ' + 'y'.repeat(8)], cursor: { line: 0, col: 10 } }, 10);
    assert.equal(e.padCursorLine, true);
    assert.equal(e.total, 2);
    assert.equal(e.cursorRow, 1);
    assert.equal(e.cursorCol, 0);
  });
  it('fits streaming text into the rows left', () => {
    assert.deepEqual(fitTail(['a', 'b', 'c'], 2, 80), ['b', 'c']);
    const cut = fitTail(['x'.repeat(50)], 2, 10);
    assert.equal(cut.length, 1);
    assert.ok(stringWidth(cut[0]) <= 20);
    assert.ok(cut[0].startsWith('…'));
  });
});

describe('slash completion', () => {
  const reg = createCommandRegistry();
  it('offers commands by prefix and alias, then their arguments', () => {
    const c = slashCompletions(reg, 'cli', '/re')!;
    assert.ok(c.items.some((i) => i.value === '/retry'));
    assert.ok(c.items.some((i) => i.value === '/reasoning ' && i.label.startsWith('/reasoning [')));
    assert.ok(c.items.some((i) => i.value.trim() === '/new' && /\(\/reset\)/.test(i.hint)), 'alias matches show the command');
    assert.equal(slashCompletions(reg, 'cli', '/help'), null);
    const args = slashCompletions(reg, 'cli', '/verbose a')!;
    assert.deepEqual(args.items.map((i) => i.value), ['all']);
    assert.equal(args.from, '/verbose '.length);
    assert.equal(slashCompletions(reg, 'cli', 'hello'), null);
  });
});

describe('pastes', () => {
  it('saves a long paste (0600) and expands only references under pastes/', () => {
    const home = tempHome();
    const text = 'a\nb\nc\nd\ne\nf';
    const { path, reference } = savePaste(home, text);
    assert.equal(readFileSync(path, 'utf8'), text);
    assert.match(reference, /^\[Pasted text: 6 lines, 11 chars → .*paste_\d{8}_\d{6}_[0-9a-f]{4}\.txt\]$/);
    assert.equal(expandPastes(`see ${reference} please`, home), `see ${text} please`);
    mkdirSync(join(home, 'elsewhere'));
    writeFileSync(join(home, 'elsewhere', 'x.txt'), 'secret');
    const outside = `[Pasted text: 1 lines, 6 chars → ${join(home, 'elsewhere', 'x.txt')}]`;
    assert.equal(expandPastes(outside, home), outside);
  });
});

describe('quick commands and personalities', () => {
  it('registers exec and alias commands and explains bad entries', async () => {
    const reg = createCommandRegistry();
    const cfg = defaultConfig();
    (cfg as { quick_commands: unknown }).quick_commands = {
      hi: { type: 'exec', command: 'printf quick-ok' },
      ver: { type: 'alias', target: 'version' },
      help: { type: 'exec', command: 'true' },
      broken: { type: 'exec' },
      odd: { type: 'shell', command: 'x' },
    };
    const r = registerQuickCommands(reg, cfg);
    assert.equal(r.added, 2);
    assert.deepEqual(r.warnings, [
      'quick command /help skipped: a built-in command has that name (rename it in quick_commands)',
      'quick command /broken has type exec but no `command`',
      'quick command /odd needs `type: exec` (with command) or `type: alias` (with target)',
    ]);
    const session = { busy: false, info: { cwd: process.cwd(), env: process.env } } as never;
    const hi = reg.resolve('/hi', 'cli');
    assert.ok(!('error' in hi));
    assert.deepEqual(await hi.def.run({ session, surface: 'cli', hooks: {} }, ''), { output: 'quick-ok' });
    const ver = reg.resolve('/ver', 'gateway');
    assert.ok(!('error' in ver));
    assert.match(String((await ver.def.run({ session, surface: 'gateway', hooks: {} }, '')).output), /^hermes \d+\.\d+\.\d+$/);
  });
  it('puts the personality after agent.system_prompt; custom ones come from config', () => {
    const cfg = defaultConfig();
    assert.equal(systemMessageFor(cfg), undefined);
    cfg.agent.system_prompt = 'Always answer in French.';
    cfg.display.personality = 'pirate';
    assert.match(systemMessageFor(cfg)!, /^Always answer in French\.\n\nPersonality \(pirate\): .*pirate/);
    (cfg.agent as unknown as { personalities: unknown }).personalities = { butler: { system_prompt: 'Be formal.', tone: 'dry' } };
    cfg.display.personality = 'butler';
    assert.match(systemMessageFor(cfg)!, /Personality \(butler\): Be formal\.\nTone: dry$/);
    assert.ok(listPersonalities(cfg).some((p) => p.name === 'butler' && !p.builtin));
    cfg.display.personality = 'none';
    assert.equal(systemMessageFor(cfg), 'Always answer in French.');
  });
});
