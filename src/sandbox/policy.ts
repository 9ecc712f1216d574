// The OS sandbox's policy (issue 29): which settings apply, and which paths a sandboxed command may
// write, may not write and may not read. One plan feeds both platforms (bwrap.ts, seatbelt.ts).
// The protected paths are protected-paths.ts's lists, the one source of truth shared with the
// command classifier and the file tools.
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import {
  HERMES_DIRS, HERMES_FILES, HERMES_SECRET_DIRS, HERMES_SECRET_FILES, HOME_AUTOSTART_DIRS, HOME_CREDENTIAL_DIRS, HOME_FILES,
} from '../policy/protected-paths.ts';

export type SandboxMode = 'workspace-write' | 'read-only' | 'off';
export const SANDBOX_MODES: SandboxMode[] = ['workspace-write', 'read-only', 'off'];

export interface SandboxSettings {
  mode: SandboxMode;
  /** Outbound network allowed (default true). */
  network: boolean;
  /** More writable directories (terminal.sandbox.extra_writable). */
  extraWritable: string[];
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'workspace-write', network: true, extraWritable: [] };

/** What is wrong with a `terminal.sandbox` value, or null. */
export function sandboxConfigProblem(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) return 'terminal.sandbox must be a mapping (mode, network, extra_writable)';
  const o = v as Record<string, unknown>;
  if (o.mode !== undefined && !SANDBOX_MODES.includes(String(o.mode) as SandboxMode))
    return `terminal.sandbox.mode is "${String(o.mode)}"; use one of ${SANDBOX_MODES.join(', ')}`;
  if (o.network !== undefined && !['on', 'off', true, false].includes(o.network as string | boolean))
    return `terminal.sandbox.network is "${String(o.network)}"; use on or off`;
  if (o.extra_writable !== undefined && (!Array.isArray(o.extra_writable) || o.extra_writable.some((p) => typeof p !== 'string')))
    return 'terminal.sandbox.extra_writable must be a list of paths';
  return null;
}

/**
 * The settings in force: config.yaml `terminal.sandbox` (a bad value falls back to the safe
 * default), then HERMES_SANDBOX (a mode) from the environment, then a session's /sandbox override.
 */
export function sandboxSettings(config: { terminal?: unknown }, env: NodeJS.ProcessEnv, override?: Partial<SandboxSettings>): SandboxSettings {
  const raw = ((config.terminal ?? {}) as Record<string, unknown>).sandbox;
  const o = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const mode = SANDBOX_MODES.includes(o.mode as SandboxMode) ? (o.mode as SandboxMode) : DEFAULT_SANDBOX.mode;
  const fromEnv = env.HERMES_SANDBOX?.trim() as SandboxMode | undefined;
  const s: SandboxSettings = {
    mode: fromEnv && SANDBOX_MODES.includes(fromEnv) ? fromEnv : mode,
    network: !(o.network === false || o.network === 'off'),
    extraWritable: Array.isArray(o.extra_writable) ? o.extra_writable.filter((p): p is string => typeof p === 'string' && !!p.trim()) : [],
  };
  return { ...s, ...override };
}

export interface SandboxContext {
  /** The session's working directory (writable in workspace-write). */
  cwd: string;
  /** The user's home ($HOME). */
  home: string;
  /** The active Hermes home, and the root one when that is a profile. */
  hermesHomes: string[];
  /** More directories the task owns (a kanban workspace). */
  workspaces?: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * How each path is mounted: rw (writable), ro (read-only), seal (read-only directory whose
 * entries keep their own writability: nothing can be created, removed or renamed in it),
 * hide-file / hide-dir (unreadable: an empty file or directory over it).
 */
export type MountOp = 'rw' | 'seal' | 'ro' | 'hide-file' | 'hide-dir';
const RANK: Record<MountOp, number> = { rw: 0, seal: 1, ro: 2, 'hide-file': 3, 'hide-dir': 3 };

export interface SandboxPlan {
  settings: SandboxSettings;
  /** Writable roots (real paths). */
  writable: string[];
  /** Roots asked for but refused (they are, or are inside, a protected path). */
  refused: string[];
  /** Every protected path (real paths, existing or not), with why. */
  protectedPaths: { path: string; why: string }[];
  /** Files and folders a sandboxed command cannot read. */
  secrets: { path: string; dir: boolean }[];
  /** Mounts, for bwrap (parents before children when sorted by depth). */
  ops: Map<string, MountOp>;
  /**
   * Missing protected paths the mounts cannot keep from being created (directly in the user's
   * home, which is never sealed): a foreground command that creates one has it moved aside after
   * it ends (sweep.ts).
   */
  unguarded: { path: string; why: string }[];
}

const exists = (p: string) => {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
};

/** The real path of `p`: its deepest existing ancestor resolved through links, the rest appended. */
export function resolveReal(p: string): string {
  const abs = resolve(p);
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      return join(realpathSync(cur), ...rest.reverse());
    } catch {
      const up = dirname(cur);
      if (up === cur) return abs;
      rest.push(basename(cur));
      cur = up;
    }
  }
}

