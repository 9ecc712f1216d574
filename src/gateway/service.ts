// `hermes gateway install|uninstall`: a systemd user unit on Linux, a launchd agent on macOS,
// running `hermes gateway run` for this HERMES_HOME and restarting it when it fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from './control.ts';

export interface ServiceSpec {
  home: string;
  nodePath: string;
  binPath: string;
  /** Seconds the service manager waits for the drain before killing. */
  stopTimeoutS: number;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export interface ServiceFile {
  kind: 'systemd' | 'launchd';
  name: string;
  path: string;
  content: string;
}

function serviceName(home: string, env: NodeJS.ProcessEnv): string {
  const def = join(env.HOME || homedir(), '.hermes');
  if (home === def) return 'hermes-gateway';
  const tag = home.replace(/^.*\/profiles\//, '').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(-40);
  return `hermes-gateway-${tag || 'custom'}`;
}

const sdQuote = (s: string) => (/[\s"\\]/.test(s) ? `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : s);
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function serviceFile(spec: ServiceSpec): ServiceFile {
  const name = serviceName(spec.home, spec.env);
  const userHome = spec.env.HOME || homedir();
  if ((spec.platform ?? process.platform) === 'darwin') {
    const label = `ai.hermes.${name.replace(/^hermes-/, '')}`;
    const log = join(spec.home, 'logs', 'gateway.log');
    const content = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>${xml(label)}</string>
  <key>ProgramArguments</key>
  <array>
    <string>${xml(spec.nodePath)}</string>
${GATEWAY_NODE_FLAGS.map((f) => `    <string>${xml(f)}</string>\n`).join('')}    <string>${xml(spec.binPath)}</string>
    <string>gateway</string>
    <string>run</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>HERMES_HOME</key><string>${xml(spec.home)}</string>
    <key>PATH</key><string>${xml(spec.env.PATH ?? '/usr/bin:/bin')}</string>
  </dict>
  <key>WorkingDirectory</key><string>${xml(spec.home)}</string>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
  <key>ExitTimeOut</key><integer>${spec.stopTimeoutS}</integer>
  <key>StandardOutPath</key><string>${xml(log)}</string>
  <key>StandardErrorPath</key><string>${xml(log)}</string>
</dict>
</plist>
`;
    return { kind: 'launchd', name: label, path: join(userHome, 'Library', 'LaunchAgents', `${label}.plist`), content };
  }
  const configHome = spec.env.XDG_CONFIG_HOME || join(userHome, '.config');
  const content = `[Unit]
Description=Hermes Agent messaging gateway (${spec.home})
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart=${sdQuote(spec.nodePath)} ${GATEWAY_NODE_FLAGS.join(' ')} ${sdQuote(spec.binPath)} gateway run
Environment=${sdQuote(`HERMES_HOME=${spec.home}`)}
Environment=${sdQuote(`PATH=${spec.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`)}
${Object.entries(GATEWAY_ENV)
  .map(([k, v]) => `Environment=${sdQuote(`${k}=${spec.env[k] ?? v}`)}\n`)
  .join('')}WorkingDirectory=${sdQuote(spec.home)}
Restart=on-failure
RestartSec=5
KillSignal=SIGTERM
TimeoutStopSec=${spec.stopTimeoutS}

[Install]
WantedBy=default.target
`;
  return { kind: 'systemd', name: `${name}.service`, path: join(configHome, 'systemd', 'user', `${name}.service`), content };
}

export interface ServiceResult {
  file: ServiceFile;
  /** What the service manager said; null when it could not be reached. */
  managed: boolean;
  notes: string[];
}

function run(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() || (r.error ? r.error.message : '') };
}

export function installService(spec: ServiceSpec, opts: { start: boolean; manage?: boolean }): ServiceResult {
  const file = serviceFile(spec);
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.content, { mode: 0o644 });
  const notes: string[] = [];
  if (opts.manage === false) return { file, managed: false, notes: ['Service manager not called (--no-manage).'] };
  if (file.kind === 'systemd') {
    const reload = run('systemctl', ['--user', 'daemon-reload']);
    if (!reload.ok) return { file, managed: false, notes: [`systemctl --user is not available here (${reload.out.split('\n')[0] || 'no systemd user session'}). Start the unit yourself once a user session is up: systemctl --user enable --now ${file.name}`] };
    const en = run('systemctl', ['--user', 'enable', ...(opts.start ? ['--now'] : []), file.name]);
    if (!en.ok) notes.push(`systemctl --user enable failed: ${en.out}`);
    notes.push(`To keep it running after you log out: loginctl enable-linger ${spec.env.USER ?? '$USER'}`);
    return { file, managed: en.ok, notes };
  }
  const load = run('launchctl', ['load', '-w', file.path]);
  if (!load.ok) notes.push(`launchctl load failed: ${load.out}`);
  return { file, managed: load.ok, notes };
}

export function uninstallService(spec: ServiceSpec, opts: { manage?: boolean }): { file: ServiceFile; existed: boolean; notes: string[] } {
  const file = serviceFile(spec);
  const existed = existsSync(file.path);
  const notes: string[] = [];
  if (existed && opts.manage !== false) {
    if (file.kind === 'systemd') {
      const r = run('systemctl', ['--user', 'disable', '--now', file.name]);
      if (!r.ok) notes.push(`systemctl --user disable: ${r.out.split('\n')[0]}`);
    } else {
      const r = run('launchctl', ['unload', '-w', file.path]);
      if (!r.ok) notes.push(`launchctl unload: ${r.out.split('\n')[0]}`);
    }
  }
  rmSync(file.path, { force: true });
  if (existed && file.kind === 'systemd' && opts.manage !== false) run('systemctl', ['--user', 'daemon-reload']);
  return { file, existed, notes };
}

/** The unit is installed and the service manager reports it active. */
export function serviceActive(spec: ServiceSpec): boolean {
  const file = serviceFile(spec);
  if (!existsSync(file.path)) return false;
  if (file.kind === 'systemd') return run('systemctl', ['--user', 'is-active', file.name]).out.trim() === 'active';
  return run('launchctl', ['list', file.name]).ok;
}

export function installedServiceFile(spec: ServiceSpec): ServiceFile | null {
  const file = serviceFile(spec);
  return existsSync(file.path) ? { ...file, content: readFileSync(file.path, 'utf8') } : null;
}
