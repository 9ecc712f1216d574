// vision_analyze: look at an image (a local path or a URL) with the auxiliary vision model. The
// implementation (impl/vision.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) =>
  z.object({
  image_url: z.string().min(1),
  question: z.string().min(1),
});

export type VisionArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'vision_analyze',
  toolset: 'vision',
  emoji: '👁️',
  parallelSafe: true,
  description:
    'Answer a question about an image: an http(s) URL, a local path (chat attachments included) or a data: URL.',
  schema,
  check: (s) => !!s.auxiliary,
  requirement: 'needs an auxiliary model (auxiliary.vision in config.yaml, or the main model)',
  async handler(a, ctx) {
    const { runVision } = await import('../impl/vision.ts');
    return runVision(a, ctx);
  },
});
