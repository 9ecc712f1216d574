// Provider health on disk: HERMES_HOME/provider_health.json, so `hermes status`, the dashboard and
// other processes of the same home see what this one saw (src/llm/health.ts keeps it in memory).
//
// Written only once something happened worth telling (an error, a stall, a trip) or when the file
// already exists: a home whose providers always answered gets no file. A trip or a recovery is
// written at once; counters at most every five seconds. Processes share the file by merging: each
// target keeps the newest record any of them wrote; targets silent for a week drop out. The file
// is advisory (a lost update costs a status line, never a request), so there is no lock.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { FOREIGN_TRIP_TTL_MS, type HealthStore, type ProviderHealth, sharedHealth, type TargetHealth, targetLabel } from '../llm/health.ts';
import { writeFileAtomic } from '../state/fsutil.ts';

export const HEALTH_FILE = 'provider_health.json';
const THROTTLE_MS = 5000;
const KEEP_MS = 7 * 24 * 3600_000;

const fileOf = (home: string) => join(home, HEALTH_FILE);

function readTargets(path: string): Record<string, TargetHealth> {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { targets?: unknown };
    const t = v?.targets;
    return t && typeof t === 'object' && !Array.isArray(t) ? (t as Record<string, TargetHealth>) : {};
  } catch {
    return {};
  }
}

const notable = (t: TargetHealth) => t.state === 'tripped' || t.errors > 0 || t.stalls > 0 || t.firstByteTimeouts > 0;

const exitFlushes: (() => void)[] = [];
function atExit(fn: () => void): void {
  if (!exitFlushes.length) {
    process.once('exit', () => {
      for (const f of exitFlushes) {
        try {
          f();
        } catch {
          /* advisory */
        }
      }
    });
  }
  exitFlushes.push(fn);
}

export function providerHealthStore(home: string, now: () => number = Date.now): HealthStore {
  const path = fileOf(home);
  let lastWrite = 0;
  let pending: (() => Record<string, TargetHealth>) | null = null;
  let timer: NodeJS.Timeout | null = null;
  const write = (all: () => Record<string, TargetHealth>) => {
    pending = null;
    if (timer) clearTimeout(timer);
    timer = null;
    // Also when nothing is written: a healthy home is looked at no more than every five seconds.
    lastWrite = now();
    const targets = all();
    const exists = existsSync(path);
    if (!exists && !Object.values(targets).some(notable)) return;
    const merged = exists ? readTargets(path) : {};
    for (const [id, t] of Object.entries(targets)) if (!merged[id] || (merged[id].updatedAt ?? 0) <= t.updatedAt) merged[id] = t;
    for (const [id, t] of Object.entries(merged)) if (now() - (t.updatedAt ?? 0) > KEEP_MS) delete merged[id];
    writeFileAtomic(path, `${JSON.stringify({ version: 1, updated_at: lastWrite, targets: merged }, null, 2)}\n`, 0o600);
  };
  // Counters still waiting for their throttled write go out when the process ends (a one-shot run
  // is usually over before the five seconds).
  atExit(() => {
    if (pending) write(pending);
  });
  return {
    load: () => (existsSync(path) ? readTargets(path) : null),
    save(all, urgent) {
      if (urgent || now() - lastWrite >= THROTTLE_MS) return write(all);
      pending = all;
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        if (pending) {
          try {
            write(pending);
          } catch {
            /* advisory */
          }
        }
      }, THROTTLE_MS - (now() - lastWrite));
      timer.unref?.();
    },
  };
}

const attached = new Set<string>();

/** The health registry of a home, with its file attached (once per process and home). */
export function healthFor(home: string): ProviderHealth {
  const h = sharedHealth(home);
  if (!attached.has(home)) {
    attached.add(home);
    h.attachStore(providerHealthStore(home));
  }
  return h;
}

