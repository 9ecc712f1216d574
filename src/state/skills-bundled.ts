// Bundled skills: the package's skills/ folder is read in place (see retireSeededCopies for why they are
// not copied into a home as Python Hermes copies its own). HERMES_HOME/skills/.bundled_manifest is
// Python Hermes's record of the skills *it* seeded ("name:hash" lines, sorted; the MD5 computed here
// exactly as Hermes computes it): this reads it so Hermes's seeded copies show as bundled, and keeps
// its entries as they are.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { byString, writeFileAtomic } from './fsutil.ts';
import { packageRoot } from './paths.ts';

const MANIFEST = '.bundled_manifest';
const SKILL_FILE = 'SKILL.md';
/** Bumped when what retireSeededCopies does changes: forces one full pass on old homes. */
const SYNC_VERSION = 'v3';

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

/** The package's own skills folder, read in place (never copied into a home). */
export function bundledSkillsRoot(): string {
  return join(packageRoot(), 'skills');
}

/** Every skill below a bundled root: its name (frontmatter, else folder), folder, and path below the root. */
export function bundledSkills(bundledRoot: string): { name: string; dir: string; rel: string }[] {
  const out: { name: string; dir: string; rel: string }[] = [];
  const walk = (dir: string, rel: string[]) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const d = join(dir, e.name);
      if (existsSync(join(d, SKILL_FILE))) out.push({ name: skillName(d, e.name), dir: d, rel: [...rel, e.name].join('/') });
      else if (rel.length < 3) walk(d, [...rel, e.name]);
    }
  };
  walk(bundledRoot, []);
  return out;
}

/**
 * HERMES_HOME/skills/.curator_suppressed: built-in skills not to offer in this home, one name a line
 * (Hermes's file: its curator writes the bundled skills it pruned there, and its sync never seeds
 * them again). Here a bundled skill the user deleted or uninstalled is written there too.
 */
const SUPPRESSED = '.curator_suppressed';

export function readSuppressedSkills(home: string): Set<string> {
  const names = new Set<string>();
  try {
    for (const raw of readFileSync(join(home, 'skills', SUPPRESSED), 'utf8').replace(/^\uFEFF/, '').split('\n')) {
      const line = raw.trim();
      if (line && !line.startsWith('#')) names.add(line);
    }
  } catch {
    /* none */
  }
  return names;
}

export function writeSuppressedSkills(home: string, names: Set<string>): void {
  const root = join(home, 'skills');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  writeFileAtomic(join(root, SUPPRESSED), [...names].sort(byCodePoint).map((n) => `${n}\n`).join(''), 0o644);
}

/**
 * The Hermes hashes of the skills earlier versions of this project copied into homes (before bundled
 * skills were read in place): proof that an untouched copy is ours to take back, even after the
 * package's version of the skill changed.
 */
const SEEDED_BEFORE: Record<string, string> = {
  'skill-authoring': '6824786c01ec8d53f045ba1daadd08f6',
  'hermes-housekeeping': '40fe840d2813063826b95cf61ae4992f',
  'code-review': '988e6f9bc3aab0cd6e335c2790a0fcae',
  'systematic-debugging': '34ab05424682c0569255098fab4e7dfd',
  'log-investigation': '2b4f204eb8a0b0a4dde27b202851bc5a',
};

export interface RetireResult {
  /** Untouched copies removed (the package's copy is read in place instead). */
  removed: string[];
  /** Copies the user changed: they stay as the user's own skill and leave the manifest. */
  kept: string[];
  /** Copies the user had deleted: the bundled skill stays hidden (.curator_suppressed). */
  hidden: string[];
}

/**
 * Bundled skills are read in place from the package, never copied into a home: Python Hermes's sync
 * (`tools/skills_sync.py`, run at every CLI, gateway and dashboard start) deletes every manifest entry
 * whose name its own package does not ship, after which it lists such a copy as the user's own
 * ("local") skill, and it overwrites an untouched copy whose name it does ship with its own version.
 * This takes back what earlier versions of this project seeded: a copy still byte-identical to what
 * was seeded, and provably ours (the hash is this package's, or one an earlier version shipped, or
 * the 16-hex hash only this project wrote), is removed with its manifest entry. Edited copies stay as
 * the user's skill; a skill the user had deleted stays hidden. Entries Python Hermes seeded are never
 * touched. Cheap when nothing changed: a stamp of the package's skills is compared and no file is read.
 */
