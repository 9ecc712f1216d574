// Bundled skills: copied from the package's skills/ into HERMES_HOME/skills, never over user edits.
// HERMES_HOME/skills/.bundled_manifest records, per skill name, the MD5 of the copy that was seeded
// ("name:hash" lines, sorted), computed exactly as Python Hermes computes it, so both programs agree
// on which skills are untouched and which the user edited. Manifests this project wrote before (16
// hex characters of a SHA-256 over its own layout) are migrated to Hermes's hash on the next sync.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { byString, writeFileAtomic } from './fsutil.ts';
import { packageRoot } from './paths.ts';

const MANIFEST = '.bundled_manifest';
const SKILL_FILE = 'SKILL.md';
/** Bumped when the sync itself changes (a new manifest format): forces one full sync on old homes. */
const SYNC_VERSION = 'v2';

const RUNTIME_CACHE_DIRS = new Set(['__pycache__']);
const RUNTIME_CACHE_SUFFIXES = ['.pyc', '.pyo'];

/** Python's `str` ordering: by code point (JS compares UTF-16 units). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
}

/** Python's `Path` ordering: component by component. */
function byPathParts(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = byCodePoint(a[i], b[i]);
    if (d) return d;
  }
  return a.length - b.length;
}

/**
 * Hermes's skill hash: MD5 over every file below `dir` (dot-files too; Python bytecode caches
 * left out), in Path order, each as its relative path followed by its bytes, with no separators.
 */
export function bundledSkillHash(dir: string): string {
  const files: string[][] = [];
  const walk = (d: string, rel: string[]) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const parts = [...rel, e.name];
      if (e.isDirectory()) {
        if (!RUNTIME_CACHE_DIRS.has(e.name)) walk(join(d, e.name), parts);
      } else if (e.isFile() && !RUNTIME_CACHE_SUFFIXES.some((s) => e.name.endsWith(s))) files.push(parts);
    }
  };
  walk(dir, []);
  files.sort(byPathParts);
  const h = createHash('md5');
  for (const parts of files) {
    h.update(parts.join('/'), 'utf8');
    h.update(readFileSync(join(dir, ...parts)));
  }
  return h.digest('hex');
}

/** Visible files below `dir` (dot-files and dot-folders left out), in name order, with their relative paths. */
function visibleFiles(dir: string, fn: (path: string, rel: string) => void): void {
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => byString(a.name, b.name))) {
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else if (e.isFile()) fn(p, r);
    }
  };
  walk(dir, '');
}

/**
 * 16 hex characters of a SHA-256 over a folder's visible files: the hub lock's content hash, and the
 * bundled-skills hash this project recorded before it used Hermes's.
 */
export function shortDirHash(dir: string): string {
  const h = createHash('sha256');
  visibleFiles(dir, (p, r) => {
    h.update(r);
    h.update('\0');
    h.update(readFileSync(p));
    h.update('\0');
  });
  return h.digest('hex').slice(0, 16);
}

const LEGACY = /^[0-9a-f]{16}$/;