/** What the file says, tripped targets first, then the newest (for `hermes status` and the dashboard). */
export function readProviderHealth(home: string): TargetHealth[] {
  const rank = (t: TargetHealth) => (t.state === 'tripped' ? 0 : 1);
  return Object.values(readTargets(fileOf(home))).sort((a, b) => rank(a) - rank(b) || (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
}

const ago = (ms: number) => (ms < 90_000 ? `${Math.max(1, Math.round(ms / 1000))}s` : ms < 5400_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3600_000)} h`);
const secs = (ms: number | undefined) => (ms === undefined ? '' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** One line per target: "openrouter:model — tripped 2 min ago (…); probing" or "ok · first byte 0.8 s avg · 2 errors". */
export function healthLine(t: TargetHealth, now = Date.now()): string {
  const name = targetLabel(t);
  const counts = [
    t.avgTtfbMs !== undefined ? `first byte ${secs(t.avgTtfbMs)} avg` : '',
    `${t.requests} request(s)`,
    t.errors ? `${t.errors} error(s)` : '',
    t.stalls ? `${t.stalls} stall(s)` : '',
    t.firstByteTimeouts ? `${t.firstByteTimeouts} silent` : '',
  ].filter(Boolean);
  // Keys set aside (rate limited, rejected, silent): the others of the provider are used meanwhile.
  for (const [id, k] of Object.entries(t.keys ?? {})) {
    if (k.benchedUntil && k.benchedUntil > now) counts.push(`${/^key:\d+$/.test(id) ? id.replace(':', ' ') : `key ${id}`} set aside for ${ago(k.benchedUntil - now)}${k.benchReason ? ` (${k.benchReason})` : ''}`);
  }
  if (t.state === 'tripped') {
    const since = t.trippedAt ? ` ${ago(now - t.trippedAt)} ago` : '';
    const probe = t.lastProbe ? `; last probe ${ago(now - t.lastProbe.at)} ago ${t.lastProbe.ok ? 'answered' : 'unanswered'}` : '';
    const left = t.trippedAt !== undefined ? FOREIGN_TRIP_TTL_MS - (now - t.trippedAt) : 0;
    const plan =
      t.nextProbeAt && t.nextProbeAt > now
        ? `probing, next in ${ago(t.nextProbeAt - now)}`
        : left > 0
          ? `avoided until a probe is answered, at most ${ago(left)} more`
          : 'the next run tries it again';
    return `${name} — left for the fallback${since}: ${t.reason ?? 'not answering'} (${plan}${probe}) · ${counts.join(' · ')}`;
  }
  const last = t.lastError ? ` · last error ${ago(now - t.lastError.at)} ago: ${t.lastError.message}` : '';
  const back = t.recoveredAt && now - t.recoveredAt < 3600_000 ? ` · answering again since ${ago(now - t.recoveredAt)} ago` : '';
  return `${name} — ok · ${counts.join(' · ')}${back}${last}`;
}

/** A target as the status JSON and the dashboard show it (snake_case, times in ms epoch). */
export function healthJson(t: TargetHealth): Record<string, unknown> {
  return {
    provider: t.provider,
    model: t.model,
    base_url: t.baseUrl,
    state: t.state,
    reason: t.reason ?? null,
    tripped_at: t.trippedAt ?? null,
    recovered_at: t.recoveredAt ?? null,
    requests: t.requests,
    errors: t.errors,
    stalls: t.stalls,
    first_byte_timeouts: t.firstByteTimeouts,
    avg_first_byte_ms: t.avgTtfbMs ?? null,
    last_first_byte_ms: t.lastTtfbMs ?? null,
    last_error: t.lastError ?? null,
    probes: t.probes,
    last_probe: t.lastProbe ?? null,
    keys: Object.fromEntries(
      Object.entries(t.keys ?? {}).map(([id, k]) => [
        id,
        { requests: k.requests, errors: k.errors, stalls: k.stalls, first_byte_timeouts: k.firstByteTimeouts, avg_first_byte_ms: k.avgTtfbMs ?? null, last_first_byte_ms: k.lastTtfbMs ?? null, benched_until: k.benchedUntil ?? null, bench_reason: k.benchReason ?? null },
      ]),
    ),
    updated_at: t.updatedAt,
    line: healthLine(t),
  };
}
