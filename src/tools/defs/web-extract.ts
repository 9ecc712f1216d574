// web_extract: read web pages as clean Markdown. The implementation (impl/web-extract.ts) loads
// on the first call.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) =>
  z.object({
  urls: z.array(z.string().min(1)).min(1).max(5),
});

export type WebExtractArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'web_extract',
  toolset: 'web',
  emoji: '📄',
  parallelSafe: true,
  description:
    'Read web pages (up to 5 URLs) as Markdown, PDFs as text.',
  schema,
  async handler(a, ctx) {
    const { runWebExtract } = await import('../impl/web-extract.ts');
    return runWebExtract(a, ctx);
  },
});
