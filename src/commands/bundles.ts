// /<bundle> (a skill bundle: several skills in one message) and /bundles (the list). Bundles live in
// HERMES_HOME/skill-bundles/*.yaml (state/skill-bundles.ts); `hermes bundles` manages them.
import { bumpUse } from '../state/skill-usage.ts';
import { bundleInvocation, bundlesDir, listBundles, type SkillBundle } from '../state/skill-bundles.ts';
import { ALL_SURFACES, type CommandDef, type CommandRegistry } from './registry.ts';

function bundleCommand(b: SkillBundle, home: string, externalDirs: string[]): CommandDef {
  return {
    name: b.slug,
    args: '[instruction]',
    description: `bundle: ${b.description}`.slice(0, 100),
    category: 'tools',
    surfaces: ALL_SURFACES,
    run(ctx, args) {
      const o = { config: ctx.session.settings.config, platform: ctx.session.info.platform };
      const r = bundleInvocation(home, b, args, { externalDirs, config: o.config, platform: o.platform });
      if (!r) return { output: `None of the skills of the bundle ${b.name} can be loaded here (${b.skills.join(', ')}). See /bundles and \`hermes skills list\`.` };
      for (const s of r.loaded) bumpUse(home, s.name);
      return { send: r.message };
    },
  };
}

/** A command per bundle, registered before the skills so a bundle wins over a skill of its name. */
export function registerBundleCommands(registry: CommandRegistry, home: string, externalDirs: string[] = []): number {
  const taken = new Set(registry.list().flatMap((d) => [d.name, ...(d.aliases ?? [])]));
  let n = 0;
  for (const b of listBundles(home)) {
    if (taken.has(b.slug)) continue;
    registry.add(bundleCommand(b, home, externalDirs));
    n++;
  }
  return n;
}

export function bundlesCommand(): CommandDef {
  return {
    name: 'bundles',
    description: 'list skill bundles (/<bundle> loads several skills at once)',
    category: 'tools',
    surfaces: ALL_SURFACES,
    run(ctx) {
      const home = ctx.session.info.home;
      const all = listBundles(home);
      if (!all.length) return { output: `No skill bundles yet. Create one with: hermes bundles create <name> --skill a --skill b\nBundles folder: ${bundlesDir(home)}` };
      return { output: [`Skill bundles (${all.length}):`, ...all.map((b) => `  /${b.slug.padEnd(22)} ${String(b.skills.length).padStart(2)} skill(s)  ${b.description}`)].join('\n') };
    },
  };
}
