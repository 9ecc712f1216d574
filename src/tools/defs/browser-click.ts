// browser_click: click an element by its ref from the latest snapshot.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    ref: z.string().min(1).describe("The element reference from the snapshot (e.g., '@e5', '@e12')"),
  });

export default pageTool({
  name: 'browser_click',
  emoji: '👆',
  description:
    "Click on an element identified by its ref ID from the snapshot (e.g., '@e5'). The ref IDs are shown as [ref=e5] in the snapshot output. Requires browser_navigate and browser_snapshot to be called first.",
  schema,
  async run(a, ctx, { c, b, page }) {
    const ref = a.ref.startsWith('@') ? a.ref : `@${a.ref}`;
    const el = await c.byRef(page, a.ref);
    if (typeof el === 'string') return c.failed(el);
    const since = Date.now();
    try {
      await el.click();
    } catch (e) {
      return c.actionError('click', ref, e);
    }
    await c.settle(b.existingPage() ?? page);
    return c.done({ clicked: ref, ...c.extras(b, since) });
  },
});
