// llama.cpp's llama-server: `GET /props` (context per slot in default_generation_settings.n_ctx,
// the chat template and what it supports, the model file) and `GET /slots` (each slot's n_ctx; may
// be disabled); `/v1/models` adds the trained context (meta.n_ctx_train).
import { isObj, listEntry, posInt, type ProbeCtx, type ServedModel, type ServerProbe } from './types.ts';

export const llamacpp: ServerProbe = {
  kind: 'llamacpp',
  async probe(ctx: ProbeCtx): Promise<ServedModel | null> {
    const props = await ctx.json('/props');
    if (!isObj(props) || !isObj(props.default_generation_settings)) return null;
    const gen = props.default_generation_settings;
    const slots = await ctx.json('/slots');
    const slotCtx = Array.isArray(slots) && isObj(slots[0]) ? posInt(slots[0].n_ctx) : undefined;
    const totalSlots = posInt(props.total_slots) ?? 1;
    // Older servers report the whole context in /props; it is shared by the slots.
    const window = slotCtx ?? posInt(gen.n_ctx) ?? (posInt(props.n_ctx) ? Math.floor(posInt(props.n_ctx)! / totalSlots) : undefined);
    const models = await ctx.json('/v1/models');
    const entry = listEntry(models, ctx.model) ?? listEntry(models, '');
    const maxWindow = isObj(entry?.meta) ? posInt(entry.meta.n_ctx_train) : undefined;
    const template = typeof props.chat_template === 'string' ? props.chat_template : '';
    const caps = isObj(props.chat_template_caps) ? props.chat_template_caps : {};
    const tools = typeof caps.supports_tool_calls === 'boolean' ? caps.supports_tool_calls : typeof caps.supports_tools === 'boolean' ? caps.supports_tools : /\btools\b/.test(template) || undefined;
    const modalities = isObj(props.modalities) ? props.modalities : {};
    return {
      kind: 'llamacpp',
      baseUrl: ctx.baseUrl,
      model: ctx.model,
      ...(window ? { window } : {}),
      ...(maxWindow ? { maxWindow } : {}),
      capabilities: {
        tools,
        thinking: /<think>|enable_thinking|reasoning_content/.test(template) || undefined,
        vision: modalities.vision === true || undefined,
      },
      loaded: true,
      fingerprint: [props.model_path, props.build_info, window].map((x) => String(x ?? '')).join('|'),
      probedAt: Date.now(),
    };
  },
};
