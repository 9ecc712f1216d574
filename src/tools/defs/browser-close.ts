// browser_close: close the session's browser now (it also closes by itself when idle and when the
// session ends). The next browser_navigate starts a fresh one with the same profile.
import type { Zod } from '../zod.ts';
import { browserTool } from '../browser/define.ts';

const schema = (z: Zod) => z.object({});

export default browserTool({
  name: 'browser_close',
  emoji: '🚪',
  description: 'Close the browser when you are done with it, to free its resources. Cookies and logins stay in the session’s browser profile.',
  schema,
  async run(_a, ctx, c) {
    const closed = (await c.existingBrowserSession(ctx)?.close('browser_close')) ?? false;
    return c.done({ closed });
  },
});
