// Linux: a sandbox plan as a bubblewrap (`bwrap`) command line. The whole file system is mounted
// read-only, /dev as it is, then the plan's mounts from parents to children: writable roots,
// protected paths read-only again inside them, Hermes's credential files hidden. All capabilities
// are dropped (Hermes may run as root, and a root with CAP_SYS_ADMIN could remount), and with
// `network: off` the command gets its own network namespace (only its own loopback).
import type { SandboxPlan } from './policy.ts';

const depth = (p: string) => (p === '/' ? 0 : p.split('/').length - 1);

/** bwrap's arguments (before `--` and the command) for `plan`. */
export function bwrapArgs(plan: SandboxPlan): string[] {
  const args = ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev'];
  const ops = [...plan.ops].sort((a, b) => depth(a[0]) - depth(b[0]) || (a[0] < b[0] ? -1 : 1));
  for (const [p, op] of ops) {
    if (op === 'rw') args.push('--bind', p, p);
    else if (op === 'ro' || op === 'seal') args.push('--ro-bind', p, p);
    else if (op === 'hide-file') args.push('--ro-bind', '/dev/null', p);
    else args.push('--tmpfs', p, '--remount-ro', p);
  }
  args.push('--cap-drop', 'ALL');
  if (!plan.settings.network) args.push('--unshare-net');
  return args;
}

/** The argv that runs `file args` inside the sandbox. */
export function bwrapWrap(bin: string, plan: SandboxPlan, file: string, args: string[]): { file: string; args: string[] } {
  return { file: bin, args: [...bwrapArgs(plan), '--', file, ...args] };
}
