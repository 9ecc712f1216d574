// Programs that run another command: the data that says how each one hands it over, and the
// engine that finds the inner command so it is classified like a top-level one.
//
// A runner takes its command in one of a few shapes: the operands after its own options are the
// command's argv (`timeout 5 rm …`, `nsenter -t 1 rm …`), one shell command line (`watch 'rm …'`,
// `ssh host rm …`), a shell line each (`concurrently 'a' 'b'`), or an option's value is a shell
// line (`su -c`, `flock -c`, `nix-shell --run`) or starts the argv (`nix develop -c rm …`). Some
// run it elsewhere (a container, another machine) or from a root built of host folders (`chroot
// DIR`), which changes what its paths mean (context.ts: elsewhere). A command that is only known
// at run time (`su -c "$X"`) asks. Programs with subcommands (tmux, screen, git, docker, kubectl,
// npm…) pick a spec per subcommand (multiplexers.ts, containers.ts, rules-git.ts).
import { parseDoubleQuoted } from '../shell-lex.ts';
import { absPath, canonPath, DECODE, DOWNLOAD, DYN, elsewhere, isDynamic, type Scope } from './context.ts';
import { segCharsText } from './expand.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { gitConfigValue } from './rules-git.ts';
import { checkWriteTarget } from './targets.ts';
import { analyzeScript, runScriptFile } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

export interface Runner {
  /** Short options that take a value (`-n 5`, `-n5`), as one string of letters. */
  v?: string;
  /** Long options that take a value (a separate word unless written `--opt=value`). */
  lv?: readonly string[];
  /** Every long option, so getopt's unique abbreviations resolve (`--comm` is `--command`). */
  longs?: readonly string[];
  /** Options may follow operands (GNU argument permutation), up to `--`. */
  permute?: boolean;
  /** Operands the runner consumes before the command (a duration, a root, a user, a container). */
  skip?: number;
  /** Options with which nothing is run (queries: `command -v`, `ionice -p`). */
  query?: readonly string[];
  /** Options whose value is a shell command line the program runs. */
  sh?: readonly string[];
  /** Options whose value starts the command's argv (`nix develop -c rm -rf x`). */
  argvAt?: readonly string[];
  /** Options whose value is a file the program writes (a log). */
  writes?: readonly string[];
  /** What the operands are: the command's argv (default), one shell line, one line each, files it writes, or data. */
  rest?: 'argv' | 'shell' | 'each' | 'writes' | 'none';
  /** The command runs detached from this one (nohup, setsid). */
  detached?: boolean;
  /** It runs on another machine or in a container: host paths do not apply. */
  remote?: boolean;
  /** The first operand is the new root directory (`chroot DIR cmd`). */
  root?: boolean;
  /** Leading NAME=VALUE operands are environment assignments (`cross-env A=1 cmd`). */
  assigns?: boolean;
  /** The skipped operand must look like this, or the runner fails and runs nothing (`timeout echo …`). */
  skipMatch?: RegExp;
  /** Options whose value must be a number, or the runner fails and runs nothing (`nice -n echo …`). */
  numeric?: readonly string[];
  /** Flags that make the operands one shell line (`entr -s`, `pnpm exec -c`). */
  shellIf?: readonly string[];
  /** Flags that make the operands argv instead of a shell line (`watch -x`). */
  argvIf?: readonly string[];
  /** The command is what follows `--` when there is one (`mise exec node@20 -- node -v`). */
  afterDashDash?: boolean;
  /** After the skipped operands, `-c STR` runs STR (`flock FILE -c STR`). */
  shAfterSkip?: readonly string[];
  /** Options whose value is the folder the command runs in (`env -C`, `sudo -D`, `unshare -w`). */
  chdir?: readonly string[];
  /** Options whose value is the root folder the command sees (`unshare -R`, `systemd-nspawn -D`). */
  rootOpt?: readonly string[];
}

