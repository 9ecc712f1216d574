// OpenAI images (POST /v1/images/generations, /v1/images/edits): `image_gen.openai.model`
// (gpt-image-1), key OPENAI_API_KEY (or image_gen.openai.api_key), `image_gen.openai.base_url`.
import { httpError, str } from '../http.ts';
import { imageSection, type AspectRatio, type ImageProvider } from './types.ts';

const SIZES: Record<string, Record<AspectRatio, string>> = {
  'dall-e-3': { landscape: '1792x1024', square: '1024x1024', portrait: '1024x1792' },
  default: { landscape: '1536x1024', square: '1024x1024', portrait: '1024x1536' },
};

const key = (env: NodeJS.ProcessEnv, cfg: Record<string, unknown>) => str(cfg.api_key) || env.OPENAI_API_KEY || '';

function dataUriToBlob(uri: string): Blob {
  const m = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(uri);
  if (!m) throw new Error('OpenAI image edits take local files or data: URIs.');
  const bytes = m[2] ? Buffer.from(m[3], 'base64') : Buffer.from(decodeURIComponent(m[3]));
  return new Blob([bytes], { type: m[1] });
}

export const openaiImages: ImageProvider = {
  name: 'openai',
  unavailable: (env, cfg) => (key(env, imageSection(cfg, 'openai')) ? null : 'needs OPENAI_API_KEY'),
  canEdit: () => true,
  async generate(req) {
    const o = imageSection(req.config, 'openai');
    const k = key(req.env, o);
    if (!k) throw new Error('OPENAI_API_KEY is not set.');
    const model = str(o.model) || (str(req.config.model).startsWith('gpt-image') || str(req.config.model).startsWith('dall-e') ? str(req.config.model) : 'gpt-image-1');
    const base = str(o.base_url, 'https://api.openai.com/v1').replace(/\/+$/, '');
    const size = (SIZES[model] ?? SIZES.default)[req.aspect];
    let r: Response;
    if (req.sources.length) {
      const form = new FormData();
      form.append('model', model);
      form.append('prompt', req.prompt);
      form.append('size', size);
      req.sources.forEach((src, i) => form.append('image[]', dataUriToBlob(src), `image${i}.png`));
      r = await fetch(`${base}/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${k}` }, body: form, signal: req.signal });
    } else {
      const body: Record<string, unknown> = { model, prompt: req.prompt, size, n: 1 };
      if (model === 'dall-e-3' || model === 'dall-e-2') body.response_format = 'b64_json';
      r = await fetch(`${base}/images/generations`, { method: 'POST', headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: req.signal });
    }
    if (!r.ok) throw await httpError(r, 'OpenAI images');
    const j = (await r.json()) as { data?: { b64_json?: string; url?: string }[] };
    const images = (j.data ?? []).map((d) => (d.b64_json ? { data: Buffer.from(d.b64_json, 'base64') } : { url: d.url })).filter((x) => x.data || x.url);
    if (!images.length) throw new Error('OpenAI returned no images.');
    return { images, model };
  },
};
