// Escalation instead of silent failure (issue 29): a sandboxed command that failed on a write the
// sandbox refused is reported to the model with the path and the rule, and how to ask for a run
// outside the sandbox (an approval request a person answers).
import { resolve } from 'node:path';
import { deniedBecause, type SandboxPlan } from './policy.ts';

const PATTERNS = [
  // coreutils, shells: touch: cannot touch '/x': Read-only file system; bash: /x: Read-only file system
  /(?:^|\n)[^\n]*?['"\u2018`]?((?:\/|\.\.?\/)?[^\s'"\u2019`:]+)['"\u2019`]?: (Read-only file system|Permission denied|Operation not permitted)/g,
  // Python: [Errno 30] Read-only file system: '/x'
  /\[Errno (?:30|13|1)\] (Read-only file system|Permission denied|Operation not permitted): '([^']+)'/g,
  // Node: EROFS: read-only file system, open '/x'
  /(EROFS|EACCES|EPERM): [^,\n]+, \w+ '([^']+)'/g,
];

/** A note for the model when `output` shows writes the sandbox refused; null otherwise. */
export function sandboxDenialNote(output: string, plan: SandboxPlan, cwd: string): string | null {
  const found = new Map<string, string>();
  const text = output.length > 200_000 ? output.slice(0, 100_000) + output.slice(-100_000) : output;
  for (const [i, re] of PATTERNS.entries()) {
    for (const m of text.matchAll(re)) {
      const path = i === 0 ? m[1] : m[2];
      const err = i === 0 ? m[2] : m[1];
      if (!path || found.size >= 5) continue;
      const abs = resolve(cwd, path);
      const why = deniedBecause(plan, abs);
      const erofs = /read-only|EROFS/i.test(err);
      if (why && (erofs || !found.has(abs))) found.set(abs, why);
    }
  }
  if (!found.size) return null;
  const lines = [...found].map(([p, why]) => `${p}: ${why}`);
  return `The OS sandbox (terminal.sandbox.mode: ${plan.settings.mode}) refused ${found.size === 1 ? 'a write' : 'writes'}: ${lines.join('; ')}. ` +
    'If the task truly needs it, run the command again with unsandboxed: true (the user is asked to approve it); otherwise write inside the working directory or /tmp.';
}
