// A throwaway sshd on loopback for SSH backend tests: fresh host and user keys, this user only.
// Returns null (with the reason) where sshd or ssh-keygen is not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { tmp } from './helpers.ts';
import { freePort } from '../helpers/net.ts';

export interface TestSshd {
  port: number;
  user: string;
  key: string;
  dir: string;
  /** The HOME sessions get (sshd SetEnv), with a .bashrc that counts how often it was sourced. */
  home: string;
  stop(): void;
}

const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd', '/sbin/sshd'].find((p) => existsSync(p));

export function sshdUnavailable(): string | null {
  if (!SSHD) return 'sshd is not installed (apt-get install openssh-server)';
  if (spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error) return 'ssh-keygen is not installed';
  if (spawnSync('ssh', ['-V'], { stdio: 'ignore' }).error) return 'the ssh client is not installed';
  return null;
}


export async function startSshd(): Promise<TestSshd> {
  const dir = tmp('hermes-sshd-');
  chmodSync(dir, 0o700);
  const keygen = (file: string) => {
    const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  };
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'user_key'));
  writeFileSync(join(dir, 'authorized_keys'), spawnSync('cat', [join(dir, 'user_key.pub')], { encoding: 'utf8' }).stdout, { mode: 0o600 });
  // Sessions get a HOME of their own, so the machine's real ~/.bashrc (pyenv, nvm, ...) does not run
  // in tests; this .bashrc bumps an exported counter each time a shell sources it.
  const home = join(dir, 'home');
  mkdirSync(home, { mode: 0o700 });
  writeFileSync(join(home, '.bashrc'), 'export HERMES_RC_SOURCED=$((HERMES_RC_SOURCED+1))\n');
  const port = await freePort();
  const user = userInfo().username;
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin yes',
      `AllowUsers ${user}`,
      'LogLevel INFO',
      'MaxSessions 50',
      'MaxStartups 50',
      `SetEnv HOME=${home}`,
    ].join('\n') + '\n',
  );
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const child: ChildProcess = spawn(SSHD!, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const t = setTimeout(() => reject(new Error(`sshd did not start: ${err}`)), 15_000);
    child.stderr!.on('data', (d) => {
      err += d;
      if (/Server listening on/.test(err)) {
        clearTimeout(t);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`sshd exited (${code}): ${err}`));
    });
  });
  child.stderr!.resume();
  return {
    port,
    user,
    key: join(dir, 'user_key'),
    dir,
    home,
    stop: () => child.kill('SIGTERM'),
  };
}
