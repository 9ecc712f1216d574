// Starting, stopping and reading the status of the gateway daemon of a HERMES_HOME, from another
// process (`hermes gateway start|stop|status`, the service files): apart from daemon.ts, which
// loads the gateway itself.
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { readLedgerCounts, type LedgerCounts } from '../state/delivery-ledger.ts';
import { paths } from '../state/paths.ts';
import { readJsonObject } from './json-file.ts';
import { gatewayLogPath } from './log.ts';
import { isAlive, pidPath, runningGateway } from './pid-file.ts';

export { runningGateway };
import { statePath, type PlatformStatus } from './supervisor.ts';

/**
 * Node flags the daemon runs with when Hermes starts it (`gateway start`, the systemd unit, the
 * launchd agent): a 16 MB semi-space keeps a busy gateway's RSS about a fifth lower (480 vs 590 MB
 * for 200 active chats in bench/gateway.ts) at the same CPU per message.
 * No allocation-site pretenuring: under a burst (many turns in flight) most of a turn's objects
 * outlive a young-generation GC, so V8 starts allocating them straight in the old generation, and
 * keeps doing so once the burst is over: short-lived request/response objects of every turn then
 * fill the old generation. Without it, bench/gateway.ts (200 chats, 200 msg/s after a closed-loop
 * burst) promotes a third less per message, has far fewer young GCs over 5 ms and shorter (if a
 * little more frequent) mark-compacts, and a lower latency p99 when the machine is busy.
 * A heap growing factor of 1.5: V8 otherwise lets the old generation grow to up to four times what
 * survived the last mark-compact before it collects again, and a gateway allocating steadily gets
 * the full four — 50–60 MB live in a 230–350 MB heap for 200 chats, RSS swinging by 100 MB from one
 * mark-compact to the next. At 1.5 the same run keeps RSS flat at about 250 MB instead of 360–510,
 * with shorter mark-compacts (6–22 ms instead of 25–30) that come every 1–2k messages instead of
 * every 5k, at the same CPU per message (bench/gateway.ts).
 */
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=16', '--no-allocation-site-pretenuring', '--heap-growing-percent=50'];

/**
 * Environment the daemon runs with when Hermes starts it (a value the user set wins). Two glibc
 * malloc arenas instead of one per thread that ever allocated (libuv's file-system pool, the WAL
 * checkpointer, SQLite): with one each, freed memory stayed scattered over arenas and RSS crept
 * 1–2 MB per 1k messages in bench/gateway.ts; with two it stays flat (0.2–0.3 MB per 1k, the
 * chats' growing histories) at the same throughput and p99. Other C libraries ignore it.
 */
export const GATEWAY_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

export class GatewayError extends Error {}

// ---- start / stop / status ---------------------------------------------------------------------

export interface GatewayStatus {
  running: boolean;
  pid?: number;
  startedAt?: string;
  platforms: Record<string, PlatformStatus>;
  logPath: string;
  /** The delivery ledger over the last 7 days (null: none yet). */
  ledger: LedgerCounts | null;
}

export function gatewayStatus(home: string): GatewayStatus {
  const info = runningGateway(home);
  const state = readJsonObject<{ pid?: number; platforms?: Record<string, PlatformStatus>; ledger?: LedgerCounts }>(statePath(home));
  const live = !!info && state.pid === info.pid;
  return {
    running: !!info,
    pid: info?.pid,
    startedAt: info?.started_at,
    platforms: live ? (state.platforms ?? {}) : {},
    logPath: gatewayLogPath(home),
    // The running gateway's own figures (PostgreSQL too); else state.db's ledger as it is now.
    ledger: (live && state.ledger) || readLedgerCounts(paths.stateDb(home)) || state.ledger || null,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `hermes gateway run` in the background; resolves with its pid once it is up. */
export async function startBackground(home: string, env: NodeJS.ProcessEnv, opts: { bin: string; timeoutMs?: number }): Promise<number> {
  const running = runningGateway(home);
  if (running) throw new GatewayError(`The gateway is already running (pid ${running.pid}).`);
  const logFd = openSync(gatewayLogPath(home), 'a', 0o600);
  const child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, opts.bin, 'gateway', 'run'], { detached: true, stdio: ['ignore', logFd, logFd], env: { ...GATEWAY_ENV, ...env, HERMES_HOME: home }, cwd: home });
  closeSync(logFd);
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? 1));
  child.unref();
  const deadline = performance.now() + (opts.timeoutMs ?? 30_000);
  while (performance.now() < deadline) {
    const info = runningGateway(home);
    if (info?.pid === child.pid) {
      const state = readJsonObject<{ pid?: number; platforms?: Record<string, PlatformStatus> }>(statePath(home));
      if (state.pid === child.pid && Object.values(state.platforms ?? {}).every((p) => p.state !== 'connecting')) return child.pid!;
    }
    if (exited !== null) throw new GatewayError(`The gateway exited during start-up (exit ${exited}). See ${gatewayLogPath(home)}.`);
    await sleep(100);
  }
  if (child.pid && isAlive(child.pid)) return child.pid;
  throw new GatewayError(`The gateway did not come up. See ${gatewayLogPath(home)}.`);
}

/** SIGTERM, then wait for the drain; SIGKILL after `timeoutMs`. */
export async function stopGateway(home: string, opts: { timeoutMs: number }): Promise<{ pid: number; killed: boolean } | null> {
  const info = runningGateway(home);
  if (!info) return null;
  try {
    process.kill(info.pid, 'SIGTERM');
  } catch {
    return { pid: info.pid, killed: false };
  }
  const deadline = performance.now() + opts.timeoutMs;
  while (performance.now() < deadline) {
    if (!isAlive(info.pid)) {
      rmSync(pidPath(home), { force: true });
      return { pid: info.pid, killed: false };
    }
    await sleep(100);
  }
  try {
    process.kill(info.pid, 'SIGKILL');
  } catch {
    /* gone meanwhile */
  }
  rmSync(pidPath(home), { force: true });
  return { pid: info.pid, killed: true };
}
