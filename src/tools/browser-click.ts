// browser_click: click an element by its ref from the latest snapshot.
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) =>
  z.object({
    ref: z.string().min(1).describe("The element reference from the snapshot (e.g., '@e5', '@e12')"),
  });

export default defineTool({
  name: 'browser_click',
  toolset: 'browser',
  emoji: '👆',
  description:
    "Click on an element identified by its ref ID from the snapshot (e.g., '@e5'). The ref IDs are shown as [ref=e5] in the snapshot output. Requires browser_navigate and browser_snapshot to be called first.",
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(a, ctx) {
    const c = await import('./browser/common.ts');
    const open = await c.openPage(ctx.services);
    if (c.isOutcome(open)) return open;
    const ref = a.ref.startsWith('@') ? a.ref : `@${a.ref}`;
    const el = await c.byRef(open.page, a.ref);
    if (typeof el === 'string') return c.failed(el);
    const since = Date.now();
    try {
      await el.click();
    } catch (e) {
      return c.actionError('click', ref, e);
    }
    await c.settle(open.b.existingPage() ?? open.page);
    return c.done({ clicked: ref, ...c.extras(open.b, since) });
  },
});