export function retireSeededCopies(home: string, bundledRoot: string): RetireResult {
  const res: RetireResult = { removed: [], kept: [], hidden: [] };
  const root = join(home, 'skills');
  if (!existsSync(bundledRoot) || !existsSync(join(root, MANIFEST))) return res;
  const stampPath = join(root, '.bundled_sync');
  // The bundle carries the signature of the package's own skills, computed at build time.
  const tree =
    typeof __HERMES_BUNDLED_SKILLS_SIGNATURE__ === 'string' && bundledRoot === bundledSkillsRoot()
      ? __HERMES_BUNDLED_SKILLS_SIGNATURE__
      : bundledSkillsSignature(bundledRoot);
  const signature = `${SYNC_VERSION}:${tree}`;
  try {
    if (readFileSync(stampPath, 'utf8').trim() === signature) return res;
  } catch {
    /* first run */
  }
  const manifest = readBundledManifest(home);
  const suppressed = readSuppressedSkills(home);
  let changed = false;
  for (const s of bundledSkills(bundledRoot)) {
    const seeded = manifest.get(s.name);
    if (!seeded) continue;
    const legacy = LEGACY.test(seeded);
    if (!legacy && seeded !== bundledSkillHash(s.dir) && seeded !== SEEDED_BEFORE[s.name]) continue; // seeded by Python Hermes
    const copy = findInstalled(root, s.name);
    manifest.delete(s.name);
    changed = true;
    if (!copy) {
      suppressed.add(s.name);
      res.hidden.push(s.name);
    } else if ((legacy ? shortDirHash(copy) : bundledSkillHash(copy)) === seeded) {
      rmSync(copy, { recursive: true, force: true });
      res.removed.push(s.name);
    } else res.kept.push(s.name);
  }
  if (changed) {
    writeBundledManifest(home, manifest);
    if (res.hidden.length) writeSuppressedSkills(home, suppressed);
  }
  try {
    writeFileAtomic(stampPath, `${signature}\n`, 0o644);
  } catch {
    /* read-only home: check again next time */
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
 * `hermes skills reset <name>`. For a skill this package ships (read in place): shows it again if it
 * was hidden, and with `restore` moves the user's own copy of the same name (which takes precedence)
 * to skills/.archive, so the bundled version is used again. For a skill Python Hermes seeded into the
 * home: the installed copy becomes the new baseline in the manifest (Hermes's `reset`); it cannot be
 * restored from here. Throws when the skill is neither.
 */
export function resetBundledSkill(home: string, bundledRoot: string, name: string, restore: boolean): { restored: boolean; path: string; note: string } {
  const root = join(home, 'skills');
  const src = bundledSource(bundledRoot, name);
  const manifest = readBundledManifest(home);
  if (src) {
    const suppressed = readSuppressedSkills(home);
    const wasHidden = suppressed.delete(name);
    if (wasHidden) writeSuppressedSkills(home, suppressed);
    const copy = findInstalled(root, name);
    if (copy && !restore) return { restored: false, path: copy, note: `Your own copy of ${name} (${copy}) is used instead of the bundled one; \`hermes skills reset ${name} --restore\` archives it and uses the bundled version again.` };
    if (copy) {
      const archive = join(root, '.archive');
      mkdirSync(archive, { recursive: true, mode: 0o700 });
      const dest = join(archive, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      renameSync(copy, dest);
      if (manifest.delete(name)) writeBundledManifest(home, manifest);
      return { restored: true, path: src.dir, note: `The bundled ${name} is used again; your copy was moved to ${dest}.` };
    }
    return { restored: restore, path: src.dir, note: wasHidden ? `The bundled ${name} is offered again.` : `${name} is already the bundled version (${src.dir}).` };
  }
  if (!manifest.has(name)) throw new Error(`${name} is not a bundled skill (see \`hermes skills list\`; hub skills update with \`hermes skills update\`).`);
  const target = findInstalled(root, name);
  if (restore) throw new Error(`This version of Hermes does not ship ${name}, so there is nothing to restore it from.`);
  if (!target) throw new Error(`${name} is not installed (it was deleted from ${root}).`);
  manifest.set(name, bundledSkillHash(target));
  writeBundledManifest(home, manifest);
  return { restored: false, path: target, note: `${name} is tracked again: your current copy is the baseline, so the next update replaces it.` };
}
