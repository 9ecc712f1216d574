// browser_press: press a key (Enter, Tab, Escape, ArrowDown, Control+A, …) on the page.
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) =>
  z.object({
    key: z.string().min(1).describe("Key to press (e.g., 'Enter', 'Tab', 'Escape', 'ArrowDown')"),
  });

export default defineTool({
  name: 'browser_press',
  toolset: 'browser',
  emoji: '⌨️',
  description:
    'Press a keyboard key. Useful for submitting forms (Enter), navigating (Tab), or keyboard shortcuts. Requires browser_navigate to be called first.',
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(a, ctx) {
    const c = await import('./browser/common.ts');
    const open = await c.openPage(ctx.services);
    if (c.isOutcome(open)) return open;
    const since = Date.now();
    try {
      await open.page.keyboard.press(a.key.trim());
    } catch (e) {
      return c.failed(`Failed to press ${a.key}: ${(e as Error).message.split('\n')[0]}`);
    }
    await c.settle(open.b.existingPage() ?? open.page);
    return c.done({ pressed: a.key, ...c.extras(open.b, since) });
  },
});
