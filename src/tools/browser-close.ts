// browser_close: close the session's browser now (it also closes by itself when idle and when the
// session ends). The next browser_navigate starts a fresh one with the same profile.
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) => z.object({});

export default defineTool({
  name: 'browser_close',
  toolset: 'browser',
  emoji: '🚪',
  description: 'Close the browser when you are done with it, to free its resources. Cookies and logins stay in the session’s browser profile.',
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(_a, ctx) {
    const { existingBrowserSession } = await import('./browser/manager.ts');
    const closed = (await existingBrowserSession(ctx.services)?.close('browser_close')) ?? false;
    return JSON.stringify({ success: true, closed });
  },
});
