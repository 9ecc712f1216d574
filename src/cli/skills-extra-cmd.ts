// `hermes skills opt-out|opt-in|snapshot|publish|config`, with Hermes's files: the
// HERMES_HOME/.no-bundled-skills marker, a snapshot JSON of hub installs and taps, a pull request to
// a GitHub repository, and `skills.disabled` / `skills.platform_disabled.<platform>` in config.yaml.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { setConfigKey } from '../state/config.ts';
import { expandHome } from '../state/paths.ts';
import { bundledSkillHash, bundledSource, NO_BUNDLED_MARKER, readBundledManifest, writeBundledManifest } from '../state/skills-bundled.ts';
import { describeFindings, scanSkillDir, SkillInstallError } from '../state/skills-hub.ts';
import { addTap, readTaps } from '../state/skills-sources.ts';
import { bundledSkillsRoot, discoverSkills, disabledSkillNames, findSkill, parseFrontmatter, readHubLock, SKILL_FILE } from '../state/skills.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';
import { PLATFORMS } from './tools-cmd.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

async function confirm(question: string, noTty: string): Promise<void> {
  if (!process.stdin.isTTY) throw new CliError(noTty, 2);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const a = (await rl.question(question)).trim().toLowerCase();
  rl.close();
  if (a !== 'y' && a !== 'yes') throw new CliError('Cancelled; nothing was changed.', 1);
}

/** Bundled skills still exactly as seeded (what `opt-out --remove` may delete): name → folder. */
function pristineBundled(home: string): Map<string, string> {
  const res = new Map<string, string>();
  for (const [name, hash] of readBundledManifest(home)) {
    const hit = bundledSource(join(home, 'skills'), name);
    if (hit && hash && bundledSkillHash(hit.dir) === hash) res.set(name, hit.dir);
  }
  return res;
}

export async function optOut(opts: { remove?: boolean; yes?: boolean }): Promise<void> {
  const ctx = loadContext();
  const marker = join(ctx.home, NO_BUNDLED_MARKER);
  const pristine = opts.remove ? pristineBundled(ctx.home) : new Map<string, string>();
  if (opts.remove && pristine.size && !opts.yes) {
    await confirm(`Remove ${pristine.size} unmodified bundled skill(s) (${[...pristine.keys()].slice(0, 8).join(', ')}${pristine.size > 8 ? ', …' : ''})? Skills you changed stay. [y/N] `, `--remove deletes ${pristine.size} bundled skill(s): add --yes to confirm (nothing was changed).`);
  }
  const had = existsSync(marker);
  writeFileSync(marker, 'Bundled skills are not offered in this profile (hermes skills opt-out).\nDelete this file, or run `hermes skills opt-in`, to offer them again.\n', { mode: 0o644 });
  out(had ? `Already opted out (${marker}).` : `Opted out of bundled skills: ${marker} written. The skills that ship with Hermes are no longer offered here (Python Hermes no longer seeds its own).`);
  if (!opts.remove) {
    if (readBundledManifest(ctx.home).size) out('Bundled skills Python Hermes copied here stay; `hermes skills opt-out --remove` deletes the ones you never changed.');
    return;
  }
  const manifest = readBundledManifest(ctx.home);
  for (const [name, dir] of pristine) {
    rmSync(dir, { recursive: true, force: true });
    manifest.delete(name);
  }
  writeBundledManifest(ctx.home, manifest);
  const kept = readBundledManifest(ctx.home).size;
  out(`Removed ${pristine.size} unmodified bundled skill(s) copied into this home.${kept ? ` ${kept} you changed stay (see \`hermes skills list\`).` : ''}`);
}

export function optIn(opts: { sync?: boolean }): void {
  const ctx = loadContext();
  const markers = [join(ctx.home, NO_BUNDLED_MARKER), join(ctx.home, 'skills', NO_BUNDLED_MARKER)].filter((m) => existsSync(m));
  for (const m of markers) rmSync(m, { force: true });
  out(markers.length ? 'Opted back in to bundled skills.' : 'Bundled skills were not opted out.');
  // Nothing to copy: the bundled skills are read in place from the package (--sync is accepted as Hermes takes it).
  out(`They are read from ${bundledSkillsRoot()}${opts.sync ? ' (nothing to copy)' : ''}; \`hermes skills list\` shows them.`);
}

interface SnapshotSkill {
  name: string;
  source: string;
  identifier: string;
  category: string;
}

export function snapshotExport(file: string): void {
  const ctx = loadContext();
  const lock = readHubLock(ctx.home);
  const skills: SnapshotSkill[] = Object.entries(lock.installed).map(([name, e]) => {
    const parts = String(e.install_path ?? '').split('/');
    return { name, source: e.source ?? '', identifier: e.identifier ?? '', category: parts.length > 1 ? parts.slice(0, -1).join('/') : '' };
  });
  const taps = readTaps(ctx.home);
  const payload = `${JSON.stringify({ hermes_version: pkg.version, exported_at: new Date().toISOString(), skills, taps }, null, 2)}\n`;
  if (file === '-') {
    process.stdout.write(payload);
    return;
  }
  const dest = resolve(expandHome(file));
  writeFileSync(dest, payload);
  out(`Snapshot exported: ${dest}`);
  out(`${skills.length} skill(s), ${taps.length} tap(s)`);
}

