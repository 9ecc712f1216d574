// Rules for one unwrapped command that deletes, writes, formats, kills or powers off: rm, mv/cp/ln,
// tee/truncate, chmod/chown, dd/mkfs/wipefs and partition tools, kill/pkill/killall,
// systemctl/shutdown/init/loginctl and D-Bus power calls, firewalls, umount, archives, downloads.
import { canonPath, DYN, elsewhere, PIDS, type Scope } from './context.ts';
import { sed } from './editors.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { globToRegExp, hasGlob } from './glob.ts';
import { cpio, curl, links, otherDownloads, sevenZip, tar, unzip, wget } from './rules-files.ts';
import { runString } from './runners.ts';
import { BLOCK_DEVICE, checkWriteTarget, protectedFolder } from './targets.ts';

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
  // Copying a folder's contents (`cp -r src/. ~`, `cp -rT`, a glob) writes names not visible here.
  const recursive = args.some((a) => /^-[A-Za-z]*[rRa]/.test(a) || a === '--recursive' || a === '--archive');
  if (name === 'cp' && recursive && (args.includes('-T') || args.includes('--no-target-directory') || sources.some((x) => /(^|\/)\.?$/.test(x) || hasGlob(x.slice(x.lastIndexOf('/') + 1))))) {
    const pf = protectedFolder(dest, scope);
    if (pf) add(scope, F.extractInto(pf));
  }
  // Into a directory: the file keeps its name there (`cp evil.yaml ~/.hermes/`).
  const c = canonPath(dest, scope);
  if (dir !== undefined || dest.endsWith('/') || c === '@H' || c === '~' || c === '.') {
    for (const s of sources) checkWriteTarget(`${dest.replace(/\/+$/, '')}/${s.slice(s.lastIndexOf('/') + 1)}`, scope, 'create');
  }
  // A link is followed by later paths in this command line; a link to a protected file asks.
  if (name === 'ln' || (name === 'cp' && args.some((a) => /^-[A-Za-z]*[sl]/.test(a) || a === '--symbolic-link' || a === '--link')))
    links(args, scope, args.some((a) => /^-[A-Za-z]*s/.test(a) || a === '--symbolic' || a === '--symbolic-link'));
  // Moving a file away deletes it where it was; moving a folder that holds protected files
  // (the Hermes home, ~/.config, the home itself) aside lets a new one take its place.
  if (name === 'mv')
    for (const s of sources) {
      const before = scope.findings.length;
      checkWriteTarget(s, scope, 'delete');
      if (scope.findings.length > before) continue;
      const pf = protectedFolder(s, scope);
      const r = rootish(s, scope);
      if (pf && !(r && 'root' in r)) add(scope, F.movedAside(pf));
    }
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
  // PID 1 is init: anything but a harmless signal (0, HUP, USR1/2, CONT, WINCH) takes the machine down.
  if (pids.includes('1') && !/^-?(?:SIG)?(0|HUP|1|USR1|10|USR2|12|CONT|18|WINCH|28)$/i.test(signalSpec ?? 'TERM')) add(scope, F.killInit);
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

