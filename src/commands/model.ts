// /model: show the session's model and the models its provider serves (a picker in the terminal),
// or switch, for this session only. A model the provider does not list is refused, with the
// nearest names; when the provider cannot list its models, the switch goes ahead.
import { knownServedModels, ResolveError, resolveRuntime, servedModels, findProvider, type ProviderRuntime } from '../llm/index.ts';
import { resolveInputFrom, type ExplicitChoices, type Session } from '../session/session.ts';
import { findEndpoint, splitEndpointModel } from '../state/endpoints.ts';
import { ALL_SURFACES, type CommandDef } from './registry.ts';
import { didYouMean } from './suggest.ts';
import { localizedError, t } from '../i18n/index.ts';

/** How the list is shown where there is no picker (chat platforms, editors). */
const TEXT_LIST_MAX = 40;

/** `model`, `provider:model`, `custom:<name>` (its saved model), `custom:<name>:<model>`. */
export function parseModelArg(arg: string, session: Session): { change?: ExplicitChoices; error?: string } {
  const config = session.settings.config;
  const text = arg.trim();
  if (text.toLowerCase().startsWith('custom:')) {
    const rest = text.slice('custom:'.length);
    const whole = findEndpoint(config, rest);
    if (whole) {
      if (!whole.entry.model) return { error: `${whole.name} has no saved model: /model ${whole.id}:<model>` };
      return { change: { provider: whole.id, model: String(whole.entry.model) } };
    }
    const split = splitEndpointModel(config, rest);
    if (split) return { change: { provider: split.endpoint.id, model: split.model } };
    return { change: { provider: 'custom', model: rest } };
  }
  const colon = text.indexOf(':');
  if (colon > 0) {
    const head = text.slice(0, colon);
    const endpoint = findProvider(head) ? undefined : findEndpoint(config, head);
    if (findProvider(head) || endpoint) return { change: { provider: endpoint?.id ?? head, model: text.slice(colon + 1) } };
  }
  return { change: { model: text } };
}

function targetRuntime(session: Session, change: ExplicitChoices): ProviderRuntime {
  const o = { ...session.info, config: session.settings.config };
  return resolveRuntime(resolveInputFrom(o.config, o.env, { ...o.explicit, ...change }));
}

const who = (rt: ProviderRuntime) => rt.provider;

export function modelCommand(): CommandDef {
  return {
    name: 'model',
    args: '[model | provider:model]',
    description: 'show the models the provider serves (a picker here), or switch for this session',
    category: 'config',
    surfaces: ALL_SURFACES,
    complete(ctx, partial) {
      const ids = knownServedModels(ctx.session.runtime);
      if (!ids) return null;
      const p = partial.toLowerCase();
      const current = ctx.session.runtime.model;
      return ids.filter((id) => id.toLowerCase().includes(p)).map((id) => ({ value: id, hint: id === current ? 'current' : '' }));
    },
    async run(ctx, args) {
      const s = ctx.session;
      const rt = s.runtime;
      if (!args) {
        const fb = s.settings.config.fallback_providers ?? [];
        const lines = [`Model: ${rt.model} via ${rt.provider} (${rt.apiMode})`, fb.length ? `Fallbacks: ${fb.map((f) => `${f.provider}:${f.model}`).join(', ')}` : 'Fallbacks: none'];
        const moa = (s.llm as { moaPreset?: string }).moaPreset;
        if (moa) lines.unshift(`MoA preset: ${moa} (provider moa): the model below acts, the preset's reference models advise each step.`);
        const ids = await servedModels(rt);
        if (!ids) return { output: [...lines, `(${who(rt)} does not list its models.) ${t('model.switch_hint')}`].join('\n') };
        if (ctx.surface === 'cli') {
          lines.push(`${ids.length} model(s) from ${who(rt)}: pick one below (type to filter, Enter to switch), or /model <provider>:<model>.`);
          return { output: lines.join('\n'), input: '/model ' };
        }
        const shown = [...ids].sort((a, b) => a.localeCompare(b));
        lines.push(`${ids.length} model(s) from ${who(rt)}:`, ...shown.slice(0, TEXT_LIST_MAX).map((id) => `  ${id === rt.model ? '●' : '○'} ${id}`));
        if (shown.length > TEXT_LIST_MAX) lines.push(`  … and ${shown.length - TEXT_LIST_MAX} more`);
        lines.push(t('model.switch_hint'));
        return { output: lines.join('\n') };
      }
      // A Mixture of Agents preset is a model of the virtual `moa` provider (Hermes's form and ours).
      const moa = /^(.+?)\s+--provider\s+moa$/i.exec(args.trim()) ?? /^moa:(.+)$/i.exec(args.trim());
      if (moa) return (await import('./moa.ts')).selectPreset(s, moa[1].trim());
      const parsed = parseModelArg(args, s);
      if (parsed.error || !parsed.change) return { output: parsed.error ?? t('model.usage') };
      let target: ProviderRuntime;
      try {
        target = targetRuntime(s, parsed.change);
      } catch (e) {
        if (e instanceof ResolveError) return { output: `✗ ${localizedError(e)}` };
        throw e;
      }
      const ids = await servedModels(target);
      if (ids && !ids.includes(target.model)) {
        return { output: `✗ ${target.model} is not served by ${who(target)}.${didYouMean(target.model, ids)} (/model${target.provider === rt.provider ? '' : ` ${target.provider}:`} lists its ${ids.length} model(s).)` };
      }
      s.switchModel(parsed.change);
      const now = s.runtime;
      const unchecked = ids ? '' : ` (${who(now)} does not list its models, so the name was not checked.)`;
      return { output: `${t('model.now_using', { model: now.model, provider: now.provider })}${unchecked}` };
    },
  };
}
