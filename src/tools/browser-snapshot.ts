// browser_snapshot: the current page's accessibility tree with element refs; compact by default,
// everything with `full: true`. Long snapshots are cut and the full text saved for read_file.
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) =>
  z.object({
    full: z.boolean().optional().default(false).describe('If true, returns complete page content. If false (default), returns compact view with interactive elements and text.'),
  });

export default defineTool({
  name: 'browser_snapshot',
  toolset: 'browser',
  emoji: '📸',
  description:
    "Get a text snapshot of the current page's accessibility tree. Elements carry ref IDs ([ref=e5]) that browser_click and browser_type take as @e5. full=false (default): compact view. full=true: complete page content. Snapshots over the size limit are truncated; the complete snapshot is saved to a file whose path is in the output, to page through with read_file. Requires browser_navigate first; browser_navigate already returns a compact snapshot — use this after interactions that change the page.",
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(a, ctx) {
    const c = await import('./browser/common.ts');
    const open = await c.openPage(ctx.services);
    if (c.isOutcome(open)) return open;
    try {
      return c.done({ url: open.page.url(), ...(await c.snapshotOf(ctx.services, open.b, open.page, a.full)) });
    } catch (e) {
      return c.failed(`Failed to get a snapshot: ${(e as Error).message.split('\n')[0]}`);
    }
  },
});