/** What a runner's arguments say once parsed. */
export interface Parsed {
  query: boolean;
  /** Shell lines given by `sh` options, with the option. */
  shells: { opt: string; text: string }[];
  /** The command's argv when an `argvAt` option started it. */
  argv: string[] | null;
  operands: string[];
  /** Option → its values (every option seen; bools have ''). */
  opts: Map<string, string[]>;
  /** The words after the first `--`, wherever it is (null without one). */
  afterDD: string[] | null;
}

/** The long option `name` stands for (getopt accepts unique prefixes), or `name` itself. */
function resolveLong(name: string, longs: readonly string[] | undefined): string {
  if (!longs || longs.includes(name)) return name;
  const hits = longs.filter((l) => l.startsWith(name));
  return hits.length === 1 ? hits[0] : name;
}

/** Parses a runner's own options (getopt-style: clusters, attached values, `--`, abbreviations). */
export function parseRunner(args: string[], spec: Runner): Parsed {
  const dd = args.indexOf('--');
  const out: Parsed = { query: false, shells: [], argv: null, operands: [], opts: new Map(), afterDD: dd >= 0 ? args.slice(dd + 1) : null };
  const note = (o: string, v: string) => {
    const l = out.opts.get(o);
    if (l) l.push(v);
    else out.opts.set(o, [v]);
  };
  const takes = (o: string) => !!(spec.lv?.includes(o) || spec.sh?.includes(o) || spec.argvAt?.includes(o) || spec.writes?.includes(o));
  const use = (o: string, v: string | undefined, i: number): boolean => {
    note(o, v ?? '');
    if (spec.query?.includes(o)) out.query = true;
    if (spec.sh?.includes(o)) out.shells.push({ opt: o, text: v ?? '' });
    if (spec.argvAt?.includes(o) && v !== undefined) {
      out.argv = [v, ...args.slice(i)];
      return true;
    }
    return false;
  };
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === '--') {
      out.operands.push(...args.slice(i + 1));
      return out;
    }
    if (!a.startsWith('-') || a === '-') {
      if (!spec.permute) {
        out.operands.push(...args.slice(i));
        return out;
      }
      out.operands.push(a);
      i++;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = resolveLong(eq < 0 ? a : a.slice(0, eq), spec.longs);
      let value = eq < 0 ? undefined : a.slice(eq + 1);
      i++;
      if (value === undefined && takes(name)) value = args[i++];
      if (use(name, value, i)) return out;
      continue;
    }
    // A cluster of short options; the first one taking a value takes the rest of the word or the next word.
    let consumed = 1;
    for (let k = 1; k < a.length; k++) {
      const o = `-${a[k]}`;
      if (spec.v?.includes(a[k]) || takes(o)) {
        const attached = k < a.length - 1 ? a.slice(k + 1) : undefined;
        const value = attached ?? args[i + 1];
        consumed = attached === undefined ? 2 : 1;
        if (use(o, value, i + consumed)) return out;
        break;
      }
      use(o, undefined, i + 1);
    }
    i += consumed;
  }
  return out;
}

/** A shell command line handed to a program: analyzed; asks when it is only known at run time. */
export function runString(text: string, scope: Scope, via: string): void {
  if (text.includes(DOWNLOAD)) add(scope, F.pipeShell);
  else if (text.includes(DECODE)) add(scope, F.decodeShell);
  else if (isDynamic(text)) add(scope, F.runnerUnknown(via));
  analyzeScript(text, scope);
}

const NUMBER = /^[-+]?\d+(\.\d+)?$/;

/** A scope whose working directory is `dir` (as seen from `scope`), or unknown when `dir` is. */
export function inFolder(dir: string, scope: Scope): Scope {
  const c = canonPath(dir, scope);
  return { ...scope, cwd: c !== null && /^[/~@]/.test(c) ? absPath(c, scope) : null };
}

