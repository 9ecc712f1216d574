// Claims: which process is running a job right now. A claim is "host:pid:token"; one whose owner
// process is gone is stale (another machine's counts as live for a TTL).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FireClaim } from './job-record.ts';

const HOST = hostname();

/** Claim owners ("host:pid:token") of runs in this process that have not finished. */
const liveInProcess = new Set<string>();

export function newClaimOwner(): string {
  return `${HOST}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Marks a claim owner as running in this process (until `endOwner`). */
export function beginOwner(owner: string): void {
  liveInProcess.add(owner);
}

export function endOwner(owner: string): void {
  liveInProcess.delete(owner);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A claim is live while its owner process runs the job; a dead owner's claim is stale. */
export function claimIsLive(claim: FireClaim | null | undefined, now: number, ttlMs: number): boolean {
  if (!claim || typeof claim !== 'object' || typeof claim.by !== 'string') return false;
  const [host, pidText] = claim.by.split(':');
  const pid = Number(pidText);
  if (host === HOST && Number.isInteger(pid) && pid > 0) {
    if (pid === process.pid) return liveInProcess.has(claim.by);
    return pidAlive(pid);
  }
  // Another machine sharing this HERMES_HOME: trust the claim for the TTL.
  const at = Date.parse(claim.at);
  return Number.isFinite(at) && now - at >= 0 && now - at < ttlMs;
}

