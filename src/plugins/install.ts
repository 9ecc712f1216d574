// Installing plugins into HERMES_HOME/plugins: a local folder (copied), a git repository (cloned;
// `--ref` pins a full 40-hex commit and is verified), `owner/repo` (GitHub), or `npm:<spec>` (an npm
// package, installed with npm into HERMES_HOME/plugins/node_modules). Provenance goes to
// plugins/.install-metadata.json (no secrets). Installing never enables: that is a separate consent.
// A plugin whose files include a symbolic link leading outside its own folder (to ~/.hermes/.env,
// ~/.ssh…), or pointing nowhere, is refused: from a folder, a git checkout, npm, and on update.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';
import { expandHome } from '../state/paths.ts';
import { npmPluginsDir, userPluginsDir } from './discovery.ts';

export const METADATA_FILE = '.install-metadata.json';
const SHA = /^[0-9a-f]{40}$/;

export interface InstallRecord {
  kind: 'git' | 'npm' | 'local';
  source: string;
  /** The commit installed (git). */
  revision?: string;
  pinned?: boolean;
  installed_at: string;
}

export class InstallError extends Error {}

export function readMetadata(home: string): Record<string, InstallRecord> {
  try {
    const v = JSON.parse(readFileSync(join(userPluginsDir(home), METADATA_FILE), 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, InstallRecord>) : {};
  } catch {
    return {};
  }
}

function writeMetadata(home: string, data: Record<string, InstallRecord>): void {
  writeFileAtomic(join(userPluginsDir(home), METADATA_FILE), `${JSON.stringify(data, null, 2)}\n`, 0o600);
}

function run(cmd: string, args: string[], cwd?: string, env?: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...env }, encoding: 'utf8', timeout: 300_000 });
  if (r.error) throw new InstallError(`${cmd} could not run (${(r.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${cmd} is not installed` : r.error.message})`);
  if (r.status !== 0) throw new InstallError(`${cmd} ${args[0]} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}`);
  return r.stdout.trim();
}

/**
 * The first symbolic link under `root` that leads outside it (followed to its end) or points
 * nowhere, as `link → target`; null when every link stays inside. Linked folders are not entered.
 */
export function linkLeaving(root: string): string | null {
  const base = realpathSync(root);
  const inside = (p: string) => p === base || p.startsWith(base.endsWith(sep) ? base : base + sep);
  const walk = (dir: string): string | null => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(p);
        } catch {
          return `${relative(base, p)} (points nowhere)`;
        }
        if (!inside(target)) return `${relative(base, p)} → ${target}`;
      } else if (st.isDirectory()) {
        const bad = walk(p);
        if (bad) return bad;
      }
    }
    return null;
  };
  return walk(base);
}

function refuseOutsideLinks(root: string, what: string): void {
  const bad = linkLeaving(root);
  if (bad) throw new InstallError(`${what} holds a link that leads outside the plugin's folder (${bad}); not installed. A plugin's files must stay inside its folder.`);
}

export type SourceKind = { kind: 'local'; path: string } | { kind: 'git'; url: string } | { kind: 'npm'; spec: string };

/** What an install source names. */
export function parseSource(source: string, cwd = process.cwd()): SourceKind {
  const s = source.trim();
  if (s.startsWith('npm:')) return { kind: 'npm', spec: s.slice(4) };
  const local = resolve(cwd, expandHome(s));
  if (existsSync(local) && statSync(local).isDirectory()) return { kind: 'local', path: local };
  if (/^(https?|ssh|git|file):\/\//.test(s) || /^[\w.-]+@[\w.-]+:/.test(s)) return { kind: 'git', url: s };
  if (/^[\w.-]+\/[\w.-]+$/.test(s)) return { kind: 'git', url: `https://github.com/${s.replace(/\.git$/, '')}.git` };
  throw new InstallError(`"${source}" is not a folder, a git URL, owner/repo or npm:<package>.`);
}

