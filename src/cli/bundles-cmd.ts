// `hermes bundles list|show|create|delete|reload` (state/skill-bundles.ts).
import { bundlesDir, deleteBundle, getBundle, listBundles, saveBundle } from '../state/skill-bundles.ts';
import { discoverSkills, findSkill } from '../state/skills.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

export function list(): void {
  const ctx = loadContext();
  const all = listBundles(ctx.home);
  if (!all.length) {
    out(`No bundles yet. Create one with: hermes bundles create <name> --skill a --skill b\nBundles folder: ${bundlesDir(ctx.home)}`);
    return;
  }
  for (const b of all) out(`/${b.slug.padEnd(24)} ${String(b.skills.length).padStart(2)} skill(s)  ${b.description}`);
  out(`\nBundles folder: ${bundlesDir(ctx.home)}`);
}

export function show(name: string): void {
  const ctx = loadContext();
  const b = getBundle(ctx.home, name);
  if (!b) throw new CliError(`No bundle named ${name}. See \`hermes bundles list\`.`);
  const ext = ctx.loaded.config.skills?.external_dirs;
  const skills = discoverSkills(ctx.home, Array.isArray(ext) ? ext : []);
  out(`/${b.slug}  ${b.name}`);
  out(`  ${b.description}`);
  out(`  file: ${b.path}`);
  out(`  skills (${b.skills.length}):`);
  for (const s of b.skills) out(`    - ${s}${findSkill(skills, s) ? '' : '  (not installed: skipped when invoked)'}`);
  if (b.instruction) out(`  instruction: ${b.instruction}`);
}

export function create(name: string, opts: { skill?: string[]; description?: string; instruction?: string; force?: boolean }): void {
  const ctx = loadContext();
  if (!opts.skill?.length) throw new CliError('Name the skills of the bundle: hermes bundles create <name> --skill a --skill b', 2);
  try {
    const path = saveBundle(ctx.home, { name, skills: opts.skill, description: opts.description, instruction: opts.instruction }, !!opts.force);
    const b = getBundle(ctx.home, name)!;
    out(`Created bundle ${path}`);
    out(`  invoke with /${b.slug} (loads ${b.skills.length} skills); a running chat picks it up with /reload-skills.`);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}

export function remove(name: string): void {
  const ctx = loadContext();
  try {
    out(`Deleted bundle ${deleteBundle(ctx.home, name)}`);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}
