// vision_analyze: look at an image (a local path or a URL) with the auxiliary vision model. The
// implementation (impl/vision.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';

const schema = (z: Zod) =>
  z.object({
  image_url: z.string().min(1).describe('Image URL (http/https), a local file path (images the user sent in chat are saved locally; use the path from the message) or a data: URL'),
  question: z.string().min(1).describe('What to find out about the image'),
});

export type VisionArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'vision_analyze',
  toolset: 'vision',
  emoji: '👁️',
  parallelSafe: true,
  description: 'Look at an image and answer a question about it (describe it, read text in it, find details). `image_url` is an http(s) URL, a local file path (chat attachments included) or a data: URL; large images are resized before they are sent.',
  schema,
  check: (s) => !!s.auxiliary,
  requirement: 'needs an auxiliary model (auxiliary.vision in config.yaml, or the main model)',
  async handler(a, ctx) {
    const { runVision } = await import('./impl/vision.ts');
    return runVision(a, ctx);
  },
});
