// `hermes skills …`
import { createInterface } from 'node:readline/promises';
import { bundledSkillsRoot, readHubLock, discoverSkills, findSkill, linkedFiles, retireSeededCopies, unchangedSinceInstall, type SkillProblem } from '../state/skills.ts';
import { auditSkills, describeFindings, installSkill, scanSkillDir, SkillInstallError, uninstallSkill } from '../state/skills-hub.ts';
import { appendEntry, captureFiles } from '../state/skill-ledger.ts';
import { existsSync } from 'node:fs';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

function setup(): { ctx: CliContext; ext: string[] } {
  const ctx = loadContext();
  const e = ctx.loaded.config.skills?.external_dirs;
  try {
    retireSeededCopies(ctx.home, bundledSkillsRoot());
  } catch {
    /* read-only: list what is there */
  }
  return { ctx, ext: Array.isArray(e) ? e : [] };
}

export function list(opts: { json?: boolean }): void {
  const { ctx, ext } = setup();
  const problems: SkillProblem[] = [];
  const skills = discoverSkills(ctx.home, ext, problems);
  if (opts.json) {
    out(JSON.stringify(skills.map((s) => ({ name: s.name, category: s.category, source: s.source, description: s.description, path: s.dir, platforms: s.platforms })), null, 2));
    return;
  }
  if (!skills.length) out('No skills installed. Install one with `hermes skills install <folder | git URL | SKILL.md URL>`.');
  let cat: string | null = '\0';
  for (const s of skills) {
    if (s.category !== cat) out(`${(cat = s.category) ?? 'general'}:`);
    out(`  ${s.name.padEnd(26)} ${s.source.padEnd(8)} ${s.description}`);
  }
  for (const p of problems) process.stderr.write(`⚠ ${p.path}: ${p.error}\n`);
  if (skills.length) out(`(${skills.length} skill${skills.length === 1 ? '' : 's'}; use one in chat with /<name>)`);
}

export function inspect(name: string): void {
  const { ctx, ext } = setup();
  const s = findSkill(discoverSkills(ctx.home, ext), name);
  if (!s) throw new CliError(`No installed skill named "${name}". See \`hermes skills list\`.`);
  const lock = readHubLock(ctx.home).installed[s.name];
  const scan = scanSkillDir(s.dir);
  out(`${s.name}${s.version ? ` v${s.version}` : ''} — ${s.description}`);
  out(`Path       ${s.dir}`);
  out(`Category   ${s.category ?? 'general'} · source ${s.source}${s.license ? ` · license ${s.license}` : ''}`);
  if (s.platforms.length) out(`Platforms  ${s.platforms.join(', ')}`);
  if (s.tags.length) out(`Tags       ${s.tags.join(', ')}`);
  if (s.requiresToolsets.length || s.requiresTools.length) out(`Requires   ${[...s.requiresToolsets, ...s.requiresTools].join(', ')}`);
  if (s.fallbackForToolsets.length || s.fallbackForTools.length) out(`Fallback   for ${[...s.fallbackForToolsets, ...s.fallbackForTools].join(', ')}`);
  if (s.requiredEnv.length) out(`Env vars   ${s.requiredEnv.map((v) => `${v.name}${process.env[v.name] ? ' (set)' : ' (not set)'}`).join(', ')}`);
  const files = linkedFiles(s);
  out(`Files      SKILL.md${files.length ? `, ${files.join(', ')}` : ''}`);
  if (lock) out(`Installed  ${lock.installed_at ?? '?'} from ${lock.identifier} (${lock.source})${lock.forced ? ' with --force' : ''} · ${unchangedSinceInstall(lock, s.dir) ? 'unchanged since' : 'changed since install'}`);
  out(`Guard      ${scan.verdict}${scan.findings.length ? '' : ' (no findings)'}`);
  for (const l of describeFindings(scan.findings)) out(`  ${l}`);
}

