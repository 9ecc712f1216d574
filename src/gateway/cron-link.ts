// The gateway runs the cron ticker (src/cron/scheduler.ts, built on the `cron` branch) with the
// delivery router as its `deliver`. Contract: startCronTicker({ home, deliver, intervalMs?, log? })
// → { stop(): Promise<void> }.
// TODO(cron merge): replace the indirect import below with a static `import('../cron/scheduler.ts')`
// once src/cron lands on main, so the bundle includes it.
import type { Deliver } from './types.ts';

export interface CronTicker {
  stop(): Promise<void>;
}

type StartCronTicker = (o: { home: string; deliver: Deliver; intervalMs?: number; log?: (line: string) => void }) => CronTicker;

export async function startCron(home: string, deliver: Deliver, log: (line: string) => void): Promise<CronTicker | null> {
  const spec = '../cron/scheduler.ts';
  let mod: { startCronTicker?: StartCronTicker };
  try {
    mod = (await import(/* @vite-ignore */ spec)) as { startCronTicker?: StartCronTicker };
  } catch {
    log('cron: the scheduler is not part of this build; scheduled jobs will not run from the gateway');
    return null;
  }
  if (typeof mod.startCronTicker !== 'function') {
    log('cron: scheduler module has no startCronTicker; scheduled jobs will not run');
    return null;
  }
  return mod.startCronTicker({ home, deliver, log: (l) => log(`cron: ${l}`) });
}
