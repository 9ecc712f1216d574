// The one gap the mounts leave (docs/sandbox.md, Limits): the user's home is never sealed, so a
// protected name missing at its top level (~/.bash_profile, ~/.ssh, …) could be created by a
// sandboxed command run with the working directory at ~. A foreground command is bracketed: what
// of those paths appeared while it ran is moved aside into HERMES_HOME/quarantine/ and reported,
// so a shell start-up file or an ssh key the agent slipped in never takes effect. Paths present
// before the command (the user made them meanwhile) are never touched.
import { lstatSync, mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SandboxPlan } from './policy.ts';

/** The unguarded paths that exist now (a stat each; none in the usual plan). */
export function presentUnguarded(plan: SandboxPlan | null): Set<string> | null {
  if (!plan || !plan.unguarded.length) return null;
  const out = new Set<string>();
  for (const u of plan.unguarded) if (lstatSync(u.path, { throwIfNoEntry: false })) out.add(u.path);
  return out;
}

/**
 * Moves aside what appeared since `before`; a note for the model (and the person reading the
 * transcript) naming each path and where it went, or null when nothing appeared.
 */
export function sweepUnguarded(plan: SandboxPlan, before: Set<string>, hermesHome: string, now = new Date()): string | null {
  const moved: string[] = [];
  for (const u of plan.unguarded) {
    if (before.has(u.path) || !lstatSync(u.path, { throwIfNoEntry: false })) continue;
    const dir = join(hermesHome, 'quarantine');
    const to = join(dir, `${now.toISOString().replace(/[:.]/g, '-')}-${basename(u.path)}`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      renameSync(u.path, to);
      moved.push(`${u.path} (${u.why}) was moved to ${to}`);
    } catch (e) {
      moved.push(`${u.path} (${u.why}) could not be moved aside (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): tell the user to check it`);
    }
  }
  if (!moved.length) return null;
  return `The command created protected ${moved.length === 1 ? 'path' : 'paths'} the OS sandbox guards: ${moved.join('; ')}. ` +
    'If the task truly needs it, tell the user, or run the command again with unsandboxed: true (the user is asked to approve it).';
}