/** The plugin's folder name: the manifest's `name`, else the source's last path part. */
function pluginNameIn(dir: string, fallback: string, parse: (t: string) => unknown): string {
  for (const f of ['plugin.yaml', 'plugin.yml']) {
    const p = join(dir, f);
    if (!existsSync(p)) continue;
    const m = parse(readFileSync(p, 'utf8')) as { name?: unknown } | null;
    if (m && typeof m.name === 'string' && /^[a-z0-9][a-z0-9_.-]{0,63}$/i.test(m.name.trim())) return m.name.trim().toLowerCase();
  }
  return fallback.replace(/\.git$/, '').toLowerCase();
}

export interface InstallResult {
  key: string;
  dir: string;
  record: InstallRecord;
}

/** Installs a plugin; returns its key (the `plugins.enabled` name) and folder. */
export function installPlugin(home: string, source: string, o: { ref?: string; force?: boolean; parse: (t: string) => unknown; cwd?: string }): InstallResult {
  const src = parseSource(source, o.cwd);
  const root = userPluginsDir(home);
  const now = new Date().toISOString();
  if (o.ref && (src.kind !== 'git' || !SHA.test(o.ref))) throw new InstallError('--ref takes a full 40-character commit SHA, and only for git sources (tags and branches move).');
  if (src.kind === 'npm') {
    const dir = npmPluginsDir(home);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const spec = registrySpec(src.spec) ? src.spec : npmLocalSpec(src.spec, o.cwd);
    run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--ignore-scripts', spec]);
    const name = registrySpec(src.spec) ? npmName(src.spec) : installedNameFor(dir, spec);
    const pkgDir = join(dir, 'node_modules', name);
    if (!existsSync(pkgDir)) throw new InstallError(`npm installed ${src.spec}, but ${pkgDir} is missing`);
    try {
      refuseOutsideLinks(pkgDir, `npm package ${name}`);
    } catch (e) {
      spawnSync('npm', ['uninstall', '--prefix', dir, '--no-audit', '--no-fund', name], { timeout: 300_000 });
      throw e;
    }
    const record: InstallRecord = { kind: 'npm', source: spec, installed_at: now };
    saveRecord(home, name, record);
    return { key: name, dir: pkgDir, record };
  }
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const staging = mkdtempSync(join(root, '.staging-'));
  try {
    let record: InstallRecord;
    let from = staging;
    if (src.kind === 'local') {
      // Links are copied as written (a relative one stays relative), then checked below.
      cpSync(src.path, staging, { recursive: true, verbatimSymlinks: true, filter: (p) => !/(^|\/)(\.git|node_modules|__pycache__)$/.test(p) });
      record = { kind: 'local', source: src.path, installed_at: now };
    } else {
      run('git', ['clone', '--quiet', ...(o.ref ? [] : ['--depth', '1']), src.url, staging]);
      if (o.ref) {
        run('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', o.ref], staging);
        const head = run('git', ['rev-parse', 'HEAD'], staging);
        if (head !== o.ref) throw new InstallError(`after checkout HEAD is ${head}, not the requested ${o.ref}`);
      }
      record = { kind: 'git', source: src.url, revision: run('git', ['rev-parse', 'HEAD'], staging), pinned: !!o.ref, installed_at: now };
      from = staging;
    }
    if (!existsSync(join(from, 'plugin.yaml')) && !existsSync(join(from, 'plugin.yml'))) throw new InstallError(`${source} has no plugin.yaml at its top level, so it is not a Hermes plugin.`);
    refuseOutsideLinks(from, source);
    const key = pluginNameIn(from, src.kind === 'local' ? basename(src.path) : basename(src.url), o.parse);
    const dest = join(root, key);
    if (existsSync(dest)) {
      if (!o.force) throw new InstallError(`A plugin named "${key}" is already installed at ${dest}. Use --force to replace it, or \`hermes plugins update ${key}\`.`);
      rmSync(dest, { recursive: true, force: true });
    }
    renameSync(from, dest);
    saveRecord(home, key, record);
    return { key, dir: dest, record };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** `name`, `name@range` or `@scope/name[@range]`: a package from the registry (else a tarball, folder, URL). */
const registrySpec = (spec: string) => /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[^/\s]+)?$/i.test(spec.trim()) && !/\.t(ar\.)?gz$/i.test(spec.trim());

