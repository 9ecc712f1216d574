// vLLM: `GET /v1/models` lists each served model with `max_model_len` (the window it serves, set by
// --max-model-len) and `owned_by: "vllm"`.
import { listEntry, posInt, type ProbeCtx, type ServedModel, type ServerProbe } from './types.ts';

export const vllm: ServerProbe = {
  kind: 'vllm',
  async probe(ctx: ProbeCtx): Promise<ServedModel | null> {
    const entry = listEntry(await ctx.json('/v1/models'), ctx.model);
    const len = posInt(entry?.max_model_len);
    if (!entry || (entry.owned_by !== 'vllm' && !len)) return null;
    return {
      kind: 'vllm',
      baseUrl: ctx.baseUrl,
      model: ctx.model,
      ...(len ? { window: len, maxWindow: len } : {}),
      // Tool calls depend on --enable-auto-tool-choice/--tool-call-parser, which the API does not say.
      capabilities: {},
      loaded: true,
      fingerprint: [entry.root, len, entry.created].map((x) => String(x ?? '')).join('|'),
      probedAt: Date.now(),
    };
  },
};
