// Hub installs, update checks, updates and diffs for skills (`hermes skills install|check|update|diff`
// and /skills). Downloads land in quarantine and pass the skills guard like every install; lock
// entries keep Hermes's provenance (source, identifier, trust level, source_revision).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unifiedDiff } from '../tools/diff.ts';
import { appendEntry, captureFiles } from '../state/skill-ledger.ts';
import { bundledSource } from '../state/skills-bundled.ts';
import { installSkill, SkillInstallError, type InstallResult } from '../state/skills-hub.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { bundleContentHash, SkillsHub } from '../state/skills-sources.ts';
import { discoverSkills, hubDir, readBundledManifest, readHubLock, unchangedSinceInstall } from '../state/skills.ts';

/** The registries, with config overrides (`skills.hub.index_url`, `skills.hub.github_api`, `skills.hub.default_taps`). */
export function hubFor(ctx: { home: string; loaded: { config: HermesConfig } }, allowPrivateUrls: boolean): SkillsHub {
  const hubCfg = ctx.loaded.config.skills?.hub ?? {};
  return new SkillsHub({
    home: ctx.home,
    allowPrivateUrls,
    indexUrl: hubCfg.index_url || undefined,
    githubApi: hubCfg.github_api || undefined,
    githubToken: process.env.GITHUB_TOKEN || process.env.GH_TOKEN || undefined,
    noDefaultTaps: hubCfg.default_taps === false,
  });
}

const HUB_SOURCES = new Set(['github', 'hermes-index', 'official', 'skills-sh', 'well-known']);

export interface HubInstallOptions {
  home: string;
  category?: string;
  force?: boolean;
  allowPrivateUrls?: boolean;
  externalDirs?: string[];
  replace?: boolean;
}

/** Fetches a skill from the registries and installs it through quarantine and the guard. */
export async function installFromHub(hub: SkillsHub, identifier: string, o: HubInstallOptions): Promise<InstallResult> {
  const bundle = await hub.fetch(identifier);
  if (!bundle) throw new SkillInstallError(`No skill "${identifier}" in the registries. Search with \`hermes skills search <words>\`.`);
  const staging = join(hubDir(o.home), 'quarantine', `fetch-${Date.now()}-${randomBytes(4).toString('hex')}`, bundle.name);
  try {
    for (const [rel, body] of Object.entries(bundle.files)) {
      const p = join(staging, ...rel.split('/'));
      if (!p.startsWith(`${staging}/`)) throw new SkillInstallError(`${identifier}: unsafe path ${rel}.`);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, body);
    }
    return await installSkill({
      home: o.home,
      source: staging,
      category: o.category,
      force: o.force,
      allowPrivateUrls: o.allowPrivateUrls,
      externalDirs: o.externalDirs,
      replace: o.replace,
      provenance: { source: bundle.source, identifier: bundle.identifier, trust_level: bundle.trust_level, metadata: bundle.metadata },
    });
  } finally {
    rmSync(dirname(staging), { recursive: true, force: true });
  }
}

export type UpdateStatus = 'up_to_date' | 'update_available' | 'unavailable' | 'orphaned' | 'not_tracked';

export interface UpdateRow {
  name: string;
  identifier: string;
  source: string;
  status: UpdateStatus;
  current?: string;
  latest?: string;
  modified?: boolean;
}

/** Compares installed hub skills with their registries (each only against its recorded source). */
export async function checkSkillUpdates(hub: SkillsHub, home: string, name?: string): Promise<UpdateRow[]> {
  const lock = readHubLock(home);
  const rows: UpdateRow[] = [];
  const entries = Object.entries(lock.installed).filter(([n]) => !name || n === name);
  if (name && !entries.length) throw new SkillInstallError(`${name} was not installed from a registry (only hub skills can be checked). See \`hermes skills list\`.`);
  for (const [n, e] of entries) {
    const row: UpdateRow = { name: n, identifier: e.identifier, source: e.source, status: 'not_tracked', current: e.content_hash };
    const dir = join(home, 'skills', ...String(e.install_path ?? n).split('/'));
    if (!HUB_SOURCES.has(e.source)) {
      rows.push(row);
      continue;
    }
    if (!existsSync(dir)) {
      rows.push({ ...row, status: 'orphaned' });
      continue;
    }
    row.modified = !unchangedSinceInstall(e, dir);
    const recorded = String((e.metadata as { source_revision?: string } | undefined)?.source_revision ?? '');
    try {
      if (recorded && e.source === 'github' && (await hub.currentRevision(e.identifier)) === recorded) {
        rows.push({ ...row, status: 'up_to_date', latest: e.content_hash });
        continue;
      }
      const bundle = await hub.fetch(e.identifier);
      if (!bundle) {
        rows.push({ ...row, status: 'unavailable' });
        continue;
      }
      const latest = bundleContentHash(bundle.files);
      rows.push({ ...row, status: latest === e.content_hash ? 'up_to_date' : 'update_available', latest });
    } catch {
      rows.push({ ...row, status: 'unavailable' });
    }
  }
  return rows;
}

