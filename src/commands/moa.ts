// /moa <prompt>: one prompt through the default Mixture of Agents preset, then your model again, as
// Hermes's shortcut does. A preset lives in config.yaml under `moa.presets.<name>` (Hermes's keys):
// `reference_models` ([{provider, model, base_url?, api_key?, enabled?}]), `aggregator` ({provider,
// model, …}), `reference_timeout` (seconds, default 90); `moa.default_preset` names the default
// ("default"). The reference models answer first, in parallel and without tools; the aggregator then
// runs the normal turn (tools included) with their analyses attached, and the session's model comes
// back when the turn ends. The references travel inside the user message of that turn.
import { messageText } from '../agent/repair.ts';
import { createLlmClient, resolveAuxiliaryRuntime } from '../llm/index.ts';
import { resolveInputFrom, type ExplicitChoices } from '../runtime/session.ts';
import { collectText } from '../runtime/session-state.ts';
import type { CommandDef } from './registry.ts';

interface Slot {
  provider?: string;
  model?: string;
  base_url?: string;
  api_key?: string;
  enabled?: boolean;
}

interface Preset {
  reference_models?: Slot[];
  aggregator?: Slot;
  reference_timeout?: number;
}

function presetOf(config: unknown): { name: string; preset: Preset } | null {
  const moa = ((config as { moa?: unknown })?.moa ?? {}) as { default_preset?: unknown; presets?: Record<string, unknown> };
  const name = typeof moa.default_preset === 'string' && moa.default_preset ? moa.default_preset : 'default';
  const p = moa.presets?.[name];
  return p && typeof p === 'object' ? { name, preset: p as Preset } : null;
}

export function moaCommand(): CommandDef {
  return {
    name: 'moa',
    args: '<prompt>',
    description: 'run one prompt through the default Mixture of Agents preset, then your model again',
    category: 'session',
    surfaces: ['cli', 'gateway', 'acp'],
    async run(ctx, args) {
      const prompt = args.trim();
      const s = ctx.session;
      const o = s.options;
      const found = presetOf(o.config);
      if (!prompt) return { output: 'Usage: /moa <prompt> — runs it through the default MoA preset (moa.presets in config.yaml), then restores your model.' };
      if (!found) return { output: 'No Mixture of Agents preset: add moa.presets.default (reference_models, aggregator) to config.yaml, then /moa <prompt>.' };
      if (s.busy) return { output: '/moa waits for the running turn: try again when it has finished, or /stop first.' };
      const refs = (found.preset.reference_models ?? []).filter((r) => r && r.enabled !== false && r.model);
      if (!refs.length) return { output: `The MoA preset ${found.name} has no enabled reference_models.` };
      const input = resolveInputFrom(o.config, o.env, o.explicit, o.home);
      const transcript = s.history
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${messageText(m.content)}`)
        .join('\n\n')
        .slice(-40_000);
      const timeoutMs = (Number(found.preset.reference_timeout) || 90) * 1000;
      const answers = await Promise.allSettled(
        refs.map(async (ref) => {
          const rt = resolveAuxiliaryRuntime('moa', ref, s.llm.active, input);
          if (!rt) throw new Error('cannot be resolved');
          const client = createLlmClient({ primary: rt, maxRetries: 1, timeoutMs });
          const text = await collectText((req) => client.stream(req), {
            model: rt.model,
            system: 'You are one of several reference models. Analyse the request below carefully and give your best answer or plan; another model will combine the analyses and act. You have no tools.',
            messages: [{ role: 'user', content: `${transcript ? `Conversation so far:\n\n${transcript}\n\n---\n\n` : ''}Request: ${prompt}` }],
            tools: [],
            maxTokens: 4000,
            signal: AbortSignal.timeout(timeoutMs),
          });
          return { label: `${rt.provider}/${rt.model}`, text: text.trim() };
        }),
      );
      const ok = answers.flatMap((a) => (a.status === 'fulfilled' && a.value.text ? [a.value] : []));
      const failed = answers.flatMap((a, i) => (a.status === 'rejected' ? [`${refs[i].model}: ${(a.reason as Error).message}`] : []));
      if (!ok.length) return { output: `MoA: no reference model answered (${failed.join('; ')}). Nothing was sent.` };
      // The aggregator acts for this one turn; the session's own model comes back when the turn ends.
      const agg = found.preset.aggregator;
      let aggLabel = `${s.llm.active.provider}/${s.llm.active.model}`;
      if (agg?.model) {
        const before: ExplicitChoices = { provider: o.explicit?.provider, model: o.explicit?.model, baseUrl: o.explicit?.baseUrl, apiKey: o.explicit?.apiKey };
        s.switchModel({ provider: agg.provider, model: agg.model, baseUrl: agg.base_url, apiKey: agg.api_key });
        aggLabel = `${s.llm.active.provider}/${s.llm.active.model}`;
        const off = s.on((e) => {
          if (e.type !== 'turn_end') return;
          off();
          s.switchModel(before);
        });
      }
      const block = ok.map((a, i) => `<reference index="${i + 1}" model="${a.label}">\n${a.text}\n</reference>`).join('\n\n');
      return {
        output: `MoA (${found.name}): ${ok.length}/${refs.length} reference model(s) answered${failed.length ? ` (failed: ${failed.join('; ')})` : ''}; ${aggLabel} answers now.`,
        send: `${prompt}\n\n[Mixture of Agents: analyses from reference models follow. Use what is right, correct what is wrong, and answer the request yourself.]\n${block}`,
      };
    },
  };
}
