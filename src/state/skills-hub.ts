// Installing skills a person chose: from a folder, a git repository or a SKILL.md URL. Everything lands
// in skills/.hub/quarantine/ first and is scanned by the skills guard; dangerous findings are never
// installed, cautionary ones only with --force. Provenance goes to .hub/lock.json, every decision to
// .hub/audit.log.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { withFileLock } from './filelock.ts';
import { writeFileAtomic, byString } from './fsutil.ts';
import {
  discoverSkills,
  hubDir,
  loadSkill,
  readHubLock,
  SKILL_FILE,
  skillContentHash,
  unchangedSinceInstall,
  SUPPORT_DIRS,
  type HubLock,
  type HubLockEntry,
  type Skill,
} from './skills.ts';
import { scanForThreats, verdictOf, type ThreatFinding, type Verdict } from './threats.ts';
import { readSuppressedSkills, writeSuppressedSkills } from './skills-bundled.ts';

export const SCANNER_VERSION = 1;
const MAX_FILE_BYTES = 1_000_000;
const MAX_REMOTE_FILES = 50;

export class SkillInstallError extends Error {}

export interface FileFinding extends ThreatFinding {
  file: string;
}

export interface ScanReport {
  verdict: Verdict;
  findings: FileFinding[];
  files: number;
}

/** Scans every text file of a skill folder with the skills guard. */
export function scanSkillDir(dir: string): ScanReport {
  const findings: FileFinding[] = [];
  let files = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        files++;
        const rel = relative(dir, p);
        const size = statSync(p).size;
        if (size > MAX_FILE_BYTES) {
          findings.push({ file: rel, id: 'oversized_file', category: 'supply_chain', severity: 'caution', match: `${size} bytes, not scanned` });
          continue;
        }
        const buf = readFileSync(p);
        if (buf.includes(0)) continue; // binary asset
        for (const f of scanForThreats(buf.toString('utf8'), 'skill')) findings.push({ ...f, file: rel });
      } else if (e.isSymbolicLink()) {
        findings.push({ file: relative(dir, p), id: 'symlink', category: 'supply_chain', severity: 'dangerous', match: 'symbolic link (could point outside the skill)' });
      }
    }
  };
  walk(dir);
  return { verdict: verdictOf(findings), findings, files };
}

export function describeFindings(findings: FileFinding[]): string[] {
  return findings.map((f) => `${f.severity === 'dangerous' ? '✗' : '!'} ${f.file}${f.line ? `:${f.line}` : ''}  ${f.category} (${f.id}): ${f.match}`);
}

function audit(home: string, entry: Record<string, unknown>): void {
  const dir = hubDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  appendFileSync(join(dir, 'audit.log'), `${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`, { mode: 0o600 });
}

function writeLock(home: string, update: (lock: HubLock) => void): void {
  const dir = hubDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  withFileLock(join(dir, 'lock.json.lock'), () => {
    const lock = readHubLock(home);
    update(lock);
    writeFileAtomic(join(dir, 'lock.json'), `${JSON.stringify(lock, null, 2)}\n`, 0o600);
  });
}

// ---------------------------------------------------------------------------------------------
// sources

export type SourceType = 'dir' | 'git' | 'url';

export function classifySource(source: string): SourceType {
  if (/^https?:\/\//i.test(source)) {
    const path = new URL(source).pathname;
    return /\.md$/i.test(path) && !/\.git$/i.test(path) ? 'url' : 'git';
  }
  if (/^(git@|ssh:\/\/|git:\/\/|file:\/\/)/.test(source) || /\.git(#.*)?$/.test(source)) return 'git';
  return 'dir';
}

function run(cmd: string, args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'echo' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      res({ code: -1, stderr: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stderr });
    });
  });
}

function isPrivateAddress(ip: string): boolean {
  if (ip.startsWith('::ffff:')) return isPrivateAddress(ip.slice(7));
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number);
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  const v = ip.toLowerCase();
  return v === '::1' || v === '::' || v.startsWith('fc') || v.startsWith('fd') || v.startsWith('fe80') || v.startsWith('ff');
}

