// browser_press: press a key (Enter, Tab, Escape, ArrowDown, Control+A, …) on the page.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    key: z.string().min(1).describe("Key to press (e.g., 'Enter', 'Tab', 'Escape', 'ArrowDown')"),
  });

export default pageTool({
  name: 'browser_press',
  emoji: '⌨️',
  description:
    'Press a keyboard key. Useful for submitting forms (Enter), navigating (Tab), or keyboard shortcuts. Requires browser_navigate to be called first.',
  schema,
  async run(a, ctx, { c, b, page }) {
    const since = Date.now();
    try {
      await page.keyboard.press(a.key.trim());
    } catch (e) {
      return c.failed(`Failed to press ${a.key}: ${(e as Error).message.split('\n')[0]}`);
    }
    await c.settle(b.existingPage() ?? page);
    return c.done({ pressed: a.key, ...c.extras(b, since) });
  },
});
