// Terminal multiplexers run the command they are given in a new window or pane, or type it into
// one: tmux (new-session, new-window, split-window, respawn-*, run-shell, if-shell, send-keys,
// pipe-pane, display-popup, hooks, bindings, default-command, and `;`-chained commands) and
// screen (the window command, `-X stuff`/`exec`/`screen`/`eval`). The command is classified.
import { wordLiteral } from '../shell-lex.ts';
import { parseShell, type Node } from '../shell-parse.ts';
import type { Scope } from './context.ts';
import { addFinding, F } from './findings.ts';
import { parseRunner, runString, type Runner } from './runners.ts';
import { command } from './walk.ts';

type Kind = 'shell' | 'keys' | 'run' | 'if' | 'tmux' | 'bind' | 'hook' | 'option';
const T = (v: string, kind: Kind, extra: Partial<Runner> = {}): { spec: Runner; kind: Kind } => ({ spec: { v, ...extra }, kind });

const TMUX: Record<string, { spec: Runner; kind: Kind }> = {};
for (const [names, def] of [
  [['new-session', 'new'], T('cefFnstxy', 'shell')],
  [['new-window', 'neww'], T('cefFnt', 'shell')],
  [['split-window', 'splitw'], T('celFt', 'shell')],
  [['respawn-pane', 'respawnp', 'respawn-window', 'respawnw'], T('cet', 'shell')],
  [['pipe-pane', 'pipep'], T('t', 'shell')],
  [['display-popup', 'popup'], T('bcdehsStTwxy', 'shell')],
  [['run-shell', 'run'], T('dt', 'run')],
  [['if-shell', 'if'], T('t', 'if')],
  [['send-keys', 'send'], T('Nt', 'keys')],
  [['confirm-before', 'confirm'], T('cpt', 'tmux')],
  [['command-prompt'], T('IptT', 'tmux')],
  [['bind-key', 'bind'], T('NT', 'bind')],
  [['set-hook'], T('t', 'hook')],
  [['set-option', 'set', 'set-window-option', 'setw'], T('t', 'option')],
] as [string[], { spec: Runner; kind: Kind }][])
  for (const n of names) TMUX[n] = def;

/** What `send-keys` types: key names become what they send; Enter runs the line. */
function typedText(keys: string[], literal: boolean): string {
  let out = '';
  for (const k of keys) {
    if (literal) out += k;
    else if (/^(Enter|KPEnter|C-m|C-j|M-Enter)$/i.test(k)) out += '\n';
    else if (/^Space$/i.test(k)) out += ' ';
    else if (/^Tab$/i.test(k)) out += '\t';
    else if (/^(BSpace|Escape|BTab|Up|Down|Left|Right|Home|End|PageUp|PageDown|PPage|NPage|IC|DC|F\d+|[CMS]-.+)$/i.test(k)) continue;
    else out += k;
  }
  return out;
}

/** A tmux or screen command line as they parse it (shell-like quoting, `;` between commands): argv each. */
function words(text: string, scope: Scope): string[][] {
  let ast: Node;
  try {
    ast = parseShell(text, scope.depth + 1);
  } catch {
    addFinding(scope.findings, F.unparsable('a tmux or screen command string'));
    return [];
  }
  const out: string[][] = [];
  const visit = (n: Node) => {
    if (n.type === 'list') for (const it of n.items) visit(it.node);
    else if (n.type === 'pipeline') for (const c of n.cmds) visit(c);
    else if (n.type === 'simple' && n.words.length) out.push(n.words.map(wordLiteral));
  };
  visit(ast);
  return out;
}

function tmuxString(text: string, scope: Scope): void {
  for (const argv of words(text, scope)) tmuxCommand(argv, scope);
}

function tmuxCommand(argv: string[], scope: Scope): void {
  const def = TMUX[argv[0] ?? ''];
  if (!def) return;
  const via = `tmux ${argv[0]}`;
  const p = parseRunner(argv.slice(1), def.spec);
  const ops = p.operands;
  switch (def.kind) {
    case 'shell':
      if (ops.length) runString(ops.join(' '), scope, via);
      return;
    case 'run':
      if (!ops.length) return;
      if (p.opts.has('-C')) return tmuxString(ops.join(' '), scope);
      return runString(ops.join(' '), scope, via);
    case 'if':
      if (ops[0] !== undefined && !p.opts.has('-F')) runString(ops[0], scope, via);
      for (const c of ops.slice(1)) tmuxString(c, scope);
      return;
    case 'keys':
      if (p.opts.has('-X')) return;
      if (ops.length) runString(typedText(ops, p.opts.has('-l')), scope, via);
      return;
    case 'tmux':
      for (const c of ops) tmuxString(c, scope);
      return;
    case 'bind':
      if (ops.length > 1) tmuxCommand(ops.slice(1), scope);
      return;
    case 'hook':
      if (ops[1] !== undefined) tmuxString(ops[1], scope);
      return;
    case 'option':
      if (/^default-(command|shell)$/.test(ops[0] ?? '') && ops[1] !== undefined) runString(ops[1], scope, `tmux set ${ops[0]}`);
      return;
  }
}