/** Not a folder, URL or git source: a registry identifier (owner/repo/path, or a skill's name in the index). */
function isRegistryIdentifier(source: string): boolean {
  if (/^(https?:|git@|ssh:|git:|file:)/.test(source) || /\.git(#.*)?$/.test(source)) return false;
  if (source.startsWith('.') || source.startsWith('/') || source.startsWith('~') || existsSync(source)) return false;
  return /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(source);
}

export async function install(source: string, opts: { category?: string; skill?: string; force?: boolean }): Promise<void> {
  if (isRegistryIdentifier(source)) {
    const { installFromRegistry } = await import('./skills-hub-cmd.ts');
    return installFromRegistry(source, opts);
  }
  const { ctx, ext } = setup();
  const allow = ctx.loaded.config.security?.allow_private_urls === true || ['1', 'true', 'yes'].includes((process.env.HERMES_ALLOW_PRIVATE_URLS ?? '').toLowerCase());
  try {
    const r = await installSkill({ home: ctx.home, source, category: opts.category, skill: opts.skill, force: opts.force, allowPrivateUrls: allow, externalDirs: ext });
    appendEntry(ctx.home, { actor: 'user', action: 'install', skill: r.name, before: [], after: captureFiles(ctx.home, r.path), evidence: { source } }, ctx.loaded.config);
    out(`Installed ${r.name} → ${r.path}`);
    out(`  ${r.description}`);
    out(`  guard: ${r.verdict}${r.forced ? ' (installed with --force)' : ''}`);
    for (const l of describeFindings(r.findings)) out(`  ${l}`);
    if (r.missingFiles.length) out(`  note: ${r.missingFiles.length} referenced file(s) could not be fetched: ${r.missingFiles.join(', ')}`);
    out(`Use it in chat with /${r.name}, or let Hermes pick it from the skills index.`);
  } catch (e) {
    if (e instanceof SkillInstallError) throw new CliError(e.message, 1);
    throw e;
  }
}

export async function uninstall(name: string, opts: { yes?: boolean }): Promise<void> {
  const { ctx, ext } = setup();
  if (!findSkill(discoverSkills(ctx.home, ext), name)) throw new CliError(`No installed skill named "${name}". See \`hermes skills list\`.`);
  if (!opts.yes) {
    if (!process.stdin.isTTY) throw new CliError(`Remove the skill ${name}: add --yes to confirm (nothing was removed).`, 2);
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const a = (await rl.question(`Remove the skill ${name}? [y/N] `)).trim().toLowerCase();
    rl.close();
    if (a !== 'y' && a !== 'yes') throw new CliError('Cancelled.', 1);
  }
  try {
    const before = captureFiles(ctx.home, findSkill(discoverSkills(ctx.home, ext), name)?.dir);
    const r = uninstallSkill(ctx.home, name, ext);
    appendEntry(ctx.home, { actor: 'user', action: 'uninstall', skill: name, before, after: [] }, ctx.loaded.config);
    out(r.hidden ? `Hid the bundled skill ${name} in this home (\`hermes skills reset ${name}\` offers it again).` : `Removed ${name} (${r.path}).`);
  } catch (e) {
    if (e instanceof SkillInstallError) throw new CliError(e.message, 1);
    throw e;
  }
}

export function audit(name: string | undefined, opts: { json?: boolean }): void {
  const { ctx, ext } = setup();
  let rows;
  try {
    rows = auditSkills(ctx.home, name, ext);
  } catch (e) {
    if (e instanceof SkillInstallError) throw new CliError(e.message, 1);
    throw e;
  }
  if (opts.json) out(JSON.stringify(rows, null, 2));
  else {
    for (const r of rows) {
      out(`${r.verdict === 'safe' ? '✓' : r.verdict === 'caution' ? '!' : '✗'} ${r.name.padEnd(26)} ${r.verdict.padEnd(9)} ${r.source}${r.modified ? '  (changed since install)' : ''}`);
      for (const l of describeFindings(r.findings)) out(`    ${l}`);
    }
    out(`${rows.length} skill${rows.length === 1 ? '' : 's'} scanned; ${rows.filter((r) => r.verdict === 'dangerous').length} dangerous, ${rows.filter((r) => r.verdict === 'caution').length} to review.`);
  }
  if (rows.some((r) => r.verdict === 'dangerous')) process.exitCode = 1;
}
