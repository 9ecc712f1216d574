// browser_get_images: the images on the current page (URL, alt text, size).
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) => z.object({});

export default pageTool({
  name: 'browser_get_images',
  emoji: '🖼️',
  description:
    'Get a list of all images on the current page with their URLs and alt text. Useful for finding images to analyze with the vision tool. Requires browser_navigate to be called first.',
  schema,
  async run(_a, ctx, { c, b, page }) {
    try {
      const images = await page.evaluate(() =>
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
