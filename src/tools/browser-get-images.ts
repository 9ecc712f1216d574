// browser_get_images: the images on the current page (URL, alt text, size).
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { browserAvailable, browserUnavailable } from './browser/config.ts';

const schema = (z: Zod) => z.object({});

export default defineTool({
  name: 'browser_get_images',
  toolset: 'browser',
  emoji: '🖼️',
  description:
    'Get a list of all images on the current page with their URLs and alt text. Useful for finding images to analyze with the vision tool. Requires browser_navigate to be called first.',
  schema,
  check: browserAvailable,
  unavailable: browserUnavailable,
  async handler(_a, ctx) {
    const c = await import('./browser/common.ts');
    const open = await c.openPage(ctx.services);
    if (c.isOutcome(open)) return open;
    try {
      const images = await open.page.evaluate(() =>
        [...document.images]
          .map((img) => ({ src: img.currentSrc || img.src, alt: img.alt || '', width: img.naturalWidth, height: img.naturalHeight }))
          .filter((img) => img.src && !img.src.startsWith('data:')),
      );
      return c.done({ images, count: images.length });
    } catch (e) {
      return c.failed(`Failed to get images: ${(e as Error).message.split('\n')[0]}`);
    }
  },
});
