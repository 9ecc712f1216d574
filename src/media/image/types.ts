// An image generation provider: one file each (fal.ts, openai.ts), registered in registry.ts; a
// plugin adds its own with registerImageProvider().

export type ImageGenConfig = Record<string, unknown> & { provider?: string; model?: string };

export type AspectRatio = 'landscape' | 'square' | 'portrait';

export interface ImageRequest {
  prompt: string;
  aspect: AspectRatio;
  /** Source images for an edit (URLs or data: URIs), first the image to edit, then references. */
  sources: string[];
  config: ImageGenConfig;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** One generated image: a URL to download, or the bytes themselves. */
export interface GeneratedImage {
  url?: string;
  data?: Buffer;
  mime?: string;
  width?: number;
  height?: number;
}

export interface ImageResult {
  images: GeneratedImage[];
  model: string;
}

export interface ImageProvider {
  name: string;
  /** Why it cannot run here (missing key…), or null. */
  unavailable(env: NodeJS.ProcessEnv, config: ImageGenConfig): string | null;
  /** Whether the configured model can edit images (image_url). */
  canEdit(config: ImageGenConfig): boolean;
  generate(req: ImageRequest): Promise<ImageResult>;
}

export { configSection as imageSection } from '../providers.ts';
