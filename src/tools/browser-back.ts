// browser_back: go back in the page's history (the page it lands on is checked again).
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) => z.object({});

export default defineTool({
  name: 'browser_back',
  toolset: 'browser',
  emoji: '◀️',
  description: 'Navigate back to the previous page in browser history. Requires browser_navigate to be called first.',
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(_a, ctx) {
    const c = await import('./browser/common.ts');
    const open = await c.openPage(ctx.services);
    if (c.isOutcome(open)) return open;
    let resp;
    try {
      resp = await open.page.goBack({ waitUntil: 'domcontentloaded' });
    } catch (e) {
      return c.failed(`Failed to go back: ${(e as Error).message.split('\n')[0]}`);
    }
    if (!resp && open.page.url() === 'about:blank') return c.failed('There is no previous page in this tab.');
    const url = open.page.url();
    const block = c.proxyRefusal(resp) ?? (await open.b.guard.check(url))?.message;
    if (block) {
      await c.leave(open.page);
      return c.failed(`Blocked: history navigation landed on an address that is not allowed (${url}). ${block}`);
    }
    return c.done({ url });
  },
});
