// Runners whose shape needs more than a table row (runners.ts): sudo, env (its -S string has its
// own quoting), su/runuser (permuted options, the last -c wins), xargs, at/batch and crontab
// (commands read later), systemd-run, GNU parallel, ssh/scp/sftp (ProxyCommand and friends run
// locally), socat/nc, trap and alias strings, fd -x, hyperfine and expect.
import { DYN, elsewhere, type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { checkAssignment, inFolder, parseRunner, runParsed, runString, type Runner } from './runners.ts';
import { checkWriteTarget } from './targets.ts';
import { recursiveDelete } from './rules.ts';
import { command, runScriptFile } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);
type Inner = (argv: string[], s: Scope) => void;

const REMOTE_DAEMON_ENV = new Set(['DOCKER_HOST', 'DOCKER_CONTEXT', 'CONTAINER_HOST', 'CONTAINER_CONNECTION']);

/** One NAME=VALUE given to a program's environment: a remote docker daemon asks, a command it holds is analyzed. */
export function assignment(name: string, value: string, scope: Scope): void {
  if (REMOTE_DAEMON_ENV.has(name)) add(scope, F.dockerRemote);
  checkAssignment(name, value, scope);
}

/** Leading NAME=VALUE words (sudo, env): recorded, and the rest returned. */
function assignments(args: string[], scope: Scope, anyName = false): string[] {
  let i = 0;
  for (; i < args.length; i++) {
    const m = (anyName ? /^([^=]+)=(.*)$/s : /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s).exec(args[i]);
    if (!m || args[i].startsWith('-')) break;
    assignment(m[1], m[2], scope);
  }
  return args.slice(i);
}

// -------------------------------------------------------------------------------------------
// sudo, doas-likes

const SUDO: Runner = {
  v: 'ugpChrtUDRT',
  lv: ['--user', '--group', '--prompt', '--close-from', '--host', '--role', '--type', '--other-user', '--chdir', '--chroot', '--command-timeout'],
  query: ['-l', '--list', '-v', '--validate', '-k', '--reset-timestamp', '-K', '--remove-timestamp', '-V', '--version', '-h', '--help', '-e', '--edit'],
};

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
      if ((SUDO.lv ?? []).includes(o) && !a.includes('=')) i++;
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

export function sudo(args: string[], scope: Scope, inner: Inner): void {
  sudoFlags(args, scope);
  const p = parseRunner(args, SUDO);
  // sudo -e/--edit (sudoedit) edits its files as root: they are written.
  if (p.opts.has('-e') || p.opts.has('--edit')) {
    for (const f of p.operands) checkWriteTarget(f, scope, 'edit');
    return;
  }
  // `sudo -k cmd` still runs cmd; the other queries do not take one.
  if (p.query && !(p.opts.has('-k') || p.opts.has('--reset-timestamp') || p.opts.has('-K'))) return;
  const rest = assignments(p.operands, scope);
  const dir = [...(p.opts.get('-D') ?? []), ...(p.opts.get('--chdir') ?? [])].pop();
  if (rest.length) inner(rest, dir === undefined ? scope : inFolder(dir, scope));
}

// -------------------------------------------------------------------------------------------
// env and its -S string

const ENV_LONGS = ['--ignore-environment', '--null', '--unset', '--chdir', '--split-string', '--block-signal', '--default-signal', '--ignore-signal', '--list-signal-handling', '--debug', '--argv0', '--help', '--version'];
const ENV_VALUED = new Set(['--unset', '--chdir', '--argv0']);

