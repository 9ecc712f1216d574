// /moa, as Hermes has it: sugar over selecting a Mixture of Agents preset as the session's model.
//   /moa            → the default preset (`moa.default_preset`, else "default") becomes the model
//   /moa <preset>   → that preset, when the text is exactly a preset's name
//   /moa <prompt>   → one turn through the default preset, then the previous model comes back
// `/model <preset> --provider moa` (or `/model moa:<preset>`) selects a preset too. A preset lives in
// config.yaml under `moa.presets.<name>`: `reference_models` ([{provider, model, base_url?, api_key?,
// enabled?}]), `aggregator` ({provider, model, …}; the acting model), `reference_timeout` (seconds,
// default 90). How a turn runs and why the transcript stays clean: src/session/moa.ts.
import { activateMoa, defaultPresetName, findPreset, type MoaRun } from '../session/moa.ts';
import type { Session } from '../session/session.ts';
import type { CommandDef, CommandResult } from './registry.ts';

function notice(s: Session) {
  return {
    onReferences(r: MoaRun) {
      s.emit({ type: 'notice', message: `MoA (${r.preset}): ${r.answered}/${r.total} reference model(s) answered${r.failed.length ? ` (failed: ${r.failed.join('; ')})` : ''}.` });
    },
  };
}

/** Selects a preset for the rest of the session (until /model). */
export function selectPreset(s: Session, name: string): CommandResult {
  if (s.busy) return { output: 'A turn is running: switch the model when it has finished, or /stop first.' };
  const r = activateMoa(s, name, notice(s));
  if ('error' in r) return { output: r.error };
  return { output: `Now using the MoA preset ${name} (provider moa): ${r.label} acts, its reference models advise each step. /model <model> switches back.` };
}

export function moaCommand(): CommandDef {
  return {
    name: 'moa',
    args: '[preset | prompt]',
    description: 'use a Mixture of Agents preset as the model, or run one prompt through the default preset',
    category: 'session',
    surfaces: ['cli', 'gateway', 'acp'],
    async run(ctx, args) {
      const s = ctx.session;
      const text = args.trim();
      const config = s.settings.config;
      if (!text) return selectPreset(s, defaultPresetName(config));
      if (findPreset(config, text)) return selectPreset(s, text);
      if (s.busy) return { output: '/moa waits for the running turn: try again when it has finished, or /stop first.' };
      const name = defaultPresetName(config);
      const r = activateMoa(s, name, notice(s));
      if ('error' in r) return { output: r.error };
      // One turn only: the previous model is back when it ends.
      const off = s.on((e) => {
        if (e.type !== 'turn_end') return;
        off();
        s.switchModel(r.before);
      });
      return { output: `MoA (${name}): ${r.label} answers this turn with its reference models' advice; your model comes back after.`, send: text };
    },
  };
}
