// /skin, /indicator, /palette (how the terminal REPL looks and is driven) and /handoff (its code is
// commands/handoff.ts). /moa is moa.ts.
import { setConfigKey } from '../state/config.ts';
import { INDICATOR_STYLES, listSkins, loadSkin } from '../state/skins.ts';
import type { CommandDef } from './registry.ts';
import { handoffCommand } from './handoff.ts';

const REPL_ONLY = 'only the classic terminal REPL (hermes --cli) draws with it; nothing changed here.';

function display(ctx: { session: { settings: { readonly config: { display?: unknown } } } }): Readonly<Record<string, unknown>> {
  const c = ctx.session.settings.config as { display?: Record<string, unknown> };
  return c.display ?? {};
}

export function surfaceExtraCommands(): CommandDef[] {
  return [
    {
      name: 'skin',
      args: '[name]',
      description: 'show or change the display skin (built-in, or HERMES_HOME/skins/<name>.yaml)',
      category: 'config',
      surfaces: ['cli'],
      complete: (ctx, partial) =>
        listSkins(ctx.session.info.home)
          .filter((s) => s.name.startsWith(partial))
          .map((s) => ({ value: s.name, hint: s.description })),
      run(ctx, args) {
        const home = ctx.session.info.home;
        const current = String(display(ctx).skin ?? 'default');
        const name = args.trim();
        if (!name) {
          const rows = listSkins(home).map((s) => `  ${s.name === current ? '●' : '○'} ${s.name.padEnd(16)} ${s.description}`);
          return { output: [`Skin: ${current}`, ...rows, 'Switch with /skin <name>; add your own as skins/<name>.yaml in your Hermes home.'].join('\n') };
        }
        let skin;
        try {
          skin = loadSkin(home, name);
        } catch (e) {
          return { output: (e as Error).message };
        }
        if (!skin) return { output: `No skin named ${name}. Skins: ${listSkins(home).map((s) => s.name).join(', ')}.` };
        if (!ctx.hooks.applySkin) return { output: `Skins: ${REPL_ONLY}` };
        ctx.hooks.applySkin(skin);
        ctx.session.settings.set('display.skin', name);
        setConfigKey(home, 'display.skin', name);
        return { output: `Skin: ${skin.name} — ${skin.description} (saved as display.skin).` };
      },
    },
    {
      name: 'indicator',
      args: `[${INDICATOR_STYLES.join('|')}]`,
      description: 'pick the busy-indicator style of the spinner',
      category: 'config',
      surfaces: ['cli'],
      completions: [...INDICATOR_STYLES],
      run(ctx, args) {
        const style = args.trim().toLowerCase();
        const current = String(display(ctx).indicator_style ?? 'unicode');
        if (!style) return { output: `Busy indicator: ${current}. Styles: ${INDICATOR_STYLES.join(', ')} (/indicator <style>).` };
        if (!(INDICATOR_STYLES as readonly string[]).includes(style)) return { output: `Unknown style "${style}". Styles: ${INDICATOR_STYLES.join(', ')}.` };
        if (!ctx.hooks.applyIndicator) return { output: `The busy indicator: ${REPL_ONLY}` };
        ctx.hooks.applyIndicator(style);
        ctx.session.settings.set('display.indicator_style', style);
        setConfigKey(ctx.session.info.home, 'display.indicator_style', style);
        return { output: `Busy indicator: ${style} (saved as display.indicator_style).` };
      },
    },
    {
      name: 'palette',
      description: 'open the command menu (type to filter, Tab completes, Enter runs)',
      category: 'info',
      surfaces: ['cli'],
      midTurn: true,
      run() {
        return { input: '/' };
      },
    },
    handoffCommand(),
  ];
}