/** GNU env's -S: its own quoting (`\_` separates, `${VAR}` expands); null when env would refuse it. */
export function envSplit(str: string, scope: Scope): string[] | null {
  const words: string[] = [];
  let cur = '';
  let has = false;
  const push = () => {
    if (has) words.push(cur);
    cur = '';
    has = false;
  };
  const escape = (n: string, quoted: boolean): string | null => {
    const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', '#': '#', $: '$', '\\': '\\', '"': '"', "'": "'" };
    if (n === '_') return quoted ? ' ' : null;
    return map[n] ?? null;
  };
  for (let i = 0; i < str.length; i++) {
    const c = str[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      push();
      continue;
    }
    if (c === '#' && !has) break;
    if (c === "'") {
      const j = str.indexOf("'", i + 1);
      if (j < 0) return null;
      cur += str.slice(i + 1, j).replace(/\\(['\\])/g, '$1');
      has = true;
      i = j;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < str.length && str[j] !== '"'; j++) {
        if (str[j] === '\\') {
          const e = escape(str[++j] ?? '', true);
          if (e === null) return null;
          cur += e;
        } else if (str[j] === '$') {
          const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(str.slice(j));
          if (!m) return null;
          cur += scope.vars.get(m[1]) ?? `${DYN}$${m[1]}`;
          j += m[0].length - 1;
        } else cur += str[j];
      }
      if (j >= str.length) return null;
      has = true;
      i = j;
      continue;
    }
    if (c === '\\') {
      const n = str[++i] ?? '';
      if (n === '_') {
        push();
        continue;
      }
      if (n === 'c') break;
      const e = escape(n, false);
      if (e === null) return null;
      cur += e;
      has = true;
      continue;
    }
    if (c === '$') {
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(str.slice(i));
      if (!m) return null;
      cur += scope.vars.get(m[1]) ?? `${DYN}$${m[1]}`;
      has = true;
      i += m[0].length - 1;
      continue;
    }
    cur += c;
    has = true;
  }
  push();
  return words;
}

export function env(args: string[], scope: Scope, inner: Inner, nul = false, depth = 0): void {
  let i = 0;
  let dir: string | undefined;
  const split = (value: string | undefined, next: number): void => {
    const words = value === undefined ? null : envSplit(value, scope);
    if (words && depth < 4) env([...words, ...args.slice(next)], scope, inner, nul, depth + 1);
  };
  while (i < args.length) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-') {
      i++;
      continue;
    }
    if (!a.startsWith('-')) break;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const written = eq < 0 ? a : a.slice(0, eq);
      const hits = ENV_LONGS.filter((l) => l.startsWith(written));
      const name = ENV_LONGS.includes(written) ? written : hits.length === 1 ? hits[0] : null;
      // An unknown or ambiguous option: env refuses to run anything.
      if (name === null || ['--help', '--version', '--list-signal-handling'].includes(name)) return;
      let value = eq < 0 ? undefined : a.slice(eq + 1);
      i++;
      if (name === '--split-string') {
        if (value === undefined) value = args[i++];
        return split(value, i);
      }
      if (ENV_VALUED.has(name) && value === undefined) value = args[i++];
      if (name === '--chdir') dir = value;
      if (name === '--null') nul = true;
      continue;
    }
    let consumed = 1;
    for (let k = 1; k < a.length; k++) {
      const ch = a[k];
      if (ch === '0') nul = true;
      if (ch === 'S') {
        const attached = k < a.length - 1 ? a.slice(k + 1) : undefined;
        return split(attached ?? args[i + 1], i + (attached === undefined ? 2 : 1));
      }
      if ('uCa'.includes(ch)) {
        if (k === a.length - 1) consumed = 2;
        if (ch === 'C') dir = k < a.length - 1 ? a.slice(k + 1) : args[i + 1];
        break;
      }
      if (!'i0v'.includes(ch)) return; // an unknown option: env refuses
    }
    i += consumed;
  }
  const rest = assignments(args.slice(i), scope, true);
  // `env -0` prints the environment; with a command it refuses to run it.
  if (!rest.length || nul) return;
  inner(rest, dir === undefined ? scope : inFolder(dir, scope));
}

// -------------------------------------------------------------------------------------------
// su and runuser