const under = (p: string, root: string) => root === '/' ? p !== '/' : p.startsWith(root + sep);
const within = (p: string, root: string) => p === root || under(p, root);
const expand = (p: string, home: string) => (p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p);

/** Caches and package stores commands write to during ordinary development work. */
function cacheDirs(home: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = ['.cache', '.npm', '.yarn', '.pnpm-store', '.local/share/pnpm', '.cargo/registry', '.cargo/git', 'go/pkg/mod', '.bun/install/cache', '.gradle/caches', '.m2/repository'].map((d) => join(home, d));
  for (const v of ['XDG_CACHE_HOME', 'npm_config_cache', 'PIP_CACHE_DIR', 'CARGO_HOME', 'GOMODCACHE', 'GOCACHE']) if (env[v]?.trim() && isAbsolute(env[v]!.trim())) dirs.push(env[v]!.trim());
  return dirs;
}

/** Protected paths (absolute) with a short reason each. */
export function protectedList(ctx: Pick<SandboxContext, 'home' | 'hermesHomes'>): { path: string; why: string }[] {
  const out: { path: string; why: string }[] = [];
  for (const f of HOME_FILES) out.push({ path: join(ctx.home, f), why: 'a shell start-up or credential file' });
  for (const d of HOME_CREDENTIAL_DIRS) out.push({ path: join(ctx.home, d), why: 'a credential folder' });
  for (const d of HOME_AUTOSTART_DIRS) out.push({ path: join(ctx.home, d), why: 'a folder of programs that run at login' });
  const homes = new Set(ctx.hermesHomes);
  for (const h of homes) {
    for (const f of HERMES_FILES) out.push({ path: join(h, f), why: "Hermes's own configuration, credentials or databases" });
    for (const d of HERMES_DIRS) out.push({ path: join(h, d), why: 'code Hermes runs (hooks, plugins, scripts, cron jobs) or its credentials' });
    out.push({ path: join(h, 'profiles'), why: "Hermes's profiles" });
  }
  return out;
}

/** Hermes credential files and folders (every profile's too). */
function secretList(hermesHomes: string[]): { path: string; dir: boolean }[] {
  const homes = new Set(hermesHomes);
  for (const h of hermesHomes) {
    try {
      for (const e of readdirSync(join(h, 'profiles'), { withFileTypes: true })) if (e.isDirectory()) homes.add(join(h, 'profiles', e.name));
    } catch {
      /* no profiles */
    }
  }
  const out: { path: string; dir: boolean }[] = [];
  for (const h of homes) {
    for (const f of HERMES_SECRET_FILES) out.push({ path: join(h, f), dir: false });
    for (const d of HERMES_SECRET_DIRS) out.push({ path: join(h, d), dir: true });
  }
  return out;
}

