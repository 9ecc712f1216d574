// Rules for developer and service tools: git (rules-git.ts), package managers that uninstall,
// Hermes's own gateway and service, read tools that run a program, and Windows deletes reached
// from WSL or Git Bash (cmd /c, PowerShell). Containers are in containers.ts.
import { type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { globToRegExp, hasGlob } from './glob.ts';
import { git } from './rules-git.ts';
import { analyzeScript } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

/** Skips a tool's global options (and the values of those that take one); returns the rest. */
function afterGlobalOptions(args: string[], withValue: Set<string>): string[] {
  let i = 0;
  while (i < args.length && args[i].startsWith('-') && args[i] !== '-') {
    const a = args[i];
    if (a === '--') return args.slice(i + 1);
    i += withValue.has(a) ? 2 : 1;
  }
  return args.slice(i);
}

const UNINSTALL: Record<string, Set<string>> = {
  npm: new Set(['uninstall', 'unlink', 'remove', 'rm', 'r', 'un']),
  pnpm: new Set(['uninstall', 'remove', 'rm', 'un']),
  yarn: new Set(['uninstall', 'remove']),
  pip: new Set(['uninstall']),
  brew: new Set(['uninstall', 'remove', 'rm']),
};

function packageManager(name: string, args: string[], scope: Scope): void {
  const verbs = UNINSTALL[name];
  let prevOption = false;
  for (const a of args) {
    if (a.startsWith('-')) {
      prevOption = !a.includes('=');
      continue;
    }
    if (verbs.has(a)) return add(scope, F.pkgUninstall);
    if (name === 'yarn' && a === 'global') continue;
    if (prevOption) {
      prevOption = false; // the option's value (`--prefix ./app`)
      continue;
    }
    return;
  }
}

/** Settings that are Hermes's guard, its tools' reach, or code it runs: changing them needs a person. */
const GUARD_KEYS = /^(approvals|command_allowlist|security|privacy|yolo|toolsets?|tools|terminal|hooks|plugins|mcp_servers|mcp|delegation|cron|code_execution|browser\.allow|website_blocklist)(\.|$)/;

function hermes(args: string[], scope: Scope): void {
  const rest = afterGlobalOptions(args, new Set(['-p', '--profile', '-m', '--model', '--provider', '-t', '--toolsets', '-r', '--resume']));
  if (rest[0] === 'gateway' && ['stop', 'restart'].includes(rest[1] ?? '')) add(scope, F.hermesGateway);
  if (rest[0] === 'update') add(scope, F.hermesUpdate);
  // `hermes config set approvals.mode off`: the agent switching its own guard off.
  if (rest[0] === 'config' && ['set', 'unset'].includes(rest[1] ?? '') && GUARD_KEYS.test(rest[2] ?? '')) add(scope, F.selfWrite(`settings (${rest[2]})`));
  if (rest[0] === 'config' && rest[1] === 'edit') add(scope, F.selfWrite('config.yaml'));
  // A cron job with a script runs it later, unattended.
  if (rest[0] === 'cron' && ['create', 'add', 'edit', 'update'].includes(rest[1] ?? '') && rest.some((a) => a === '--script' || a.startsWith('--script=') || a === '--no-agent')) add(scope, F.crontabInstall);
  if ((rest[0] === 'plugins' || rest[0] === 'plugin') && ['install', 'enable', 'add'].includes(rest[1] ?? '')) add(scope, F.selfWrite('plugins/'));
}

const READ_TOOL_FLAGS: Record<string, string[]> = {
  rg: ['--pre', '--hostname-bin'],
  sort: ['--compress-program'],
  ag: ['--pager'],
  man: ['--pager', '--html', '-P', '-H'],
};

function readTool(name: string, args: string[], scope: Scope): void {
  const flags = READ_TOOL_FLAGS[name];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return;
    const opt = a.split('=')[0];
    let hit = flags.find((f) => f === opt || (f.length === 2 && a.startsWith(f) && a.length > 2 && !a.startsWith('--')));
    if (!hit && a.startsWith('--') && hasGlob(opt)) hit = flags.find((f) => f.startsWith('--') && globToRegExp(opt).test(f));
    if (!hit) continue;
    add(scope, F.programFlag(name, hit));
    const program = a.includes('=') ? a.slice(a.indexOf('=') + 1) : a.length > hit.length && !a.startsWith('--') ? a.slice(hit.length) : args[i + 1];
    if (program) analyzeScript(program, scope);
    return;
  }
}

