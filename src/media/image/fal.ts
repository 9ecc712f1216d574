// FAL (https://fal.ai) through its queue API, as fal_client does: POST queue.fal.run/<model> with
// `Authorization: Key $FAL_KEY`, poll the request's status URL until COMPLETED, then read the
// response URL ({images: [{url, width, height}]}). The default model is Hermes's (FLUX 2 Klein 9B);
// `image_gen.model` picks another from the catalogue below. `image_gen.fal.base_url` or
// FAL_QUEUE_URL points it elsewhere.
import { httpError, str } from '../http.ts';
import type { AspectRatio, ImageProvider, ImageRequest } from './types.ts';

interface FalModel {
  sizeStyle: 'preset' | 'aspect' | 'literal';
  sizes: Record<AspectRatio, string>;
  defaults: Record<string, unknown>;
  supports: string[];
  edit?: { endpoint: string; supports: string[]; maxRefs: number };
}

const PRESET_169 = { landscape: 'landscape_16_9', square: 'square_hd', portrait: 'portrait_16_9' };

export const FAL_MODELS: Record<string, FalModel> = {
  'fal-ai/flux-2/klein/9b': {
    sizeStyle: 'preset',
    sizes: PRESET_169,
    defaults: { num_inference_steps: 4, output_format: 'png', enable_safety_checker: false },
    supports: ['prompt', 'image_size', 'num_inference_steps', 'seed', 'output_format', 'enable_safety_checker'],
    edit: { endpoint: 'fal-ai/flux-2/klein/9b/edit', supports: ['prompt', 'image_urls', 'num_inference_steps', 'seed', 'output_format', 'enable_safety_checker'], maxRefs: 9 },
  },
  'fal-ai/flux-2-pro': {
    sizeStyle: 'preset',
    sizes: PRESET_169,
    defaults: { num_inference_steps: 50, guidance_scale: 4.5, num_images: 1, output_format: 'png', enable_safety_checker: false, safety_tolerance: '5', sync_mode: true },
    supports: ['prompt', 'image_size', 'num_inference_steps', 'guidance_scale', 'num_images', 'output_format', 'enable_safety_checker', 'safety_tolerance', 'sync_mode', 'seed'],
    edit: { endpoint: 'fal-ai/flux-2-pro/edit', supports: ['prompt', 'image_urls', 'num_inference_steps', 'guidance_scale', 'num_images', 'output_format', 'enable_safety_checker', 'safety_tolerance', 'sync_mode', 'seed'], maxRefs: 9 },
  },
  'fal-ai/z-image/turbo': {
    sizeStyle: 'preset',
    sizes: PRESET_169,
    defaults: { num_inference_steps: 8, num_images: 1, output_format: 'png', enable_safety_checker: false, enable_prompt_expansion: false },
    supports: ['prompt', 'image_size', 'num_inference_steps', 'num_images', 'seed', 'output_format', 'enable_safety_checker', 'enable_prompt_expansion'],
  },
  'fal-ai/nano-banana-pro': {
    sizeStyle: 'aspect',
    sizes: { landscape: '16:9', square: '1:1', portrait: '9:16' },
    defaults: { num_images: 1, output_format: 'png', safety_tolerance: '5', resolution: '1K' },
    supports: ['prompt', 'aspect_ratio', 'num_images', 'output_format', 'safety_tolerance', 'seed', 'sync_mode', 'resolution'],
    edit: { endpoint: 'fal-ai/nano-banana-pro/edit', supports: ['prompt', 'image_urls', 'aspect_ratio', 'num_images', 'output_format', 'safety_tolerance', 'seed', 'sync_mode', 'resolution'], maxRefs: 2 },
  },
  'fal-ai/gpt-image-1.5': {
    sizeStyle: 'literal',
    sizes: { landscape: '1536x1024', square: '1024x1024', portrait: '1024x1536' },
    defaults: { quality: 'medium', num_images: 1, output_format: 'png' },
    supports: ['prompt', 'image_size', 'quality', 'num_images', 'output_format', 'background', 'sync_mode'],
    edit: { endpoint: 'fal-ai/gpt-image-1.5/edit', supports: ['prompt', 'image_urls', 'image_size', 'quality', 'num_images', 'output_format', 'sync_mode'], maxRefs: 16 },
  },
  'fal-ai/ideogram/v3': {
    sizeStyle: 'preset',
    sizes: PRESET_169,
    defaults: { rendering_speed: 'BALANCED', expand_prompt: true, style: 'AUTO' },
    supports: ['prompt', 'image_size', 'rendering_speed', 'expand_prompt', 'style', 'seed'],
    edit: { endpoint: 'fal-ai/ideogram/v3/edit', supports: ['prompt', 'image_urls', 'rendering_speed', 'expand_prompt', 'style', 'seed'], maxRefs: 1 },
  },
  'fal-ai/qwen-image': {
    sizeStyle: 'preset',
    sizes: PRESET_169,
    defaults: { num_inference_steps: 30, guidance_scale: 2.5, num_images: 1, output_format: 'png', acceleration: 'regular' },
    supports: ['prompt', 'image_size', 'num_inference_steps', 'guidance_scale', 'num_images', 'output_format', 'acceleration', 'seed', 'sync_mode'],
  },
};

