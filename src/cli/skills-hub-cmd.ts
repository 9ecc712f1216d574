// `hermes skills browse|search|check|update|reset|diff|tap` and hub installs (`hermes skills install
// owner/repo/path` or a name from the Hermes skills index).
import { join } from 'node:path';
import { checkSkillUpdates, hubFor, installFromHub, skillDiff, updateSkills } from '../session/skills-updates.ts';
export { hubFor };
import type { HermesConfig } from '../state/defaults.ts';
import { packageRoot } from '../state/paths.ts';
import { resetBundledSkill } from '../state/skills-bundled.ts';
import { appendEntry, captureFiles } from '../state/skill-ledger.ts';
import { describeFindings, SkillInstallError } from '../state/skills-hub.ts';
import { addTap, DEFAULT_TAPS, readTaps, removeTap, type SkillMeta } from '../state/skills-sources.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

function allowPrivate(ctx: CliContext): boolean {
  return ctx.loaded.config.security?.allow_private_urls === true || ['1', 'true', 'yes'].includes((process.env.HERMES_ALLOW_PRIVATE_URLS ?? '').toLowerCase());
}

function externalDirs(config: HermesConfig): string[] {
  const e = config.skills?.external_dirs;
  return Array.isArray(e) ? e : [];
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof SkillInstallError) throw new CliError(e.message, 1);
    throw e;
  }
}

function table(rows: SkillMeta[]): void {
  for (const m of rows) {
    const trust = m.trust_level === 'builtin' ? '★' : m.trust_level === 'trusted' ? '✓' : ' ';
    out(`${trust} ${m.name.padEnd(28)} ${m.source.padEnd(12)} ${m.description.slice(0, 70)}`);
    out(`    ${m.identifier}`);
  }
}

