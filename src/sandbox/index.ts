// The OS sandbox under every command the agent runs locally (issue 29): the terminal (foreground,
// background, PTY, persistent shell), execute_code, cron scripts and shell hooks spawn through
// `wrap`, which returns the argv to spawn. Remote backends are isolated already and never wrap.
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
  /** The plan for a command now (null when inactive). */
  plan(): SandboxPlan | null;
  /** The argv that runs `file args` confined (unchanged when inactive). */
  wrap(file: string, args: string[]): { file: string; args: string[]; plan: SandboxPlan | null };
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

export function makeSandbox(o: SandboxOptions): Sandbox {
  const settings = sandboxSettings(o.config, o.env, o.override);
  const availability = settings.mode === 'off' ? { ok: false, kind: null, reason: 'turned off' } : sandboxAvailability(o.env, o.hermesHome);
  const active = settings.mode !== 'off' && availability.ok;
  const ws = [...(o.workspaces ?? [])];
  if (o.env.HERMES_KANBAN_WORKSPACE?.trim()) ws.push(o.env.HERMES_KANBAN_WORKSPACE.trim());
  const plan = () =>
    active ? planSandbox(settings, { cwd: o.cwd, home: o.env.HOME || homedir(), hermesHomes: hermesHomes(o.hermesHome), workspaces: ws, env: o.env }) : null;
  return {
    settings,
    availability,
    active,
    plan,
    wrap(file, args) {
      const p = plan();
      if (!p) return { file, args, plan: null };
      const w = availability.kind === 'seatbelt' ? seatbeltWrap(availability.bin!, p, file, args) : bwrapWrap(availability.bin!, p, file, args);
      return { ...w, plan: p };
    },
  };
}
