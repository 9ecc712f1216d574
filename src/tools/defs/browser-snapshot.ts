// browser_snapshot: the current page's accessibility tree with element refs; compact by default,
// everything with `full: true`. Long snapshots are cut and the full text saved for read_file.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    full: z.boolean().optional().default(false).describe('If true, returns complete page content. If false (default), returns compact view with interactive elements and text.'),
  });

export default pageTool({
  name: 'browser_snapshot',
  emoji: '📸',
  description:
    "Get a text snapshot of the current page's accessibility tree. Elements carry ref IDs ([ref=e5]) that browser_click and browser_type take as @e5. full=false (default): compact view. full=true: complete page content. Snapshots over the size limit are truncated; the complete snapshot is saved to a file whose path is in the output, to page through with read_file. Requires browser_navigate first; browser_navigate already returns a compact snapshot — use this after interactions that change the page.",
  schema,
  async run(a, ctx, { c, b, page }) {
    try {
      return c.done({ url: page.url(), ...(await c.snapshotOf(ctx, b, page, a.full)) });
    } catch (e) {
      return c.failed(`Failed to get a snapshot: ${(e as Error).message.split('\n')[0]}`);
    }
  },
});