export const DEFAULT_FAL_MODEL = 'fal-ai/flux-2/klein/9b';

export function falModel(cfg: Record<string, unknown>, env: NodeJS.ProcessEnv): string {
  const m = str(cfg.model) || str(env.FAL_IMAGE_MODEL);
  return m && FAL_MODELS[m] ? m : DEFAULT_FAL_MODEL;
}

/** The model's own payload: its defaults, the size in its style, filtered to what it accepts. */
export function falPayload(model: string, prompt: string, aspect: AspectRatio, sources: string[]): { endpoint: string; payload: Record<string, unknown> } {
  const m = FAL_MODELS[model];
  const edit = sources.length > 0 && m.edit;
  const supports = new Set(edit ? m.edit!.supports : m.supports);
  const p: Record<string, unknown> = { ...m.defaults, prompt: prompt.trim() };
  if (m.sizeStyle === 'aspect') p.aspect_ratio = m.sizes[aspect];
  else p.image_size = m.sizes[aspect];
  if (edit) p.image_urls = sources.slice(0, m.edit!.maxRefs);
  const payload = Object.fromEntries(Object.entries(p).filter(([k]) => supports.has(k) || k === 'prompt' || (edit && k === 'image_urls')));
  return { endpoint: edit ? m.edit!.endpoint : model, payload };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(new Error('interrupted'))), { once: true });
  });

export const falImages: ImageProvider = {
  name: 'fal',
  unavailable: (env) => (env.FAL_KEY ? null : 'needs FAL_KEY (get one at https://fal.ai)'),
  canEdit: (cfg) => !!FAL_MODELS[str(cfg.model) || DEFAULT_FAL_MODEL]?.edit,
  async generate(req: ImageRequest) {
    const key = req.env.FAL_KEY;
    if (!key) throw new Error('FAL_KEY is not set. Get a key at https://fal.ai and put FAL_KEY=… in ~/.hermes/.env.');
    const model = falModel(req.config, req.env);
    if (req.sources.length && !FAL_MODELS[model].edit)
      throw new Error(`The model ${model} cannot edit images. Leave out image_url, or pick an edit-capable model (image_gen.model).`);
    const base = (str((req.config.fal as Record<string, unknown> | undefined)?.base_url) || req.env.FAL_QUEUE_URL || 'https://queue.fal.run').replace(/\/+$/, '');
    const { endpoint, payload } = falPayload(model, req.prompt, req.aspect, req.sources);
    const headers = { authorization: `Key ${key}`, 'content-type': 'application/json', accept: 'application/json' };
    const signal = req.signal;
    const sub = await fetch(`${base}/${endpoint}`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': crypto.randomUUID() }, body: JSON.stringify(payload), signal });
    if (!sub.ok) throw await httpError(sub, 'FAL');
    const queued = (await sub.json()) as { request_id?: string; status_url?: string; response_url?: string };
    if (!queued.request_id) throw new Error('FAL answered without a request id.');
    const statusUrl = queued.status_url ?? `${base}/${endpoint}/requests/${queued.request_id}/status`;
    const responseUrl = queued.response_url ?? `${base}/${endpoint}/requests/${queued.request_id}`;
    const deadline = performance.now() + 300_000;
    for (let wait = 250; ; wait = Math.min(wait * 2, 2000)) {
      const st = await fetch(statusUrl, { headers, signal });
      if (!st.ok) throw await httpError(st, 'FAL status');
      const s = (await st.json()) as { status?: string; error?: string };
      if (s.status === 'COMPLETED') break;
      if (s.status && !['IN_QUEUE', 'IN_PROGRESS'].includes(s.status)) throw new Error(`FAL request ${s.status.toLowerCase()}${s.error ? `: ${s.error}` : ''}`);
      if (performance.now() > deadline) throw new Error('FAL did not finish the image within 5 minutes.');
      await sleep(wait, signal);
    }
    const res = await fetch(responseUrl, { headers, signal });
    if (!res.ok) throw await httpError(res, 'FAL result');
    const out = (await res.json()) as { images?: { url?: string; width?: number; height?: number; content_type?: string }[] };
    const images = (out.images ?? []).filter((i) => i?.url).map((i) => ({ url: i.url, width: i.width, height: i.height, mime: i.content_type }));
    if (!images.length) throw new Error('FAL returned no images.');
    return { images, model };
  },
};