/** Recursive chmod/chown of `/` or a system directory: never allowed (the machine stops working). */
function rootPerms(targets: string[], scope: Scope): void {
  for (const t of targets) {
    const r = rootish(t, scope);
    if (r && 'root' in r) add(scope, F.rootPerms(r.root));
  }
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
    case 'sgdisk': {
      if (!pos().some((t) => BLOCK_DEVICE.test(t))) return;
      if (args.some((a) => ['-z', '-Z', '--zap', '--zap-all', '-o', '--clear'].includes(a) || /^-[A-Za-z]*[zZo]/.test(a))) add(scope, F.partitionTable);
      else if (!args.every((a) => !a.startsWith('-') || /^(-p|--print|-i|--info|-v|--verify|-L|--list-types|-P|--pretend|-O|--print-mbr)/.test(a))) add(scope, F.format);
      return;
    }
    case 'sfdisk': {
      // sfdisk writes a table from its stdin script unless asked only to read (or --no-act).
      if (!pos().some((t) => BLOCK_DEVICE.test(t))) return;
      const reads = args.some((a) => /^(-l|--list|-d|--dump|-J|--json|-s|--show-size|-g|--show-geometry|-V|--verify|-F|--list-free|-T|--list-types|-n|--no-act|-h|--help|--version)$/.test(a) || /^-[lgsdJVFT]+$/.test(a));
      if (!reads) add(scope, F.partitionTable);
      return;
    }
    case 'parted': {
      if (!pos().some((t) => BLOCK_DEVICE.test(t)) || args.includes('-l') || args.includes('--list')) return;
      const words = pos().map((w) => w.toLowerCase());
      if (words.some((w) => w === 'mklabel' || w === 'mktable')) add(scope, F.partitionTable);
      else if (words.some((w) => ['rm', 'mkpart', 'mkpartfs', 'resizepart', 'resize', 'rescue', 'mkfs', 'move', 'cp'].includes(w))) add(scope, F.format);
      else if (!words.some((w) => ['print', 'p', 'unit', 'align-check', 'help', 'version'].includes(w)) && words.length === 1) add(scope, F.format);
      return;
    }
    case 'hdparm':
      if (pos().some((t) => BLOCK_DEVICE.test(t)) && args.some((a) => /^--(security-erase|security-erase-enhanced|trim-sector-ranges|trim-sector-ranges-stdin|write-sector|fwdownload|make-bad-sector|dco-restore)/.test(a))) add(scope, F.wipeDevice);
      return;
    case 'nvme':
      if (['format', 'sanitize', 'delete-ns', 'write-zeroes'].includes(args[0] ?? '') && pos().some((t) => BLOCK_DEVICE.test(t) || /^\/dev\/nvme/.test(t))) add(scope, F.wipeDevice);
      return;
    case 'cryptsetup':
      if (pos().some((t) => /^(luksFormat|erase|luksErase|reencrypt)$/.test(t)) && pos().some((t) => BLOCK_DEVICE.test(t))) add(scope, F.wipeDevice);
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
      for (let k = 0; k < args.length; k++) {
        const m = /^(?:-e|--rsh)(?:=(.*))?$/s.exec(args[k]) ?? /^-e(.+)$/s.exec(args[k]);
        if (m) runString(m[1] ?? args[++k] ?? '', scope, 'rsync -e');
        const r = /^--rsync-path(?:=(.*))?$/s.exec(args[k]);
        if (r) runString(r[1] ?? args[++k] ?? '', elsewhere(scope), 'rsync --rsync-path');
      }
      const p = positionals(args, ['-e', '--rsh', '-f', '--filter', '--exclude', '--include', '--exclude-from', '--include-from', '--rsync-path', '-T', '--temp-dir', '--partial-dir', '--backup-dir', '--log-file', '--password-file', '--files-from', '--chmod', '--chown', '--usermap', '--groupmap', '--compare-dest', '--copy-dest', '--link-dest', '--timeout', '--contimeout', '--bwlimit', '--max-size', '--min-size', '--suffix', '--port']);
      const dest = p[p.length - 1];
      if (p.length >= 2 && dest !== undefined && !/^(?:[^/:]+@)?[^/:]+:/.test(dest)) {
        checkWriteTarget(dest, scope, 'create');
        const pf = protectedFolder(dest, scope);
        if (pf) add(scope, F.extractInto(pf));
      }
      return;
    }
    case 'tee':
      for (const t of pos()) checkWriteTarget(t, scope, 'create');
      return;
    case 'sed':
    case 'gsed':
      return sed(args, scope);
    case 'truncate':
      for (const t of positionals(args, ['-s', '--size', '-r', '--reference'])) {
        if (BLOCK_DEVICE.test(t)) add(scope, F.truncateDevice);
        checkWriteTarget(t, scope, 'edit');
      }
      return;
    case 'chmod': {
      const mode = pos()[0] ?? '';
      if (/R/.test(flagLetters(args)) || args.some((a) => a.startsWith('--recur'))) rootPerms(pos().slice(1), scope);
      // Numeric: the "others" digit has the write bit. Symbolic: a clause for o or a that adds w.
      if (/^[0-7]{3,4}$/.test(mode) && [2, 3, 6, 7].includes(Number(mode[mode.length - 1]))) add(scope, F.worldWritable);
      else if (mode.split(',').some((c) => /^[ugoa]*[oa][ugoa]*[+=][rwxXst]*w/.test(c))) add(scope, F.worldWritable);
      if (/^[ugoa]*\+[rwXst]*x/.test(mode)) scope.madeExecutable = true;
      return;
    }
    case 'chown':
    case 'chgrp':
      if (/R/.test(flagLetters(args)) || args.some((a) => a.startsWith('--recur'))) {
        add(scope, F.chownRoot);
        rootPerms(positionals(args, ['--reference', '--from']).slice(1), scope);
      }
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
      const units = pos().slice(1);
      // A unit file linked or edited into place starts a program at boot or login.
      if (verb === 'edit' || ((verb === 'link' || verb === 'enable') && units.some((u) => u.includes('/')))) add(scope, args.includes('--user') ? F.sensitiveWrite : F.etcWrite);
      if (['start', 'restart', 'isolate', 'reload-or-restart', 'try-restart', 'enable'].includes(verb) && units.some((u) => /^(poweroff|reboot|halt|kexec|soft-reboot|ctrl-alt-del)(\.target)?$/.test(u))) add(scope, F.power);
      if (['stop', 'disable', 'mask', 'kill'].includes(verb) && units.some((u) => /^(firewalld|ufw|nftables|iptables|ip6tables|netfilter-persistent|apparmor|auditd)(\.service)?$/.test(u))) add(scope, F.firewallOff(`systemctl ${verb} ${units.join(' ')}`));
      return;
    }
    case 'service':
      if (['stop', 'restart', 'force-reload'].includes(pos()[1] ?? '')) add(scope, F.service);
      if (pos()[1] === 'stop' && /^(firewalld|ufw|nftables|iptables|netfilter-persistent|apparmor)$/.test(pos()[0] ?? '')) add(scope, F.firewallOff(`service ${pos()[0]} stop`));
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
    case 'gdisk':
    case 'cgdisk':
    case 'cfdisk':
      if (pos().some((t) => BLOCK_DEVICE.test(t)) && !args.includes('-l') && !args.includes('--list')) add(scope, F.format);
      return;
    case 'iptables':
    case 'ip6tables':
    case 'iptables-legacy':
    case 'iptables-nft':
    case 'ip6tables-legacy':
    case 'ip6tables-nft':
    case 'nft': {
      if (args.includes('-F') || args.includes('--flush') || (name === 'nft' && pos()[0] === 'flush')) add(scope, F.firewall);
      if (args.includes('-X') || args.includes('--delete-chain') || (name === 'nft' && pos()[0] === 'delete' && ['table', 'chain'].includes(pos()[1] ?? ''))) add(scope, F.firewallOff(`${name} deleting chains or tables`));
      const pi = args.findIndex((a) => a === '-P' || a === '--policy');
      if (pi >= 0 && /^accept$/i.test(args[pi + 2] ?? '')) add(scope, F.firewallOff(`${name} -P ${args[pi + 1] ?? ''} ACCEPT`));
      return;
    }
    case 'ufw': {
      const w = pos();
      if (w[0] === 'disable' || w[0] === 'reset' || (w[0] === 'default' && w[1] === 'allow')) add(scope, F.firewallOff(`ufw ${w.slice(0, 2).join(' ')}`));
      return;
    }
    case 'firewall-cmd':
      if (args.some((a) => /^--set-default-zone=?(trusted)?$/.test(a)) && args.some((a) => /trusted/.test(a))) add(scope, F.firewallOff('firewall-cmd --set-default-zone=trusted'));
      return;
    case 'pfctl':
      if (args.includes('-d')) add(scope, F.firewallOff('pfctl -d'));
      if (args.some((a, k) => (a === '-F' && /^(all|rules|nat)$/.test(args[k + 1] ?? '')) || /^-F(all|rules|nat)$/.test(a))) add(scope, F.firewall);
      return;
    case 'setenforce':
      if (/^(0|permissive)$/i.test(pos()[0] ?? '')) add(scope, F.firewallOff('setenforce 0 (SELinux)'));
      return;
    case 'umount':
    case 'fusermount':
    case 'fusermount3': {
      if (args.includes('-a') || args.includes('--all')) return add(scope, F.lazyUnmount('every filesystem (umount -a)'));
      for (const t of positionals(args, ['-t', '--types', '-O', '--test-opts', '-N', '--namespace'])) {
        const c = canonPath(t, scope);
        if (c === '/' || (c !== null && /^\/(home|usr|var|boot|proc|sys|dev|run|etc|opt|srv|root|nix)$/.test(c)) || c === '~' || c === '@H') add(scope, F.lazyUnmount(c === '~' ? 'the home directory' : c === '@H' ? "Hermes's home" : c));
      }
      return;
    }
    case 'loginctl': {
      const verb = pos()[0] ?? '';
      if (['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot'].includes(verb)) add(scope, F.power);
      if (['suspend', 'hibernate', 'hybrid-sleep', 'suspend-then-hibernate'].includes(verb)) add(scope, F.suspend);
      return;
    }
    case 'busctl':
    case 'dbus-send':
    case 'gdbus':
    case 'qdbus':
    case 'qdbus6':
    case 'dbus': {
      const text = args.join(' ');
      if (!/login1|systemd1|ConsoleKit|PowerManagement|SessionManager/i.test(text)) return;
      if (/\b(PowerOff|Reboot|Halt|KExec|SoftReboot|Shutdown|RequestShutdown|RequestReboot|Stop)(WithFlags)?\b/.test(text) && !/\bCan(PowerOff|Reboot|Halt)/.test(text)) add(scope, F.power);
      else if (/StartUnit|StartUnitReplace/.test(text) && /\b(poweroff|reboot|halt|kexec|soft-reboot)\.target\b/.test(text)) add(scope, F.power);
      else if (/\b(Suspend|Hibernate|HybridSleep|SuspendThenHibernate)\b/.test(text)) add(scope, F.suspend);
      return;
    }
    case 'rimraf':
      return recursiveDelete(positionals(args), scope);
    case 'tar':
    case 'bsdtar':
      return tar(args, scope);
    case 'unzip':
      return unzip(args, scope);
    case '7z':
    case '7za':
    case '7zr':
      return sevenZip(args, scope);
    case 'cpio':
      return cpio(args, scope);
    case 'curl':
      return curl(args, scope);
    case 'wget':
      return wget(args, scope);
    case 'http':
    case 'https':
    case 'xh':
    case 'xhs':
    case 'aria2c':
      return otherDownloads(name, args, scope);
    default:
      if (/^mkfs\.\w+$/.test(name)) return mkfsLike(args, scope);
      if (/^newfs(_\w+)?$/.test(name) && pos().some((t) => BLOCK_DEVICE.test(t))) add(scope, F.formatDevice);
      return;
  }
}