/** PowerShell/cmd text (case-insensitive): the Windows classes Hermes asks about. */
const WINDOWS_RULES: [RegExp, string][] = [
  [/\bremove-item\b[^\n;|&]*\s-(recurse|force)\b/i, 'deleting files recursively (Remove-Item)'],
  [/\b(iwr|invoke-webrequest|invoke-restmethod|irm|curl|wget)\b[^\n]*\|\s*(iex|invoke-expression)\b/i, 'piping a download into PowerShell (iwr | iex)'],
  [/\b(iex|invoke-expression)\s*\(\s*(iwr|invoke-webrequest|invoke-restmethod|irm)\b/i, 'running downloaded content (Invoke-Expression)'],
  [/\btaskkill\b[^\n]*\s\/f\b/i, 'force-killing processes (taskkill /F)'],
  [/\bstop-process\b[^\n]*\s-force\b/i, 'force-killing processes (Stop-Process -Force)'],
  [/\bformat-volume\b/i, 'formatting a volume (Format-Volume)'],
  [/\bclear-disk\b/i, 'wiping a disk (Clear-Disk)'],
  [/\bdiskpart\b/i, 'partitioning disks (diskpart)'],
  [/\bformat(\.com)?\s+[a-z]:/i, 'formatting a drive (format)'],
  [/\bcipher\s+\/w\b/i, 'wiping free space (cipher /w)'],
  [/\bicacls\b[^\n]*\s\/grant\b[^\n]*\b(everyone|todos|jeder|tout\s+le\s+monde|\*s-1-1-0)\b/i, 'granting Everyone access (icacls)'],
  [/\bicacls\b[^\n]*\s\/reset\b/i, 'resetting ACLs (icacls /reset)'],
  [/\bvssadmin\b[^\n]*\bdelete\s+shadows\b/i, 'deleting shadow copies (vssadmin)'],
  [/\bwbadmin\b[^\n]*\bdelete\b/i, 'deleting backups (wbadmin)'],
  [/\bbcdedit\b[^\n]*\s\/set\b/i, 'changing the boot configuration (bcdedit /set)'],
  [/\breg(\.exe)?\s+delete\b/i, 'deleting registry keys (reg delete)'],
  [/\bremove-itemproperty\b[^\n]*\s-force\b/i, 'deleting registry values (Remove-ItemProperty -Force)'],
  [/\bstop-service\b[^\n]*\s-force\b/i, 'force-stopping a service (Stop-Service -Force)'],
  [/\bsc(\.exe)?\s+(stop|delete)\b/i, 'stopping or deleting a service (sc)'],
  [/\b(del|erase|rd|rmdir)\s+(\/[a-z]\s+)*\/[sq]\b/i, 'deleting files recursively or quietly (del/rd /s /q)'],
  [/\bnetsh\b[^\n]*\badvfirewall\b[^\n]*\bstate\s+off\b/i, 'turning the Windows firewall off (netsh advfirewall)'],
  [/\bset-netfirewallprofile\b[^\n]*-enabled\s+(false|0|\$false)/i, 'turning the Windows firewall off (Set-NetFirewallProfile)'],
];

function windowsText(text: string, scope: Scope): void {
  for (const [re, what] of WINDOWS_RULES) if (re.test(text)) add(scope, F.windows(what));
}

const PS_EXEC = new Set(['-command', '-c', '-file', '-f']);
const PS_VALUE = new Set(['-executionpolicy', '-ep', '-inputformat', '-outputformat', '-windowstyle', '-workingdirectory', '-configurationname', '-settingsfile', '-version', '-custompipename']);

function powershell(args: string[], raw: string[], scope: Scope): void {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) {
    const a = args[i].toLowerCase();
    if (/^-(e|ec|en|enc|enco\w*)$/.test(a)) {
      add(scope, F.powershellEncoded);
      const payload = args[i + 1];
      if (payload) {
        try {
          windowsText(Buffer.from(payload, 'base64').toString('utf16le'), scope);
        } catch {
          /* not base64 */
        }
      }
      return;
    }
    if (PS_EXEC.has(a)) {
      add(scope, F.scriptExec('PowerShell'));
      i++;
      break;
    }
    i += PS_VALUE.has(a) ? 2 : 1;
  }
  const text = raw.slice(i).join(' ');
  if (/^["']?(remove-item|rmdir|erase|del|rd|ri|rm)\b/i.test(text)) add(scope, F.windowsDelete);
  windowsText(text, scope);
}

/** Windows commands reachable by name from Git Bash / WSL (case-insensitive, `.exe` optional). */
const WINDOWS_NAMES = new Set(['taskkill', 'reg', 'sc', 'diskpart', 'format', 'cipher', 'icacls', 'vssadmin', 'wbadmin', 'bcdedit', 'del', 'erase', 'rd', 'rmdir', 'remove-item', 'stop-process', 'stop-service', 'format-volume', 'clear-disk', 'remove-itemproperty', 'iex', 'invoke-expression', 'netsh', 'set-netfirewallprofile']);

/**
 * Runs the rules for `name`. `raw` is argv as written (backslashes kept), for Windows paths.
 * Returns true when `name` was one of these tools.
 */
export function devRules(name: string, args: string[], raw: string[], scope: Scope): boolean {
  const lname = name.toLowerCase().replace(/\.exe$/, '');
  switch (lname) {
    case 'git':
      git(args, scope);
      return true;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'brew':
      packageManager(lname, args, scope);
      return true;
    case 'hermes':
      hermes(args, scope);
      return true;
    case 'launchctl':
      if (/^(stop|kickstart|bootout|unload|kill|disable|remove)$/.test(args.find((a) => !a.startsWith('-')) ?? '') && /\bhermes\b/i.test(scope.ctx.raw) && /gateway/i.test(scope.ctx.raw)) add(scope, F.launchd);
      return true;
    case 'rg':
    case 'sort':
    case 'ag':
    case 'man':
      readTool(lname, args, scope);
      return true;
    case 'cmd': {
      const ci = args.findIndex((a) => /^\/{1,2}[ck]$/i.test(a));
      if (ci < 0) return true;
      const text = raw.slice(ci + 1).join(' ');
      if (/\b(del|erase|rd|rmdir)\b/i.test(text)) add(scope, F.windowsDelete);
      windowsText(text, scope);
      return true;
    }
    case 'powershell':
    case 'pwsh':
      powershell(args, raw.length === args.length ? raw : args, scope);
      return true;
    default:
      if (/^pip\d*(\.\d+)?$/.test(lname)) {
        packageManager('pip', args, scope);
        return true;
      }
      if (WINDOWS_NAMES.has(lname)) {
        windowsText([lname, ...raw].join(' '), scope);
        return lname !== 'rmdir';
      }
      return false;
  }
}
