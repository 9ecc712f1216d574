// The classes of dangerous commands: one finding per class. `key` is what a session approval and
// `command_allowlist` remember; `hermes` is Python Hermes's name for the same class, so allowlist
// entries written by Hermes keep working here. Hardline findings are never allowed, even with --yolo.

export interface Finding {
  /** Stable key, used for session approvals and `command_allowlist`. */
  key: string;
  description: string;
  /** Never allowed, even with --yolo. */
  hardline: boolean;
  /** Python Hermes's description of this class (its allowlist key), when it has one. */
  hermes?: string;
}

const ask = (key: string, description: string, hermes?: string): Finding => ({ key, description, hardline: false, ...(hermes ? { hermes } : {}) });
const never = (key: string, description: string, hermes?: string): Finding => ({ key, description, hardline: true, ...(hermes ? { hermes } : {}) });

export const F = {
  // deletes
  rootDelete: (t: string) => never('recursive delete of a system directory', `recursive delete of ${t}`, 'recursive delete of root filesystem'),
  homeDelete: never('recursive delete of the home directory', 'recursive delete of the home directory', 'recursive delete of home directory'),
  recursiveDelete: ask('recursive delete', 'recursive delete', 'recursive delete'),
  rootPathDelete: ask('delete in root path', 'deleting files by absolute path outside the temp directories', 'delete in root path'),
  noPreserveRoot: never('rm --no-preserve-root', 'rm --no-preserve-root'),
  xargsRm: ask('xargs rm', 'deleting files listed on stdin (xargs rm)', 'xargs with rm'),
  findDelete: ask('find -delete / -exec rm', 'deleting files found by find (-delete / -exec rm)', 'find -delete'),
  shred: ask('shredding files', 'shredding or wiping files'),
  tarRemove: ask('tar --remove-files', 'archiving and deleting the originals (tar --remove-files)'),
  rsyncDelete: ask('rsync --delete', 'deleting files at the destination that the source lacks (rsync --delete / --remove-source-files)'),
  moveRoot: (t: string) => ask('moving a system directory', `moving ${t}`),
  // disks and the machine
  forkBomb: never('fork bomb', 'fork bomb', 'fork bomb'),
  formatDevice: never('formatting a block device', 'formatting a block device', 'format filesystem (mkfs)'),
  format: ask('filesystem format', 'filesystem format (mkfs)', 'format filesystem'),
  ddDevice: never('overwriting a block device', 'overwriting a block device', 'dd to raw block device'),
  dd: ask('raw disk copy (dd)', 'raw disk copy (dd)', 'disk copy'),
  wipeDevice: never('wiping a block device', 'wiping a block device', 'wipe raw block device'),
  power: never('shutting down the machine', 'shutting down or rebooting the machine', 'system shutdown/reboot'),
  suspend: ask('suspending the machine', 'suspending the machine or changing its run level'),
  killAll: never('killing all processes', 'killing every process (kill -1)', 'kill all processes'),
  killInit: never('killing PID 1', 'killing PID 1 (init): it takes the machine or container down'),
  sysrq: never('writing the sysrq trigger', 'writing /proc/sysrq-trigger (crashes, reboots or powers off the machine at once)'),
  partitionTable: never('rewriting a partition table', "rewriting a disk's partition table (sfdisk, sgdisk, parted mklabel, fdisk with a script)"),
  rootPerms: (t: string) => never('recursive chmod/chown of a system directory', `recursively changing the owner or permissions of ${t}`),
  lazyUnmount: (t: string) => ask('unmounting a system filesystem', `unmounting ${t}`),
  firewallOff: (what: string) => ask('disabling the firewall', `disabling or opening up the firewall (${what})`),
  // permissions, services, processes
  worldWritable: ask('world-writable permissions', 'world-writable permissions (chmod 777/666/o+w)', 'world/other-writable permissions'),
  chownRoot: ask('recursive chown', 'recursive chown', 'recursive chown to root'),
  chmodExec: ask('chmod +x then run', 'making a file executable and running it at once', 'chmod +x followed by immediate execution'),
  service: ask('stopping a system service', 'stopping or disabling a system service', 'stop/restart system service'),
  forceKill: ask('force-killing processes by name', 'force-killing processes by name (pkill -9 / killall with a signal)', 'force kill processes'),
  killallRegex: ask('killall -r', 'killing processes matched by a regex (killall -r)', 'kill processes by regex (killall -r)'),
  killHermes: ask('terminating Hermes', 'terminating Hermes itself', 'kill hermes/gateway process (self-termination)'),
  killByLookup: ask('kill by pgrep/pidof', 'killing processes found by pgrep/pidof (could be Hermes itself)', 'kill process via pgrep/pidof expansion (self-termination)'),
  crontabRemove: ask('removing all cron jobs', 'removing the crontab (crontab -r)'),
  crontabInstall: ask('installing a crontab', 'installing or editing a crontab (its commands run later, unattended)'),
  firewall: ask('flushing firewall rules', 'flushing firewall rules'),
  // files Hermes and the user depend on
  etcWrite: ask('overwriting a file in /etc', 'overwriting a system file (/etc, /private/etc, …)', 'overwrite system config'),
  sensitiveWrite: ask('writing a sensitive file', 'writing a credential, login or shell start-up file', 'overwrite system file via redirection'),
  selfWrite: (what: string) => ask("changing Hermes's own control files", `changing Hermes's own ${what} (its policy, keys, hooks or plugins)`, 'in-place edit of Hermes config/env'),
  projectSecret: ask('writing a project .env or config file', 'creating or replacing a .env or config file', 'overwrite project env/config file'),
  secretRead: ask("reading Hermes's secrets", "reading Hermes's secrets (.env, auth.json): they reach commands only through the environment Hermes passes"),
  extractInto: (what: string) => ask('unpacking into a protected folder', `unpacking or copying unknown files into ${what} (they can replace credentials, login files or Hermes's own files)`),
  linkProtected: ask('linking to a protected file', 'making a link to a protected file or folder (a later write through the link would change it)'),
  movedAside: (what: string) => ask('moving a protected folder aside', `moving or replacing ${what}, which holds credentials, login files or Hermes's own files`),
  truncateDevice: never('overwriting a block device', 'overwriting a block device'),
  // running code that is not in the command line itself
  shellString: ask('shell command via -c', 'running a shell command string (sh -c / bash -c)', 'shell command via -c/-lc flag'),
  shellHeredoc: ask('shell script from a heredoc', 'running a shell script fed on stdin (heredoc / here-string)', 'shell execution via heredoc'),
  pipedScript: ask('piping text into a shell', 'piping text into a shell to run it'),
  scriptExec: (lang: string) => ask('script execution via -e/-c', `running inline ${lang} code`, 'script execution via -e/-c flag'),
  scriptHeredoc: (lang: string) => ask('script execution via heredoc', `running a ${lang} script fed on stdin`, 'script execution via heredoc'),
  inlineCode: (lang: string) => ask('inline script that runs commands or deletes files', `inline ${lang} code that runs commands or deletes files`),
  programFlag: (tool: string, flag: string) => ask('program run by a read tool', `running a program through ${tool} ${flag}`, `arbitrary program execution via ${tool} ${flag}`),
  pipeShell: ask('piping a download into a shell', 'piping a download into a shell', 'pipe remote content to shell'),
  decodeShell: ask('running decoded data as a shell script', 'running decoded data as a shell script', 'pipe decoded content to shell (possible command obfuscation)'),
  dynamicShell: ask('running a shell command built at run time', 'running a shell command built at run time'),
  dynamicName: ask('running a command whose name is computed at run time', 'running a command whose name is computed at run time'),
  unparsable: (why: string) => ask('unparsable command', `a command that cannot be parsed safely (${why})`),
  runnerUnknown: (via: string) => ask('command known only at run time', `handing ${via} a command that is only known at run time`),
  sedExec: ask('sed running commands', "running text as commands (sed's e command or s///e flag)"),
  netShell: ask('serving a program over the network', 'connecting a program to a network socket (nc -e/-c, socat EXEC/SYSTEM)'),
  // privileges
  sudoStdin: never('sudo -S', 'sudo reading a password from stdin (sudo -S): password guessing', 'sudo password guessing via stdin (sudo -S)'),
  sudoPrivilege: ask('sudo askpass/shell', 'sudo with a password helper or a root shell (-A / -s)', 'sudo with privilege flag (stdin/askpass/shell/list)'),
  // data
  sql: ask('SQL drop/truncate/delete', 'destructive SQL (DROP, TRUNCATE, or DELETE without WHERE)', 'SQL DROP'),
  gitDiscard: (what: string) => ask('git discarding work', `git ${what}`, 'git reset --hard (destroys uncommitted changes)'),
  gitRemoteDestroy: (what: string) => ask('git destroying history', `git ${what}`),
  gitRunsProgram: (what: string) => ask('git running another program', `git ${what}`),
  pkgUninstall: ask('package manager uninstall', 'uninstalling packages', 'package manager uninstall'),
  metadata: ask('cloud metadata endpoint', 'reading the cloud instance metadata endpoint (instance credentials)', 'cloud metadata endpoint access (instance credentials)'),
  // containers
  docker: ask('stopping or removing containers', 'stopping or removing containers', 'docker restart/stop/kill (container lifecycle)'),
  privilegedContainer: (what: string) => ask('privileged container or host mount', `running a container with ${what}`),
  dockerRemote: ask('redirecting docker to another daemon', 'redirecting docker/podman to another daemon (-H / --context / DOCKER_HOST)', 'docker with remote daemon redirect (-H/--host)'),
  // Hermes itself
  hermesGateway: ask('stopping the Hermes gateway', 'stopping or restarting the Hermes gateway (kills running agents)', 'stop/restart hermes gateway (kills running agents)'),
  hermesUpdate: ask('hermes update', 'updating Hermes (restarts the gateway)', 'hermes update (restarts gateway, kills running agents)'),
  gatewayDetached: ask('starting the gateway outside its service', "starting the gateway in the background outside its service manager (use 'hermes gateway start')", "start gateway outside systemd (use 'systemctl --user restart hermes-gateway')"),
  launchd: ask('stopping the Hermes launchd service', 'stopping or restarting the Hermes launchd service (kills running agents)', 'stop/restart hermes launchd service (kills running agents)'),
  // Windows (under WSL or Git Bash)
  windowsDelete: ask('Windows destructive delete', 'deleting files through cmd or PowerShell', 'Windows cmd destructive delete'),
  powershellEncoded: ask('PowerShell encoded command', 'running an encoded PowerShell command (-EncodedCommand)', 'PowerShell encoded command execution'),
  windows: (what: string) => ask(`Windows: ${what}`, what),
};

export function addFinding(findings: Finding[], f: Finding): void {
  if (!findings.some((x) => x.description === f.description)) findings.push(f);
}
