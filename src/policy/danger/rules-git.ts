// git: commands that discard work or destroy history (locally and on the remote), config values
// that git runs as programs (aliases with `!`, pagers, editors, ssh commands, fsmonitor, filters,
// credential helpers, hooksPath — from `-c`, `git config`, `clone --config` and the GIT_CONFIG_*
// environment), subcommands that run a command (`rebase -x`, `bisect run`, `submodule foreach`,
// `--upload-pack`, `ext::` remotes), and clones or archives written into protected paths.
import { absPath, canonPath, type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { runString } from './runners.ts';
import { checkWriteTarget } from './targets.ts';
import { analyzeScript, command } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

/** Config keys whose value git runs as a command line (exact keys, lower case). */
const PROGRAM_KEYS = new Set([
  'core.pager', 'core.editor', 'core.sshcommand', 'core.askpass', 'core.gitproxy', 'core.fsmonitor', 'core.alternaterefscommand',
  'sequence.editor', 'diff.external', 'credential.helper', 'gpg.program', 'uploadpack.packobjectshook', 'web.browser',
  'sendemail.tocmd', 'sendemail.cccmd', 'sendemail.smtpserver', 'interactive.difffilter', 'instaweb.httpd', 'instaweb.browser',
]);
/** Config keys with a subsection whose value git runs. */
const PROGRAM_KEY_PATTERNS = [
  /^pager\./, /^diff\..+\.(textconv|command)$/, /^difftool\..+\.cmd$/, /^mergetool\..+\.cmd$/, /^merge\..+\.driver$/,
  /^filter\..+\.(clean|smudge|process)$/, /^credential\..+\.helper$/, /^gpg\..+\.program$/, /^remote\..+\.(uploadpack|receivepack)$/,
  /^man\..+\.cmd$/, /^browser\..+\.cmd$/,
];

/**
 * A git config value being set (`-c key=value`, `git config key value`, GIT_CONFIG_*): a program
 * it names is analyzed as a command line; aliases are analyzed as what they run; a hooks path,
 * an include or `ext::` remotes ask.
 */
export function gitConfigValue(key: string, value: string, scope: Scope, via: string): void {
  const k = key.toLowerCase();
  if (k.startsWith('alias.')) {
    if (value.startsWith('!')) return runString(value.slice(1), scope, via);
    return analyzeScript(`git ${value}`, scope);
  }
  if (k === 'core.hookspath') {
    if (value !== '' && value !== '/dev/null') add(scope, F.gitRunsProgram(`hooks from another folder (core.hooksPath=${value})`));
    return;
  }
  if (k === 'include.path' || /^includeif\..+\.path$/.test(k)) return add(scope, F.gitRunsProgram('settings from another file (include.path), which can run programs'));
  if (k === 'protocol.ext.allow' || k === 'protocol.allow') {
    if (!/^(never|)$/i.test(value)) add(scope, F.gitRunsProgram('allowing ext:: remotes, which run commands'));
    return;
  }
  if (!PROGRAM_KEYS.has(k) && !PROGRAM_KEY_PATTERNS.some((re) => re.test(k))) return;
  if (k === 'core.fsmonitor' && /^(true|false|yes|no|on|off|1|0|)$/i.test(value)) return;
  // `credential.helper store` is git's own credential-store; `!cmd` and paths run a program.
  if (/credential\.(.+\.)?helper$/.test(k) && /^[\w-]+(\s|$)/.test(value) && !value.startsWith('!')) return;
  runString(value.replace(/^!/, ''), scope, via);
}

/** `key=value` of `-c` / `--config`; a key alone sets it to true. */
function configPair(kv: string, scope: Scope, via: string): void {
  const eq = kv.indexOf('=');
  if (eq < 0) return gitConfigValue(kv, 'true', scope, via);
  gitConfigValue(kv.slice(0, eq), kv.slice(eq + 1), scope, `${via} ${kv.slice(0, eq)}`);
}

/** An `ext::` remote runs its command: `ext::sh -c rm% -rf% ~` (`% ` is a space, `%%` a percent). */
function extRemote(url: string, scope: Scope): void {
  if (!/^ext::/i.test(url)) return;
  add(scope, F.gitRunsProgram('using an ext:: remote, which runs a command'));
  const argv: string[] = [];
  let cur = '';
  const body = url.slice(5);
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '%' && i + 1 < body.length) {
      const n = body[++i];
      cur += n === ' ' ? ' ' : n === '%' ? '%' : `%${n}`;
    } else if (c === ' ') {
      if (cur) argv.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) argv.push(cur);
  command(argv, scope);
}

/** Options of a subcommand: value of `long`/`short` (separate, `=`, or attached for short), all occurrences. */
function optValues(a: string[], long: string[], short: string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x === '--') break;
    for (const l of long) {
      if (x === l) out.push(a[++i] ?? '');
      else if (x.startsWith(`${l}=`)) out.push(x.slice(l.length + 1));
    }
    for (const s of short) {
      if (x === s) out.push(a[++i] ?? '');
      else if (x.startsWith(s) && x.length > s.length && !x.startsWith('--')) out.push(x.slice(s.length));
    }
  }
  return out;
}