/** Refuses URLs that resolve to private, loopback or link-local addresses unless allowed. */
export async function assertPublicUrl(url: string, allowPrivate: boolean): Promise<void> {
  const u = new URL(url);
  if (!['http:', 'https:'].includes(u.protocol)) throw new SkillInstallError(`Only http(s) URLs can be fetched (got ${u.protocol}).`);
  if (allowPrivate) return;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (/^(metadata\.google\.internal|metadata\.goog)$/i.test(host)) throw new SkillInstallError(`Refusing to fetch from ${host} (a cloud metadata address).`);
  let addrs: string[];
  try {
    addrs = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch (e) {
    throw new SkillInstallError(`Cannot resolve ${host}: ${(e as Error).message}.`);
  }
  const bad = addrs.find(isPrivateAddress);
  if (bad)
    throw new SkillInstallError(
      `Refusing to fetch ${url}: ${host} resolves to a private address (${bad}). Set security.allow_private_urls: true (or HERMES_ALLOW_PRIVATE_URLS=1) to allow it.`,
    );
}

async function fetchText(url: string, allowPrivate: boolean): Promise<string | null> {
  await assertPublicUrl(url, allowPrivate);
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  if (res.status >= 300 && res.status < 400) {
    const loc = res.headers.get('location');
    if (!loc) throw new SkillInstallError(`${url} redirected without a location.`);
    return fetchText(new URL(loc, url).href, allowPrivate);
  }
  if (res.status === 404) return null;
  if (!res.ok) throw new SkillInstallError(`Fetching ${url} failed: HTTP ${res.status}.`);
  const text = await res.text();
  if (text.length > MAX_FILE_BYTES) throw new SkillInstallError(`${url} is larger than ${MAX_FILE_BYTES} bytes.`);
  return text;
}

/** Relative support-file links a SKILL.md mentions (references/…, scripts/…). */
export function referencedFiles(skillMd: string): string[] {
  const re = new RegExp(`(?<![\\w/.])(?:\\./)?((?:${SUPPORT_DIRS.join('|')})/[A-Za-z0-9._/-]+[A-Za-z0-9_])`, 'g');
  const out = new Set<string>();
  for (const m of skillMd.matchAll(re)) if (!m[1].includes('..')) out.add(m[1]);
  return [...out].slice(0, MAX_REMOTE_FILES);
}

async function fetchInto(url: string, dest: string, allowPrivate: boolean): Promise<string[]> {
  const text = await fetchText(url, allowPrivate);
  if (text === null) throw new SkillInstallError(`${url} was not found (HTTP 404).`);
  mkdirSync(dest, { recursive: true });
  writeFileAtomic(join(dest, SKILL_FILE), text, 0o644);
  const missing: string[] = [];
  for (const rel of referencedFiles(text)) {
    const body = await fetchText(new URL(rel, url).href, allowPrivate);
    if (body === null) {
      missing.push(rel);
      continue;
    }
    const p = resolve(dest, rel);
    if (!p.startsWith(dest)) continue;
    mkdirSync(dirname(p), { recursive: true });
    writeFileAtomic(p, body, 0o644);
  }
  return missing;
}

/** Files of an installed skill, relative to its folder. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => byString(a.name, b.name))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk(dir, '');
  return out;
}

/** SKILL.md folders inside a checkout (depth ≤ 4). */
function findSkillDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (existsSync(join(d, SKILL_FILE))) {
      out.push(d);
      return;
    }
    if (depth >= 4) return;
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules') walk(join(d, e.name), depth + 1);
  };
  walk(root, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// install / uninstall / audit

export interface InstallOptions {
  home: string;
  source: string;
  /** Category folder to install under (default: the skill's own category, else none). */
  category?: string;
  /** Which skill to take when the source holds several. */
  skill?: string;
  /** Install despite cautionary findings (never despite dangerous ones). */
  force?: boolean;
  allowPrivateUrls?: boolean;
  externalDirs?: string[];
  /** Where the files really came from, when `source` is a folder they were fetched into (hub installs). */
  provenance?: { source: string; identifier: string; trust_level: string; metadata?: Record<string, unknown> };
  /** Replace the installed skill of the same name (hub update); it is only removed once the new one passed the guard. */
  replace?: boolean;
}

export interface InstallResult {
  name: string;
  path: string;
  verdict: Verdict;
  findings: FileFinding[];
  forced: boolean;
  missingFiles: string[];
  description: string;
}

export async function installSkill(o: InstallOptions): Promise<InstallResult> {
  const type = classifySource(o.source);
  const hub = hubDir(o.home);
  const quarantine = join(hub, 'quarantine', `${Date.now()}-${randomBytes(4).toString('hex')}`);
  mkdirSync(quarantine, { recursive: true, mode: 0o700 });
  let missingFiles: string[] = [];
  try {
    // 1. Fetch into quarantine.
    if (type === 'dir') {
      const src = resolve(o.source.replace(/^~(?=\/|$)/, process.env.HOME ?? '~'));
      if (!existsSync(src)) throw new SkillInstallError(`No such folder or file: ${o.source}.`);
      const from = statSync(src).isFile() ? (basename(src) === SKILL_FILE ? dirname(src) : null) : src;
      if (!from) throw new SkillInstallError(`${o.source} is a file but not a SKILL.md.`);
      cpSync(from, join(quarantine, 'src'), { recursive: true, verbatimSymlinks: true, filter: (p) => basename(p) !== '.git' });
    } else if (type === 'git') {
      const [url, sub] = o.source.split('#');
      if (/^https?:/.test(url)) await assertPublicUrl(url, !!o.allowPrivateUrls);
      const r = await run('git', ['clone', '--depth', '1', '--quiet', '--', url, join(quarantine, 'src')]);
      if (r.code !== 0) throw new SkillInstallError(`git clone ${url} failed: ${r.stderr.trim().split('\n').pop() || `exit ${r.code}`}.`);
      rmSync(join(quarantine, 'src', '.git'), { recursive: true, force: true });
      if (sub) {
        const inner = resolve(quarantine, 'src', sub);
        if (!inner.startsWith(join(quarantine, 'src')) || !existsSync(inner)) throw new SkillInstallError(`The repository has no folder ${sub}.`);
        renameSync(inner, join(quarantine, 'sub'));
        rmSync(join(quarantine, 'src'), { recursive: true, force: true });
        renameSync(join(quarantine, 'sub'), join(quarantine, 'src'));
      }
    } else {
      missingFiles = await fetchInto(o.source, join(quarantine, 'src'), !!o.allowPrivateUrls);
    }

    // 2. Find the skill.
    const dirs = findSkillDirs(join(quarantine, 'src'));
    if (!dirs.length) throw new SkillInstallError(`No ${SKILL_FILE} found in ${o.source}.`);
    const loaded: Skill[] = [];
    for (const d of dirs) {
      try {
        loaded.push(loadSkill(join(d, SKILL_FILE), 'hub', null));
      } catch (e) {
        if (dirs.length === 1) throw new SkillInstallError(`${o.source}: ${(e as Error).message}.`);
      }
    }
    let chosen: Skill | undefined;
    if (o.skill) chosen = loaded.find((s) => s.name === o.skill);
    else if (loaded.length === 1) chosen = loaded[0];
    if (!chosen)
      throw new SkillInstallError(
        o.skill
          ? `${o.source} has no skill named ${o.skill} (it has: ${loaded.map((s) => s.name).join(', ')}).`
          : `${o.source} holds ${loaded.length} skills (${loaded.map((s) => s.name).join(', ')}); pick one with --skill <name>.`,
      );
    if (!chosen.description) throw new SkillInstallError(`The skill ${chosen.name} has no description in its frontmatter.`);
    const existing = discoverSkills(o.home, o.externalDirs).find((s) => s.name === chosen!.name);
    if (existing && !(o.replace && existing.source !== 'external'))
      throw new SkillInstallError(`A skill named ${chosen.name} is already installed (${existing.dir}). Uninstall it first: hermes skills uninstall ${chosen.name}`);

    // 3. Scan.
    const report = scanSkillDir(chosen.dir);
    const forced = report.verdict === 'caution' && !!o.force;
    if (report.verdict === 'dangerous' || (report.verdict === 'caution' && !o.force)) {
      audit(o.home, { action: 'blocked', name: chosen.name, source: o.source, verdict: report.verdict, findings: report.findings.length });
      const err = new SkillInstallError(
        report.verdict === 'dangerous'
          ? `Refused to install ${chosen.name}: the skills guard found dangerous content.\n${describeFindings(report.findings).join('\n')}`
          : `Not installed: ${chosen.name} needs a closer look.\n${describeFindings(report.findings).join('\n')}\nRead the files; if you trust them, install with --force.`,
      );
      (err as SkillInstallError & { report?: ScanReport }).report = report;
      throw err;
    }

    // 4. Install and record.
    const category = (o.category ?? chosen.category ?? '').trim().replace(/[^a-z0-9._/-]/gi, '-').toLowerCase();
    const dest = existing && o.replace ? existing.dir : category ? join(o.home, 'skills', ...category.split('/').filter(Boolean), chosen.name) : join(o.home, 'skills', chosen.name);
    if (existing && o.replace) {
      // The old copy moves aside first and is deleted only once the new one is in place.
      const aside = join(quarantine, 'previous');
      renameSync(dest, aside);
      try {
        renameSync(chosen.dir, dest);
      } catch (e) {
        renameSync(aside, dest);
        throw e;
      }
    } else {
      if (existsSync(dest)) throw new SkillInstallError(`${dest} already exists; remove it or choose another --category.`);
      mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
      renameSync(chosen.dir, dest);
    }
    const entry: HubLockEntry = {
      source: o.provenance?.source ?? (type === 'dir' ? 'local' : type),
      identifier: o.provenance?.identifier ?? o.source,
      trust_level: o.provenance?.trust_level ?? 'community',
      ...(o.provenance?.metadata ? { metadata: o.provenance.metadata } : {}),
      scan_verdict: report.verdict,
      content_hash: skillContentHash(dest),
      install_path: relative(join(o.home, 'skills'), dest),
      files: listFiles(dest),
      installed_at: new Date().toISOString(),
      scanner_version: SCANNER_VERSION,
      findings: report.findings.map((f) => ({ id: f.id, category: f.category, severity: f.severity, file: f.file, line: f.line })),
      ...(forced ? { forced: true } : {}),
    };
    writeLock(o.home, (lock) => {
      lock.installed[chosen!.name] = entry;
    });
    audit(o.home, { action: existing && o.replace ? 'update' : 'install', name: chosen.name, source: o.provenance?.identifier ?? o.source, verdict: report.verdict, forced, findings: report.findings.length });
    return { name: chosen.name, path: dest, verdict: report.verdict, findings: report.findings, forced, missingFiles, description: chosen.description };
  } finally {
    rmSync(quarantine, { recursive: true, force: true });
  }
}

/** Removes an installed skill (hub-installed or the user's own); a bundled one is hidden in this home. */
export function uninstallSkill(home: string, name: string, externalDirs: string[] = []): { path: string; wasHub: boolean; hidden?: boolean } {
  const skill = discoverSkills(home, externalDirs).find((s) => s.name === name);
  if (!skill) throw new SkillInstallError(`No installed skill named ${name}. See \`hermes skills list\`.`);
  if (skill.source === 'external') throw new SkillInstallError(`${name} lives in an external folder (${skill.dir}); remove it there or from skills.external_dirs.`);
  if (skill.packaged) {
    // The package's copy stays; the skill is hidden in this home (`hermes skills reset <name>` shows it again).
    const hidden = readSuppressedSkills(home);
    hidden.add(name);
    writeSuppressedSkills(home, hidden);
    audit(home, { action: 'uninstall', name, source: 'bundled' });
    return { path: skill.dir, wasHub: false, hidden: true };
  }
  rmSync(skill.dir, { recursive: true, force: true });
  const lock = readHubLock(home);
  const wasHub = !!lock.installed[name];
  if (wasHub)
    writeLock(home, (l) => {
      delete l.installed[name];
    });
  audit(home, { action: 'uninstall', name, source: lock.installed[name]?.identifier ?? skill.source });
  return { path: skill.dir, wasHub };
}

export interface AuditRow {
  name: string;
  source: string;
  verdict: Verdict;
  findings: FileFinding[];
  /** The files changed since install (hub skills). */
  modified?: boolean;
}

/** Re-scans installed skills (all, or one). */
export function auditSkills(home: string, name?: string, externalDirs: string[] = []): AuditRow[] {
  const lock = readHubLock(home);
  const skills = discoverSkills(home, externalDirs).filter((s) => !name || s.name === name);
  if (name && !skills.length) throw new SkillInstallError(`No installed skill named ${name}.`);
  const rows = skills.map((s) => {
    const r = scanSkillDir(s.dir);
    const entry = lock.installed[s.name];
    return { name: s.name, source: entry?.identifier ?? s.source, verdict: r.verdict, findings: r.findings, modified: entry ? !unchangedSinceInstall(entry, s.dir) : undefined };
  });
  audit(home, { action: 'audit', skills: rows.length, dangerous: rows.filter((r) => r.verdict === 'dangerous').map((r) => r.name) });
  return rows;
}