/** The plan for one command (or one persistent shell). Cheap: some stats and a few directory reads. */
export function planSandbox(settings: SandboxSettings, ctx: SandboxContext): SandboxPlan {
  const ops = new Map<string, MountOp>();
  const set = (p: string, op: MountOp) => {
    const cur = ops.get(p);
    if (!cur || RANK[op] > RANK[cur]) ops.set(p, op);
  };
  const protectedPaths = protectedList(ctx).map((e) => ({ path: resolveReal(e.path), why: e.why }));
  const homeReal = resolveReal(ctx.home);
  const wanted: string[] = [];
  const unguarded: { path: string; why: string }[] = [];
  if (settings.mode === 'workspace-write') {
    wanted.push(ctx.cwd, ...(ctx.workspaces ?? []), '/tmp', '/var/tmp', tmpdir());
    if (ctx.env.TMPDIR?.trim()) wanted.push(ctx.env.TMPDIR.trim());
    wanted.push(...cacheDirs(ctx.home, ctx.env));
  }
  if (settings.mode !== 'off') wanted.push(...settings.extraWritable.map((p) => resolve(ctx.cwd, expand(p, ctx.home))));
  const writable: string[] = [];
  const refused: string[] = [];
  for (const w of wanted) {
    const real = resolveReal(w);
    let st;
    try {
      st = statSync(real);
    } catch {
      continue;
    }
    if (!st.isDirectory() || real === '/' || writable.includes(real)) continue;
    if (protectedPaths.some((p) => within(real, p.path))) {
      refused.push(real);
      continue;
    }
    writable.push(real);
  }
  for (const r of writable) set(r, 'rw');
  // Pin the folders between a writable root and a protected path (a mount point cannot be renamed,
  // so the protected path cannot be moved aside with its parent).
  const pin = (root: string, to: string) => {
    for (let a = dirname(to); under(a, root); a = dirname(a)) set(a, 'rw');
  };
  for (const p of protectedPaths) {
    for (const root of writable) {
      if (!under(p.path, root)) continue;
      const st = exists(p.path);
      if (st && !st.isSymbolicLink()) {
        set(p.path, 'ro');
        pin(root, p.path);
      } else {
        // Missing (or a link that could be replaced): nothing may be created in its deepest
        // existing folder, whose other entries stay writable.
        let d = dirname(p.path);
        while (!exists(d) && under(d, root)) d = dirname(d);
        // Never the user's home itself (unless it is the Hermes home): sealing it would make each of its entries a mount point, so
        // nothing there could be renamed or deleted (`rm -rf ~/old-project` in a session started
        // in ~) and every command would start slower. A missing rc file or ~/.ssh at the home's top
        // level is guarded by the approval rules only (docs/sandbox.md, limits).
        if (d === homeReal && !ctx.hermesHomes.some((h) => resolveReal(h) === homeReal)) {
          if (!unguarded.some((u) => u.path === p.path)) unguarded.push(p);
          continue;
        }
        set(d, 'seal');
        pin(root, d);
      }
    }
  }
  const secrets = secretList(ctx.hermesHomes).map((s) => ({ path: resolveReal(s.path), dir: s.dir }));
  for (const s of secrets) {
    const st = exists(s.path);
    if (!st || st.isSymbolicLink()) continue;
    set(s.path, st.isDirectory() ? 'hide-dir' : 'hide-file');
  }
  // A sealed folder's entries keep their own writability.
  for (const [d, op] of [...ops]) {
    if (op !== 'seal' || !writable.some((r) => within(d, r))) continue;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) if ((e.isDirectory() || e.isFile()) && !ops.has(join(d, e.name))) set(join(d, e.name), 'rw');
  }
  return { settings, writable, refused, protectedPaths, secrets, ops, unguarded };
}

/** Why `path` (absolute) is not writable under `plan`, or null when it is. */
export function deniedBecause(plan: SandboxPlan, path: string): string | null {
  const real = resolveReal(path);
  const prot = plan.protectedPaths.find((p) => within(real, p.path));
  if (prot) return `it is protected: ${prot.why}`;
  if (plan.settings.mode === 'read-only') return 'the sandbox is read-only (terminal.sandbox.mode: read-only)';
  if (!plan.writable.some((r) => within(real, r)))
    return 'it is outside the writable set (the working directory, /tmp, the usual caches and terminal.sandbox.extra_writable)';
  for (const [p, op] of plan.ops) if (op === 'seal' && dirname(real) === p) return 'nothing may be created or removed directly in that folder: it holds protected files';
  return null;
}
