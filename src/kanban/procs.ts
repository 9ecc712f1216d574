// Worker processes as the dispatcher sees them: is a PID alive (a zombie is not), how a worker we
// spawned exited (recorded from its exit event), and ending one (SIGTERM, a grace, then SIGKILL).
// Only workers claimed from this host are ever signalled: another host's PID means nothing here.
import { readFileSync } from 'node:fs';
import { hostPrefix } from './store.ts';

export type SignalFn = (pid: number, signal: NodeJS.Signals) => void;

export function pidAlive(pid: number | null | undefined): boolean {
  if (!pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform === 'linux') {
    try {
      const m = /^State:\s*(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m?.[1] === 'Z') return false;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    }
  }
  return true;
}

/** Exit status of workers spawned by this process: pid → exit code or signal. */
const exits = new Map<number, { code: number | null; signal: NodeJS.Signals | null; at: number }>();

export function recordExit(pid: number, code: number | null, signal: NodeJS.Signals | null): void {
  exits.set(pid, { code, signal, at: Date.now() });
  if (exits.size > 4096) for (const k of [...exits.keys()].slice(0, 2048)) exits.delete(k);
}

export type ExitKind = 'clean_exit' | 'nonzero_exit' | 'signaled' | 'rate_limited' | 'unknown';
/** A worker exiting with 75 (EX_TEMPFAIL) hit a provider rate limit: requeued, never a failure. */
export const RATE_LIMIT_EXIT_CODE = 75;

export function classifyExit(pid: number): { kind: ExitKind; code: number | string | null } {
  const e = exits.get(pid);
  if (!e) return { kind: 'unknown', code: null };
  if (e.signal) return { kind: 'signaled', code: e.signal };
  if (e.code === 0) return { kind: 'clean_exit', code: 0 };
  if (e.code === RATE_LIMIT_EXIT_CODE) return { kind: 'rate_limited', code: e.code };
  return { kind: 'nonzero_exit', code: e.code };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Termination {
  prev_pid: number | null;
  host_local: boolean;
  termination_attempted: boolean;
  terminated: boolean;
  sigkill: boolean;
  [k: string]: unknown;
}

/** Ends a host-local worker: SIGTERM, up to `graceMs` for it to go, then SIGKILL. */
export async function terminateWorker(pid: number | null, claimLock: string | null, o: { signal?: SignalFn; graceMs?: number } = {}): Promise<Termination> {
  const info: Termination = { prev_pid: pid || null, host_local: false, termination_attempted: false, terminated: false, sigkill: false };
  if (!pid || pid <= 0 || !claimLock || !claimLock.startsWith(hostPrefix())) return info;
  info.host_local = true;
  if (!pidAlive(pid)) {
    info.terminated = true;
    return info;
  }
  // Workers lead their own process group (spawned detached): the group goes, with whatever the worker started.
  const kill: SignalFn =
    o.signal ??
    ((p, s) => {
      try {
        process.kill(-p, s);
      } catch {
        process.kill(p, s);
      }
    });
  info.termination_attempted = true;
  try {
    kill(pid, 'SIGTERM');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') info.terminated = true;
    return info;
  }
  const deadline = performance.now() + (o.graceMs ?? 5000);
  while (performance.now() < deadline) {
    if (!pidAlive(pid)) {
      info.terminated = true;
      return info;
    }
    await sleep(100);
  }
  try {
    kill(pid, 'SIGKILL');
    info.sigkill = true;
  } catch {
    /* gone meanwhile */
  }
  await sleep(50);
  info.terminated = !pidAlive(pid);
  return info;
}

/** We signalled our own worker and it is still there: releasing its claim would spawn a duplicate. */
export const survived = (t: Termination) => t.host_local && t.termination_attempted && !t.terminated;
