// Cron tickers running in this process, by HERMES_HOME (the cronjob tool runs jobs through them;
// `hermes cron list` asks whether one runs). Apart from scheduler.ts, which loads the agent runtime.
import type { CronTicker } from './scheduler.ts';

const active = new Map<string, CronTicker>();

export function activeTicker(home: string): CronTicker | undefined {
  return active.get(home);
}

export function tickerStarted(home: string, ticker: CronTicker): void {
  active.set(home, ticker);
}

/** Forgets `ticker` (a newer ticker of the same home stays). */
export function tickerStopped(home: string, ticker: CronTicker): void {
  if (active.get(home) === ticker) active.delete(home);
}