/** name → hash seeded, from HERMES_HOME/skills/.bundled_manifest ("name:hash" lines; a bare name = unknown hash). */
export function readBundledManifest(home: string): Map<string, string> {
  const m = new Map<string, string>();
  const p = join(home, 'skills', MANIFEST);
  if (!existsSync(p)) return m;
  for (const raw of readFileSync(p, 'utf8').replace(/^\uFEFF/, '').split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const i = line.indexOf(':');
    if (i < 0) m.set(line, '');
    else m.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return m;
}

export function writeBundledManifest(home: string, manifest: Map<string, string>): void {
  const root = join(home, 'skills');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const lines = [...manifest.entries()].sort(([a], [b]) => byCodePoint(a, b)).map(([k, v]) => `${k}:${v}\n`);
  writeFileAtomic(join(root, MANIFEST), lines.join(''), 0o644);
}

export interface BundledSyncResult {
  installed: string[];
  updated: string[];
  /** Edited by the user since seeding: left alone. */
  userModified: string[];
  /** Old-format manifest entries rewritten with Hermes's hash. */
  migrated?: string[];
}

/** A signature of a bundled-skills tree (paths, sizes, mtimes): changes when the package's skills do. */
export function bundledSkillsSignature(dir: string): string {
  const h = createHash('sha256');
  visibleFiles(dir, (p, r) => {
    const st = statSync(p);
    h.update(`${r}\0${st.size}\0${st.mtimeMs}\n`);
  });
  return h.digest('hex').slice(0, 16);
}

declare const __HERMES_BUNDLED_SKILLS_SIGNATURE__: string | undefined;

/** The skill's name as Hermes keys it: the frontmatter `name`, else the folder name. */
function skillName(dir: string, folder: string): string {
  try {
    const text = readFileSync(join(dir, SKILL_FILE), 'utf8');
    const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
    const name = m && /^name:\s*["']?([a-z0-9][a-z0-9._-]{0,63})["']?\s*$/m.exec(m[1]);
    if (name) return name[1];
  } catch {
    /* unreadable: the folder name */
  }
  return folder;
}

/** The opt-out marker Hermes writes (`hermes skills opt-out`, `profile create --no-skills`). */
export const NO_BUNDLED_MARKER = '.no-bundled-skills';

export function bundledOptedOut(home: string): boolean {
  return existsSync(join(home, NO_BUNDLED_MARKER)) || existsSync(join(home, 'skills', NO_BUNDLED_MARKER));
}

/**
 * Seeds bundled skills into HERMES_HOME/skills: new ones are copied, unmodified seeded ones are
 * updated, skills the user edited or deleted are left alone. `.no-bundled-skills` in HERMES_HOME opts out
 * (`hermes skills opt-out`; older homes of this project put it in skills/, which still counts).
 * Cheap when nothing changed: a stamp of the package's skills is compared and no file is read.
 */
export function syncBundledSkills(home: string, bundledRoot: string): BundledSyncResult {
  const res: BundledSyncResult = { installed: [], updated: [], userModified: [] };
  const root = join(home, 'skills');
  if (!existsSync(bundledRoot) || bundledOptedOut(home)) return res;
  const stampPath = join(root, '.bundled_sync');
  // The bundle carries the signature of the package's own skills, computed at build time.
  const tree =
    typeof __HERMES_BUNDLED_SKILLS_SIGNATURE__ === 'string' && bundledRoot === join(packageRoot(), 'skills')
      ? __HERMES_BUNDLED_SKILLS_SIGNATURE__
      : bundledSkillsSignature(bundledRoot);
  const signature = `${SYNC_VERSION}:${tree}`;
  try {
    if (readFileSync(stampPath, 'utf8').trim() === signature) return res;
  } catch {
    /* first sync */
  }
  const manifest = readBundledManifest(home);
  const sources: { name: string; dir: string; rel: string }[] = [];
  const walk = (dir: string, rel: string[]) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const d = join(dir, e.name);
      if (existsSync(join(d, SKILL_FILE))) sources.push({ name: skillName(d, e.name), dir: d, rel: [...rel, e.name].join('/') });
      else if (rel.length < 3) walk(d, [...rel, e.name]);
    }
  };
  walk(bundledRoot, []);
  let changed = false;
  for (const s of sources) {
    const target = join(root, ...s.rel.split('/'));
    const srcHash = bundledSkillHash(s.dir);
    let seeded = manifest.get(s.name);
    if (seeded && LEGACY.test(seeded)) {
      // Written by an older version of this project: translate to Hermes's hash where the origin is provable.
      const migrated = shortDirHash(s.dir) === seeded ? srcHash : existsSync(target) && shortDirHash(target) === seeded ? bundledSkillHash(target) : null;
      if (migrated) {
        manifest.set(s.name, migrated);
        seeded = migrated;
        (res.migrated ??= []).push(s.name);
        changed = true;
      }
    }
    if (!existsSync(target)) {
      if (seeded !== undefined) continue; // the user deleted it: respect that
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      cpSync(s.dir, target, { recursive: true });
      manifest.set(s.name, srcHash);
      res.installed.push(s.name);
      changed = true;
      continue;
    }
    if (seeded === srcHash) continue;
    const current = bundledSkillHash(target);
    if (seeded && current === seeded) {
      rmSync(target, { recursive: true, force: true });
      cpSync(s.dir, target, { recursive: true });
      manifest.set(s.name, srcHash);
      res.updated.push(s.name);
      changed = true;
    } else if (current === srcHash) {
      manifest.set(s.name, srcHash);
      changed = true;
    } else res.userModified.push(s.name);
  }
  // Entries of skills this package does not ship (seeded by Python Hermes) stay as they are; old-format
  // ones are translated when the installed copy still matches.
  for (const [name, h] of manifest) {
    if (!LEGACY.test(h) || sources.some((s) => s.name === name)) continue;
    const dir = findInstalled(root, name);
    if (dir && shortDirHash(dir) === h) {
      manifest.set(name, bundledSkillHash(dir));
      (res.migrated ??= []).push(name);
      changed = true;
    }
  }
  if (changed) writeBundledManifest(home, manifest);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    writeFileAtomic(stampPath, `${signature}\n`, 0o644);
  } catch {
    /* read-only home: sync again next time */
  }
  return res;
}

