// A separate process running a cron ticker on a HERMES_HOME (for the race tests): prints READY,
// one DELIVERED line per delivery, and stops (draining) on SIGTERM.
import { startCronTicker } from '../../src/cron/scheduler.ts';

const home = process.argv[2];
const intervalMs = Number(process.argv[3] ?? 20);
const ticker = startCronTicker({
  home,
  intervalMs,
  deliver: async (target, _content, meta) => {
    process.stdout.write(`DELIVERED ${process.pid} ${meta.jobId} ${target}\n`);
    return { ok: true };
  },
  log: (l) => process.stderr.write(`[${process.pid}] ${l}\n`),
});
process.on('SIGTERM', () => {
  void ticker.stop().then(() => process.exit(0));
});
process.stdout.write('READY\n');