export async function snapshotImport(file: string, opts: { force?: boolean }): Promise<void> {
  const ctx = loadContext();
  const src = resolve(expandHome(file));
  if (!existsSync(src)) throw new CliError(`File not found: ${src}`, 2);
  let snap: { skills?: unknown; taps?: unknown };
  try {
    snap = JSON.parse(readFileSync(src, 'utf8'));
  } catch {
    throw new CliError(`${src} is not valid JSON (expected a file written by \`hermes skills snapshot export\`).`, 2);
  }
  const taps = Array.isArray(snap.taps) ? (snap.taps as { repo?: unknown; path?: unknown }[]) : [];
  let restored = 0;
  for (const t of taps) {
    if (typeof t?.repo !== 'string') continue;
    try {
      if (addTap(ctx.home, t.repo, typeof t.path === 'string' ? t.path : 'skills/')) restored++;
    } catch (e) {
      process.stderr.write(`⚠ tap ${t.repo}: ${(e as Error).message}\n`);
    }
  }
  if (taps.length) out(`Restored ${restored} tap(s)${restored < taps.length ? ` (${taps.length - restored} already there or invalid)` : ''}.`);
  const skills = Array.isArray(snap.skills) ? (snap.skills as Partial<SnapshotSkill>[]) : [];
  if (!skills.length) {
    out('No skills in the snapshot to install.');
    return;
  }
  out(`Importing ${skills.length} skill(s) from the snapshot…`);
  const { install } = await import('./skills-cmd.ts');
  const installed = new Set(Object.keys(readHubLock(ctx.home).installed));
  let failed = 0;
  for (const s of skills) {
    const id = typeof s.identifier === 'string' ? s.identifier : '';
    if (!id) {
      out(`· skipped ${s.name ?? '?'}: no identifier`);
      continue;
    }
    if (s.name && installed.has(s.name) && !opts.force) {
      out(`· ${s.name} is already installed`);
      continue;
    }
    out(`--- ${s.name ?? id} ---`);
    try {
      await install(id, { category: s.category || undefined, force: opts.force });
    } catch (e) {
      failed++;
      process.stderr.write(`✗ ${s.name ?? id}: ${(e as Error).message}\n`);
    }
  }
  if (failed) throw new CliError(`Snapshot import finished with ${failed} failure(s).`);
  out('Snapshot import complete.');
}

/** A skill folder from a path (as given, or below HERMES_HOME/skills) or an installed skill's name. */
function skillDir(ctx: CliContext, ref: string): string | null {
  const candidates = [resolve(expandHome(ref)), isAbsolute(ref) ? '' : join(ctx.home, 'skills', ref)].filter(Boolean);
  for (const c of candidates) if (existsSync(join(c, SKILL_FILE)) && statSync(c).isDirectory()) return c;
  const ext = ctx.loaded.config.skills?.external_dirs;
  return findSkill(discoverSkills(ctx.home, Array.isArray(ext) ? ext : []), ref)?.dir ?? null;
}

export async function publish(ref: string, opts: { to?: string; repo?: string }): Promise<void> {
  const ctx = loadContext();
  const to = (opts.to ?? 'github').toLowerCase();
  if (to === 'clawhub') {
    out('ClawHub publishing is not supported from the CLI; submit at https://clawhub.ai/submit.');
    return;
  }
  if (to !== 'github') throw new CliError(`Unknown target "${opts.to}". Use --to github (or clawhub).`, 2);
  const dir = skillDir(ctx, ref);
  if (!dir) throw new CliError(`No SKILL.md found at ${ref} (a skill folder, or the name of an installed skill).`, 2);
  const fm = parseFrontmatter(readFileSync(join(dir, SKILL_FILE), 'utf8')).frontmatter as Record<string, unknown>;
  const name = typeof fm.name === 'string' && fm.name ? fm.name : dir.split(/[\\/]/).pop() ?? ref;
  if (typeof fm.description !== 'string' || !fm.description.trim()) throw new CliError(`${join(dir, SKILL_FILE)} needs a description in its frontmatter before it can be published.`, 2);
  if (!opts.repo) throw new CliError('--repo owner/repo is required for a GitHub publish: hermes skills publish <path> --to github --repo owner/repo', 2);
  out(`Scanning ${name} before publishing…`);
  const scan = scanSkillDir(dir);
  out(`  guard: ${scan.verdict} (${scan.files} file(s))`);
  for (const l of describeFindings(scan.findings)) out(`  ${l}`);
  if (scan.verdict === 'dangerous') throw new CliError('A skill the guard finds dangerous cannot be published. Fix the findings above first.');
  const token = ctx.env.GITHUB_TOKEN || ctx.env.GH_TOKEN;
  if (!token) throw new CliError('Publishing needs a GitHub token: set GITHUB_TOKEN in HERMES_HOME/.env (a token that may fork and open pull requests).', 2);
  const hub = ctx.loaded.config.skills?.hub ?? {};
  out(`Publishing ${name} to ${opts.repo}…`);
  try {
    const url = await (await import('../state/skills-publish.ts')).publishToGithub({ dir, name, repo: opts.repo, token, api: hub.github_api, say: out });
    out(`Pull request opened: ${url}`);
  } catch (e) {
    if (e instanceof SkillInstallError) throw new CliError(e.message);
    throw e;
  }
}

