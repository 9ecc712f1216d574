// The local backend's persistent-shell mode (TERMINAL_LOCAL_PERSISTENT): one long-lived bash on this
// machine per session, so `cd` and `export` carry over between commands like on SSH.
import { RemoteShellBackend, type Transport } from './remote-shell.ts';
import type { Sandbox } from '../../sandbox/index.ts';

export class LocalTransport implements Transport {
  readonly shell = 'bash --norc --noprofile';
  private readonly cwd: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly sandbox: () => Sandbox | undefined;

  constructor(cwd: string, env: NodeJS.ProcessEnv, sandbox?: Sandbox | (() => Sandbox | undefined)) {
    this.cwd = cwd;
    this.env = env;
    this.sandbox = typeof sandbox === 'function' ? sandbox : () => sandbox;
  }

  /** Changes when the sandbox does (/sandbox, a config edit): the persistent shell is started again. */
  generation(): unknown {
    return this.sandbox();
  }

  command(script: string) {
    // --norc: the same clean environment as the one-shot local backend (see local.ts). The shell
    // (and each one-shot call) starts inside the sandbox: the persistent shell pays for it once.
    const args = ['--norc', '--noprofile', '-c', script];
    const sb = this.sandbox();
    const w = sb ? sb.wrap('/bin/bash', args) : { file: '/bin/bash', args };
    return { file: w.file, args: w.args, env: this.env, cwd: this.cwd };
  }
}

export function localPersistentBackend(o: { cwd: string; env: NodeJS.ProcessEnv; sandbox?: Sandbox | (() => Sandbox | undefined) }): RemoteShellBackend {
  return new RemoteShellBackend({
    kind: 'local',
    label: 'local (persistent shell)',
    transport: new LocalTransport(o.cwd, o.env, o.sandbox),
    isContainer: false,
    persistent: true,
    defaultCwd: o.cwd,
  });
}
