// LM Studio: `GET /api/v0/models` lists every model with its type (llm, vlm, embeddings), state
// (loaded / not-loaded), max_context_length, loaded_context_length when loaded, and capabilities
// (`tool_use`).
import { isObj, listEntry, posInt, type ProbeCtx, type ServedModel, type ServerProbe } from './types.ts';

export const lmstudio: ServerProbe = {
  kind: 'lmstudio',
  async probe(ctx: ProbeCtx): Promise<ServedModel | null> {
    const list = await ctx.json('/api/v0/models');
    // LM Studio's own shape (an OpenAI-style list at this path is some other server's catch-all).
    if (!isObj(list) || !Array.isArray(list.data) || !list.data.some((m) => isObj(m) && ('max_context_length' in m || 'state' in m))) return null;
    const entry = listEntry(list, ctx.model);
    if (!entry) return { kind: 'lmstudio', baseUrl: ctx.baseUrl, model: ctx.model, capabilities: {}, probedAt: Date.now() };
    const loaded = entry.state === 'loaded';
    const window = loaded ? posInt(entry.loaded_context_length) : undefined;
    const maxWindow = posInt(entry.max_context_length);
    const caps = Array.isArray(entry.capabilities) ? entry.capabilities.map(String) : [];
    return {
      kind: 'lmstudio',
      baseUrl: ctx.baseUrl,
      model: ctx.model,
      ...(window ? { window } : {}),
      ...(maxWindow ? { maxWindow } : {}),
      capabilities: { tools: caps.length ? caps.includes('tool_use') : undefined, vision: entry.type === 'vlm' || undefined },
      loaded,
      fingerprint: [entry.arch, entry.quantization, entry.state, window].map((x) => String(x ?? '')).join('|'),
      probedAt: Date.now(),
    };
  },
};
