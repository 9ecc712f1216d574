// Walking the parsed command: lists, pipelines, groups, loops and functions; programs that run
// another command unwrapped (runners.ts and friends: sudo, env, timeout, su -c, ssh, tmux, docker
// exec, git -c, …); shell strings parsed recursively (sh -c, eval, heredocs, `… | sh`,
// `bash <(…)`); text piped into a program that runs it read as a script; every simple command
// checked against the rules.
import { ShellParseError, wordLiteral } from '../shell-lex.ts';
import { parseShell, type Node } from '../shell-parse.ts';
import { absPath, base, canonPath, DECODE, DOWNLOAD, DYN, elsewhere, PROC, type Scope } from './context.ts';
import { container, kube } from './containers.ts';
import { ed, exCommand, gdb, isVim, less, make, makefileCommands, makeReadsStdin, sed, sedRunsInput, vim } from './editors.ts';
import { DECODERS, DOWNLOADERS, expandWord, pipelineOutput, stdinTexts } from './expand.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { globToRegExp, hasGlob } from './glob.ts';
import { tmux, screen } from './multiplexers.ts';
import { awk, checkInlineCode, checkSql, interpreter, interpreterFamily, SQL_CLIENTS } from './rules-code.ts';
import { devRules } from './rules-dev.ts';
import { secretReads, sqlite, sqlShellEscapes } from './rules-files.ts';
import { fileAndSystemRules, recursiveDelete, rootish } from './rules.ts';
import { parseRunner, runRunner } from './runners.ts';
import { alias, assignment, at, bwrap, cronCommands, crontab, DELETERS, env, expect, fd, hyperfine, netcat, parallel, scp, socat, ssh, sshReadsStdin, su, sudo, systemdRun, trap, XARGS, xargs } from './runners-shell.ts';
import { BLOCK_DEVICE, checkRedirects, checkWriteTarget, isSecretPath } from './targets.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'busybox-sh', 'rbash', 'tcsh', 'csh', 'yash', 'posh']);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);
/** Names a glob in command position is resolved against (`/bin/r?` → rm). */
const DANGEROUS_NAMES = ['rm', 'dd', 'mkfs', 'chmod', 'chown', 'shred', 'wipefs', 'kill', 'pkill', 'killall', 'systemctl', 'shutdown', 'reboot', 'halt', 'poweroff', 'find', 'xargs', 'sh', 'bash', 'zsh', 'eval', 'sudo', 'curl', 'wget', 'truncate', 'docker', 'crontab', 'iptables', 'init', 'telinit', 'tmux', 'screen', 'script', 'sfdisk', 'parted', 'loginctl'];
/** Paths that are a process's standard input. */
const STDIN_FILES = new Set(['/dev/stdin', '/proc/self/fd/0', '/dev/fd/0', '/proc/thread-self/fd/0']);

export function analyzeScript(src: string, scope: Scope): void {
  if (scope.depth > 12) return add(scope, F.unparsable('nested too deeply'));
  let ast: Node;
  try {
    ast = parseShell(src, scope.depth + 1);
  } catch (e) {
    fallbackRegex(src, scope);
    return add(scope, F.unparsable(e instanceof ShellParseError ? e.message : 'parse failure'));
  }
  walk(ast, { ...scope, depth: scope.depth + 1 });
}

