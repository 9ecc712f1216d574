// Ollama: `GET /api/version` (is it Ollama?), `POST /api/show` (the model's trained context in model_info, its Modelfile parameters,
// template and capabilities: tools, thinking, vision) and `GET /api/ps` (the models loaded now, with
// the context each was loaded with: the window requests are really served with).
import { isObj, posInt, type Json, type ProbeCtx, type ServedModel, type ServerProbe } from './types.ts';

/** Ollama names a model `name:tag`; a bare name means `:latest`. */
export const ollamaName = (m: string) => (m.includes(':') ? m : `${m}:latest`);

/** The loaded entry of `/api/ps` for `model`, or undefined. */
export function psEntry(ps: unknown, model: string): Json | undefined {
  const list = isObj(ps) && Array.isArray(ps.models) ? ps.models.filter(isObj) : [];
  const want = ollamaName(model);
  return list.find((m) => m.name === want || m.model === want || m.name === model || m.model === model);
}

export const ollama: ServerProbe = {
  kind: 'ollama',
  async probe(ctx: ProbeCtx): Promise<ServedModel | null> {
    // A GET first: nothing is POSTed to a server that is not Ollama.
    const version = await ctx.json('/api/version');
    if (!isObj(version) || typeof version.version !== 'string') return null;
    const show = await ctx.json('/api/show', { model: ctx.model });
    if (!isObj(show) || (!isObj(show.model_info) && !Array.isArray(show.capabilities) && typeof show.template !== 'string')) return null;
    const info = isObj(show.model_info) ? show.model_info : {};
    const maxWindow = posInt(Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1]);
    const params = typeof show.parameters === 'string' ? show.parameters : '';
    const modelfileCtx = posInt(Number(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(params)?.[1]));
    const caps = Array.isArray(show.capabilities) ? show.capabilities.map(String) : [];
    const template = typeof show.template === 'string' ? show.template : '';
    const loaded = psEntry(await ctx.json('/api/ps'), ctx.model);
    const window = posInt(loaded?.context_length) ?? modelfileCtx;
    return {
      kind: 'ollama',
      baseUrl: ctx.baseUrl,
      model: ctx.model,
      ...(window ? { window } : {}),
      ...(maxWindow ? { maxWindow } : {}),
      capabilities: {
        tools: caps.length ? caps.includes('tools') : /\.Tools\b/.test(template) || undefined,
        thinking: caps.includes('thinking') || /<think>|\.Thinking\b/.test(template) || undefined,
        vision: caps.includes('vision') || undefined,
      },
      loaded: !!loaded,
      fingerprint: [show.modified_at, loaded?.digest, loaded?.context_length].map((x) => String(x ?? '')).join('|'),
      probedAt: Date.now(),
    };
  },
};

/**
 * Loads the model the way the OpenAI-compatible route will use it (`POST /api/generate` with no
 * prompt), so `/api/ps` can say the context it was loaded with. A chat request would load it anyway.
 */
export async function ollamaLoad(ctx: ProbeCtx, timeoutMs: number): Promise<number | undefined> {
  await ctx.json('/api/generate', { model: ctx.model }, timeoutMs);
  return posInt(psEntry(await ctx.json('/api/ps'), ctx.model)?.context_length);
}