/** Runs the parsed command of a runner with `spec` (shell lines, argv, operands). */
export function runParsed(name: string, p: Parsed, spec: Runner, scope: Scope, inner: (argv: string[], s: Scope) => void): void {
  if (p.query) return;
  for (const o of spec.numeric ?? []) if ((p.opts.get(o) ?? []).some((v) => !NUMBER.test(v) && !v.includes(DYN))) return;
  for (const w of spec.writes ?? []) for (const f of p.opts.get(w) ?? []) if (f) checkWriteTarget(f, scope);
  let s = scope;
  let ops = spec.afterDashDash && p.afterDD ? p.afterDD : p.operands;
  const rootOpt = (spec.rootOpt ?? []).flatMap((o) => p.opts.get(o) ?? []).pop();
  if (spec.root) {
    const root = ops[0];
    ops = ops.slice(1);
    s = root === undefined ? scope : elsewhere(scope, [{ target: '/', source: root }]);
  } else if (rootOpt) s = elsewhere(scope, [{ target: '/', source: rootOpt }]);
  else if (spec.remote) s = elsewhere(scope);
  const dir = (spec.chdir ?? []).flatMap((o) => p.opts.get(o) ?? []).pop();
  if (dir !== undefined) s = inFolder(dir, s);
  for (const sh of p.shells) runString(sh.text, s, `${name} ${sh.opt}`);
  if (p.argv) return inner(p.argv, s);
  if (!(spec.afterDashDash && p.afterDD)) {
    const skip = spec.skip ?? 0;
    if (spec.skipMatch && ops.length > skip && !ops.slice(0, skip).every((o) => spec.skipMatch!.test(o) || o.includes(DYN))) return;
    ops = ops.slice(skip);
  }
  if (spec.shAfterSkip?.includes(ops[0] ?? '')) return runString(ops[1] ?? '', s, `${name} ${ops[0]}`);
  if (spec.assigns) {
    let k = 0;
    while (k < ops.length && /^[^=\s-][^=\s]*=/.test(ops[k])) {
      const eq = ops[k].indexOf('=');
      checkAssignment(ops[k].slice(0, eq), ops[k].slice(eq + 1), s);
      k++;
    }
    ops = ops.slice(k);
  }
  if (!ops.length) return;
  let rest = spec.rest ?? 'argv';
  if (spec.shellIf?.some((f) => p.opts.has(f))) rest = 'shell';
  if (spec.argvIf?.some((f) => p.opts.has(f))) rest = 'argv';
  switch (rest) {
    case 'argv':
      return inner(ops, s);
    case 'shell':
      return runString(ops.join(' '), s, name);
    case 'each':
      for (const o of ops) runString(o, s, name);
      return;
    case 'writes':
      for (const o of ops) checkWriteTarget(o, s);
      return;
    default:
      return;
  }
}

/**
 * Runs `name` when it is a runner of the table (or a subcommand runner): true when it was, and
 * the inner command has been handed to `inner` (walk.ts's command, keeping stdin and raw words).
 */
export function runRunner(name: string, args: string[], scope: Scope, inner: (argv: string[], s: Scope) => void): boolean {
  const sub = subRunner(name, args);
  const spec = sub?.spec ?? runnerSpec(name);
  if (!spec) return false;
  const a = sub ? sub.args : name === 'sg' && args[0] === '-' ? args.slice(1) : args;
  const p = parseRunner(a, spec);
  const d = scope.detached;
  if (spec.detached) scope.detached = true;
  runParsed(sub ? `${name} ${sub.sub}` : name, p, spec, scope, inner);
  scope.detached = d;
  return true;
}

// -------------------------------------------------------------------------------------------
// The table: programs that run the command they are given. Programs with subcommands, or with
// more to say than these fields (sudo, env, su, xargs, find, ssh, tmux, screen, docker, git…),
// are handled by name in walk.ts and the rules files.

