// Editors, debuggers, pagers and make run commands from their own languages: sed's `e` command
// and `s///e` flag, vim/ex `-c '!cmd'` (and `:r !`, `:w !`, `system()`, `:terminal`, inline
// Python), ed's `!`, less `+!cmd`, gdb `shell`/`!`/`pipe`, lldb `platform shell`, and makefiles
// read from stdin or `--eval`. The commands are classified; files they write are targets.
import type { Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { checkInlineCode } from './rules-code.ts';
import { parseRunner, runString } from './runners.ts';
import { checkWriteTarget } from './targets.ts';
import { command } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);
const DYN = '\u0000';

// -------------------------------------------------------------------------------------------
// sed

interface SedScan {
  /** `e COMMAND` commands. */
  exec: string[];
  /** `e` without a command, or `s///e`: the pattern space is run. */
  runsInput: boolean;
  /** Replacement texts of `s///e` (what is run, mostly). */
  replacements: string[];
  /** Files written by `w`/`W` and the `s///w` flag. */
  writes: string[];
  /** A command position only known at run time. */
  unknown: boolean;
}

/** Scans a sed script for the commands that run or write something. */
export function scanSed(script: string): SedScan {
  const out: SedScan = { exec: [], runsInput: false, replacements: [], writes: [], unknown: false };
  const s = script;
  let i = 0;
  const toEol = () => {
    const nl = s.indexOf('\n', i);
    const text = s.slice(i, nl < 0 ? s.length : nl);
    i = nl < 0 ? s.length : nl + 1;
    return text;
  };
  const delimited = (d: string) => {
    let t = '';
    while (i < s.length && s[i] !== d) {
      if (s[i] === '\\' && i + 1 < s.length) {
        t += s[i + 1] === d ? d : s.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (s[i] === '\n' && d !== '\n') break;
      t += s[i++];
    }
    i++;
    return t;
  };
  let sawDyn = false;
  const address = () => {
    // A part only known at run time (`"$(grep -n X f | cut -d: -f1),+3p"`): an address.
    while (s[i] === DYN) {
      sawDyn = true;
      i++;
      const m = /^\$(?:\(\u2026\)|[A-Za-z_0-9@*#?$!-]+)(?:\u0001[a-z]+)*/.exec(s.slice(i));
      if (m) i += m[0].length;
    }
    if (s[i] === '/') {
      i++;
      delimited('/');
    } else if (s[i] === '\\' && i + 1 < s.length) {
      const d = s[i + 1];
      i += 2;
      delimited(d);
    } else while (i < s.length && /[\d$~+]/.test(s[i])) i++;
    while (s[i] === 'I' || s[i] === 'M') i++;
  };
  for (let guard = 0; i < s.length && guard < 10_000; guard++) {
    while (i < s.length && /[\s;]/.test(s[i])) i++;
    if (i >= s.length) break;
    if (s[i] === '#') {
      toEol();
      continue;
    }
    address();
    if (s[i] === ',') {
      i++;
      address();
    }
    while (s[i] === ' ' || s[i] === '\t') i++;
    while (s[i] === '!') i++;
    while (s[i] === ' ' || s[i] === '\t') i++;
    const c = s[i++];
    // The command itself is only known at run time (`sed "$SCRIPT"`).
    if (c === undefined && sawDyn) out.unknown = true;
    sawDyn = false;
    switch (c) {
      case '{':
      case '}':
      case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F':
        break;
      case 's': {
        const d = s[i++];
        delimited(d);
        const repl = delimited(d);
        let flags = '';
        while (i < s.length && /[gpiImMe0-9w]/.test(s[i])) {
          if (s[i] === 'w') {
            i++;
            out.writes.push(toEol().trim());
            break;
          }
          flags += s[i++];
        }
        if (flags.includes('e')) {
          out.runsInput = true;
          out.replacements.push(repl);
        }
        break;
      }
      case 'y': {
        const d = s[i++];
        delimited(d);
        delimited(d);
        break;
      }
      case 'a': case 'i': case 'c': {
        // Text to the end of the line, continued by a trailing backslash.
        let line = toEol();
        while (line.endsWith('\\') && i < s.length) line = toEol();
        break;
      }
      case 'r': case 'R':
        toEol();
        break;
      case 'w': case 'W':
        out.writes.push(toEol().trim());
        break;
      case 'e': {
        const cmd = toEol().replace(/[;}]\s*$/, '').trim();
        if (cmd) out.exec.push(cmd);
        else out.runsInput = true;
        break;
      }
      case 'b': case 't': case 'T': case ':': case 'q': case 'Q': case 'l': case 'L': case 'v':
        while (i < s.length && s[i] !== ';' && s[i] !== '\n' && s[i] !== '}') i++;
        break;
      default:
        if (c === DYN) out.unknown = true;
        return out; // not sed: it stops with an error
    }
  }
  return out;
}

/** sed's scripts: -e/--expression values, else the first operand (-f files are not visible). */
function sedScripts(args: string[]): { scripts: string[]; files: string[]; sandbox: boolean; inPlace: boolean } {
  const p = parseRunner(args, { v: 'efl', lv: ['--expression', '--file', '--line-length'], permute: true });
  const scripts = [...(p.opts.get('-e') ?? []), ...(p.opts.get('--expression') ?? [])];
  const given = scripts.length > 0 || p.opts.has('-f') || p.opts.has('--file');
  const ops = p.operands;
  if (!given && ops.length > 1) scripts.push(ops[0]);
  // `sed -i FILE` without a script fails, but its one operand is still the file meant.
  const files = given || ops.length === 1 ? ops : ops.slice(1);
  const inPlace = args.some((a) => a.startsWith('--in-place') || (/^-[A-Za-z]*i/.test(a) && !a.startsWith('--')));
  return { scripts: !given && ops.length === 1 ? [ops[0]] : scripts, files, sandbox: p.opts.has('--sandbox'), inPlace };
}

/** sed: in-place edits, files written by `w`, commands run by `e` and `s///e`. */
export function sed(args: string[], scope: Scope, input?: string | null): void {
  const { scripts, files, sandbox, inPlace } = sedScripts(args);
  if (inPlace) for (const t of files) checkWriteTarget(t, scope, 'edit');
  if (sandbox) return;
  for (const script of scripts) {
    const r = scanSed(script);
    for (const w of r.writes) if (w && !/^\/dev\/(stdout|stderr)$/.test(w)) checkWriteTarget(w, scope);
    for (const e of r.exec) runString(e, scope, "sed's e command");
    if (r.unknown) add(scope, F.runnerUnknown('sed'));
    if (!r.runsInput) continue;
    add(scope, F.sedExec);
    for (const repl of r.replacements) if (repl.trim()) runString(repl.replace(/\\n/g, '\n'), scope, 'sed s///e');
    if (input) for (const line of input.split('\n')) if (line.trim()) runString(line, scope, "sed's e command");
  }
}

/** The pattern space is run (sed `e`, `s///e`): the text fed to sed is a script. */
export function sedRunsInput(args: string[]): boolean {
  const { scripts, sandbox } = sedScripts(args);
  return !sandbox && scripts.some((s) => scanSed(s).runsInput);
}

// -------------------------------------------------------------------------------------------
// vim / ex

const VIM_NAMES = new Set(['vi', 'vim', 'nvim', 'view', 'vimdiff', 'gvim', 'ex', 'evim', 'gview', 'nvi', 'elvis', 'vile']);
export const isVim = (n: string): boolean => VIM_NAMES.has(n);

const INLINE_LANGS: [RegExp, string][] = [
  [/^(py|python|py3|python3|pyx|pythonx|pydo|py3do|pyxdo|pyfile|py3file)\b/, 'python'],
  [/^(perl|perldo)\b/, 'perl'],
  [/^(rub|ruby|rubydo)\b/, 'ruby'],
  [/^(lua|luado)\b/, 'lua'],
];

/** One ex command line (`:…`): shell escapes and programs it runs; true when it writes a file. */
export function exCommand(line: string, scope: Scope, via: string, depth = 0): boolean {
  let c = line.trim().replace(/^[:\s]+/, '');
  // A range: %, numbers, ., $, marks, patterns, with , and ; between.
  c = c.replace(/^(?:[%.$\d+-]|'[a-z<>]|\/(?:\\.|[^/])*\/|\?(?:\\.|[^?])*\?|[,;])+/i, '').trimStart();
  c = c.replace(/^sil(?:ent)?!?\s*/, '');
  if (c.startsWith('!')) {
    runString(c.slice(1), scope, via);
    return false;
  }
  const m = /^(r|re|rea|read)\s*!(.*)$/s.exec(c) ?? /^(w|wr|wri|writ|write)\s+!(.*)$/s.exec(c) ?? /^(ter|term|termi|termin|termina|terminal)\s*(?:\+\+\S+\s*)*(.*)$/s.exec(c);
  if (m) {
    if (m[2].trim()) runString(m[2], scope, via);
    return false;
  }
  for (const [re, lang] of INLINE_LANGS)
    if (re.test(c)) {
      add(scope, F.scriptExec(`${lang} (inside ${via.split(' ')[0]})`));
      checkInlineCode(lang, c.replace(re, '').replace(/^\s*<<\s*\w*\s*/, ''), scope);
      return false;
    }
  for (const s of c.matchAll(/\b(?:system|systemlist|jobstart|termopen)\s*\(\s*(?:\[\s*)?(['"])((?:\\.|(?!\1).)*)\1/g)) runString(s[2], scope, via);
  const exe = /^exe(?:c|cu|cut|cute)?\s+(['"])(.*)\1\s*$/s.exec(c);
  if (exe && depth < 4) return exCommand(exe[2], scope, via, depth + 1);
  const set = /^(?:se|set|setl|setlocal|setg|setglobal)\s+(shell|sh|makeprg|mp|grepprg|gp|equalprg|ep|formatprg|fp|keywordprg|kp)\s*[:=]\s*(.*)$/.exec(c);
  if (set) runString(set[2].replace(/\\ /g, ' '), scope, `${via} ${set[1]}`);
  // `|` separates commands (after `!` it belongs to the shell command, handled above).
  const bar = c.search(/(?<!\\)\|/);
  let writes = /^(w|wr|wri|writ|write|wq|wqa|wqall|wa|wall|x|xa|xal|xall|xit|exi|exit|up|upd|upda|updat|update|sav|saveas)\b/.test(c);
  const wfile = /^(?:w|wr|wri|writ|write|sav|saveas)!?\s+([^|!\s][^|]*)$/.exec(c.slice(0, bar < 0 ? undefined : bar));
  if (wfile) checkWriteTarget(wfile[1].trim(), scope);
  if (bar >= 0 && depth < 8) writes = exCommand(c.slice(bar + 1), scope, via, depth + 1) || writes;
  return writes;
}

const VIM: { v: string; lv: string[] } = { v: 'cSuUiTwWqtrVo', lv: ['--cmd', '--remote-send', '--remote-expr', '--servername', '--startuptime', '--listen', '--remote', '--remote-silent', '--remote-wait', '--remote-tab'] };

/** vim and friends: -c/+/--cmd commands, --remote-send keys; scripted edits write their files. */
export function vim(name: string, args: string[], scope: Scope, stdin: string[]): void {
  const cmds: string[] = [];
  const plus: string[] = [];
  const rest = args.filter((a) => {
    if (/^\+.+/.test(a)) {
      plus.push(a.slice(1));
      return false;
    }
    return true;
  });
  const p = parseRunner(rest, { ...VIM, permute: true });
  if (p.opts.has('-Z') || name === 'rvim' || name === 'rview') return;
  cmds.push(...plus, ...(p.opts.get('-c') ?? []), ...(p.opts.get('--cmd') ?? []));
  for (const w of [...(p.opts.get('-w') ?? []), ...(p.opts.get('-W') ?? []), ...(p.opts.get('--startuptime') ?? [])]) checkWriteTarget(w, scope);
  // Keys sent to a running vim: `:cmd<CR>` lines are ex commands.
  for (const keys of p.opts.get('--remote-send') ?? []) for (const m of keys.matchAll(/:([^<\n]*)(?:<CR>|<Enter>|<Return>|\n|\r)/gi)) cmds.push(m[1]);
  for (const e of p.opts.get('--remote-expr') ?? []) exCommand(`call ${e}`, scope, `${name} --remote-expr`);
  // Ex mode (`ex`, `vim -e`/`-es`) reads its commands from stdin.
  const exMode = name === 'ex' || p.opts.has('-e') || p.opts.has('-E');
  const stdinCmds = exMode && !p.operands.includes('-') ? stdin.flatMap((t) => t.split('\n')) : [];
  let writes = false;
  for (const c of [...cmds, ...stdinCmds]) writes = exCommand(c, scope, `${name} -c`) || writes;
  if (writes) for (const f of p.operands) if (f !== '-') checkWriteTarget(f, scope, 'edit');
}

// -------------------------------------------------------------------------------------------
// ed, less, gdb, lldb

/** ed's commands (stdin): `!cmd`, `r !cmd`, `w !cmd`, `e !cmd`; `w` writes the file. */
export function ed(args: string[], scope: Scope, stdin: string[]): void {
  const p = parseRunner(args, { v: 'p', permute: true });
  let writes = false;
  for (const text of stdin)
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      const m = /^(?:[\d.$,;+-]*)(?:[rweE]\s*)?!(.*)$/.exec(line);
      if (m) runString(m[1], scope, 'ed !');
      else if (/^[\d.$,;+-]*(w|wq|W)(\s|$)/.test(line)) {
        writes = true;
        const f = /^[\d.$,;+-]*(?:w|wq|W)\s+(\S.*)$/.exec(line);
        if (f) checkWriteTarget(f[1], scope);
      }
    }
  if (writes) for (const f of p.operands) if (!f.startsWith('!')) checkWriteTarget(f, scope, 'edit');
}

/** less/more: `+!cmd` runs a shell command at start. */
export function less(args: string[], scope: Scope): void {
  for (const a of args) {
    const m = /^\+{1,2}(?:[^!]*)!(.*)$/s.exec(a);
    if (m) runString(m[1], scope, 'less +!');
  }
}

/** One gdb command: `shell`/`!`/`pipe`/`|` run a shell command, `python` inline code, `run` the program. */
function gdbCommand(c: string, scope: Scope, inferior: string[] | null): void {
  const line = c.trim();
  let m = /^(?:shell\s+|!)(.*)$/s.exec(line);
  if (m) return runString(m[1], scope, 'gdb shell');
  m = /^(?:pipe|\|)\s+.*?\|\s*(.*)$/s.exec(line);
  if (m) return runString(m[1], scope, 'gdb pipe');
  m = /^(?:python|py|python-interactive|pi)\s+(.*)$/s.exec(line);
  if (m) {
    add(scope, F.scriptExec('python (inside gdb)'));
    return checkInlineCode('python', m[1], scope);
  }
  m = /^(?:platform\s+shell|script)\s+(.*)$/s.exec(line);
  if (m) return line.startsWith('script') ? (add(scope, F.scriptExec('python (inside lldb)')), checkInlineCode('python', m[1], scope)) : runString(m[1], scope, 'lldb platform shell');
  for (const s of line.matchAll(/\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"/g)) runString(s[1], scope, 'gdb call system');
  if (inferior && /^(r|run|start|starti|process\s+launch)(\s|$)/.test(line)) command(inferior, scope);
}

export function gdb(name: string, args: string[], scope: Scope, stdin: string[]): void {
  const lldb = name === 'lldb';
  const ai = args.indexOf(lldb ? '--' : '--args');
  const own = ai >= 0 ? args.slice(0, ai) : args;
  const inferior = ai >= 0 ? args.slice(ai + 1) : null;
  const p = parseRunner(own, lldb ? { v: 'oOkKsSaPpnc', lv: ['--one-line', '--one-line-before-file', '--one-line-on-crash', '--source', '--source-before-file', '--arch', '--attach-pid', '--attach-name', '--core', '--file'] } : { v: 'xpcdsebi', lv: ['-ex', '--ex', '-eval-command', '--eval-command', '-iex', '--init-eval-command', '-x', '--command', '-ix', '--init-command', '--pid', '--core', '--cd', '--directory', '--symbols', '--exec', '--se', '--tty', '--data-directory', '--interpreter'] });
  const cmds = lldb
    ? [...['-o', '--one-line', '-O', '--one-line-before-file', '-k', '--one-line-on-crash', '-K'].flatMap((o) => p.opts.get(o) ?? [])]
    : [...['-ex', '--ex', '-eval-command', '--eval-command', '-iex', '--init-eval-command'].flatMap((o) => p.opts.get(o) ?? [])];
  // gdb's own long options are also written with one dash (`-ex`, `-batch`).
  for (let i = 0; !lldb && i < own.length; i++) if (own[i] === '-ex' || own[i] === '-iex') cmds.push(own[i + 1] ?? '');
  const batch = own.includes('-batch') || own.includes('--batch');
  if (!batch) cmds.push(...stdin.flatMap((t) => t.split('\n')));
  for (const c of new Set(cmds)) gdbCommand(c, scope, inferior);
}

// -------------------------------------------------------------------------------------------
// make

/** The commands of a makefile: recipe lines (a tab first), `target: ; cmd`, and `$(shell …)`. */
export function makefileCommands(text: string, scope: Scope): void {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const line of lines) {
    const recipe = line.startsWith('\t') ? line.slice(1) : /^[^\t#=]*:[^=]*;(.*)$/.exec(line)?.[1];
    if (recipe !== undefined && recipe.trim()) runString(recipe.replace(/^[\s@+-]+/, '').replace(/\$\$/g, '$'), scope, 'a makefile');
  }
  for (const m of text.matchAll(/\$[({]shell\s+([^)}]*)[)}]/g)) runString(m[1], scope, 'make $(shell)');
}

/** make: a makefile from stdin (`-f -`, `-f /dev/stdin`) or `--eval` text. */
export function make(args: string[], scope: Scope, stdin: string[]): boolean {
  const p = parseRunner(args, { v: 'fCIjlWoE', lv: ['--file', '--makefile', '--directory', '--include-dir', '--jobs', '--load-average', '--what-if', '--new-file', '--assume-new', '--old-file', '--assume-old', '--eval'], permute: true });
  for (const e of [...(p.opts.get('-E') ?? []), ...(p.opts.get('--eval') ?? [])]) makefileCommands(e.replace(/\\n/g, '\n').replace(/\\t/g, '\t'), scope);
  const files = [...(p.opts.get('-f') ?? []), ...(p.opts.get('--file') ?? []), ...(p.opts.get('--makefile') ?? [])];
  const fromStdin = files.some((f) => f === '-' || f === '/dev/stdin' || f === '/proc/self/fd/0' || f === '/dev/fd/0');
  if (fromStdin) for (const s of stdin) makefileCommands(s, scope);
  return fromStdin;
}

/** make reads its makefile from stdin. */
export function makeReadsStdin(args: string[]): boolean {
  const p = parseRunner(args, { v: 'fCIjlWoE', lv: ['--file', '--makefile', '--directory', '--include-dir', '--jobs', '--load-average', '--what-if', '--new-file', '--assume-new', '--old-file', '--assume-old', '--eval'], permute: true });
  return [...(p.opts.get('-f') ?? []), ...(p.opts.get('--file') ?? []), ...(p.opts.get('--makefile') ?? [])].some((f) => f === '-' || f === '/dev/stdin' || f === '/proc/self/fd/0' || f === '/dev/fd/0');
}