/** A tarball or folder given as a path: absolute, so npm and the record do not depend on the cwd. */
function npmLocalSpec(spec: string, cwd = process.cwd()): string {
  const s = spec.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(s) && !/^file:/i.test(s)) return s;
  return resolve(cwd, s.replace(/^file:/i, ''));
}

/** The package name npm recorded for a tarball / folder / URL spec in the prefix's package.json. */
function installedNameFor(dir: string, spec: string): string {
  let deps: Record<string, string> = {};
  try {
    deps = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
  } catch {
    /* handled below */
  }
  const same = (v: string) => v === spec || (v.startsWith('file:') && resolve(dir, v.slice(5)) === spec);
  const hit = Object.entries(deps).find(([, v]) => same(v));
  if (!hit) throw new InstallError(`npm installed ${spec}, but its package is not in ${join(dir, 'package.json')}`);
  return hit[0];
}

function npmName(spec: string): string {
  const s = spec.trim();
  if (s.startsWith('@')) return s.split('@').slice(0, 2).join('@').replace(/@$/, '');
  return s.split('@')[0];
}

function saveRecord(home: string, key: string, record: InstallRecord): void {
  const all = readMetadata(home);
  all[key] = record;
  writeMetadata(home, all);
}

/** Updates one git or npm install. Returns a line for the person. */
export function updatePlugin(home: string, key: string): string {
  const rec = readMetadata(home)[key];
  if (!rec) return `${key}: not installed with \`hermes plugins install\` (no provenance); update it by hand`;
  if (rec.kind === 'local') return `${key}: installed from the folder ${rec.source}; install it again with --force to take changes`;
  if (rec.kind === 'npm') {
    // From the registry: the newest release; a tarball, folder or URL: that source again.
    run('npm', ['install', '--prefix', npmPluginsDir(home), '--no-audit', '--no-fund', '--ignore-scripts', registrySpec(rec.source) ? `${npmName(rec.source)}@latest` : rec.source]);
    const pkgDir = join(npmPluginsDir(home), 'node_modules', key);
    if (existsSync(pkgDir) && linkLeaving(pkgDir)) {
      const bad = linkLeaving(pkgDir);
      spawnSync('npm', ['uninstall', '--prefix', npmPluginsDir(home), '--no-audit', '--no-fund', key], { timeout: 300_000 });
      throw new InstallError(`the new version of ${key} holds a link that leads outside the plugin's folder (${bad}); it was removed. Install a version without it.`);
    }
    saveRecord(home, key, { ...rec, installed_at: new Date().toISOString() });
    return `${key}: updated from npm`;
  }
  if (rec.pinned) return `${key}: pinned at ${rec.revision?.slice(0, 8)}; choose a new commit with \`hermes plugins install ${rec.source} --force --ref <sha>\``;
  const dir = join(userPluginsDir(home), key);
  run('git', ['pull', '--ff-only', '--quiet'], dir);
  const bad = linkLeaving(dir);
  if (bad) {
    if (rec.revision) run('git', ['reset', '--hard', '--quiet', rec.revision], dir);
    throw new InstallError(`the update of ${key} brings a link that leads outside the plugin's folder (${bad}); ${rec.revision ? `it stays at ${rec.revision.slice(0, 8)}` : 'remove it with `hermes plugins remove`'}.`);
  }
  const revision = run('git', ['rev-parse', 'HEAD'], dir);
  saveRecord(home, key, { ...rec, revision, installed_at: new Date().toISOString() });
  return revision === rec.revision ? `${key}: already up to date (${revision.slice(0, 8)})` : `${key}: updated ${rec.revision?.slice(0, 8)} → ${revision.slice(0, 8)}`;
}

/** Removes an installed plugin's files and its provenance. */
export function removePlugin(home: string, key: string, dir: string): void {
  const rec = readMetadata(home)[key];
  if (rec?.kind === 'npm') run('npm', ['uninstall', '--prefix', npmPluginsDir(home), '--no-audit', '--no-fund', key]);
  else rmSync(dir, { recursive: true, force: true });
  const all = readMetadata(home);
  delete all[key];
  writeMetadata(home, all);
}