/** Patterns checked on the raw text when parsing failed (quotes stripped): fail closed. */
export function fallbackRegex(src: string, scope: Scope): void {
  const t = src.replace(/["'\\]/g, '').replace(/\s+/g, ' ');
  if (/\brm\s+(-\S*\s+)*-\S*[rR]\S*\s+(-\S+\s+)*(\/|~)(\s|\*|$)/.test(t) || /--no-preserve-root/.test(t)) add(scope, F.rootDelete('/'));
  if (/(\S+)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&/.test(t)) add(scope, F.forkBomb);
  if (/\bmkfs(\.\w+)?\s+.*\/dev\//.test(t)) add(scope, F.formatDevice);
  if (/\bdd\b.*\bof=\/dev\/(sd|nvme|hd|vd|xvd|mmcblk)/.test(t)) add(scope, F.ddDevice);
  if (/(^|[;&|(`]\s*)(sudo\s+)?(shutdown|reboot|halt|poweroff)\b/.test(t)) add(scope, F.power);
}

export function walk(node: Node, scope: Scope): void {
  switch (node.type) {
    case 'list':
      for (const it of node.items) {
        if (it.op !== '&') {
          walk(it.node, scope);
          continue;
        }
        const d = scope.detached;
        scope.detached = true;
        walk(it.node, scope);
        scope.detached = d;
      }
      return;
    case 'pipeline':
      for (const c of node.cmds) walk(c, scope);
      checkPipeline(node.cmds, scope);
      return;
    case 'group': {
      const cwd = scope.cwd;
      walk(node.body, scope);
      if (node.subshell) scope.cwd = cwd;
      checkRedirects(node.redirects, scope);
      return;
    }
    case 'loop': {
      if (node.cond) walk(node.cond, scope);
      for (const w of node.words) expandWord(w, scope);
      walk(node.body, scope);
      checkRedirects(node.redirects, scope);
      if (loopForks(node)) add(scope, F.forkBomb);
      return;
    }
    case 'function':
      scope.functions.add(node.name);
      if (callsItself(node.body, node.name)) add(scope, F.forkBomb);
      walk(node.body, scope);
      return;
    case 'arith':
      return;
    case 'header':
      for (const w of node.words) expandWord(w, scope);
      return;
    case 'simple':
      simple(node, scope);
      return;
  }
}

/** A function whose body runs itself in a pipe or in the background: a fork bomb. */
function callsItself(body: Node, name: string): boolean {
  let hit = false;
  const visit = (n: Node, piped: boolean) => {
    if (hit) return;
    if (n.type === 'list') for (const it of n.items) visit(it.node, piped || it.op === '&');
    else if (n.type === 'pipeline') for (const c of n.cmds) visit(c, piped || n.cmds.length > 1);
    else if (n.type === 'group') visit(n.body, piped);
    else if (n.type === 'simple' && piped && n.words[0] && wordLiteral(n.words[0]) === name) hit = true;
  };
  visit(body, false);
  return hit;
}

const literal = (n: Node): string | null => (n.type === 'simple' && n.words.length ? wordLiteral(n.words[0]) : null);

/**
 * An endless loop that starts background processes with nothing in the foreground to wait:
 * `while true; do $0 & done`, `for ((;;)); do sh -c x & done` — a fork bomb.
 */
function loopForks(node: Extract<Node, { type: 'loop' }>): boolean {
  const cond = node.cond?.type === 'list' && node.cond.items.length === 1 ? node.cond.items[0].node : node.cond;
  const word = cond ? literal(cond) : null;
  const endless =
    (node.kind === 'while' && (word === 'true' || word === ':' || (cond?.type === 'arith' && /^\s*[1-9]\d*\s*$/.test(cond.src)) || (cond?.type === 'simple' && /^\[\[?$/.test(word ?? '') && cond.words.length <= 3 && /^[1-9x]/.test(wordLiteral(cond.words[1] ?? cond.words[0]))))) ||
    (node.kind === 'until' && (word === 'false' || (cond?.type === 'pipeline' && cond.negated && cond.cmds.length === 1 && ['true', ':'].includes(literal(cond.cmds[0]) ?? '')))) ||
    (node.kind === 'for' && node.arith !== undefined && /^\s*[^;]*;\s*;/.test(node.arith));
  if (!endless || node.body.type !== 'list') return false;
  const items = node.body.items;
  const background = items.some((it) => it.op === '&');
  const waits = items.some((it) => it.op !== '&' && ['sleep', 'wait', 'read', 'timeout', 'inotifywait', 'nc', 'ncat'].includes(literal(it.node) ?? ''));
  return background && !waits;
}

function changeDir(args: string[], scope: Scope): void {
  const t = args.filter((a) => a !== '--' && !/^-[LPe@]+$/.test(a))[0];
  if (t === undefined) scope.cwd = scope.ctx.home || null;
  else if (t === '-') scope.cwd = null;
  else {
    const c = canonPath(t, scope);
    scope.cwd = c && /^[/~@]/.test(c) ? absPath(c, scope) : null;
  }
}

function simple(node: Extract<Node, { type: 'simple' }>, scope: Scope): void {
  for (const a of node.assigns) {
    const v = expandWord(a.value, scope, false).join(' ');
    assignment(a.name, v, scope);
    if (!node.words.length) {
      if (v.includes(DYN)) scope.vars.delete(a.name);
      else scope.vars.set(a.name, a.append ? (scope.vars.get(a.name) ?? '') + v : v);
    }
  }
  checkRedirects(node.redirects, scope);
  if (!node.words.length) return;
  const argv = node.words.flatMap((w) => expandWord(w, scope));
  if (!argv.length) return;
  const n0 = base(argv[0]);
  // Assignments made by `export X=…`, `declare X=…`, `local`, `readonly`, `typeset`.
  if (['export', 'declare', 'local', 'readonly', 'typeset'].includes(n0)) {
    for (const a of argv.slice(1)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a);
      if (!m) continue;
      assignment(m[1], m[2], scope);
      if (m[2].includes(DYN)) scope.vars.delete(m[1]);
      else scope.vars.set(m[1], m[2]);
    }
    return;
  }
  if (n0 === 'cd' || n0 === 'pushd') {
    scope.commands.push(argv);
    return changeDir(argv.slice(1), scope);
  }
  const raw = node.words.length === argv.length ? node.words.map((w) => w.raw) : undefined;
  // `bash < <(curl …)`: stdin read from a file (a process substitution, mostly).
  const from = node.redirects.find((r) => r.op === '<' && r.target && (r.fd === null || r.fd === 0));
  command(argv, scope, stdinTexts(node, scope), raw, from?.target ? expandWord(from.target, { ...scope, findings: [], commands: [] }, false).join(' ') : undefined);
}

/** Resolves the name a glob in command position would hit (`/bin/r?`) to a dangerous command. */
function resolveName(raw: string): string {
  const name = base(raw);
  if (!hasGlob(name)) return name;
  const re = globToRegExp(name);
  return DANGEROUS_NAMES.find((d) => re.test(d)) ?? name;
}

/** Option parsing for wrappers: skips flags (and their values) and returns the inner argv. */
export function skipOptions(args: string[], withValue: Set<string>, opts: { longWithValue?: Set<string> } = {}): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === '--') return args.slice(i + 1);
    if (!a.startsWith('-') || a === '-') break;
    if (a.startsWith('--')) {
      const name = a.split('=')[0];
      i += opts.longWithValue?.has(name) && !a.includes('=') ? 2 : 1;
      continue;
    }
    // Cluster like -nE or -u root / -uroot
    const flags = a.slice(1);
    let consumed = 1;
    for (let k = 0; k < flags.length; k++) {
      if (withValue.has(flags[k])) {
        if (k === flags.length - 1) consumed = 2;
        break;
      }
    }
    i += consumed;
  }
  return args.slice(i);
}

/** A shell's arguments: its -c script, or the script file and its args, or stdin (-s, or nothing). */
function shellScriptArg(args: string[]): { script: string | null; rest: string[]; readsStdin: boolean } {
  // bash [opts] -c 'script' [name args] | bash [opts] file | bash -s / bash (stdin)
  let i = 0;
  let hasC = false;
  let readsStdin = false;
  while (i < args.length) {
    const a = args[i];
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (a.startsWith('--')) {
      i += a === '--rcfile' || a === '--init-file' ? 2 : 1;
      continue;
    }
    if (a.startsWith('-') || a.startsWith('+')) {
      if (a.slice(1).includes('c')) hasC = true;
      if (a.slice(1).includes('s')) readsStdin = true;
      // -o/-O (alone or ending a bundle) take the next argument.
      i += /[oO]$/.test(a) ? 2 : 1;
      continue;
    }
    break;
  }
  if (hasC) return { script: args[i] ?? '', rest: args.slice(i + 1), readsStdin: false };
  // With -s the operands are the script's arguments, not a script file.
  return { script: null, rest: readsStdin ? [] : args.slice(i), readsStdin: readsStdin || i >= args.length };
}

/** A shell string that is (partly) the output of a command: `sh -c "$(curl …)"`, `eval $(…)`. */
function checkDynamicScript(script: string, scope: Scope): void {
  if (script.includes(DOWNLOAD)) add(scope, F.pipeShell);
  else if (script.includes(DECODE)) add(scope, F.decodeShell);
  else if (script.includes(`${DYN}$(…)`)) add(scope, F.dynamicShell);
}

/**
 * A script file given to a shell or `source`: `bash <(curl …)`, `source <(echo … | base64 -d)`,
 * `source /dev/stdin <<< …` (`stdin`: the text fed to it, when known).
 */
export function runScriptFile(file: string, scope: Scope, stdin: string[] = []): void {
  if (STDIN_FILES.has(file)) {
    if (stdin.length) add(scope, F.shellHeredoc);
    for (const t of stdin) analyzeScript(t, scope);
    return;
  }
  if (isSecretPath(file, scope)) add(scope, F.secretRead);
  const pm = file.indexOf(PROC);
  if (pm >= 0) {
    const p = scope.procs[Number(file.slice(pm + 1))];
    if (p) {
      add(scope, p.marks.includes(DOWNLOAD) ? F.pipeShell : p.marks.includes(DECODE) ? F.decodeShell : F.pipedScript);
      analyzeScript(p.text, scope);
    }
    return;
  }
  if (file.includes(DOWNLOAD)) add(scope, F.pipeShell);
  else if (file.includes(DECODE)) add(scope, F.decodeShell);
  else if (file.startsWith('/dev/fd/') && file.includes(DYN)) add(scope, F.dynamicShell);
}

/** `gateway run` started detached (`&`, nohup, setsid) instead of through its service manager. */
function startsGatewayDetached(argv: string[]): boolean {
  for (let i = 0; i + 1 < argv.length; i++) if (argv[i] === 'gateway' && argv[i + 1] === 'run') return true;
  return false;
}

const FIND_SELECTIVE = /^-(i?name|i?path|i?wholename|i?regex|newer\w*|[amc](time|min)|size|empty|user|group|perm|links|inum|samefile|lname|uid|gid|nouser|nogroup)$/;

function findCommand(args: string[], scope: Scope): void {
  let i = 0;
  while (i < args.length && (/^-(H|L|P|O\d*)$/.test(args[i]) || args[i] === '-D')) i += args[i] === '-D' ? 2 : 1;
  const starts: string[] = [];
  while (i < args.length && !args[i].startsWith('-') && args[i] !== '(' && args[i] !== '!') starts.push(args[i++]);
  if (!starts.length) starts.push('.');
  let deletes = false;
  let selective = false;
  for (let j = i; j < args.length; j++) {
    const a = args[j];
    if (FIND_SELECTIVE.test(a)) selective = true;
    if (a === '-delete') deletes = true;
    else if (a.startsWith('-') && hasGlob(a) && ['-delete', '-exec', '-execdir', '-ok', '-okdir'].some((f) => globToRegExp(a).test(f))) add(scope, F.findDelete);
    if ((a === '-fprint' || a === '-fprint0' || a === '-fprintf' || a === '-fls') && args[j + 1] !== undefined) checkWriteTarget(args[++j], scope);
    if (a === '-exec' || a === '-execdir' || a === '-ok' || a === '-okdir') {
      let k = j + 1;
      while (k < args.length && args[k] !== ';' && args[k] !== '+') k++;
      const inner = args.slice(j + 1, k).map((x) => (x === '{}' ? 'FOUND_FILE' : x));
      if (['rm', 'shred', 'unlink', 'rmdir'].includes(resolveName(inner[0] ?? ''))) deletes = true;
      // Running a program on every file of the Hermes home reads its secrets.
      if (!['ls', 'stat', 'echo', 'printf', 'basename', 'dirname', 'chmod', 'du', 'file', 'touch', 'test'].includes(resolveName(inner[0] ?? '')) && starts.some((st) => /^@H(profiles(\/[^/]+)?)?$/.test(canonPath(st, scope) ?? ''))) add(scope, F.secretRead);
      command(inner, scope);
      j = k;
    }
  }
  if (!deletes) return;
  add(scope, F.findDelete);
  // Everything under the root or the home directory, with nothing to select what: a wipe.
  if (selective) return;
  for (const s of starts) {
    const r = rootish(s, scope);
    if (r) add(scope, 'home' in r ? F.homeDelete : F.rootDelete(r.root));
  }
}

/** Unwraps the simple wrappers of a pipeline stage (`sudo bash`, `env X=1 python3`). */
function unwrapStage(argv: string[]): string[] {
  for (let k = 0; k < 4 && argv.length; k++) {
    const nm = base(argv[0]);
    const dropAssigns = (a: string[]) => {
      let i = 0;
      while (i < a.length && /^[^=-][^=]*=/.test(a[i])) i++;
      return a.slice(i);
    };
    if (nm === 'sudo' || nm === 'doas') argv = dropAssigns(skipOptions(argv.slice(1), new Set(['u', 'g', 'p', 'C'])));
    else if (nm === 'env') argv = dropAssigns(skipOptions(argv.slice(1), new Set(['u', 'C', 'a'])));
    else if (nm === 'nohup' || nm === 'command' || nm === 'exec' || nm === 'time' || nm === 'setsid' || nm === 'stdbuf') argv = argv.slice(1);
    else if (nm === 'timeout') argv = skipOptions(argv.slice(1), new Set(['s', 'k'])).slice(1);
    else break;
  }
  return argv;
}

/** What a pipeline stage lists, for `… | xargs rm`: `ls DIR` its entries, `find DIR` (unfiltered) all below. */
function listing(stage: string[] | null): { targets: string[]; recursive: boolean } | null {
  if (!stage?.length) return null;
  const nm = resolveName(stage[0]);
  const args = stage.slice(1);
  if (nm === 'ls') {
    const dirs = args.filter((a) => !a.startsWith('-'));
    return { targets: (dirs.length ? dirs : ['.']).map((d) => `${d.replace(/\/+$/, '')}/*`), recursive: false };
  }
  if (nm === 'find') {
    let i = 0;
    while (i < args.length && (/^-(H|L|P|O\d*)$/.test(args[i]) || args[i] === '-D')) i += args[i] === '-D' ? 2 : 1;
    const starts: string[] = [];
    while (i < args.length && !args[i].startsWith('-') && args[i] !== '(' && args[i] !== '!') starts.push(args[i++]);
    if (args.slice(i).some((a) => FIND_SELECTIVE.test(a))) return null;
    return { targets: starts.length ? starts : ['.'], recursive: true };
  }
  return null;
}

/** Programs that read a script or a list to act on from stdin (feedStdin). */
const STDIN_READERS = new Set(['ssh', 'at', 'batch', 'source', '.', 'crontab', 'make', 'gmake', 'ed', 'ex', 'gdb', 'parallel', 'sem', 'sed', 'gsed', 'fdisk', 'gdisk', 'sqlite3', 'sqlite', 'xargs']);

/** Filters a listing passes through unchanged (for `find / | sort | xargs rm`). */
const PASSTHROUGH = new Set(['sort', 'uniq', 'tac', 'cat', 'tee']);

/**
 * Text fed on stdin to a program that runs it: shells (`| sh`, `| source /dev/stdin`), at/batch,
 * make -f -, crontab -, ex/ed/gdb scripts, parallel, sed's `e`, a partitioner's script, sqlite3,
 * and xargs deleting a listing of `/` or the home. `known` is the text when it can be known.
 */
function feedStdin(s: string[], before: string[], text: () => string | null, cmds: Node[], i: number, scope: Scope): void {
  const nm = resolveName(s[0]);
  if (!STDIN_READERS.has(nm) && !isVim(nm)) return;
  const args = s.slice(1);
  const known = text();
  // A script whose text is known is classified like the commands it holds; unknown text asks.
  const script = (s: Scope = scope) => {
    if (before.some((n) => DOWNLOADERS.has(n))) add(scope, F.pipeShell);
    else if (before.some((n) => DECODERS.has(n))) add(scope, F.decodeShell);
    else if (known === null) add(scope, F.pipedScript);
    if (known !== null) analyzeScript(known, s);
  };
  switch (nm) {
    case 'ssh':
      if (sshReadsStdin(args)) script(elsewhere(scope));
      return;
    case 'at':
    case 'batch': {
      const p = parseRunner(args, { v: 'qfut', permute: true, query: ['-l', '-r', '-d', '-c', '-V'] });
      if (!p.query && !p.opts.has('-f')) script();
      return;
    }
    case 'source':
    case '.':
      if (STDIN_FILES.has(args[0] ?? '')) script();
      return;
    case 'crontab':
      if (!args.some((a) => /^-[lrTVe]$/.test(a)) && (args.filter((a) => !a.startsWith('-') || a === '-').every((a) => a === '-'))) {
        add(scope, F.crontabInstall);
        if (known !== null) cronCommands(known, scope);
      }
      return;
    case 'make':
    case 'gmake':
      if (!makeReadsStdin(args)) return;
      if (known === null) add(scope, F.pipedScript);
      else makefileCommands(known, scope);
      return;
    case 'ed':
      if (known !== null) ed(args, scope, [known]);
      else add(scope, F.pipedScript);
      return;
    case 'ex':
      if (known !== null) for (const l of known.split('\n')) exCommand(l, scope, 'ex');
      else add(scope, F.pipedScript);
      return;
    case 'gdb':
      if (!args.includes('-batch') && !args.includes('--batch')) {
        if (known !== null) gdb(nm, args, scope, [known]);
        else add(scope, F.pipedScript);
      }
      return;
    case 'parallel':
    case 'sem':
      return parallel(args, scope, known);
    case 'sed':
    case 'gsed':
      if (known !== null && sedRunsInput(args)) sed(args, scope, known);
      return;
    case 'fdisk':
    case 'gdisk':
      if (args.some((a) => BLOCK_DEVICE.test(a)) && !args.includes('-l')) add(scope, F.partitionTable);
      return;
    case 'sqlite3':
    case 'sqlite':
      return sqlite(args, scope, known === null ? [] : [known], known === null);
    case 'xargs': {
      const run = parseRunner(args, XARGS).operands;
      if (!DELETERS.has(resolveName(run[0] ?? ''))) return;
      const rmRecursive = run.slice(1).some((a) => /^-[A-Za-z]*[rR]/.test(a) || a === '--recursive');
      let k = i - 1;
      const first = (n: Node | undefined) => (n?.type === 'simple' && n.words[0] ? base(wordLiteral(n.words[0])) : '');
      while (k > 0 && PASSTHROUGH.has(first(cmds[k]))) k--;
      const quiet: Scope = { ...scope, findings: [], commands: [] };
      const prev = cmds[k]?.type === 'simple' ? (cmds[k] as Extract<Node, { type: 'simple' }>).words.flatMap((w) => expandWord(w, quiet)) : null;
      const list = known !== null ? { targets: known.split(/[\s\0]+/).filter(Boolean).slice(0, 64), recursive: false } : listing(prev);
      if (list && (rmRecursive || list.recursive)) recursiveDelete(list.targets, scope);
      return;
    }
    default:
      if (isVim(nm) && (args.includes('-e') || args.includes('-E') || args.includes('-es'))) {
        if (known !== null) for (const l of known.split('\n')) exCommand(l, scope, nm);
        else add(scope, F.pipedScript);
      }
      return;
  }
}

function checkPipeline(cmds: Node[], scope: Scope): void {
  const quiet: Scope = { ...scope, findings: [], commands: [] };
  const stages = cmds.map((n) => (n.type === 'simple' && n.words.length ? unwrapStage(n.words.flatMap((w) => expandWord(w, quiet))) : null));
  for (let i = 1; i < stages.length; i++) {
    const s = stages[i];
    if (!s?.length) continue;
    const nm = resolveName(s[0]);
    const lower = nm.toLowerCase();
    const fam = interpreterFamily(nm);
    const isShell = SHELLS.has(nm) || lower === 'iex' || lower === 'invoke-expression';
    const sargs = s.slice(1);
    const before = stages.slice(0, i).map((p) => resolveName(p?.[0] ?? '').toLowerCase());
    let reads: boolean;
    if (isShell) {
      const a = shellScriptArg(sargs);
      reads = (a.script === null && a.rest.length === 0) || STDIN_FILES.has(a.rest[0] ?? '');
    } else if (fam || SQL_CLIENTS.has(nm)) reads = !sargs.some((a) => !a.startsWith('-')) || sargs.includes('-') || SQL_CLIENTS.has(nm);
    else {
      feedStdin(s, before, () => pipelineOutput(cmds.slice(0, i), scope), cmds, i, scope);
      continue;
    }
    if (!reads) continue;
    const downloaded = before.some((n) => DOWNLOADERS.has(n));
    const decoded = before.some((n) => DECODERS.has(n));
    const known = pipelineOutput(cmds.slice(0, i), scope);
    if (isShell || fam) {
      if (downloaded) add(scope, F.pipeShell);
      else if (decoded) add(scope, F.decodeShell);
      else if (isShell) add(scope, F.pipedScript);
    }
    if (known === null) continue;
    if (isShell) analyzeScript(known, scope);
    else if (fam) checkInlineCode(fam.family, known, scope);
    else {
      checkSql(known, scope);
      sqlShellEscapes(known, scope);
      if (nm === 'sqlite3' || nm === 'sqlite') sqlite(sargs, scope, [known], true);
    }
  }
}

/**
 * Checks one command (argv after expansion). `stdin`: text fed to it by heredoc / here-string.
 * `raw`: the words as written, aligned with argv (for Windows paths). Wrappers recurse.
 */
export function command(argv: string[], scope: Scope, stdin: string[] = [], raw?: string[], stdinFile?: string): void {
  if (!argv.length) return;
  scope.commands.push(argv);
  const raw0 = argv[0];
  if (raw0.startsWith(DYN)) {
    if (raw0.includes('$(…)')) add(scope, F.dynamicName);
    return;
  }
  // Windows finds programs case-insensitively, with or without .exe (Git Bash, WSL).
  const name = /\.exe$/i.test(raw0) ? resolveName(raw0).toLowerCase().replace(/\.exe$/, '') : resolveName(raw0);
  const args = argv.slice(1);
  const inner = (rest: string[], s: Scope = scope) => command(rest, s, stdin, raw && raw.length >= rest.length ? raw.slice(raw.length - rest.length) : undefined, stdinFile);
  if (scope.madeExecutable && /^\.{1,2}\//.test(raw0)) add(scope, F.chmodExec);
  if (scope.detached && startsGatewayDetached(argv)) add(scope, F.gatewayDetached);

  const lname = name.toLowerCase();
  switch (name) {
    case 'sudo':
      return sudo(args, scope, inner);
    case 'sudoedit':
      return sudo(['-e', ...args], scope, inner);
    case 'env':
      return env(args, scope, inner);
    case 'su':
    case 'runuser':
      return su(name, args, scope, inner);
    case 'xargs':
      return xargs(args, scope);
    case 'ssh':
      return ssh(args, scope, stdin);
    case 'scp':
    case 'sftp':
      return scp(name, args, scope, stdin);
    case 'bwrap':
      return bwrap(args, scope, inner);
    case 'busybox':
    case 'toybox':
      return inner(args[0] === '--' ? args.slice(1) : args);
    case 'eval': {
      const text = args.join(' ');
      checkDynamicScript(text, scope);
      return analyzeScript(text, scope);
    }
    case 'source':
    case '.':
      if (args[0] !== undefined) runScriptFile(args[0], scope, stdin);
      return;
    case 'find':
      return findCommand(args, scope);
    case 'fd':
    case 'fdfind':
      return fd(args, scope);
    case 'parallel':
    case 'sem':
      return parallel(args, scope, stdin.length ? stdin.join('\n') : undefined);
    case 'tmux':
      return tmux(args, scope);
    case 'screen':
      return screen(args, scope);
    case 'at':
    case 'batch':
      return at(args, scope, stdin, stdinFile);
    case 'crontab':
      return crontab(args, scope, stdin);
    case 'systemd-run':
      return systemdRun(args, scope, inner);
    case 'trap':
      return trap(args, scope);
    case 'alias':
      return alias(args, scope);
    case 'socat':
      return socat(args, scope);
    case 'nc':
    case 'ncat':
    case 'netcat':
      return netcat(args, scope);
    case 'hyperfine':
      return hyperfine(args, scope);
    case 'expect':
      return expect(args, scope, stdin);
    case 'ed':
      return ed(args, scope, stdin);
    case 'less':
    case 'more':
      return less(args, scope);
    case 'gdb':
    case 'lldb':
      return gdb(name, args, scope, stdin);
    case 'make':
    case 'gmake':
      make(args, scope, stdin);
      return;
    case 'kubectl':
    case 'oc':
      return kube(name, args, scope);
    case 'fdisk':
    case 'gdisk':
      if ((stdin.length || stdinFile !== undefined) && args.some((a) => BLOCK_DEVICE.test(a)) && !args.includes('-l')) add(scope, F.partitionTable);
      break;
    default:
      if (isVim(name)) return vim(name, args, scope, stdin);
      if (lname === 'docker' || lname === 'podman' || lname === 'nerdctl' || lname === 'docker-compose' || lname === 'docker.exe' || lname === 'podman.exe') {
        secretReads(name, args, scope);
        return container(lname.replace(/\.exe$/, ''), args, scope);
      }
      break;
  }
  if (runRunner(name, args, scope, inner)) return;

  if (SHELLS.has(name)) {
    const { script, readsStdin, rest } = shellScriptArg(args);
    if (script !== null) {
      add(scope, F.shellString);
      checkDynamicScript(script, scope);
      return analyzeScript(script, scope);
    }
    if (rest[0] !== undefined) return runScriptFile(rest[0], scope, stdin);
    if (readsStdin && stdinFile !== undefined) return runScriptFile(stdinFile, scope);
    if (readsStdin && stdin.length) {
      add(scope, F.shellHeredoc);
      for (const s of stdin) analyzeScript(s, scope);
    }
    return;
  }
  if (interpreterFamily(name)) {
    secretReads(name, args, scope);
    for (const t of interpreter(name, args, stdin, scope)) checkWriteTarget(t, scope, 'edit');
    if (stdinFile?.includes(DOWNLOAD)) add(scope, F.pipeShell);
    return;
  }
  if (AWKS.has(name)) {
    secretReads(name, args, scope);
    return awk(args, scope);
  }
  if (SQL_CLIENTS.has(name)) {
    secretReads(name, args, scope);
    checkSql(args.join(' '), scope);
    sqlShellEscapes(args.join(' '), scope);
    for (const s of stdin) {
      checkSql(s, scope);
      sqlShellEscapes(s, scope);
    }
    if (name === 'sqlite3' || name === 'sqlite') sqlite(args, scope, stdin, stdinFile !== undefined);
    return;
  }
  // SQL typed as a command (`DROP TABLE users`); `truncate -s 0 f` is the coreutils one.
  if (/^(drop|delete)$/i.test(name) || /^TRUNCATE$/.test(name) || (name === 'truncate' && /^table$/i.test(args[0] ?? ''))) return checkSql(argv.join(' '), scope);
  secretReads(name, args, scope);
  if (devRules(name, args, raw && raw.length === argv.length ? raw.slice(1) : args, scope)) return;
  fileAndSystemRules(name, args, scope);
}
