// The gateway's PID file (HERMES_HOME/gateway.pid): apart from daemon.ts, so a command that only asks
// whether a gateway runs (hermes profile …) does not load the gateway with it.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const pidPath = (home: string) => join(home, 'gateway.pid');

export interface PidInfo {
  pid: number;
  kind: 'hermes-gateway';
  started_at: string;
  argv: string[];
  home: string;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running gateway of this HERMES_HOME, or null (a stale PID file is removed). */
export function runningGateway(home: string): PidInfo | null {
  const p = pidPath(home);
  if (!existsSync(p)) return null;
  let info: Partial<PidInfo> = {};
  try {
    const raw = readFileSync(p, 'utf8').trim();
    info = raw.startsWith('{') ? (JSON.parse(raw) as PidInfo) : { pid: Number(raw) };
  } catch {
    /* unreadable: treat as stale */
  }
  if (info.pid && isAlive(info.pid)) return info as PidInfo;
  rmSync(p, { force: true });
  return null;
}