const SU: Runner = {
  permute: true,
  v: 'gGsw',
  sh: ['-c', '--command', '--session-command'],
  lv: ['--group', '--supp-group', '--shell', '--whitelist-environment', '--user'],
  longs: ['--command', '--session-command', '--fast', '--group', '--supp-group', '--login', '--preserve-environment', '--shell', '--pty', '--no-pty', '--whitelist-environment', '--help', '--version', '--user'],
};

/** su/runuser: the last -c wins; -m with -w, or runuser -u with -c, is refused (nothing runs). */
export function su(name: string, args: string[], scope: Scope, inner: Inner): void {
  const spec = name === 'runuser' ? { ...SU, v: 'gGswu' } : SU;
  const p = parseRunner(args, spec);
  const has = (...o: string[]) => o.some((x) => p.opts.has(x));
  if (has('-m', '-p', '--preserve-environment') && has('-w', '--whitelist-environment')) return;
  if (has('--help', '--version', '-h', '-V')) return;
  if (name === 'runuser' && has('-u', '--user')) {
    if (p.shells.length || has('-l', '--login', '-s', '--shell', '-f', '--fast')) return;
    if (p.operands.length) inner(p.operands, scope);
    return;
  }
  const last = p.shells[p.shells.length - 1];
  if (last) runString(last.text, scope, `${name} ${last.opt}`);
}

// -------------------------------------------------------------------------------------------
// xargs, parallel, fd

