// The SSH backend: the system `ssh` client with a control master (one authenticated connection
// reused by the persistent shell, background processes and kills), keys from TERMINAL_SSH_KEY.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandHome } from '../../state/paths.ts';
import { RemoteShellBackend, type Transport } from './remote-shell.ts';

export interface SshConfig {
  host: string;
  user?: string;
  port?: number;
  key?: string;
  /** HERMES_HOME, for the known_hosts file Hermes keeps. */
  home: string;
  /** Environment for the ssh client itself (PATH, SSH_AUTH_SOCK, HOME). */
  env: NodeJS.ProcessEnv;
  persistent?: boolean;
}

export function sshConfigFrom(env: NodeJS.ProcessEnv, terminal: Record<string, unknown>, home: string): SshConfig | { error: string } {
  const pick = (envName: string, key: string) => (env[envName]?.trim() || (typeof terminal[key] === 'string' ? (terminal[key] as string).trim() : '') || undefined);
  const host = pick('TERMINAL_SSH_HOST', 'ssh_host');
  if (!host) return { error: 'The ssh backend needs a host: set TERMINAL_SSH_HOST (and TERMINAL_SSH_USER, TERMINAL_SSH_PORT, TERMINAL_SSH_KEY as needed) or terminal.ssh_host in config.yaml.' };
  const portRaw = env.TERMINAL_SSH_PORT?.trim() || (terminal.ssh_port !== undefined ? String(terminal.ssh_port) : '');
  const port = portRaw ? Number(portRaw) : 22;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: `TERMINAL_SSH_PORT must be a port number (got "${portRaw}").` };
  const key = pick('TERMINAL_SSH_KEY', 'ssh_key');
  return { host, user: pick('TERMINAL_SSH_USER', 'ssh_user'), port, key: key ? expandHome(key) : undefined, home, env };
}

export class SshTransport implements Transport {
  private readonly cfg: SshConfig;
  private readonly controlDir: string;
  private readonly target: string;

  constructor(cfg: SshConfig) {
    this.cfg = cfg;
    // Unix socket paths are short (~104 bytes): keep the control socket in a short temp dir.
    this.controlDir = mkdtempSync(join(existsSync('/tmp') ? '/tmp' : tmpdir(), 'hermes-ssh-'));
    this.target = cfg.user ? `${cfg.user}@${cfg.host}` : cfg.host;
  }

  options(): string[] {
    const knownDir = join(this.cfg.home, 'ssh');
    mkdirSync(knownDir, { recursive: true, mode: 0o700 });
    const known = join(knownDir, 'known_hosts');
    const opts = [
      '-o', 'BatchMode=yes',
      '-o', 'StrictHostKeyChecking=accept-new',
      '-o', `UserKnownHostsFile=${known} ~/.ssh/known_hosts`,
      '-o', 'ControlMaster=auto',
      '-o', `ControlPath=${join(this.controlDir, 'cm')}`,
      '-o', 'ControlPersist=300',
      '-o', 'ServerAliveInterval=30',
      '-o', 'ConnectTimeout=15',
      '-o', 'LogLevel=ERROR',
      '-p', String(this.cfg.port ?? 22),
    ];
    if (this.cfg.key) opts.push('-i', this.cfg.key, '-o', 'IdentitiesOnly=yes');
    return opts;
  }

  command(script: string, o: { tty: boolean }) {
    return { file: 'ssh', args: [...this.options(), o.tty ? '-tt' : '-T', this.target, script], env: this.cfg.env };
  }

  describeFailure(out: string): string {
    const t = out.trim();
    const where = `${this.target}:${this.cfg.port ?? 22}`;
    if (/Permission denied/i.test(t)) return `SSH to ${where} was refused: permission denied. Check TERMINAL_SSH_USER and TERMINAL_SSH_KEY (the key must be authorized on the host).`;
    if (/Connection refused/i.test(t)) return `SSH to ${where} failed: connection refused. Is sshd running and is TERMINAL_SSH_PORT right?`;
    if (/Could not resolve hostname/i.test(t)) return `SSH to ${where} failed: the host name does not resolve. Check TERMINAL_SSH_HOST.`;
    if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(t))
      return `SSH to ${where} failed: the host key does not match the known one (${join(this.cfg.home, 'ssh', 'known_hosts')}). If the host was reinstalled, remove its old entry.`;
    return `SSH to ${where} failed: ${t.split('\n').slice(-3).join(' ') || 'no output from ssh'}`;
  }

  async dispose(): Promise<void> {
    spawnSync('ssh', [...this.options(), '-O', 'exit', this.target], { env: this.cfg.env, stdio: 'ignore', timeout: 5000 });
    rmSync(this.controlDir, { recursive: true, force: true });
  }
}

export function sshBackend(cfg: SshConfig): RemoteShellBackend {
  const label = `ssh ${cfg.user ? `${cfg.user}@` : ''}${cfg.host}:${cfg.port ?? 22}`;
  return new RemoteShellBackend({ kind: 'ssh', label, transport: new SshTransport(cfg), isContainer: false, persistent: cfg.persistent });
}
