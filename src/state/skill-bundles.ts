// Skill bundles, in Hermes's files: HERMES_HOME/skill-bundles/<slug>.yaml (name, description,
// skills, instruction; HERMES_BUNDLES_DIR overrides the folder). `/<bundle>` loads every skill of
// the bundle into one message, the way `/<skill>` loads one; a bundle wins over a skill of the same
// name. Skills that are missing or disabled are skipped and named in the message.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { buildSkillInvocation, disabledSkillNames, discoverSkills, findSkill, type Skill } from './skills.ts';

export interface SkillBundle {
  name: string;
  slug: string;
  description: string;
  skills: string[];
  instruction: string;
  path: string;
}

export function bundlesDir(home: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.HERMES_BUNDLES_DIR?.trim() || join(home, 'skill-bundles');
}

export function bundleSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[ _]/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}

function loadOne(path: string, stem: string): SkillBundle | null {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  const d = data as Record<string, unknown>;
  const name = String(d.name ?? stem).trim();
  const skills = Array.isArray(d.skills) ? d.skills.map((s) => String(s).trim()).filter(Boolean) : [];
  const slug = bundleSlug(name);
  if (!name || !slug || !skills.length) return null;
  return { name, slug, description: String(d.description ?? '').trim() || `Load ${skills.length} skills as a bundle`, skills, instruction: String(d.instruction ?? '').trim(), path };
}

/** Every valid bundle, by slug (the first file of a slug wins, alphabetically). */
export function listBundles(home: string, env: NodeJS.ProcessEnv = process.env): SkillBundle[] {
  const dir = bundlesDir(home, env);
  if (!existsSync(dir)) return [];
  const out = new Map<string, SkillBundle>();
  for (const f of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n)).sort()) {
    const b = loadOne(join(dir, f), f.replace(/\.ya?ml$/, ''));
    if (b && !out.has(b.slug)) out.set(b.slug, b);
  }
  return [...out.values()].sort((a, b) => a.slug.localeCompare(b.slug));
}

export function getBundle(home: string, name: string, env: NodeJS.ProcessEnv = process.env): SkillBundle | null {
  const slug = bundleSlug(name.replace(/^\//, ''));
  return listBundles(home, env).find((b) => b.slug === slug) ?? null;
}

export function saveBundle(home: string, b: { name: string; skills: string[]; description?: string; instruction?: string }, overwrite = false, env: NodeJS.ProcessEnv = process.env): string {
  const name = b.name.trim();
  const slug = bundleSlug(name);
  if (!slug) throw new Error(`The bundle name "${b.name}" has no letters or digits to make a command of.`);
  const skills = b.skills.map((s) => s.trim()).filter(Boolean);
  if (!skills.length) throw new Error('A bundle needs at least one skill (--skill <name>).');
  const path = join(bundlesDir(home, env), `${slug}.yaml`);
  if (existsSync(path) && !overwrite) throw new Error(`A bundle already exists at ${path}; pass --force to replace it.`);
  mkdirSync(bundlesDir(home, env), { recursive: true });
  const payload: Record<string, unknown> = { name, skills };
  if (b.description) payload.description = b.description;
  if (b.instruction) payload.instruction = b.instruction;
  writeFileSync(path, toYaml(payload));
  return path;
}

export function deleteBundle(home: string, name: string, env: NodeJS.ProcessEnv = process.env): string {
  const path = join(bundlesDir(home, env), `${bundleSlug(name)}.yaml`);
  if (!existsSync(path)) throw new Error(`No bundle at ${path} (see \`hermes bundles list\`).`);
  rmSync(path);
  return path;
}

/**
 * The user message for `/<bundle> [instruction]`: a header naming the bundle and what was loaded or
 * skipped, then each skill as `/<skill>` gives it. Null when none of its skills can be loaded.
 */
export function bundleInvocation(home: string, b: SkillBundle, instruction: string, o: { externalDirs?: string[]; config?: unknown; platform?: string } = {}): { message: string; loaded: Skill[]; missing: string[]; disabled: string[] } | null {
  const all = discoverSkills(home, o.externalDirs ?? []);
  const off = disabledSkillNames(o.config, o.platform);
  const loaded: Skill[] = [];
  const missing: string[] = [];
  const disabled: string[] = [];
  for (const id of [...new Set(b.skills)]) {
    const s = findSkill(all, id);
    if (!s) missing.push(id);
    else if (off.has(s.name) || off.has(id)) disabled.push(s.name);
    else loaded.push(s);
  }
  if (!loaded.length) return null;
  const header = [
    `[The user invoked the "${b.name}" skill bundle, loading ${loaded.length} skills together. Treat every skill below as active guidance for this request.]`,
    '',
    `Bundle: ${b.name}`,
    `Skills loaded: ${loaded.map((s) => s.name).join(', ')}`,
    ...(missing.length ? [`Skills missing (skipped): ${missing.join(', ')}`] : []),
    ...(disabled.length ? [`Skills disabled here (skipped): ${disabled.join(', ')}`] : []),
    ...(b.instruction ? ['', `Bundle instruction: ${b.instruction}`] : []),
  ].join('\n');
  return { message: `${header}\n\n${buildSkillInvocation(loaded, instruction)}`, loaded, missing, disabled };
}
