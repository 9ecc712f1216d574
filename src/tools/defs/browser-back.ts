// browser_back: go back in the page's history (the page it lands on is checked again).
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) => z.object({});

export default pageTool({
  name: 'browser_back',
  emoji: '◀️',
  description: 'Navigate back to the previous page in browser history. Requires browser_navigate to be called first.',
  schema,
  async run(_a, ctx, { c, b, page }) {
    let resp;
    try {
      resp = await page.goBack({ waitUntil: 'domcontentloaded' });
    } catch (e) {
      return c.failed(`Failed to go back: ${(e as Error).message.split('\n')[0]}`);
    }
    if (!resp && page.url() === 'about:blank') return c.failed('There is no previous page in this tab.');
    const url = page.url();
    const block = c.proxyRefusal(resp) ?? (await b.guard.check(url))?.message;
    if (block) {
      await c.leave(page);
      return c.failed(`Blocked: history navigation landed on an address that is not allowed (${url}). ${block}`);
    }
    return c.done({ url });
  },
});