function checkPlatform(p: string | undefined): string | undefined {
  if (p === undefined || p === 'global' || p === 'all') return undefined;
  const n = p.trim().toLowerCase();
  if (!/^[a-z][a-z0-9_-]*$/.test(n)) throw new CliError(`"${p}" is not a platform name. Platforms: ${PLATFORMS.join(', ')} (or global).`, 2);
  return n;
}

/** Writes the disabled list for everywhere (no platform) or for one platform. */
function saveDisabled(ctx: CliContext, platform: string | undefined, names: Set<string>): string {
  const key = platform ? `skills.platform_disabled.${platform}` : 'skills.disabled';
  setConfigKey(ctx.home, key, [...names].sort());
  return key;
}

function disabledFor(ctx: CliContext, platform: string | undefined): Set<string> {
  const sk = ctx.loaded.config.skills ?? {};
  const raw = platform ? sk.platform_disabled?.[platform] : sk.disabled;
  return new Set(Array.isArray(raw) ? raw.map(String) : []);
}

/**
 * `hermes skills config`: which skills are on, everywhere or per platform. On a terminal, a picker (as
 * Hermes's); `--enable`/`--disable <names…>` [--platform] change it from scripts; otherwise it prints.
 */
export async function config(opts: { platform?: string; enable?: string[]; disable?: string[] }): Promise<void> {
  const ctx = loadContext();
  const platform = checkPlatform(opts.platform);
  const ext = ctx.loaded.config.skills?.external_dirs;
  const skills = discoverSkills(ctx.home, Array.isArray(ext) ? ext : []).sort((a, b) => a.name.localeCompare(b.name));
  const where = platform ?? 'every platform';
  if (opts.enable?.length || opts.disable?.length) {
    const unknown = [...(opts.enable ?? []), ...(opts.disable ?? [])].filter((n) => !findSkill(skills, n));
    if (unknown.length) throw new CliError(`No installed skill named ${unknown.join(', ')}. See \`hermes skills list\`.`, 2);
    const set = disabledFor(ctx, platform);
    for (const n of opts.enable ?? []) set.delete(n);
    for (const n of opts.disable ?? []) set.add(n);
    const key = saveDisabled(ctx, platform, set);
    out(`Saved ${key}: ${[...set].sort().join(', ') || '(none)'} — new sessions use it.`);
    if (platform && opts.enable?.some((n) => disabledSkillNames(ctx.loaded.config).has(n))) out('Note: skills.disabled still turns some of these off everywhere (hermes skills config --enable … without --platform).');
    return;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    const off = disabledSkillNames(ctx.loaded.config, platform);
    out(`Skills on ${where}:`);
    for (const s of skills) out(`  ${off.has(s.name) ? '○' : '●'} ${s.name.padEnd(32)} ${s.description.slice(0, 60)}`);
    out('● enabled  ○ disabled · change with: hermes skills config --enable|--disable <names…> [--platform <name>]');
    return;
  }
  const p = await import('@clack/prompts');
  p.intro('Skills per platform');
  const chosenPlatform = await p.select({ message: 'Where?', options: [{ value: 'global', label: 'every platform (skills.disabled)' }, ...PLATFORMS.map((x) => ({ value: x, label: x }))] });
  if (p.isCancel(chosenPlatform)) return p.cancel('Nothing changed.');
  const plat = checkPlatform(chosenPlatform);
  const off = disabledFor(ctx, plat);
  const picked = await p.multiselect({
    message: `Enabled skills${plat ? ` on ${plat}` : ''} (space toggles, enter saves)`,
    options: skills.map((s) => ({ value: s.name, label: s.name, hint: s.description.slice(0, 50) })),
    initialValues: skills.filter((s) => !off.has(s.name)).map((s) => s.name),
    required: false,
  });
  if (p.isCancel(picked)) return p.cancel('Nothing changed.');
  const on = new Set(picked);
  const key = saveDisabled(ctx, plat, new Set(skills.filter((s) => !on.has(s.name)).map((s) => s.name)));
  p.outro(`Saved ${key} — new sessions use it.`);
}
