// Rules for one unwrapped command that deletes, writes, formats, kills or powers off: rm, mv/cp,
// tee/sed/truncate, chmod/chown, dd/mkfs/wipefs, kill/pkill/killall, systemctl/shutdown/init, …
import { canonPath, DYN, PIDS, type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { globToRegExp, hasGlob } from './glob.ts';
import { BLOCK_DEVICE, checkWriteTarget } from './targets.ts';

const SYSTEM_DIRS = new Set([
  '/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/proc', '/root', '/sbin', '/sys', '/usr', '/var',
  '/home', '/srv', '/mnt', '/media', '/snap', '/System', '/Library', '/Applications', '/Users', '/private', '/private/etc', '/private/var',
  '/Volumes', '/nix', '/run',
]);

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);
const flagLetters = (args: string[]) => args.filter((x) => /^-[A-Za-z]/.test(x)).map((x) => x.slice(1)).join('');

/**
 * Whether deleting `t` recursively destroys the machine or the user's home: '/', a system
 * directory, their `/*`, a glob at the top level that can match one, `~`, `$HOME`.
 */
export function rootish(t: string, scope: Scope): { root: string } | { home: true } | null {
  if (t === '$HOME' || t === '${HOME}') return { home: true };
  const c = canonPath(t, scope);
  if (c === null) return null;
  if (c === '~' || c === '~/*') return { home: true };
  if (/^\/+\**$/.test(c)) return { root: '/' };
  const dir = c.endsWith('/*') ? c.slice(0, -2) : c;
  if (SYSTEM_DIRS.has(dir)) return { root: dir };
  const top = /^\/([^/]*[*?[][^/]*)(\/\*)?$/.exec(c);
  if (top) {
    const re = globToRegExp(top[1]);
    for (const d of SYSTEM_DIRS) if (d.lastIndexOf('/') === 0 && re.test(d.slice(1))) return { root: c };
  }
  return null;
}

/** Adds the finding for recursively deleting `targets` (hardline for roots and home). */
export function recursiveDelete(targets: string[], scope: Scope): void {
  let severe = false;
  for (const t of targets) {
    const r = rootish(t, scope);
    if (!r) continue;
    severe = true;
    add(scope, 'home' in r ? F.homeDelete : F.rootDelete(r.root));
  }
  if (!severe) add(scope, F.recursiveDelete);
  for (const t of targets) {
    if (canonPath(t, scope) === '@H') add(scope, F.selfWrite('home directory'));
    else checkWriteTarget(t, scope, 'delete');
  }
}

/** Options of a command that take a value, so the value is not mistaken for a file. */
function positionals(args: string[], withValue: string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return [...out, ...args.slice(i + 1)];
    if (a.startsWith('-') && a !== '-') {
      if (withValue.includes(a)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

function rm(args: string[], scope: Scope): void {
  const dd = args.indexOf('--');
  const opts = dd >= 0 ? args.slice(0, dd) : args;
  const longs = opts.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]);
  const recursive = /[rR]/.test(flagLetters(opts.filter((a) => !a.startsWith('--')))) || longs.some((l) => l.length >= 4 && '--recursive'.startsWith(l));
  if (longs.includes('--no-preserve-root')) add(scope, F.noPreserveRoot);
  const targets = [...opts.filter((a) => !a.startsWith('-') || a === '-'), ...(dd >= 0 ? args.slice(dd + 1) : [])];
  if (recursive) return recursiveDelete(targets, scope);
  for (const t of targets) {
    checkWriteTarget(t, scope, 'delete');
    const c = canonPath(t, scope);
    if (c && c.startsWith('/') && !/^\/(tmp|var\/tmp|dev\/shm)\//.test(c)) add(scope, F.rootPathDelete);
  }
}

/** cp/mv/install/ln: the destination (last operand, or -t DIR) is created or replaced. */
function copyLike(name: string, args: string[], scope: Scope): void {
  const withValue = name === 'install' ? ['-m', '--mode', '-o', '--owner', '-g', '--group', '-S', '--suffix', '-t', '--target-directory'] : ['-t', '--target-directory', '-S', '--suffix'];
  const pos = positionals(args, withValue);
  const ti = args.findIndex((a) => a === '-t' || a === '--target-directory');
  const tEq = args.find((a) => a.startsWith('--target-directory='));
  const dir = ti >= 0 ? args[ti + 1] : tEq?.slice(tEq.indexOf('=') + 1);
  const sources = dir !== undefined ? pos : pos.slice(0, -1);
  const dest = dir ?? (pos.length >= 2 ? pos[pos.length - 1] : undefined);
  if (dest === undefined) return;
  checkWriteTarget(dest, scope, 'create');
  // Into a directory: the file keeps its name there (`cp evil.yaml ~/.hermes/`).
  const c = canonPath(dest, scope);
  if (dir !== undefined || dest.endsWith('/') || c === '@H' || c === '~' || c === '.') {
    for (const s of sources) checkWriteTarget(`${dest.replace(/\/+$/, '')}/${s.slice(s.lastIndexOf('/') + 1)}`, scope, 'create');
  }
  // Moving a file away deletes it where it was.
  if (name === 'mv') for (const s of sources) checkWriteTarget(s, scope, 'delete');
}

function kill(args: string[], scope: Scope): void {
  if (['-l', '-L', '--list', '--table'].includes(args[0] ?? '')) return;
  let i = 0;
  let signalSpec: string | null = null;
  if (args[0] === '-s' || args[0] === '-n' || args[0] === '--signal') {
    signalSpec = args[1] ?? '';
    i = 2;
  } else if (args[0]?.startsWith('-') && args[0] !== '--') {
    signalSpec = args[0];
    i = 1;
  }
  if (args[i] === '--') i++;
  const pids = args.slice(i);
  if (pids.includes('-1') || (!pids.length && signalSpec === '-1')) add(scope, F.killAll);
  if (pids.some((p) => p.includes(DYN) && p.includes(PIDS))) add(scope, F.killByLookup);
}

function pkillLike(name: string, args: string[], scope: Scope): void {
  if (name === 'killall' && args.length && args.every((a) => ['-l', '--list', '-V', '--version', '-h', '--help'].includes(a))) return;
  const pos = positionals(args, ['-s', '--signal', '-u', '--user', '-g', '--pgroup', '-G', '--group', '-P', '--parent', '-t', '--terminal', '-o', '--older-than', '-y', '--younger-than', '-n', '--ns', '-F', '--pidfile', '-c', '--context']);
  if (/\bhermes\b|\bgateway\b|\bcli\.py\b/i.test(pos.join(' '))) add(scope, F.killHermes);
  const kills = (s: string | undefined) => ['9', 'KILL', 'SIGKILL'].includes((s ?? '').toUpperCase());
  const sigIdx = args.findIndex((a) => a === '-s' || a === '--signal');
  const explicitSignal = args.find((a) => /^-(\d+|[A-Z][A-Z0-9+-]*)$/.test(a) && a !== '-V') ?? args.find((a) => a.startsWith('--signal='))?.slice(9) ?? (sigIdx >= 0 ? args[sigIdx + 1] : undefined);
  if (name === 'pkill' || name === 'pgrep') {
    if (explicitSignal && kills(explicitSignal.replace(/^-/, ''))) add(scope, F.forceKill);
    return;
  }
  // killall: any explicit signal, or a regex sweep.
  if (explicitSignal !== undefined) add(scope, F.forceKill);
  if (args.some((a) => a === '-r' || a === '--regexp' || /^-[a-zA-Z]*r[a-zA-Z]*$/.test(a))) add(scope, F.killallRegex);
}

function mkfsLike(args: string[], scope: Scope): void {
  const pos = positionals(args, ['-t', '-L', '-b', '-c', '-C', '-E', '-F', '-g', '-G', '-i', '-I', '-j', '-J', '-l', '-m', '-M', '-N', '-o', '-O', '-r', '-T', '-U', '-e', '-z', '-n', '-s']);
  if (!pos.length || pos.some((t) => t.startsWith('/dev/') || t.includes(DYN))) add(scope, F.formatDevice);
  else add(scope, F.format);
}

/** Runs the rules for `name` (already unwrapped and resolved). */
export function fileAndSystemRules(name: string, args: string[], scope: Scope): void {
  const pos = () => positionals(args);
  switch (name) {
    case 'rm':
      return rm(args, scope);
    case 'rmdir':
    case 'unlink':
      for (const t of pos()) checkWriteTarget(t, scope, 'delete');
      return;
    case 'shred':
    case 'srm':
    case 'wipe':
      if (pos().some((t) => BLOCK_DEVICE.test(t))) add(scope, F.wipeDevice);
      else add(scope, F.shred);
      return;
    case 'wipefs':
      if (pos().some((t) => BLOCK_DEVICE.test(t)) && args.some((a) => a === '--all' || /^-[a-z]*a[a-z]*$/.test(a)) && !args.some((a) => a === '--no-act' || /^-[a-z]*n[a-z]*$/.test(a))) add(scope, F.wipeDevice);
      return;
    case 'sgdisk':
      if (pos().some((t) => BLOCK_DEVICE.test(t)) && args.some((a) => ['-z', '-Z', '--zap', '--zap-all', '-o', '--clear'].includes(a))) add(scope, F.wipeDevice);
      return;
    case 'blkdiscard':
      if (pos().some((t) => BLOCK_DEVICE.test(t))) add(scope, F.wipeDevice);
      return;
    case 'mv': {
      const t = pos().map((x) => rootish(x, scope)).find((x) => x && 'root' in x);
      if (t && 'root' in t) add(scope, F.moveRoot(t.root));
      return copyLike(name, args, scope);
    }
    case 'cp':
    case 'install':
    case 'ln':
      return copyLike(name, args, scope);
    case 'rsync': {
      if (args.some((a) => /^--(delete|del|remove-source-files)\b/.test(a))) add(scope, F.rsyncDelete);
      const p = positionals(args, ['-e', '--rsh', '-f', '--filter', '--exclude', '--include', '--exclude-from', '--include-from']);
      if (p.length >= 2) checkWriteTarget(p[p.length - 1], scope, 'create');
      return;
    }
    case 'tar':
      if (args.some((a) => a === '--remove-files')) add(scope, F.tarRemove);
      return;
    case 'tee':
      for (const t of pos()) checkWriteTarget(t, scope, 'create');
      return;
    case 'sed': {
      const inPlace = args.some((a) => a.startsWith('--in-place') || /^-[A-Za-z]*i/.test(a));
      if (!inPlace) return;
      const hasScript = args.some((a) => a === '-e' || a === '-f' || a === '--expression' || a === '--file' || a.startsWith('--expression=') || a.startsWith('--file='));
      const files = positionals(args, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
      // `sed -i FILE` without a script fails, but its one operand is still the file meant.
      for (const t of hasScript || files.length === 1 ? files : files.slice(1)) checkWriteTarget(t, scope, 'edit');
      return;
    }
    case 'truncate':
      for (const t of positionals(args, ['-s', '--size', '-r', '--reference'])) {
        if (BLOCK_DEVICE.test(t)) add(scope, F.truncateDevice);
        checkWriteTarget(t, scope, 'edit');
      }
      return;
    case 'chmod': {
      const mode = pos()[0] ?? '';
      // Numeric: the "others" digit has the write bit. Symbolic: a clause for o or a that adds w.
      if (/^[0-7]{3,4}$/.test(mode) && [2, 3, 6, 7].includes(Number(mode[mode.length - 1]))) add(scope, F.worldWritable);
      else if (mode.split(',').some((c) => /^[ugoa]*[oa][ugoa]*[+=][rwxXst]*w/.test(c))) add(scope, F.worldWritable);
      if (/^[ugoa]*\+[rwXst]*x/.test(mode)) scope.madeExecutable = true;
      return;
    }
    case 'chown':
    case 'chgrp':
      if (/R/.test(flagLetters(args)) || args.some((a) => a.startsWith('--recur'))) add(scope, F.chownRoot);
      return;
    case 'dd': {
      const of = args.find((a) => a.startsWith('of='));
      if (of && (BLOCK_DEVICE.test(of.slice(3)) || of.slice(3).includes(DYN))) add(scope, F.ddDevice);
      else if (args.some((a) => a.startsWith('if='))) add(scope, F.dd);
      if (of) checkWriteTarget(of.slice(3), scope, 'create');
      return;
    }
    case 'systemctl': {
      const verb = pos()[0] ?? '';
      if (['stop', 'restart', 'try-restart', 'reload-or-restart', 'disable', 'mask', 'kill', 'isolate'].includes(verb)) add(scope, F.service);
      if (['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot'].includes(verb)) add(scope, F.power);
      if (['suspend', 'hibernate', 'hybrid-sleep', 'suspend-then-hibernate', 'rescue', 'emergency', 'default'].includes(verb)) add(scope, F.suspend);
      return;
    }
    case 'service':
      if (['stop', 'restart', 'force-reload'].includes(pos()[1] ?? '')) add(scope, F.service);
      return;
    case 'shutdown':
    case 'reboot':
    case 'halt':
    case 'poweroff':
      add(scope, F.power);
      return;
    case 'init':
    case 'telinit':
      if (['0', '6'].includes(pos()[0] ?? '')) add(scope, F.power);
      else if (['1', 's', 'S'].includes(pos()[0] ?? '')) add(scope, F.suspend);
      return;
    case 'kill':
      return kill(args, scope);
    case 'pkill':
    case 'killall':
      return pkillLike(name, args, scope);
    case 'mkfs':
    case 'mke2fs':
      return mkfsLike(args, scope);
    case 'mkswap':
    case 'mkdosfs':
      if (pos().some((t) => BLOCK_DEVICE.test(t) || t.includes(DYN))) add(scope, F.formatDevice);
      return;
    case 'diskutil':
      if (/^(erase(disk|volume)|zerodisk|randomdisk|secureerase|reformat|partitiondisk)$/i.test(pos()[0] ?? '') || /^(erase(disk|volume)|zerodisk|randomdisk|secureerase|reformat|partitiondisk)$/i.test(pos()[1] ?? ''))
        add(scope, F.formatDevice);
      return;
    case 'fdisk':
    case 'parted':
    case 'sfdisk':
    case 'cfdisk':
      if (pos().some((t) => BLOCK_DEVICE.test(t)) && !args.includes('-l') && !args.includes('--list')) add(scope, F.format);
      return;
    case 'crontab':
      if (args.includes('-r')) add(scope, F.crontabRemove);
      return;
    case 'iptables':
    case 'ip6tables':
    case 'nft':
      if (args.includes('-F') || args.includes('--flush') || (name === 'nft' && pos()[0] === 'flush')) add(scope, F.firewall);
      return;
    default:
      if (/^mkfs\.\w+$/.test(name)) return mkfsLike(args, scope);
      if (/^newfs(_\w+)?$/.test(name) && pos().some((t) => BLOCK_DEVICE.test(t))) add(scope, F.formatDevice);
      return;
  }
}
