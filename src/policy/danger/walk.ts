// Walking the parsed command: lists, pipelines, groups and functions; wrappers unwrapped (sudo,
// env, nohup, timeout, nice, xargs, find -exec, watch, su -c, ssh, …); shell strings parsed
// recursively (sh -c, eval, heredocs, `… | sh`, `bash <(…)`); every simple command checked.
import { parseShell, ShellParseError, wordLiteral, type Node } from '../shell-parse.ts';
import { absPath, base, canonPath, DECODE, DOWNLOAD, DYN, PROC, type Scope } from './context.ts';
import { DECODERS, DOWNLOADERS, expandWord, pipelineOutput, stdinTexts } from './expand.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { globToRegExp, hasGlob } from './glob.ts';
import { awk, checkInlineCode, checkSql, interpreter, interpreterFamily, SQL_CLIENTS } from './rules-code.ts';
import { devRules } from './rules-dev.ts';
import { fileAndSystemRules, rootish } from './rules.ts';
import { checkRedirects, checkWriteTarget } from './targets.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'busybox-sh', 'rbash', 'tcsh', 'csh', 'yash', 'posh']);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);
/** Names a glob in command position is resolved against (`/bin/r?` → rm). */
const DANGEROUS_NAMES = ['rm', 'dd', 'mkfs', 'chmod', 'chown', 'shred', 'wipefs', 'kill', 'pkill', 'killall', 'systemctl', 'shutdown', 'reboot', 'halt', 'poweroff', 'find', 'xargs', 'sh', 'bash', 'zsh', 'eval', 'sudo', 'curl', 'wget', 'truncate', 'docker', 'crontab', 'iptables', 'init', 'telinit'];
const REMOTE_DAEMON_ENV = new Set(['DOCKER_HOST', 'DOCKER_CONTEXT', 'CONTAINER_HOST', 'CONTAINER_CONNECTION']);

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
    if (REMOTE_DAEMON_ENV.has(a.name)) add(scope, F.dockerRemote);
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
      if (REMOTE_DAEMON_ENV.has(m[1])) add(scope, F.dockerRemote);
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

function dropAssignments(args: string[], scope: Scope): string[] {
  let i = 0;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i])) {
    if (REMOTE_DAEMON_ENV.has(args[i].slice(0, args[i].indexOf('=')))) add(scope, F.dockerRemote);
    i++;
  }
  return args.slice(i);
}

/** A shell string that is (partly) the output of a command: `sh -c "$(curl …)"`, `eval $(…)`. */
function checkDynamicScript(script: string, scope: Scope): void {
  if (script.includes(DOWNLOAD)) add(scope, F.pipeShell);
  else if (script.includes(DECODE)) add(scope, F.decodeShell);
  else if (script.includes(`${DYN}$(…)`)) add(scope, F.dynamicShell);
}

