// The OS sandbox under every command the agent runs locally (issue 29): the terminal (foreground,
// background, PTY, persistent shell), execute_code, cron scripts and shell hooks spawn through
// `wrap`, which returns the argv to spawn. Remote backends are isolated already and never wrap.
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname } from 'node:path';
import { bwrapWrap } from './bwrap.ts';
import { planSandbox, sandboxSettings, type SandboxPlan, type SandboxSettings } from './policy.ts';
import { sandboxAvailability, type SandboxAvailability } from './probe.ts';
import { seatbeltWrap } from './seatbelt.ts';

export type { SandboxPlan, SandboxSettings } from './policy.ts';

export interface Sandbox {
  readonly settings: SandboxSettings;
  readonly availability: SandboxAvailability;
  /** Commands are really confined (mode not off and a sandbox exists here). */
  readonly active: boolean;
  /** The plan for a command now (null when inactive); kept while nothing it was made from changed. */
  plan(): SandboxPlan | null;
  /** The argv that runs `file args` confined (unchanged when inactive). */
  wrap(file: string, args: string[]): { file: string; args: string[]; plan: SandboxPlan | null };
  /** The argv that runs `file args` under `plan`; `bwrapExtra` are more bwrap options (Linux). */
  wrapPlan(plan: SandboxPlan, file: string, args: string[], bwrapExtra?: string[]): { file: string; args: string[] };
}

export interface SandboxOptions {
  config: { terminal?: unknown };
  env: NodeJS.ProcessEnv;
  /** HERMES_HOME of this process. */
  hermesHome: string;
  /** The working directory, writable in workspace-write. */
  cwd: string;
  /** More writable folders the task owns. */
  workspaces?: string[];
  override?: Partial<SandboxSettings>;
}

/** The Hermes homes to protect: the active one and, for a profile, the root one. */
export function hermesHomes(hermesHome: string): string[] {
  const parent = dirname(hermesHome);
  return basename(parent) === 'profiles' ? [hermesHome, dirname(parent)] : [hermesHome];
}

/** How long a plan is kept while nothing it depends on changed (then it is made again). */
const PLAN_TTL_MS = 30_000;

/**
 * What a plan was made from, cheaply (a stat costs tens of microseconds here and a plan makes
 * hundreds): the credential files and folders to hide (one written since must be hidden), the
 * profiles folders (a new profile brings its own), the sealed and read-only folders (an entry
 * added or removed changes the mounts) and the writable roots (one removed and made again outside
 * would leave a bind on the old folder). A protected path that appears inside a sealed folder later
 * is read-only already, so the rest of the plan can wait for PLAN_TTL_MS.
 */
function fingerprint(plan: SandboxPlan): string {
  const paths = [
    ...plan.secrets.map((s) => s.path),
    ...plan.protectedPaths.filter((p) => p.path.endsWith('/profiles')).map((p) => p.path),
    ...[...plan.ops].filter(([, op]) => op !== 'rw').map(([p]) => p),
    ...plan.writable,
  ];
  const parts: string[] = [];
  for (const p of paths) {
    try {
      const st = lstatSync(p);
      parts.push(`${st.dev}:${st.ino}:${st.mode}${st.isDirectory() && !plan.writable.includes(p) ? `:${st.mtimeMs}` : ''}`);
    } catch {
      parts.push('-');
    }
  }
  return parts.join('|');
}

export function makeSandbox(o: SandboxOptions): Sandbox {
  const settings = sandboxSettings(o.config, o.env, o.override);
  const availability = settings.mode === 'off' ? { ok: false, kind: null, reason: 'turned off' } : sandboxAvailability(o.env, o.hermesHome);
  const active = settings.mode !== 'off' && availability.ok;
  const ws = [...(o.workspaces ?? [])];
  if (o.env.HERMES_KANBAN_WORKSPACE?.trim()) ws.push(o.env.HERMES_KANBAN_WORKSPACE.trim());
  // Making a plan costs milliseconds (real paths, stats, folder reads: hundreds of syscalls), which
  // every command would pay; it is kept while its fingerprint holds.
  let kept: { plan: SandboxPlan; print: string; at: number } | null = null;
  const plan = () => {
    if (!active) return null;
    if (kept && Date.now() - kept.at < PLAN_TTL_MS && fingerprint(kept.plan) === kept.print) return kept.plan;
    const p = planSandbox(settings, { cwd: o.cwd, home: o.env.HOME || homedir(), hermesHomes: hermesHomes(o.hermesHome), workspaces: ws, env: o.env });
    kept = { plan: p, print: fingerprint(p), at: Date.now() };
    return p;
  };
  return {
    settings,
    availability,
    active,
    plan,
    wrapPlan(p, file, args, bwrapExtra = []) {
      if (availability.kind === 'seatbelt') return seatbeltWrap(availability.bin!, p, file, args);
      const w = bwrapWrap(availability.bin!, p, file, args);
      return { file: w.file, args: [...bwrapExtra, ...w.args] };
    },
    wrap(file, args) {
      const p = plan();
      if (!p) return { file, args, plan: null };
      return { ...this.wrapPlan(p, file, args), plan: p };
    },
  };
}
