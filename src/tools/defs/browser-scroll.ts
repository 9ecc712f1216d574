// browser_scroll: scroll the page up or down about half a screen.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    direction: z.enum(['up', 'down']).describe('Direction to scroll'),
  });

export default pageTool({
  name: 'browser_scroll',
  emoji: '📜',
  description:
    'Scroll the page in a direction. Use this to reveal more content that may be below or above the current viewport. Requires browser_navigate to be called first.',
  schema,
  async run(a, ctx, { c, b, page }) {
    const dy = a.direction === 'down' ? 500 : -500;
    try {
      const vp = page.viewportSize();
      if (vp) await page.mouse.move(vp.width / 2, vp.height / 2);
      await page.mouse.wheel(0, dy);
      await page.waitForTimeout(150);
    } catch (e) {
      return c.failed(`Failed to scroll ${a.direction}: ${(e as Error).message.split('\n')[0]}`);
    }
    return c.done({ scrolled: a.direction });
  },
});
