// Any other OpenAI-compatible server: `GET /v1/models` (under the configured base URL), reading the
// context length fields servers commonly add (context_length, context_window, max_context_length,
// max_model_len).
import { isObj, posInt, type ProbeCtx, type ServedModel, type ServerProbe } from './types.ts';

export const generic: ServerProbe = {
  kind: 'generic',
  async probe(ctx: ProbeCtx): Promise<ServedModel | null> {
    const list = await ctx.json(`${ctx.baseUrl.slice(ctx.root.length)}/models`);
    const data = isObj(list) && Array.isArray(list.data) ? list.data.filter(isObj) : null;
    if (!data) return null;
    const entry = data.find((m) => m.id === ctx.model) ?? data.find((m) => typeof m.id === 'string' && m.id.endsWith(`/${ctx.model}`));
    const len = entry ? [entry.context_length, entry.context_window, entry.max_context_length, entry.max_model_len].map(posInt).find(Boolean) : undefined;
    return {
      kind: 'generic',
      baseUrl: ctx.baseUrl,
      model: ctx.model,
      ...(len ? { window: len, maxWindow: len } : {}),
      capabilities: {},
      loaded: entry ? true : undefined,
      fingerprint: String(len ?? ''),
      probedAt: Date.now(),
    };
  },
};