export async function search(query: string, opts: { source?: string; limit?: string; json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const limit = opts.limit ? Number(opts.limit) : 10;
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit expects a positive number.', 2);
  const r = await guarded(() => hubFor(ctx, allowPrivate(ctx)).search(query, { source: opts.source, limit }));
  if (opts.json) {
    out(JSON.stringify(r.results, null, 2));
    return;
  }
  for (const e of r.errors) process.stderr.write(`⚠ ${e}\n`);
  if (!r.results.length) {
    out(`No skills match “${query}”.`);
    return;
  }
  table(r.results);
  out(`\n★ official  ✓ trusted · install with: hermes skills install <identifier>`);
}

export async function browse(opts: { page?: string; size?: string; source?: string }): Promise<void> {
  const ctx = loadContext();
  const page = Math.max(1, Number(opts.page ?? 1) || 1);
  const size = Math.max(1, Math.min(100, Number(opts.size ?? 20) || 20));
  const r = await guarded(() => hubFor(ctx, allowPrivate(ctx)).search('', { source: opts.source, limit: 10_000 }));
  for (const e of r.errors) process.stderr.write(`⚠ ${e}\n`);
  const pages = Math.max(1, Math.ceil(r.results.length / size));
  const rows = r.results.slice((page - 1) * size, page * size);
  if (!rows.length) {
    out(r.results.length ? `Page ${page} is past the end (${pages} page(s)).` : 'No skills found in the registries.');
    return;
  }
  table(rows);
  out(`\nPage ${page}/${pages} · ${r.results.length} skill(s)${page < pages ? ` · next: hermes skills browse --page ${page + 1}` : ''}`);
}

/** Installs from the registries; prints like a local install. */
export async function installFromRegistry(identifier: string, opts: { category?: string; force?: boolean }): Promise<void> {
  const ctx = loadContext();
  const r = await guarded(() =>
    installFromHub(hubFor(ctx, allowPrivate(ctx)), identifier, { home: ctx.home, category: opts.category, force: opts.force, allowPrivateUrls: allowPrivate(ctx), externalDirs: externalDirs(ctx.loaded.config) }),
  );
  appendEntry(ctx.home, { actor: 'user', action: 'install', skill: r.name, before: [], after: captureFiles(ctx.home, r.path), evidence: { source: identifier } }, ctx.loaded.config);
  out(`Installed ${r.name} → ${r.path}`);
  out(`  ${r.description}`);
  out(`  guard: ${r.verdict}${r.forced ? ' (installed with --force)' : ''}`);
  for (const l of describeFindings(r.findings)) out(`  ${l}`);
  out(`Use it in chat with /${r.name}.`);
}

export async function check(name: string | undefined): Promise<void> {
  const ctx = loadContext();
  const rows = await guarded(() => checkSkillUpdates(hubFor(ctx, allowPrivate(ctx)), ctx.home, name));
  if (!rows.length) {
    out('No skills were installed from a registry, so there is nothing to check.');
    return;
  }
  const label: Record<string, string> = { up_to_date: 'up to date', update_available: 'update available', unavailable: 'unavailable', orphaned: 'missing on disk', not_tracked: 'local install' };
  for (const r of rows) out(`${r.status === 'update_available' ? '↑' : r.status === 'up_to_date' ? '✓' : '·'} ${r.name.padEnd(28)} ${label[r.status].padEnd(17)} ${r.identifier}${r.modified ? '  (changed locally)' : ''}`);
  const n = rows.filter((r) => r.status === 'update_available').length;
  out(n ? `${n} update(s) available: hermes skills update` : 'Everything is up to date.');
}

export async function update(name: string | undefined, opts: { force?: boolean }): Promise<void> {
  const ctx = loadContext();
  const done = await guarded(() => updateSkills(hubFor(ctx, allowPrivate(ctx)), ctx.home, { name, force: opts.force, allowPrivateUrls: allowPrivate(ctx), externalDirs: externalDirs(ctx.loaded.config), config: ctx.loaded.config }));
  if (!done.length) {
    out(name ? `${name} is up to date.` : 'Everything is up to date.');
    return;
  }
  for (const d of done) out(`${d.result === 'updated' ? '✓ updated' : d.result === 'skipped' ? '· skipped' : '✗ failed '} ${d.name}${d.reason ? ` — ${d.reason}` : ''}`);
  if (done.some((d) => d.result === 'failed')) process.exitCode = 1;
}

export async function reset(name: string, opts: { restore?: boolean; yes?: boolean }): Promise<void> {
  const ctx = loadContext();
  if (opts.restore && !opts.yes) {
    if (!process.stdin.isTTY) throw new CliError(`--restore archives your copy of ${name}: add --yes to confirm (nothing was changed).`, 2);
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const a = (await rl.question(`Move your copy of ${name} to skills/.archive and use the bundled version? [y/N] `)).trim().toLowerCase();
    rl.close();
    if (a !== 'y' && a !== 'yes') throw new CliError('Cancelled.', 1);
  }
  try {
    out(resetBundledSkill(ctx.home, join(packageRoot(), 'skills'), name, !!opts.restore).note);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

export async function diff(name: string): Promise<void> {
  const ctx = loadContext();
  const r = await guarded(() => skillDiff(ctx.home, name, { bundledRoot: join(packageRoot(), 'skills'), hub: hubFor(ctx, allowPrivate(ctx)), externalDirs: externalDirs(ctx.loaded.config) }));
  if (!r.diff) {
    out(`${name} is the same as ${r.against}.`);
    return;
  }
  out(`# ${name}: ${r.against} → your copy`);
  out(r.diff);
}

export function tapList(): void {
  const ctx = loadContext();
  const own = readTaps(ctx.home);
  out('Default taps:');
  for (const t of DEFAULT_TAPS) out(`  ${t.repo}${t.path ? ` (${t.path})` : ''}`);
  out(own.length ? 'Your taps:' : 'Your taps: none (add one with `hermes skills tap add owner/repo`)');
  for (const t of own) out(`  ${t.repo}${t.path ? ` (${t.path})` : ''}`);
}

export function tapAdd(repo: string, opts: { path?: string }): void {
  const ctx = loadContext();
  try {
    out(addTap(ctx.home, repo, opts.path ?? 'skills/') ? `Added tap ${repo}. Its skills show up in hermes skills search and browse.` : `${repo} is already a tap.`);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}

export function tapRemove(repo: string): void {
  const ctx = loadContext();
  if (!removeTap(ctx.home, repo)) throw new CliError(`${repo} is not one of your taps. See \`hermes skills tap list\`.`);
  out(`Removed tap ${repo}.`);
}