/** A script file given to a shell or `source`: `bash <(curl …)`, `source <(echo … | base64 -d)`. */
function runScriptFile(file: string, scope: Scope): void {
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

/** sudo's own flags: -S reads a password from stdin (blocked), -A/-s/-a ask. */
function sudoFlags(args: string[], scope: Scope): void {
  const valued = 'ugpChrtUDRT';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--' || !a.startsWith('-') || a === '-') return;
    if (a.startsWith('--')) {
      const o = a.split('=')[0];
      if (o.length >= 4 && '--stdin'.startsWith(o)) add(scope, F.sudoStdin);
      else if (o.length >= 3 && '--askpass'.startsWith(o)) add(scope, F.sudoPrivilege);
      else if (o.length >= 4 && '--shell'.startsWith(o)) add(scope, F.sudoPrivilege);
      if (['--user', '--group', '--prompt', '--close-from', '--host', '--role', '--type', '--other-user', '--chdir', '--chroot', '--command-timeout'].includes(o) && !a.includes('=')) i++;
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const c = a[k];
      if (c === 'S') add(scope, F.sudoStdin);
      else if (c === 'A' || c === 's' || c === 'a') add(scope, F.sudoPrivilege);
      if (valued.includes(c)) {
        if (k === a.length - 1) i++;
        break;
      }
    }
  }
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
    if (a === '-exec' || a === '-execdir' || a === '-ok' || a === '-okdir') {
      let k = j + 1;
      while (k < args.length && args[k] !== ';' && args[k] !== '+') k++;
      const inner = args.slice(j + 1, k).map((x) => (x === '{}' ? 'FOUND_FILE' : x));
      if (['rm', 'shred', 'unlink', 'rmdir'].includes(resolveName(inner[0] ?? ''))) deletes = true;
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
function unwrapStage(argv: string[], scope: Scope): string[] {
  for (let k = 0; k < 4 && argv.length; k++) {
    const nm = base(argv[0]);
    if (nm === 'sudo' || nm === 'doas') argv = dropAssignments(skipOptions(argv.slice(1), new Set(['u', 'g', 'p', 'C'])), scope);
    else if (nm === 'env') argv = dropAssignments(skipOptions(argv.slice(1), new Set(['u', 'C'])), scope);
    else if (nm === 'nohup' || nm === 'command' || nm === 'exec' || nm === 'time' || nm === 'setsid' || nm === 'stdbuf') argv = argv.slice(1);
    else if (nm === 'timeout') argv = skipOptions(argv.slice(1), new Set(['s', 'k'])).slice(1);
    else break;
  }
  return argv;
}

function checkPipeline(cmds: Node[], scope: Scope): void {
  const quiet: Scope = { ...scope, findings: [], commands: [] };
  const stages = cmds.map((n) => (n.type === 'simple' && n.words.length ? unwrapStage(n.words.flatMap((w) => expandWord(w, quiet)), quiet) : null));
  for (let i = 1; i < stages.length; i++) {
    const s = stages[i];
    if (!s?.length) continue;
    const nm = resolveName(s[0]);
    const lower = nm.toLowerCase();
    const fam = interpreterFamily(nm);
    const isShell = SHELLS.has(nm) || lower === 'iex' || lower === 'invoke-expression';
    const sargs = s.slice(1);
    let reads: boolean;
    if (isShell) {
      const a = shellScriptArg(sargs);
      reads = a.script === null && a.rest.length === 0;
    } else if (fam || SQL_CLIENTS.has(nm)) reads = !sargs.some((a) => !a.startsWith('-')) || sargs.includes('-') || SQL_CLIENTS.has(nm);
    else continue;
    if (!reads) continue;
    const before = stages.slice(0, i).map((p) => resolveName(p?.[0] ?? '').toLowerCase());
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
    else checkSql(known, scope);
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
  const name = resolveName(raw0);
  const args = argv.slice(1);
  const inner = (rest: string[]) => command(rest, scope, stdin, raw && raw.length >= rest.length ? raw.slice(raw.length - rest.length) : undefined, stdinFile);
  const detachedInner = (rest: string[]) => {
    const d = scope.detached;
    scope.detached = true;
    inner(rest);
    scope.detached = d;
  };
  if (scope.madeExecutable && /^\.{1,2}\//.test(raw0)) add(scope, F.chmodExec);
  if (scope.detached && startsGatewayDetached(argv)) add(scope, F.gatewayDetached);

  switch (name) {
    case 'sudo':
    case 'doas':
    case 'run0':
    case 'pkexec': {
      if (name === 'sudo') sudoFlags(args, scope);
      const rest = skipOptions(args, new Set(['u', 'g', 'p', 'C', 'h', 'r', 't', 'U', 'D', 'R', 'T']), {
        longWithValue: new Set(['--user', '--group', '--prompt', '--close-from', '--host', '--role', '--type', '--other-user', '--chdir', '--chroot', '--command-timeout']),
      });
      return inner(dropAssignments(rest, scope));
    }
    case 'env': {
      const own = args.findIndex((a) => !a.startsWith('-'));
      const split = args.slice(0, own < 0 ? args.length : own).findIndex((a) => a === '-S' || a.startsWith('--split-string') || /^-[a-zA-Z]*S/.test(a));
      if (split >= 0) {
        const a = args[split];
        const str = a.includes('=') ? a.slice(a.indexOf('=') + 1) : a.length > 2 && a.startsWith('-S') ? a.slice(2) : (args[split + 1] ?? '');
        return analyzeScript(str + ' ' + args.slice(split + 2).map((x) => `'${x.replace(/'/g, `'\\''`)}'`).join(' '), scope);
      }
      const rest = skipOptions(args, new Set(['u', 'C', 'S', 'P', 'a']), { longWithValue: new Set(['--unset', '--chdir', '--split-string', '--argv0']) });
      return inner(dropAssignments(rest, scope));
    }
    case 'nohup':
    case 'setsid':
    case 'disown':
      return detachedInner(skipOptions(args, new Set()));
    case 'builtin':
    case 'unbuffer':
    case 'caffeinate':
    case 'torsocks':
    case 'proxychains':
    case 'proxychains4':
    case 'catchsegv':
    case 'fakeroot':
    case 'tsp':
    case 'chronic':
      return inner(args[0] === '--' ? args.slice(1) : args);
    case 'time':
      return inner(skipOptions(args, new Set(['f', 'o'])));
    case 'command':
      if (args.some((a) => /^-[a-zA-Z]*[vV]/.test(a))) return;
      return inner(skipOptions(args, new Set()));
    case 'exec':
      return inner(skipOptions(args, new Set(['a'])));
    case 'nice':
      return inner(skipOptions(args.map((a) => (/^-\d+$/.test(a) ? '-n0' : a)), new Set(['n']), { longWithValue: new Set(['--adjustment']) }));
    case 'ionice':
      if (args.some((a) => ['-p', '--pid', '-P', '--pgid', '-u', '--uid'].includes(a))) return;
      return inner(skipOptions(args, new Set(['c', 'n']), { longWithValue: new Set(['--class', '--classdata']) }));
    case 'stdbuf':
      return inner(skipOptions(args, new Set(['i', 'o', 'e'])));
    case 'timeout':
    case 'gtimeout':
      return inner(skipOptions(args, new Set(['s', 'k']), { longWithValue: new Set(['--signal', '--kill-after']) }).slice(1));
    case 'chrt':
    case 'taskset':
      if (args.some((a) => a === '-p' || a === '--pid')) return;
      return inner(skipOptions(args, new Set(['T', 'P', 'D'])).slice(1));
    case 'chroot':
      return inner(skipOptions(args, new Set(), { longWithValue: new Set(['--userspec', '--groups']) }).slice(1));
    case 'flock': {
      const ci = args.findIndex((a) => a === '-c' || a === '--command');
      if (ci >= 0) return analyzeScript(args[ci + 1] ?? '', scope);
      return inner(skipOptions(args, new Set(['w', 'E']), { longWithValue: new Set(['--timeout', '--conflict-exit-code']) }).slice(1));
    }
    case 'strace':
    case 'ltrace':
      return inner(skipOptions(args, new Set(['o', 'e', 'p', 's', 'u', 'E', 'a', 'b', 'I', 'O', 'P', 'S', 'X'])));
    case 'busybox':
    case 'toybox':
      return inner(args);
    case 'xargs': {
      const rest = skipOptions(args, new Set(['I', 'i', 'n', 'P', 'd', 'E', 'e', 'L', 'l', 's', 'a']), {
        longWithValue: new Set(['--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var']),
      });
      const run = rest.length ? rest : ['echo'];
      if (['rm', 'shred', 'unlink', 'rmdir'].includes(resolveName(run[0]))) add(scope, F.xargsRm);
      return command(run, scope);
    }
    case 'watch': {
      const rest = skipOptions(args, new Set(['n', 'd', 'q']), { longWithValue: new Set(['--interval', '--differences']) });
      if (args.includes('-x') || args.includes('--exec')) return command(rest, scope);
      return analyzeScript(rest.join(' '), scope);
    }
    case 'su':
    case 'runuser': {
      const ci = args.findIndex((a) => a === '-c' || a === '--command' || a.startsWith('--command='));
      if (ci >= 0) {
        const a = args[ci];
        return analyzeScript(a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[ci + 1] ?? ''), scope);
      }
      const dd = args.indexOf('--');
      if (dd >= 0) return inner(args.slice(dd + 1));
      return;
    }
    case 'script': {
      const ci = args.findIndex((a) => a === '-c' || a === '--command');
      if (ci >= 0) return analyzeScript(args[ci + 1] ?? '', scope);
      return;
    }
    case 'ssh': {
      const rest = skipOptions(args, new Set(['p', 'i', 'l', 'o', 'F', 'J', 'L', 'R', 'D', 'b', 'c', 'E', 'e', 'I', 'm', 'O', 'Q', 'S', 'W', 'w', 'B']));
      if (rest.length > 1) analyzeScript(rest.slice(1).join(' '), scope);
      return;
    }
    case 'eval': {
      const text = args.join(' ');
      checkDynamicScript(text, scope);
      return analyzeScript(text, scope);
    }
    case 'source':
    case '.':
      if (args[0] !== undefined) runScriptFile(args[0], scope);
      return;
    case 'find':
      return findCommand(args, scope);
    default:
      break;
  }

  if (SHELLS.has(name)) {
    const { script, readsStdin, rest } = shellScriptArg(args);
    if (script !== null) {
      add(scope, F.shellString);
      checkDynamicScript(script, scope);
      return analyzeScript(script, scope);
    }
    if (rest[0] !== undefined) return runScriptFile(rest[0], scope);
    if (readsStdin && stdinFile !== undefined) return runScriptFile(stdinFile, scope);
    if (readsStdin && stdin.length) {
      add(scope, F.shellHeredoc);
      for (const s of stdin) analyzeScript(s, scope);
    }
    return;
  }
  if (interpreterFamily(name)) {
    for (const t of interpreter(name, args, stdin, scope)) checkWriteTarget(t, scope, 'edit');
    if (stdinFile?.includes(DOWNLOAD)) add(scope, F.pipeShell);
    return;
  }
  if (AWKS.has(name)) return awk(args, scope);
  if (SQL_CLIENTS.has(name)) {
    checkSql(args.join(' '), scope);
    for (const s of stdin) checkSql(s, scope);
    return;
  }
  // SQL typed as a command (`DROP TABLE users`); `truncate -s 0 f` is the coreutils one.
  if (/^(drop|delete)$/i.test(name) || /^TRUNCATE$/.test(name) || (name === 'truncate' && /^table$/i.test(args[0] ?? ''))) return checkSql(argv.join(' '), scope);
  if (devRules(name, args, raw && raw.length === argv.length ? raw.slice(1) : args, scope)) return;
  fileAndSystemRules(name, args, scope);
}