/** tmux [-c shell-command] [options] command [args] [; command …] */
export function tmux(args: string[], scope: Scope): void {
  let i = 0;
  while (i < args.length && args[i].startsWith('-') && args[i] !== '--') {
    const a = args[i];
    let consumed = 1;
    for (let k = 1; k < a.length; k++) {
      if (!'cfLST'.includes(a[k])) continue;
      const value = k < a.length - 1 ? a.slice(k + 1) : args[i + 1];
      if (k === a.length - 1) consumed = 2;
      if (a[k] === 'c' && value !== undefined) runString(value, scope, 'tmux -c');
      break;
    }
    i += consumed;
  }
  if (args[i] === '--') i++;
  // Commands separated by `;` words (written `\;` or `';'`).
  let cur: string[] = [];
  for (const a of [...args.slice(i), ';']) {
    if (a === ';' || (a.endsWith('\\;') && a.length > 2)) {
      if (a !== ';') cur.push(a.slice(0, -2));
      if (cur.length) tmuxCommand(cur, scope);
      cur = [];
    } else cur.push(a);
  }
}

/** screen's `stuff` text: `^M`, `\n`, `\r`, `\015` end a line. */
function stuffText(s: string): string {
  return s.replace(/\^[MJ]|\\[nr]|\\01[25]/g, '\n');
}

/** A screen command (`-X …`, `eval`, `bind key …`). */
function screenCommand(argv: string[], scope: Scope): void {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'stuff':
      if (rest.length) runString(stuffText(rest.join(' ')), scope, 'screen stuff');
      return;
    case 'exec': {
      // An optional fd pattern (`exec !..|`, `exec ...`) comes first.
      const r = rest[0] && /^[.!:|]+$/.test(rest[0]) ? rest.slice(1) : rest;
      if (r.length) command(r, scope);
      return;
    }
    case 'screen':
      return screenWindow(rest, scope);
    case 'eval':
      for (const c of rest) for (const argv of words(c, scope)) screenCommand(argv, scope);
      return;
    case 'bind':
    case 'at':
      if (rest.length > 1) screenCommand(rest.slice(1), scope);
      return;
    case 'shell':
    case 'defshell':
      if (rest[0]) runString(rest[0], scope, `screen ${cmd}`);
      return;
    default:
      return;
  }
}

/** The window screen opens: `screen [-t title …] cmd args`. */
function screenWindow(args: string[], scope: Scope): void {
  const p = parseRunner(args, { v: 'aAhMtTLl' });
  if (p.operands.length) command(p.operands, scope);
}

/** screen [options] [cmd [args]] — or `-X command` to an existing session. */
export function screen(args: string[], scope: Scope): void {
  let i = 0;
  let cmdMode = false;
  let attach = false;
  let detachOnly = false;
  let started = false;
  while (i < args.length && args[i].startsWith('-')) {
    const a = args[i];
    if (['-ls', '-list', '-wipe', '-v', '-Q', '-version'].includes(a)) attach = true;
    if (['-Logfile', '-fn', '-fa', '-ln'].includes(a)) {
      i += a === '-Logfile' ? 2 : 1;
      continue;
    }
    let consumed = 1;
    for (let k = 1; k < a.length; k++) {
      const c = a[k];
      if (c === 'X') cmdMode = true;
      else if (c === 'r' || c === 'R' || c === 'x') attach = true;
      else if (c === 'd' || c === 'D') detachOnly = true;
      else if (c === 'm') started = true;
      if ('cehpSsTt'.includes(c)) {
        const value = k < a.length - 1 ? a.slice(k + 1) : args[i + 1];
        if (k === a.length - 1) consumed = 2;
        if (c === 's' && value !== undefined) runString(value, scope, 'screen -s');
        break;
      }
    }
    i += consumed;
  }
  const rest = args.slice(i);
  if (cmdMode) {
    if (rest.length) screenCommand(rest, scope);
    return;
  }
  if (attach || (detachOnly && !started)) return;
  if (rest.length) command(rest, scope);
}
