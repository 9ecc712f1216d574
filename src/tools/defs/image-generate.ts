// image_generate: make an image from a prompt (or edit one) with the configured provider — FAL by
// default (Hermes's default model), OpenAI images, or a plugin's — saved under HERMES_HOME and
// returned as a path the platforms deliver as a photo (MEDIA:<path>). Providers: src/media/image/.
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';
import { imageUnavailable } from '../../media/image/registry.ts';

const schema = (z: Zod) =>
  z.object({
    prompt: z.string().min(1).describe('The text prompt describing the desired image (text-to-image) or the edit to apply (image-to-image). Be detailed and descriptive.'),
    aspect_ratio: z.enum(['landscape', 'square', 'portrait']).optional().default('landscape').describe("The aspect ratio of the generated image. 'landscape' is 16:9 wide, 'portrait' is 16:9 tall, 'square' is 1:1."),
    image_url: z.string().optional().describe('Optional source image to edit (image-to-image): a public URL or a local file path from the conversation. Only models that can edit honour it.'),
    reference_image_urls: z.array(z.string()).optional().describe('Optional additional reference images (URLs or local paths) to guide an edit; capped per model.'),
  });

export default defineTool({
  name: 'image_generate',
  toolset: 'image_gen',
  emoji: '🎨',
  description:
    'Generate images from text prompts (text-to-image), or edit an existing image (image-to-image) when the configured model can: pass `image_url` to edit it, `reference_image_urls` for references. The backend (FAL, OpenAI, …) and model are user-configured, not chosen by you. The result\'s `image` is the saved file; to show it to the user put its `media_tag` (MEDIA:<path>) on its own line in your reply.',
  schema,
  check: (s) => imageUnavailable(s.env, s.config) === null,
  requirement: (s) => {
    const why = imageUnavailable(s.env, s.config);
    return why ? `${why}; set it in ~/.hermes/.env, or pick another image_gen.provider (fal, openai)` : null;
  },
  async handler(a, ctx) {
    const [{ generateImage }, { safeFetch }] = await Promise.all([import('../../media/image/index.ts'), import('../web/fetch.ts')]);
    try {
      const r = await generateImage({ prompt: a.prompt, aspectRatio: a.aspect_ratio, imageUrl: a.image_url, referenceImageUrls: a.reference_image_urls, home: ctx.home, cwd: ctx.cwd, env: ctx.env, config: ctx.config, signal: ctx.signal, fetchUrl: safeFetch });
      return JSON.stringify(r);
    } catch (e) {
      const err = e as Error;
      return { content: JSON.stringify({ success: false, image: null, error: err.message, error_type: err.name || 'Error' }), isError: true };
    }
  },
});