export interface UpdateOutcome {
  name: string;
  result: 'updated' | 'skipped' | 'failed';
  reason?: string;
}

/** Updates the hub skills that have a newer version; a copy with local edits is left alone unless `force`. */
export async function updateSkills(hub: SkillsHub, home: string, o: { name?: string; force?: boolean; allowPrivateUrls?: boolean; externalDirs?: string[]; config?: unknown }): Promise<UpdateOutcome[]> {
  const rows = (await checkSkillUpdates(hub, home, o.name)).filter((r) => r.status === 'update_available');
  const out: UpdateOutcome[] = [];
  for (const r of rows) {
    if (r.modified && !o.force) {
      out.push({ name: r.name, result: 'skipped', reason: 'you changed it since it was installed (hermes skills diff shows how; --force replaces it)' });
      continue;
    }
    try {
      // Recorded in the skill ledger like an install: `hermes curator rollback <id>` undoes it.
      const installed = readHubLock(home).installed[r.name]?.install_path;
      const before = captureFiles(home, installed ? join(home, 'skills', installed) : null);
      const res = await installFromHub(hub, r.identifier, { home, replace: true, allowPrivateUrls: o.allowPrivateUrls, externalDirs: o.externalDirs });
      appendEntry(home, { actor: 'user', action: 'update', skill: r.name, before, after: captureFiles(home, res.path), evidence: { source: r.identifier } }, o.config);
      out.push({ name: r.name, result: 'updated' });
    } catch (e) {
      out.push({ name: r.name, result: 'failed', reason: (e as Error).message.split('\n')[0] });
    }
  }
  return out;
}

function readTree(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '__pycache__' || e.name.endsWith('.pyc')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else if (e.isFile()) out[r] = readFileSync(join(d, e.name));
    }
  };
  if (existsSync(dir)) walk(dir, '');
  return out;
}

/** A unified diff from `from` (the upstream copy) to `to` (the installed copy), file by file. */
export function diffTrees(from: Record<string, Buffer>, to: Record<string, Buffer>): string {
  const names = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  const parts: string[] = [];
  for (const n of names) {
    const a = from[n];
    const b = to[n];
    if (a && b && a.equals(b)) continue;
    const binary = [a, b].some((x) => x && x.includes(0));
    if (binary) parts.push(`Binary file ${n} ${!a ? 'added' : !b ? 'removed' : 'differs'}`);
    else parts.push(unifiedDiff(a?.toString('utf8') ?? '', b?.toString('utf8') ?? '', n));
  }
  return parts.filter(Boolean).join('\n');
}

/** How an installed skill differs from where it came from (the bundled copy, or its registry). */
export async function skillDiff(home: string, name: string, o: { bundledRoot: string; hub?: SkillsHub; externalDirs?: string[] }): Promise<{ against: string; diff: string }> {
  const skill = discoverSkills(home, o.externalDirs).find((s) => s.name === name);
  if (!skill) throw new SkillInstallError(`No installed skill named ${name}. See \`hermes skills list\`.`);
  const installed = readTree(skill.dir);
  const lock = readHubLock(home).installed[name];
  if (lock && HUB_SOURCES.has(lock.source)) {
    if (!o.hub) throw new SkillInstallError('No registry access to compare with.');
    const bundle = await o.hub.fetch(lock.identifier);
    if (!bundle) throw new SkillInstallError(`${lock.identifier} is no longer in the registries.`);
    return { against: `${lock.identifier} (${lock.source}, latest)`, diff: diffTrees(bundle.files, installed) };
  }
  const src = bundledSource(o.bundledRoot, name);
  if (src || readBundledManifest(home).has(name)) {
    if (!src) throw new SkillInstallError(`${name} came with another version of Hermes; this one does not ship it.`);
    return { against: `the bundled copy (${src.dir})`, diff: diffTrees(readTree(src.dir), installed) };
  }
  throw new SkillInstallError(`${name} is your own skill (${skill.dir}): there is no upstream copy to compare with.`);
}
