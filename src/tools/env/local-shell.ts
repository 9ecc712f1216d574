// The local backend's persistent-shell mode (TERMINAL_LOCAL_PERSISTENT): one long-lived bash on this
// machine per session, so `cd` and `export` carry over between commands like on SSH.
import { RemoteShellBackend, type Transport } from './remote-shell.ts';

export class LocalTransport implements Transport {
  readonly shell = 'bash --norc --noprofile';
  private readonly cwd: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.cwd = cwd;
    this.env = env;
  }

  command(script: string) {
    // --norc: the same clean environment as the one-shot local backend (see local.ts).
    return { file: '/bin/bash', args: ['--norc', '--noprofile', '-c', script], env: this.env, cwd: this.cwd };
  }
}

export function localPersistentBackend(o: { cwd: string; env: NodeJS.ProcessEnv }): RemoteShellBackend {
  return new RemoteShellBackend({
    kind: 'local',
    label: 'local (persistent shell)',
    transport: new LocalTransport(o.cwd, o.env),
    isContainer: false,
    persistent: true,
    defaultCwd: o.cwd,
  });
}