const DETACHED: Runner = { detached: true };
const PLAIN: Runner = {};
/** What timeout accepts as a duration (strtod's numbers, `inf`), with an optional unit. */
const DURATION = /^\+?(\d+\.?\d*(e[+-]?\d+)?|\.\d+|0x[\da-f.]+(p[+-]?\d+)?|inf(inity)?)[smhd]?$/i;
const NPM_EXEC: Runner = { v: 'pw', lv: ['--package', '--workspace', '--prefix'], sh: ['-c', '--call'] };
const PERF: Runner = { v: 'eopCtIrGcFm', lv: ['--event', '--output', '--pid', '--tid', '--cpu', '--repeat', '--cgroup', '--count', '--freq', '--mmap-pages'], query: ['-p', '--pid', '-t', '--tid'] };

export const RUNNERS: Record<string, Runner> = {
  // scheduling, priorities, limits
  nohup: DETACHED,
  setsid: { detached: true },
  disown: { rest: 'none' },
  builtin: PLAIN,
  command: { query: ['-v', '-V'] },
  exec: { v: 'a' },
  time: { v: 'fo', lv: ['--format', '--output'], writes: ['-o', '--output'] },
  nice: { v: 'n', lv: ['--adjustment'], numeric: ['-n', '--adjustment'] },
  ionice: { v: 'cn', lv: ['--class', '--classdata'], query: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  chrt: { skip: 1, skipMatch: /^\d+$/, v: 'TPD', lv: ['--sched-runtime', '--sched-period', '--sched-deadline'], query: ['-p', '--pid', '-m', '--max'] },
  taskset: { skip: 1, skipMatch: /^[\da-fA-Fx,-]+$/, query: ['-p', '--pid'] },
  timeout: { skip: 1, skipMatch: DURATION, v: 'sk', lv: ['--signal', '--kill-after'] },
  gtimeout: { skip: 1, skipMatch: DURATION, v: 'sk', lv: ['--signal', '--kill-after'] },
  watch: { rest: 'shell', argvIf: ['-x', '--exec'], v: 'nq', lv: ['--interval', '--equexit'] },
  script: { sh: ['-c', '--command'], rest: 'writes', v: 'EmoOIBT', lv: ['--echo', '--logging-format', '--output-limit', '--log-out', '--log-in', '--log-io', '--log-timing'], writes: ['-O', '--log-out', '-I', '--log-in', '-B', '--log-io', '-T', '--log-timing'] },
  flock: { skip: 1, shAfterSkip: ['-c', '--command'], sh: ['-c', '--command'], v: 'wE', lv: ['--timeout', '--conflict-exit-code'] },
  wsl: { v: 'du', lv: ['--distribution', '--user', '--cd', '--shell-type', '--system'], argvAt: ['-e', '--exec'], rest: 'shell' },
  npx: { v: 'pw', lv: ['--package', '--workspace', '--prefix', '--node-options'], sh: ['-c', '--call'] },
  stdbuf: { v: 'ioe', lv: ['--input', '--output', '--error'] },
  prlimit: { v: 'p', lv: ['--pid', '--output'], query: ['-p', '--pid'] },
  numactl: { v: 'CNmpiP', lv: ['--cpunodebind', '--physcpubind', '--membind', '--preferred', '--interleave', '--localalloc'] },
  cpulimit: { v: 'lpe', lv: ['--limit', '--pid', '--exe'], query: ['-p', '--pid', '-e', '--exe'] },
  trickle: { v: 'udwtlnL' },
  caffeinate: { v: 'tw' },
  'systemd-inhibit': { lv: ['--what', '--who', '--why', '--mode'], query: ['--list'] },
  'systemd-cat': { v: 'tp', lv: ['--identifier', '--priority', '--stderr-priority', '--level-prefix'] },
  tsp: { v: 'LDNEW' },
  chronic: PLAIN,
  eatmydata: PLAIN,
  nocache: PLAIN,
  unbuffer: PLAIN,
  catchsegv: PLAIN,
  rlwrap: { v: 'abcCefFhHlMoOpPqsStwz' },
  winpty: PLAIN,
  tini: { v: 'psel' },
  'dumb-init': { v: 'r' },
  faketime: { skip: 1, v: 'f' },
  // tracing and debugging a program
  strace: { v: 'oepsuEabIOPSX', writes: ['-o'] },
  ltrace: { v: 'oepsuEabIOPSXnAD', writes: ['-o'] },
  valgrind: PLAIN,
  gdbserver: { skip: 1 },
  // identities, namespaces, sandboxes
  doas: { v: 'ua', query: ['-C'] },
  pkexec: { lv: ['--user'] },
  run0: { v: 'ugD', lv: ['--user', '--group', '--nice', '--chdir', '--setenv', '--unit', '--property', '--description', '--slice', '--machine', '--background'], chdir: ['-D', '--chdir'] },
  gosu: { skip: 1 },
  'su-exec': { skip: 1 },
  setuidgid: { skip: 1 },
  chpst: { v: 'ugUebn/lLmdostpP' },
  setpriv: {
    lv: ['--reuid', '--regid', '--ruid', '--euid', '--rgid', '--egid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--pdeathsig', '--selinux-label', '--apparmor-profile', '--landlock-access', '--landlock-rule', '--seccomp-filter'],
    query: ['-d', '--dump'],
  },
  unshare: { v: 'SGRwC', lv: ['--map-user', '--map-group', '--map-users', '--map-groups', '--setuid', '--setgid', '--root', '--wd', '--propagation', '--setgroups', '--load-interp'], rootOpt: ['-R', '--root'], chdir: ['-w', '--wd'] },
  nsenter: { v: 'tSG', lv: ['--target', '--setuid', '--setgid', '--env'] },
  firejail: PLAIN,
  sg: { skip: 1, shAfterSkip: ['-c'], rest: 'shell' },
  newgrp: { rest: 'none' },
  cgexec: { v: 'g' },
  chroot: { root: true, lv: ['--userspec', '--groups'] },
  'arch-chroot': { root: true, v: 'uN' },
  fakeroot: { v: 'lsi', lv: ['--lib', '--faked'] },
  fakechroot: { v: 'lcdse', lv: ['--lib', '--config-dir', '--environment'] },
  proot: { v: 'rbmwuk', lv: ['--rootfs', '--bind', '--mount', '--cwd', '--kernel-release'] },
  schroot: { v: 'cudnp', lv: ['--chroot', '--user', '--directory', '--session-name'], query: ['-l', '--list', '-i', '--info'] },
  'systemd-nspawn': { remote: true, rootOpt: ['-D', '--directory'], v: 'DMuUSZLEpnbx', lv: ['--directory', '--image', '--machine', '--user', '--chdir', '--setenv', '--bind', '--bind-ro', '--network-interface', '--private-users', '--property', '--register', '--slice', '--template'] },
  'flatpak-spawn': { lv: ['--env', '--forward-fd', '--directory', '--app-path', '--usr-path', '--sandbox-expose', '--sandbox-expose-ro'] },
  'lxc-attach': { remote: true, v: 'nPesLvu', lv: ['--name', '--lxcpath', '--elevated-privileges', '--namespaces', '--remount-sys-proc', '--set-var', '--keep-var', '--uid', '--gid'] },
  // environments and tool managers that run a command in them
  'cross-env': { assigns: true },
  'env-cmd': { v: 'fer', lv: ['--file', '--environments', '--rc-file'] },
  dotenv: { v: 'ecv', lv: ['-e', '-c', '-v'] },
  sshpass: { v: 'pfdPe' },
  shx: PLAIN,
  'dbus-run-session': { lv: ['--config-file', '--dbus-daemon'] },
  'dbus-launch': { lv: ['--config-file', '--autolaunch'] },
  'ssh-agent': { v: 'aEPtO' },
  'xvfb-run': { v: 'nsefpw', lv: ['--server-num', '--server-args', '--error-file', '--xauth-protocol', '--wait'] },
  mpirun: { v: 'nNHc', lv: ['-np', '--np', '-host', '--host', '--hostfile', '-hostfile', '--map-by', '--bind-to', '-x', '--mca'] },
  mpiexec: { v: 'nNHc', lv: ['-np', '--np', '-host', '--host', '--hostfile', '-hostfile', '--map-by', '--bind-to', '-x', '--mca'] },
  srun: { v: 'ACdDeJnNopqtw', lv: ['--account', '--constraint', '--chdir', '--error', '--job-name', '--ntasks', '--nodes', '--output', '--partition', '--qos', '--time', '--nodelist', '--mem', '--cpus-per-task', '--gres'] },
  sbatch: { sh: ['--wrap'], rest: 'none', v: 'ACdDeJnNopqtw', lv: ['--account', '--constraint', '--chdir', '--error', '--job-name', '--ntasks', '--nodes', '--output', '--partition', '--qos', '--time', '--nodelist', '--mem', '--cpus-per-task', '--gres'] },
  uvx: { v: 'p', lv: ['--from', '--with', '--python', '--index', '--index-url', '--extra-index-url', '--directory', '--env-file'] },
  bunx: { v: 'p', lv: ['--package'] },
  'nix-shell': { sh: ['--run', '--command'], v: 'pIAE', lv: ['--packages', '--include', '--attr', '--expr', '--arg', '--argstr', '--option'], rest: 'none', permute: true },
  watchexec: { rest: 'shell', v: 'weifdrspW', lv: ['--watch', '--exts', '--ignore', '--filter', '--debounce', '--restart', '--signal', '--project-origin', '--workdir', '--shell', '--on-busy-update', '--delay-run', '--env'] },
  entr: { shellIf: ['-s'] },
  nodemon: { sh: ['-x', '--exec'], v: 'wedeiVx', lv: ['--watch', '--ext', '--delay', '--ignore', '--signal', '--config'], rest: 'none', permute: true },
  concurrently: { rest: 'each', v: 'nckpPs', lv: ['--names', '--prefix-colors', '--kill-others-on-fail', '--prefix', '--success', '--restart-tries', '--restart-after', '--max-processes', '--timestamp-format', '--prefix-length', '--hide', '--handle-input', '--default-input-target', '--name-separator', '--pad-prefix'] },
  fzf: { sh: ['--preview'], rest: 'none', permute: true, lv: ['--bind', '--height', '--layout', '--preview-window', '--query', '--filter', '--delimiter', '--nth', '--with-nth', '--header', '--prompt', '--color', '--expect', '--tiebreak', '--border', '--margin', '--padding', '--info', '--pointer', '--marker'] },
};

/** Subcommands of tool and environment managers that run a command (`uv run …`, `npm exec …`). */
export const SUB_RUNNERS: Record<string, Record<string, Runner>> = {
  uv: { run: { v: 'p', lv: ['--with', '--with-requirements', '--python', '--project', '--directory', '--env-file', '--extra', '--group', '--package', '--index', '--index-url', '--extra-index-url', '--script'] }, tool: {} },
  poetry: { run: { lv: ['--directory', '-C', '--project', '-P'] } },
  pdm: { run: { v: 'p', lv: ['--project', '--venv'] } },
  pipenv: { run: {} },
  hatch: { run: {} },
  rye: { run: {} },
  pixi: { run: { v: 'e', lv: ['--environment', '--manifest-path'] }, exec: { v: 's', lv: ['--spec'] } },
  conda: { run: { v: 'np', lv: ['--name', '--prefix', '--cwd'] } },
  mamba: { run: { v: 'np', lv: ['--name', '--prefix', '--cwd'] } },
  micromamba: { run: { v: 'np', lv: ['--name', '--prefix', '--cwd'] } },
  bundle: { exec: {} },
  pipx: { run: { lv: ['--spec', '--python', '--index-url', '--pip-args'] } },
  mise: { exec: { afterDashDash: true, v: 'C', lv: ['--cd'] }, x: { afterDashDash: true, v: 'C', lv: ['--cd'] } },
  rtx: { exec: { afterDashDash: true }, x: { afterDashDash: true } },
  asdf: { exec: {} },
  rbenv: { exec: {} },
  pyenv: { exec: {} },
  nodenv: { exec: {} },
  fnm: { exec: { afterDashDash: true, lv: ['--using'] } },
  volta: { run: { lv: ['--node', '--npm', '--yarn', '--pnpm', '--env'] } },
  devbox: { run: { v: 'ce', lv: ['--config', '--env', '--env-file'] } },
  direnv: { exec: { skip: 1 } },
  doppler: { run: { afterDashDash: true, sh: ['--command'], lv: ['--project', '-p', '--config', '-c', '--token', '--mount', '--mount-format', '--fallback', '--name-transformer'] } },
  infisical: { run: { afterDashDash: true, sh: ['--command'], lv: ['--env', '--path', '--projectId', '--token', '--tags', '--domain'] } },
  op: { run: { afterDashDash: true, lv: ['--env-file', '--account'] } },
  dotenvx: { run: { afterDashDash: true, v: 'f', lv: ['--env-file', '--env', '--env-keys-file'] } },
  'aws-vault': { exec: { skip: 1, v: 'dt', lv: ['--duration', '--mfa-token', '--region', '--backend'] } },
  chamber: { exec: { afterDashDash: true, rest: 'none' } },
  sops: { 'exec-env': { skip: 1, rest: 'shell' }, 'exec-file': { skip: 1, rest: 'shell' } },
  nvm: { exec: { skip: 1, skipMatch: /^(v?\d[\w.]*|node|lts\/[\w*]+|stable|system|--lts)$/ } },
  devcontainer: { exec: { lv: ['--workspace-folder', '--container-id', '--id-label', '--config', '--remote-env', '--docker-path', '--log-level', '--log-format'], remote: true } },
  distrobox: { enter: { skip: 1, v: 'n', lv: ['--name', '--additional-flags'], remote: true } },
  toolbox: { run: { v: 'crd', lv: ['--container', '--release', '--distro'] } },
  lxc: { exec: { skip: 1, permute: true, remote: true, lv: ['--env', '--cwd', '--user', '--group', '--mode'] } },
  incus: { exec: { skip: 1, permute: true, remote: true, lv: ['--env', '--cwd', '--user', '--group', '--mode'] } },
  machinectl: { shell: { skip: 1, v: 'EpM', lv: ['--setenv', '--property', '--machine', '--uid'], remote: true } },
  vagrant: { ssh: { sh: ['-c', '--command'], rest: 'none', remote: true } },
  npm: { exec: NPM_EXEC, x: NPM_EXEC, explore: { skip: 1, rest: 'shell' } },
  pnpm: { dlx: { v: 'c', lv: ['--package'], shellIf: ['-c', '--shell-mode'] }, exec: { shellIf: ['-c', '--shell-mode'] } },
  yarn: { dlx: { v: 'p', lv: ['--package'] }, exec: { rest: 'shell' } },
  bun: { x: { v: 'p', lv: ['--package'] } },
  perf: { stat: PERF, record: PERF, trace: PERF },
  ip: { netns: {}, vrf: {} },
  rr: { record: { v: 'bcCnh', lv: ['--output-trace-dir'] } },
};

// -------------------------------------------------------------------------------------------
// Environment variables and config values that hold a command another program runs

/**
 * Environment variables whose value a program runs: `shell`, a command line (pagers, editors,
 * ssh commands, askpass helpers); `file`, a script a shell sources (BASH_ENV); `prompt`, text
 * whose `$( … )` runs when it is shown (PS1, PS4 with `bash -x`); `gitconfig`, git config pairs.
 */
export const ENV_RUNNERS: Record<string, 'shell' | 'file' | 'prompt' | 'gitconfig' | 'lessopen'> = {
  GIT_SSH_COMMAND: 'shell', GIT_SSH: 'shell', GIT_PAGER: 'shell', PAGER: 'shell', MANPAGER: 'shell', SYSTEMD_PAGER: 'shell',
  GIT_EDITOR: 'shell', GIT_SEQUENCE_EDITOR: 'shell', EDITOR: 'shell', VISUAL: 'shell', SUDO_EDITOR: 'shell', KUBE_EDITOR: 'shell',
  SVN_EDITOR: 'shell', HGEDITOR: 'shell', SYSTEMD_EDITOR: 'shell', GIT_EXTERNAL_DIFF: 'shell', GIT_ASKPASS: 'shell', SSH_ASKPASS: 'shell',
  SUDO_ASKPASS: 'shell', GIT_PROXY_COMMAND: 'shell', BROWSER: 'shell', FZF_DEFAULT_COMMAND: 'shell', RSYNC_RSH: 'shell',
  RSYNC_CONNECT_PROG: 'shell', CVS_RSH: 'shell', PROMPT_COMMAND: 'shell', GIT_DIFF_OPTS: 'shell', TAR_RSH: 'shell',
  LESSOPEN: 'lessopen', LESSCLOSE: 'lessopen',
  BASH_ENV: 'file', ENV: 'file',
  PS0: 'prompt', PS1: 'prompt', PS2: 'prompt', PS4: 'prompt',
  GIT_CONFIG_PARAMETERS: 'gitconfig',
};

/** One environment assignment (`X=… cmd`, `export X=…`, `env X=…`): a command it holds is analyzed. */
export function checkAssignment(name: string, value: string, scope: Scope): void {
  const kind = ENV_RUNNERS[name];
  if (kind === undefined) {
    const m = /^GIT_CONFIG_VALUE_(\d+)$/.exec(name);
    if (m) {
      const key = scope.vars.get(`GIT_CONFIG_KEY_${m[1]}`);
      if (key !== undefined) gitConfigValue(key, value, scope, `the ${key} git setting`);
    } else if (/^GIT_CONFIG_KEY_\d+$/.test(name) && !value.includes(DYN)) scope.vars.set(name, value);
    return;
  }
  switch (kind) {
    case 'shell':
      return runString(value, scope, `the ${name} variable`);
    case 'lessopen':
      return runString(value.replace(/^[|]{1,2}-?/, ''), scope, `the ${name} variable`);
    case 'file':
      return runScriptFile(value, scope);
    case 'prompt':
      if (/[$`]/.test(value)) segCharsText(parseDoubleQuoted(value), scope);
      return;
    case 'gitconfig':
      // 'key'='value' pairs, separated by spaces (git's own quoting).
      for (const m of value.matchAll(/'((?:[^'\\]|\\.)*)'(?:='((?:[^'\\]|\\.)*)')?/g)) if (m[2] !== undefined) gitConfigValue(m[1], m[2], scope, `the ${m[1]} git setting`);
      return;
  }
}

/** A runner by name: the table above, or null. */
export function runnerSpec(name: string): Runner | null {
  return Object.hasOwn(RUNNERS, name) ? RUNNERS[name] : null;
}

/** A subcommand runner (`uv run`): the spec and the arguments after the subcommand, or null. */
export function subRunner(name: string, args: string[]): { spec: Runner; args: string[]; sub: string } | null {
  const subs = Object.hasOwn(SUB_RUNNERS, name) ? SUB_RUNNERS[name] : null;
  if (!subs) return null;
  // Global options before the subcommand, and the value of one when the next word is not a subcommand.
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) {
    i++;
    if (i < args.length && !args[i].startsWith('-') && !args[i - 1].includes('=') && !Object.hasOwn(subs, args[i]) && args[i + 1] !== undefined && Object.hasOwn(subs, args[i + 1])) i++;
  }
  const sub = args[i];
  if (sub === undefined) return null;
  if (name === 'uv' && sub === 'tool' && args[i + 1] === 'run') return { spec: RUNNERS.uvx, args: args.slice(i + 2), sub: 'tool run' };
  if (name === 'ip' && (sub === 'netns' || sub === 'vrf') && args[i + 1] === 'exec') return { spec: { skip: 1 }, args: args.slice(i + 2), sub: `${sub} exec` };
  const spec = Object.hasOwn(subs, sub) ? subs[sub] : null;
  return spec ? { spec, args: args.slice(i + 1), sub } : null;
}