/** The installed folder of a skill by name (up to three category levels deep), or null. */
function findInstalled(root: string, name: string): string | null {
  return bundledSource(root, name)?.dir ?? null;
}

/** A skill's folder by name below a skills root (the package's or HERMES_HOME's) and its path below it, or null. */
export function bundledSource(bundledRoot: string, name: string): { dir: string; rel: string } | null {
  const walk = (dir: string, rel: string[]): { dir: string; rel: string } | null => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return null;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const d = join(dir, e.name);
      if (existsSync(join(d, SKILL_FILE))) {
        if (skillName(d, e.name) === name) return { dir: d, rel: [...rel, e.name].join('/') };
      } else if (rel.length < 3) {
        const hit = walk(d, [...rel, e.name]);
        if (hit) return hit;
      }
    }
    return null;
  };
  return walk(bundledRoot, []);
}

/**
 * `hermes skills reset <name>`: the installed copy becomes the new baseline in the manifest, so the
 * next sync updates it again instead of treating it as the user's edit. With `restore`, the bundled
 * version replaces the copy first. Returns what was done, or throws when the skill is not bundled.
 */
export function resetBundledSkill(home: string, bundledRoot: string, name: string, restore: boolean): { restored: boolean; path: string } {
  const src = bundledSource(bundledRoot, name);
  const manifest = readBundledManifest(home);
  if (!src && !manifest.has(name)) throw new Error(`${name} is not a bundled skill (see \`hermes skills list\`; hub skills update with \`hermes skills update\`).`);
  const root = join(home, 'skills');
  const target = findInstalled(root, name) ?? (src ? join(root, ...src.rel.split('/')) : null);
  if (!target) throw new Error(`${name} is not installed and has no bundled copy to restore.`);
  if (restore) {
    if (!src) throw new Error(`This version of Hermes does not ship ${name}, so there is nothing to restore it from.`);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    cpSync(src.dir, target, { recursive: true });
    manifest.set(name, bundledSkillHash(src.dir));
  } else {
    if (!existsSync(target)) throw new Error(`${name} is not installed (${target}); use --restore to copy the bundled version back.`);
    manifest.set(name, bundledSkillHash(target));
  }
  writeBundledManifest(home, manifest);
  rmSync(join(root, '.bundled_sync'), { force: true });
  return { restored: restore, path: target };
}
