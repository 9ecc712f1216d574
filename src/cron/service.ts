// The cron port surfaces lend their sessions' tools (ToolSession.cron, src/tools/types.ts): the
// `cronjob` tool asks it instead of importing cron, and the implementation (./tool.ts, with the
// scheduler) loads on the first call.
import type { CronService } from '../tools/types.ts';
import type { CronjobArgs } from '../tools/defs/cronjob.ts';

export const cronService: CronService = {
  async cronjob(args, ctx) {
    const { cronjobTool } = await import('./tool.ts');
    return cronjobTool(args as CronjobArgs, ctx);
  },
};