const GLOBAL_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds', '--attr-source']);
const WHOLE_TREE = new Set(['.', './', ':/', '*', ':(top)', ':/*']);

/** Operands of a subcommand, skipping options and the values of those listed. */
function operands(a: string[], valued: Set<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x === '--') return [...out, ...a.slice(i + 1)];
    if (x.startsWith('-') && x !== '-') {
      if (valued.has(x)) i++;
      continue;
    }
    out.push(x);
  }
  return out;
}

const CLONE_VALUE = new Set(['-o', '--origin', '-b', '--branch', '-u', '--upload-pack', '--reference', '--reference-if-able', '--separate-git-dir', '--depth', '--shallow-since', '--shallow-exclude', '-c', '--config', '--template', '-j', '--jobs', '--filter', '--server-option', '--bundle-uri', '--ref-format', '--revision']);

export function git(args: string[], scope: Scope): void {
  // Global options: -C moves where the subcommand runs, -c sets config for it.
  let i = 0;
  let s = scope;
  while (i < args.length && args[i].startsWith('-') && args[i] !== '-') {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    const [opt, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = inline ?? (GLOBAL_VALUE.has(opt) ? args[i + 1] : undefined);
    if (opt === '-c' && value !== undefined) configPair(value, s, 'git -c');
    else if (opt === '--config-env' && value !== undefined) {
      const eq = value.indexOf('=');
      gitConfigValue(eq < 0 ? value : value.slice(0, eq), '\u0000$env', s, `git --config-env ${value}`);
    } else if (opt === '-C' && value !== undefined) {
      const c = canonPath(value, s);
      s = { ...s, cwd: c !== null && /^[/~@]/.test(c) ? absPath(c, s) : null };
    }
    i += inline === undefined && GLOBAL_VALUE.has(opt) ? 2 : 1;
  }
  const sub = args[i];
  const a = args.slice(i + 1);
  const shortHas = (letter: string) => a.some((x) => /^-[A-Za-z]+$/.test(x) && x.includes(letter));
  switch (sub) {
    case 'reset':
      if (a.some((x) => x.length >= 3 && '--hard'.startsWith(x))) add(s, F.gitDiscard('reset --hard (discards uncommitted changes)'));
      return;
    case 'push': {
      if (a.some((x) => /^--forc/.test(x) || (x.length >= 4 && '--force'.startsWith(x))) || shortHas('f') || a.some((x) => /^\+[^+]/.test(x)))
        add(s, F.gitDiscard('push --force (rewrites remote history)'));
      const ops = operands(a, new Set(['--receive-pack', '--exec', '-o', '--push-option', '--repo']));
      if (a.includes('--delete') || shortHas('d') || ops.slice(1).some((r) => /^:[^:]/.test(r))) add(s, F.gitRemoteDestroy('push --delete (deletes branches or tags on the remote)'));
      if (a.includes('--mirror')) add(s, F.gitRemoteDestroy('push --mirror (makes the remote match this repository, deleting what it lacks)'));
      if (a.includes('--prune')) add(s, F.gitRemoteDestroy('push --prune (deletes remote branches that are not here)'));
      for (const c of optValues(a, ['--receive-pack', '--exec'])) runString(c, s, 'git push --receive-pack');
      for (const r of ops.slice(0, 1)) extRemote(r, s);
      return;
    }
    case 'clean':
      if (shortHas('f') || a.some((x) => x.startsWith('--force'))) add(s, F.gitDiscard('clean -f (deletes untracked files)'));
      return;
    case 'branch': {
      const del = a.includes('-D') || ((shortHas('d') || a.includes('--delete')) && (shortHas('f') || a.includes('--force')));
      if (del) add(s, F.gitDiscard('branch -D (deletes an unmerged branch)'));
      return;
    }
    case 'checkout': {
      const dd = a.indexOf('--');
      const paths = dd >= 0 ? a.slice(dd + 1) : a.filter((x) => !x.startsWith('-'));
      if (a.includes('-f') || a.includes('--force') || paths.some((p) => WHOLE_TREE.has(p))) add(s, F.gitDiscard('checkout that discards local changes'));
      return;
    }
    case 'restore': {
      const stagedOnly = (a.includes('--staged') || a.includes('-S')) && !a.includes('--worktree') && !a.includes('-W');
      if (!stagedOnly && a.filter((x) => !x.startsWith('-')).some((p) => WHOLE_TREE.has(p))) add(s, F.gitDiscard('restore that discards local changes'));
      return;
    }
    case 'stash':
      if (a[0] === 'clear') add(s, F.gitDiscard('stash clear (drops every stash)'));
      return;
    case 'reflog':
      if (a[0] === 'expire' || a[0] === 'delete') add(s, F.gitRemoteDestroy(`reflog ${a[0]} (drops the record that lets lost commits be recovered)`));
      return;
    case 'gc': {
      const prune = optValues(a, ['--prune'])[0];
      if (prune !== undefined && /^(now|all)$/i.test(prune)) add(s, F.gitRemoteDestroy('gc --prune=now (deletes unreachable commits for good)'));
      return;
    }
    case 'prune':
      if (!a.includes('-n') && !a.includes('--dry-run')) add(s, F.gitRemoteDestroy('prune (deletes unreachable commits for good)'));
      return;
    case 'filter-branch': {
      add(s, F.gitRemoteDestroy('filter-branch (rewrites history)'));
      for (const f of optValues(a, ['--tree-filter', '--index-filter', '--msg-filter', '--env-filter', '--commit-filter', '--parent-filter', '--tag-name-filter'])) runString(f, s, 'git filter-branch');
      return;
    }
    case 'filter-repo':
      add(s, F.gitRemoteDestroy('filter-repo (rewrites history)'));
      return;
    case 'config':
      return gitConfig(a, s);
    case 'clone': {
      for (const kv of optValues(a, ['--config'], ['-c'])) configPair(kv, s, 'git clone --config');
      for (const c of optValues(a, ['--upload-pack'], ['-u'])) runString(c, s, 'git clone --upload-pack');
      const ops = operands(a, CLONE_VALUE);
      if (ops[0] !== undefined) extRemote(ops[0], s);
      const dest = ops[1] ?? ops[0]?.replace(/\/+$/, '').replace(/\.git$/, '').replace(/^.*[/:]/, '');
      if (dest) checkWriteTarget(dest, s);
      return;
    }
    case 'fetch':
    case 'pull':
    case 'ls-remote': {
      for (const c of optValues(a, ['--upload-pack'])) runString(c, s, `git ${sub} --upload-pack`);
      for (const r of operands(a, new Set(['--upload-pack', '--depth', '--deepen', '--shallow-since', '--shallow-exclude', '-j', '--jobs', '-o', '--server-option', '--negotiation-tip', '--refmap', '--recurse-submodules-default', '-s', '--strategy', '-X', '--strategy-option', '--sort'])).slice(0, 1)) extRemote(r, s);
      return;
    }
    case 'remote':
      if (a[0] === 'add' || a[0] === 'set-url') for (const r of a.slice(1).filter((x) => !x.startsWith('-'))) extRemote(r, s);
      return;
    case 'archive':
      for (const c of optValues(a, ['--exec'])) runString(c, s, 'git archive --exec');
      for (const o of optValues(a, ['--output'], ['-o'])) checkWriteTarget(o, s);
      return;
    case 'rebase':
      for (const c of optValues(a, ['--exec'], ['-x'])) runString(c, s, 'git rebase --exec');
      return;
    case 'bisect':
      if (a[0] === 'run' && a.length > 1) command(a.slice(1), s);
      return;
    case 'submodule': {
      const k = a.findIndex((x) => !x.startsWith('-'));
      if (a[k] === 'foreach') {
        const rest = a.slice(k + 1).filter((x, j, all) => !(x === '--recursive' && all.slice(0, j).every((y) => y.startsWith('-'))));
        if (rest.length) runString(rest.join(' '), s, 'git submodule foreach');
      } else if (a[k] === 'add') {
        const ops = operands(a.slice(k + 1), new Set(['-b', '--branch', '--name', '--reference', '--depth']));
        if (ops[0] !== undefined) extRemote(ops[0], s);
        if (ops[1] !== undefined) checkWriteTarget(ops[1], s);
      }
      return;
    }
    case 'difftool':
      for (const c of optValues(a, ['--extcmd'], ['-x'])) runString(c, s, 'git difftool --extcmd');
      return;
    case 'grep':
      for (const x of a) {
        if (x === '--') break;
        const m = /^(?:-O|--open-files-in-pager=)(.+)$/.exec(x);
        if (m) runString(m[1], s, 'git grep -O');
      }
      return;
    case 'worktree':
      if (a[0] === 'add') {
        const ops = operands(a.slice(1), new Set(['-b', '-B', '--reason']));
        if (ops[0] !== undefined) checkWriteTarget(ops[0], s);
      }
      return;
    default:
      return;
  }
}

/** `git config …`: a value set for a key git runs is analyzed; --file names the file written. */
function gitConfig(a: string[], scope: Scope): void {
  const verbs = ['set', 'get', 'unset', 'list', 'edit', 'rename-section', 'remove-section'];
  let verb: string | null = null;
  if (verbs.includes(a[0] ?? '')) {
    verb = a[0];
    a = a.slice(1);
  }
  if (verb !== null && verb !== 'set') return;
  const readOnly = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '-l', '--list', '--get-color', '--get-colorbool', '--unset', '--unset-all', '--remove-section', '--rename-section', '-e', '--edit', '--show-origin', '--show-scope'];
  if (a.some((x) => readOnly.includes(x))) return;
  const ops = operands(a, new Set(['-f', '--file', '--blob', '-t', '--type', '--default', '--comment', '--value', '--url']));
  if (ops.length < 2) return;
  for (const f of optValues(a, ['--file'], ['-f'])) checkWriteTarget(f, scope);
  gitConfigValue(ops[0], ops[1], scope, `git config ${ops[0]}`);
}