export const XARGS: Runner = {
  v: 'IinPdEeLlsa',
  lv: ['--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
};
export const DELETERS = new Set(['rm', 'shred', 'unlink', 'rmdir', 'srm', 'rimraf', 'trash', 'trash-put', 'gio']);

export function xargs(args: string[], scope: Scope): void {
  const p = parseRunner(args, XARGS);
  const run = p.operands.length ? p.operands : ['echo'];
  if (DELETERS.has(run[0].replace(/^.*\//, ''))) add(scope, F.xargsRm);
  command(run, scope);
}

const PARALLEL: Runner = {
  v: 'jPSadEInNLl',
  lv: [
    '--jobs', '--max-procs', '--sshlogin', '--sshloginfile', '--slf', '--arg-file', '--delimiter', '--eof', '--colsep', '--max-args', '--max-lines', '--timeout', '--joblog',
    '--results', '--res', '--tmpdir', '--workdir', '--wd', '--env', '--memfree', '--load', '--delay', '--retries', '--halt', '--basefile', '--bf', '--return', '--transfer-file',
    '--tf', '--tag-string', '--tagstring', '--rpl', '--sshdelay', '--block', '--block-size', '--recstart', '--recend', '--header', '--ssh', '--shebang-wrap', '--termseq', '--limit',
  ],
  sh: ['--ssh'],
};
const SEPARATOR = /^::::?\+?$/;

/** GNU parallel: the command (a shell line, `{}` replaced by each argument) or, without one, each argument is a command. */
export function parallel(args: string[], scope: Scope, input: string | null | undefined): void {
  const sep = args.findIndex((a) => SEPARATOR.test(a));
  const own = sep < 0 ? args : args.slice(0, sep);
  const p = parseRunner(own, PARALLEL);
  for (const sh of p.shells) runString(sh.text, scope, 'parallel --ssh');
  const lists: string[][] = [];
  let fromFiles = false;
  if (sep >= 0) {
    let cur: string[] | null = null;
    for (const a of args.slice(sep)) {
      if (SEPARATOR.test(a)) {
        cur = [];
        lists.push(cur);
        if (a.startsWith('::::')) fromFiles = true;
      } else cur?.push(a);
    }
  }
  // The arguments: the first ::: list (bounded), else stdin lines when known, else unknown.
  let items: string[] | null = lists.length && !fromFiles ? lists[0].slice(0, 16) : null;
  if (!lists.length && input !== undefined) items = input === null ? null : input.split('\n').filter((l) => l.trim()).slice(0, 64);
  const cmd = p.operands;
  if (!cmd.length) {
    if (items) for (const it of items) runString(it, scope, 'parallel');
    else if (input === null || fromFiles) add(scope, F.pipedScript);
    return;
  }
  const template = cmd.join(' ');
  if (DELETERS.has(cmd[0].replace(/^.*\//, '')) && !items) add(scope, F.xargsRm);
  const fill = (arg: string) => (/\{[^}\s]*\}/.test(template) ? template.replace(/\{[^}\s]*\}/g, arg) : `${template} ${arg}`);
  if (items) for (const it of items) runString(fill(it), scope, 'parallel');
  else runString(fill('FOUND_FILE'), scope, 'parallel');
}

const FD: Runner = {
  permute: true,
  v: 'etEdjSocp',
  lv: ['--extension', '--type', '--exclude', '--max-depth', '--min-depth', '--exact-depth', '--threads', '--size', '--changed-within', '--changed-before', '--owner', '--base-directory', '--path-separator', '--search-path', '--ignore-file', '--max-results', '--format', '--color', '--batch-size', '--and'],
  argvAt: ['-x', '--exec', '-X', '--exec-batch'],
  rest: 'none',
};

export function fd(args: string[], scope: Scope): void {
  const p = parseRunner(args, FD);
  if (!p.argv) return;
  let argv = p.argv;
  const end = argv.indexOf(';');
  if (end >= 0) argv = argv.slice(0, end);
  argv = argv.map((x) => (/^\{[^}]*\}$/.test(x) ? 'FOUND_FILE' : x));
  if (DELETERS.has((argv[0] ?? '').replace(/^.*\//, ''))) {
    add(scope, F.findDelete);
    // Every entry under the search paths (a pattern matching anything, no filters): a wipe of them.
    const [pattern, ...paths] = p.operands;
    const filters = ['-e', '--extension', '-t', '--type', '-E', '--exclude', '-S', '--size', '--changed-within', '--changed-before', '-o', '--owner', '-g', '--glob'];
    if ((pattern === undefined || ['.', '', '^', '.*'].includes(pattern)) && !filters.some((f) => p.opts.has(f))) recursiveDelete(paths.length ? paths : ['.'], scope);
  }
  command(argv, scope);
}

// -------------------------------------------------------------------------------------------
// Commands read later: at/batch, crontab, systemd-run

/** at/batch: the job is stdin (a heredoc here, a pipe in walk.ts) or `-f FILE`. */
export function at(args: string[], scope: Scope, stdin: string[], stdinFile: string | undefined): void {
  const p = parseRunner(args, { v: 'qfut', permute: true, query: ['-l', '-r', '-d', '-c', '-V', '-h', '--help'] });
  if (p.query) return;
  const file = p.opts.get('-f')?.pop();
  if (file !== undefined) return runScriptFile(file, scope);
  if (stdinFile !== undefined) return runScriptFile(stdinFile, scope);
  for (const s of stdin) runString(s, scope, 'at');
}

/** The commands of crontab lines (five time fields or an @keyword, then the command up to `%`). */
export function cronCommands(text: string, scope: Scope): void {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || /^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue;
    const m = line.startsWith('@') ? /^@\S+\s+(.*)$/.exec(line) : /^(?:\S+\s+){5}(.*)$/.exec(line);
    if (!m) continue;
    const cmd = m[1].replace(/(?<!\\)%.*$/, '');
    runString(cmd, scope, 'a crontab line');
  }
}

/** crontab: -r removes, -l/-T/-V read; anything else installs (a file, `-`, stdin) or edits. */
export function crontab(args: string[], scope: Scope, stdin: string[]): void {
  const p = parseRunner(args, { v: 'usT', query: ['-l', '-T', '-V', '--help', '-h'] });
  if (p.opts.has('-r')) add(scope, F.crontabRemove);
  if (p.query || p.opts.has('-r')) return;
  add(scope, F.crontabInstall);
  if (p.operands.length === 0 || p.operands[0] === '-') for (const s of stdin) cronCommands(s, scope);
}

const SYSTEMD_RUN: Runner = {
  v: 'pEuHMGsd',
  lv: [
    '--property', '--setenv', '--unit', '--host', '--machine', '--description', '--slice', '--uid', '--gid', '--nice', '--working-directory', '--on-active', '--on-boot',
    '--on-startup', '--on-unit-active', '--on-unit-inactive', '--on-calendar', '--timer-property', '--path-property', '--socket-property', '--service-type', '--shell',
  ],
};

/** systemd-run: the command (as a transient service, maybe on a timer), and Exec*= properties. */
export function systemdRun(args: string[], scope: Scope, inner: Inner): void {
  const p = parseRunner(args, SYSTEMD_RUN);
  for (const o of ['-p', '--property', '--timer-property', '--path-property', '--socket-property'])
    for (const v of p.opts.get(o) ?? []) {
      const m = /^Exec\w*=[-@:+!]*(.*)$/s.exec(v);
      if (m) runString(m[1], scope, `systemd-run ${v.slice(0, v.indexOf('='))}`);
    }
  const remote = p.opts.has('-H') || p.opts.has('--host') || p.opts.has('-M') || p.opts.has('--machine');
  const s = remote ? elsewhere(scope) : scope;
  const d = s.detached;
  s.detached = true;
  runParsed('systemd-run', p, SYSTEMD_RUN, s, inner);
  s.detached = d;
}

// -------------------------------------------------------------------------------------------
// ssh, scp, sftp: options that run a local command, and the remote command

const SSH_LOCAL = new Set(['proxycommand', 'localcommand', 'knownhostscommand']);

/** `-o Key=Value` / `-oKey Value`: ProxyCommand, LocalCommand, KnownHostsCommand run here; RemoteCommand there. */
function sshOptions(values: string[], scope: Scope, prog: string): void {
  for (const o of values) {
    const m = /^\s*([A-Za-z]+)\s*(?:=\s*|\s+)(.*)$/s.exec(o);
    if (!m) continue;
    const key = m[1].toLowerCase();
    if (SSH_LOCAL.has(key)) runString(m[2].replace(/%[%hprnCdiLlTuk]/g, 'X'), scope, `${prog} -o ${m[1]}`);
    else if (key === 'remotecommand') runString(m[2], elsewhere(scope), `${prog} -o RemoteCommand`);
  }
}

const SSH: Runner = { v: 'BbcDEeFIiJLlmOopQRSWw' };

export function ssh(args: string[], scope: Scope, stdin: string[] = []): void {
  const p = parseRunner(args, SSH);
  sshOptions(p.opts.get('-o') ?? [], scope, 'ssh');
  for (const l of [...(p.opts.get('-E') ?? [])]) checkWriteTarget(l, scope);
  if (p.operands.length > 1) runString(p.operands.slice(1).join(' '), elsewhere(scope), 'ssh');
  // No command: the remote shell reads its script from stdin (a heredoc here, a pipe in walk.ts).
  else if (!p.opts.has('-N') && !p.opts.has('-W')) for (const t of stdin) runString(t, elsewhere(scope), 'ssh');
}

/** ssh reads a remote script from stdin (it is given no command). */
export function sshReadsStdin(args: string[]): boolean {
  const p = parseRunner(args, SSH);
  return p.operands.length === 1 && !p.opts.has('-N') && !p.opts.has('-W') && !p.opts.has('-f');
}

export function scp(name: string, args: string[], scope: Scope, stdin: string[]): void {
  const p = parseRunner(args, { v: name === 'sftp' ? 'BbcDFiJloPRSs' : 'cDFiJloPSX' });
  sshOptions(p.opts.get('-o') ?? [], scope, name);
  for (const prog of [...(p.opts.get('-S') ?? []), ...(p.opts.get('-D') ?? [])]) runString(prog, scope, `${name} -S`);
  if (name === 'sftp') {
    // A batch file (`-b -` reads stdin): `!cmd` lines run here.
    if ((p.opts.get('-b') ?? []).includes('-')) for (const s of stdin) for (const m of s.matchAll(/^\s*!(.*)$/gm)) runString(m[1], scope, 'an sftp batch');
    return;
  }
  const ops = p.operands;
  const dest = ops[ops.length - 1];
  if (ops.length >= 2 && dest !== undefined && !/^(?:[^/:]+@)?[^/:]+:/.test(dest)) checkWriteTarget(dest, scope);
}

// -------------------------------------------------------------------------------------------
// socat, nc: a program connected to a socket

export function socat(args: string[], scope: Scope): void {
  const addrs = args.filter((a) => !a.startsWith('-'));
  let runs = false;
  for (const a of addrs) {
    const m = /^(?:EXEC|SYSTEM):(.*)$/is.exec(a);
    if (!m) continue;
    runs = true;
    // The command ends at the first unquoted comma (address options follow).
    const cmd = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^,])*/.exec(m[1])?.[0] ?? m[1];
    runString(cmd.replace(/^(["'])(.*)\1$/s, '$2'), scope, 'socat');
  }
  if (runs && addrs.some((a) => /^(tcp|udp|openssl|ssl|sctp|vsock|socks|proxy|dccp|udp-recv)/i.test(a))) add(scope, F.netShell);
}

export function netcat(args: string[], scope: Scope): void {
  const p = parseRunner(args, { permute: true, v: 'ecpswiqlOTIVxXbPM', sh: ['-c', '--sh-exec'], lv: ['--exec', '--lua-exec', '--proxy', '--proxy-type', '--source', '--wait', '--idle-timeout', '--output', '--hex-dump', '--allow', '--deny', '--max-conns'] });
  const exec = [...(p.opts.get('-e') ?? []), ...(p.opts.get('--exec') ?? []), ...(p.opts.get('--lua-exec') ?? [])];
  for (const e of exec) runString(e, scope, 'nc -e');
  for (const sh of p.shells) runString(sh.text, scope, `nc ${sh.opt}`);
  if (exec.length || p.shells.length) add(scope, F.netShell);
}

// -------------------------------------------------------------------------------------------
// Shell builtins that store a command line: trap, alias

export function trap(args: string[], scope: Scope): void {
  let a = args;
  if (a[0] === '--') a = a.slice(1);
  if (!a.length || /^-[lpP]$/.test(a[0])) return;
  // `trap SIG…` and `trap - SIG…` reset; `trap '' SIG` ignores.
  if (a.length === 1 || a[0] === '-' || a[0] === '') return;
  runString(a[0], scope, 'trap');
}

export function alias(args: string[], scope: Scope): void {
  for (const a of args) {
    const eq = a.indexOf('=');
    if (eq > 0 && !a.startsWith('-')) runString(a.slice(eq + 1), scope, 'alias');
  }
}

// -------------------------------------------------------------------------------------------
// hyperfine, expect

export function hyperfine(args: string[], scope: Scope): void {
  const arity: Record<string, number> = { '-w': 1, '--warmup': 1, '-m': 1, '--min-runs': 1, '-M': 1, '--max-runs': 1, '-r': 1, '--runs': 1, '-p': 1, '--prepare': 1, '-c': 1, '--cleanup': 1, '-s': 1, '--setup': 1, '-P': 3, '--parameter-scan': 3, '-D': 1, '--parameter-step-size': 1, '-L': 2, '--parameter-list': 2, '-S': 1, '--shell': 1, '-u': 1, '--time-unit': 1, '--export-asciidoc': 1, '--export-csv': 1, '--export-json': 1, '--export-markdown': 1, '--export-orgmode': 1, '--output': 1, '-n': 1, '--command-name': 1, '--sort': 1, '--style': 1, '--reference': 1, '--min-benchmarking-time': 1, '--input': 1 };
  const shells = new Set(['-p', '--prepare', '-c', '--cleanup', '-s', '--setup', '--reference']);
  const fill = (s: string) => s.replace(/\{[A-Za-z_]\w*\}/g, '1');
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (a.startsWith('-') && arity[name] !== undefined) {
      const values = eq > 0 ? [a.slice(eq + 1)] : args.slice(i + 1, i + 1 + arity[name]);
      if (eq < 0) i += arity[name];
      if (shells.has(name)) runString(fill(values[0] ?? ''), scope, `hyperfine ${name}`);
      if (name === '-S' || name === '--shell') runString(values[0] ?? '', scope, 'hyperfine --shell');
      if (name.startsWith('--export-')) checkWriteTarget(values[0] ?? '', scope);
      continue;
    }
    if (a.startsWith('-')) continue;
    runString(fill(a), scope, 'hyperfine');
  }
}

/** expect: inline Tcl (`-c`, or a heredoc) asks like other inline code; what it spawns or execs is analyzed. */
export function expect(args: string[], scope: Scope, stdin: string[]): void {
  const codes: string[] = [];
  for (let i = 0; i < args.length; i++) if (args[i] === '-c') codes.push(args[++i] ?? '');
  const hasFile = args.some((a, i) => !a.startsWith('-') && args[i - 1] !== '-c' && args[i - 1] !== '-f') || args.includes('-f');
  if (!hasFile) codes.push(...stdin);
  if (!codes.length) return;
  add(scope, F.scriptExec('expect (Tcl)'));
  for (const code of codes) for (const m of code.matchAll(/(?:^|[\s;[{])(?:spawn|exec|system)\s+([^\n;\]}]+)/g)) runString(m[1].replace(/^-\S+\s+/, ''), scope, 'expect');
}

// -------------------------------------------------------------------------------------------
// bwrap: the sandbox's folders come from its bind options

const BWRAP_ARITY: Record<string, number> = {
  '--bind': 2, '--bind-try': 2, '--dev-bind': 2, '--dev-bind-try': 2, '--ro-bind': 2, '--ro-bind-try': 2, '--symlink': 2, '--setenv': 2, '--chmod': 2,
  '--file': 2, '--bind-data': 2, '--ro-bind-data': 2, '--bind-fd': 2, '--ro-bind-fd': 2, '--overlay': 3, '--args': 1, '--argv0': 1, '--userns': 1,
  '--userns2': 1, '--pidns': 1, '--uid': 1, '--gid': 1, '--hostname': 1, '--chdir': 1, '--unsetenv': 1, '--lock-file': 1, '--sync-fd': 1, '--remount-ro': 1,
  '--exec-label': 1, '--file-label': 1, '--proc': 1, '--dev': 1, '--tmpfs': 1, '--mqueue': 1, '--dir': 1, '--seccomp': 1, '--add-seccomp-fd': 1,
  '--block-fd': 1, '--userns-block-fd': 1, '--info-fd': 1, '--json-status-fd': 1, '--cap-add': 1, '--cap-drop': 1, '--perms': 1, '--size': 1,
  '--overlay-src': 1, '--tmp-overlay': 1, '--ro-overlay': 1,
};

/** bwrap [options] COMMAND: the command runs in a root built from the bind options. */
export function bwrap(args: string[], scope: Scope, inner: Inner): void {
  const mounts: { target: string; source: string }[] = [];
  let cwd: string | null = null;
  let i = 0;
  while (i < args.length && args[i].startsWith('--')) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    const n = BWRAP_ARITY[a] ?? 0;
    const v = args.slice(i + 1, i + 1 + n);
    if (/^--(dev-)?(ro-)?bind(-try)?$/.test(a) && v.length === 2) mounts.push({ source: v[0], target: v[1] });
    if (a === '--chdir' && v[0]?.startsWith('/')) cwd = v[0];
    i += 1 + n;
  }
  const rest = args.slice(i);
  if (!rest.length) return;
  const s = elsewhere(scope, mounts);
  s.cwd = cwd;
  inner(rest, s);
}
