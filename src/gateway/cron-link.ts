// The gateway runs the cron ticker (src/cron/scheduler.ts) with the delivery router as its
// `deliver`, so scheduled reports go out through the connected platforms, and job runs are stored in
// the gateway's state.db.
import type { SessionStore } from '../session/session.ts';
import type { Deliver } from './types.ts';

export interface CronTicker {
  stop(): Promise<void>;
}

export async function startCron(o: { home: string; deliver: Deliver; log: (line: string) => void; env: NodeJS.ProcessEnv; store?: SessionStore }): Promise<CronTicker> {
  const { startCronTicker } = await import('../cron/scheduler.ts');
  return startCronTicker({ home: o.home, deliver: o.deliver, env: o.env, store: o.store, log: (l) => o.log(l.startsWith('cron:') ? l : `cron: ${l}`) });
}
