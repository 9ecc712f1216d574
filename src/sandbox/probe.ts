// Is an OS sandbox available here? bwrap on Linux (it must actually start: user namespaces can be
// off), sandbox-exec on macOS. Probed once per process; the Linux answer is also kept in
// HERMES_HOME/cache/sandbox-probe.json keyed by the binary and the kernel, so a new process does
// not spawn a probe again.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { release } from 'node:os';
import { delimiter, join } from 'node:path';

export interface SandboxAvailability {
  ok: boolean;
  kind: 'bwrap' | 'seatbelt' | null;
  bin?: string;
  /** Why there is none (when !ok). */
  reason?: string;
  /** What to install or change. */
  hint?: string;
}

export const INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: `apt install bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`)';

let memo: { key: string; value: SandboxAvailability } | undefined;

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH || '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      /* next */
    }
  }
  return null;
}

function probeBwrap(bin: string): SandboxAvailability {
  const r = spawnSync(bin, ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--cap-drop', 'ALL', 'true'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status === 0) return { ok: true, kind: 'bwrap', bin };
  const why = (r.error?.message || r.stderr || `exit ${r.status}`).trim().split('\n')[0];
  return {
    ok: false,
    kind: null,
    bin,
    reason: `bwrap cannot create a sandbox here (${why})`,
    hint: /namespace|Operation not permitted|setting up uid map/i.test(why)
      ? 'allow unprivileged user namespaces (`sysctl -w kernel.unprivileged_userns_clone=1`, or on Ubuntu 24.04+ an AppArmor profile for bwrap), or make bwrap setuid'
      : INSTALL_HINT,
  };
}

/** Whether commands can be sandboxed here (cached; `hermesHome` enables the on-disk cache). */
export function sandboxAvailability(env: NodeJS.ProcessEnv = process.env, hermesHome?: string): SandboxAvailability {
  const override = env.HERMES_SANDBOX_BWRAP?.trim();
  const key = `${process.platform}|${override ?? ''}|${env.PATH ?? ''}`;
  if (memo?.key === key) return memo.value;
  let value: SandboxAvailability;
  if (process.platform === 'darwin') {
    value = statOk('/usr/bin/sandbox-exec')
      ? { ok: true, kind: 'seatbelt', bin: '/usr/bin/sandbox-exec' }
      : { ok: false, kind: null, reason: '/usr/bin/sandbox-exec is missing', hint: 'sandbox-exec ships with macOS; check /usr/bin' };
  } else if (process.platform !== 'linux') {
    value = { ok: false, kind: null, reason: `no OS sandbox for ${process.platform}`, hint: 'run Hermes under Linux (bubblewrap) or macOS, or use a container backend (terminal.backend: docker)' };
  } else {
    const bin = override || onPath('bwrap', env);
    if (!bin || !statOk(bin)) value = { ok: false, kind: null, reason: 'bubblewrap (bwrap) is not installed', hint: INSTALL_HINT };
    else value = cachedProbe(bin, hermesHome);
  }
  memo = { key, value };
  return value;
}

function statOk(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function cachedProbe(bin: string, hermesHome: string | undefined): SandboxAvailability {
  let id = '';
  try {
    const st = statSync(bin);
    id = `${bin}|${st.size}|${st.mtimeMs}|${st.mode}|${st.uid}|${release()}|${process.getuid?.() ?? ''}`;
  } catch {
    /* probe below */
  }
  const file = hermesHome ? join(hermesHome, 'cache', 'sandbox-probe.json') : '';
  if (file && id) {
    try {
      const c = JSON.parse(readFileSync(file, 'utf8')) as { id: string; value: SandboxAvailability };
      if (c.id === id) return c.value;
    } catch {
      /* no cache yet */
    }
  }
  const value = probeBwrap(bin);
  if (file && id) {
    try {
      mkdirSync(join(hermesHome!, 'cache'), { recursive: true });
      writeFileSync(file, JSON.stringify({ id, value }));
    } catch {
      /* cache is optional */
    }
  }
  return value;
}

/** One line for doctor, status and the banner. */
export function availabilityLine(a: SandboxAvailability, mode: string): string {
  if (mode === 'off') return 'off (terminal.sandbox.mode: off): commands run with your full permissions';
  if (a.ok) return `${mode} (${a.kind === 'bwrap' ? 'bubblewrap' : 'macOS sandbox-exec'})`;
  return `none: ${a.reason}; commands run unsandboxed. To fix: ${a.hint}`;
}
