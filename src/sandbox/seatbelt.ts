// macOS: a sandbox plan as a Seatbelt profile for `sandbox-exec -p`. Later rules win: every write
// is denied, the writable roots and terminal devices allowed, then the protected paths denied again
// (a missing one cannot be created), Hermes's credential files unreadable, and with `network: off`
// no IP traffic (Unix sockets stay, execute_code's tool channel is one).
import type { SandboxPlan } from './policy.ts';

const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function seatbeltProfile(plan: SandboxPlan): string {
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const allow = plan.writable.map((p) => `(subpath ${q(p)})`);
  allow.push('(literal "/dev/null")', '(literal "/dev/zero")', '(literal "/dev/tty")', '(literal "/dev/dtracehelper")', '(regex #"^/dev/ttys[0-9]+$")', '(regex #"^/dev/fd/")', '(literal "/dev/ptmx")');
  lines.push(`(allow file-write* ${allow.join(' ')})`);
  if (plan.protectedPaths.length) lines.push(`(deny file-write* ${plan.protectedPaths.map((p) => `(literal ${q(p.path)}) (subpath ${q(p.path)})`).join(' ')})`);
  if (plan.secrets.length) lines.push(`(deny file-read* ${plan.secrets.map((s) => (s.dir ? `(subpath ${q(s.path)})` : `(literal ${q(s.path)})`)).join(' ')})`);
  if (!plan.settings.network) lines.push('(deny network-outbound (remote ip))', '(deny network-inbound (local ip))');
  return lines.join('\n');
}

export function seatbeltWrap(bin: string, plan: SandboxPlan, file: string, args: string[]): { file: string; args: string[] } {
  return { file: bin, args: ['-p', seatbeltProfile(plan), '--', file, ...args] };
}
