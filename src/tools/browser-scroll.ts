// browser_scroll: scroll the page up or down about half a screen.
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) =>
  z.object({
    direction: z.enum(['up', 'down']).describe('Direction to scroll'),
  });

export default defineTool({
  name: 'browser_scroll',
  toolset: 'browser',
  emoji: '📜',
  description:
    'Scroll the page in a direction. Use this to reveal more content that may be below or above the current viewport. Requires browser_navigate to be called first.',
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(a, ctx) {
    const c = await import('./browser/common.ts');
    const open = await c.openPage(ctx.services);
    if (c.isOutcome(open)) return open;
    const dy = a.direction === 'down' ? 500 : -500;
    try {
      const vp = open.page.viewportSize();
      if (vp) await open.page.mouse.move(vp.width / 2, vp.height / 2);
      await open.page.mouse.wheel(0, dy);
      await open.page.waitForTimeout(150);
    } catch (e) {
      return c.failed(`Failed to scroll ${a.direction}: ${(e as Error).message.split('\n')[0]}`);
    }
    return c.done({ scrolled: a.direction });
  },
});
