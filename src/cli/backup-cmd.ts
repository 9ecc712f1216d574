// `hermes backup` and `hermes import`: a zip of the whole Hermes home (every profile), made and
// restored as Python Hermes does: SQLite databases through SQLite's backup API (consistent while
// Hermes runs; restored into the live file), caches, sidecars, runtime files and earlier backups left
// out, secrets restored owner-only. `backup --quick` is the state snapshot /snapshot restores.
import { chmodSync, existsSync, lstatSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { copyDatabase, createQuickSnapshot, listQuickSnapshots, restoreDatabase, SNAPSHOTS_DIR } from '../state/snapshots.ts';
import { defaultHermesRoot, expandHome, hermesHome } from '../state/paths.ts';
import { extractEntry, inside, readZipEntries, safeEntryPath, ZipError, ZipWriter } from '../state/zip.ts';
import { CliError } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

const EXCLUDED_DIRS = new Set(['hermes-agent', '__pycache__', '.git', 'node_modules', 'backups', SNAPSHOTS_DIR, 'checkpoints', 'browser-profiles', 'browser-profile', '.venv', 'venv', 'site-packages', '.cache', '.tox', '.nox', '.pytest_cache', '.mypy_cache', '.ruff_cache']);
const EXCLUDED_ROOT_DIRS = new Set(['models', 'runtimes', 'node']);
const KEPT_CACHE_SUBDIRS = new Set(['images', 'audio', 'videos', 'documents', 'screenshots', 'citations']);
const EXCLUDED_SUFFIXES = ['.pyc', '.pyo', '.db-wal', '.db-shm', '.db-journal'];
const EXCLUDED_NAMES = new Set(['.backup.lock', 'gateway.pid', 'cron.pid']);
const EXCLUDED_PREFIXES = ['state.db.pre-update-emergency-'];
const IMPORT_SKIP_NAMES = new Set(['gateway_state.json', 'gateway.pid', 'cron.pid', 'gateway.lock', 'processes.json']);
const SECRET_NAMES = new Set(['.env', 'auth.json', 'state.db', 'vault.key', 'vault.json.enc']);

/** Parts below a profile home: `profiles/<name>/x/y` → `x/y`, else the parts as given. */
function profileParts(parts: string[]): string[] {
  return parts.length >= 3 && parts[0] === 'profiles' ? parts.slice(2) : parts;
}

/** Whether a path (relative to the Hermes root) stays out of a full backup. */
export function excludedFromBackup(rel: string, isDir: boolean): boolean {
  const parts = rel.split('/');
  const name = parts[parts.length - 1];
  const local = profileParts(parts);
  if (EXCLUDED_ROOT_DIRS.has(local[0]) && (local.length > 1 || isDir)) return true;
  if (local[0] === 'cache' && local.length >= 2 && !KEPT_CACHE_SUBDIRS.has(local[1])) return true;
  if (parts.some((p, i) => EXCLUDED_DIRS.has(p) && (p !== 'hermes-agent' || i === 0) && (i < parts.length - 1 || isDir))) return true;
  if (isDir) return false;
  return EXCLUDED_NAMES.has(name) || EXCLUDED_PREFIXES.some((p) => name.startsWith(p)) || EXCLUDED_SUFFIXES.some((s) => name.endsWith(s));
}

/** Every regular file a full backup holds, relative to `root`. */
export function backupFiles(root: string, skip: string): string[] {
  const outFiles: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const rel = relative(root, p).split('\\').join('/');
      if (e.isSymbolicLink()) continue;
      if (e.isDirectory()) {
        if (!excludedFromBackup(rel, true)) walk(p);
      } else if (e.isFile() && !excludedFromBackup(rel, false) && resolve(p) !== resolve(skip)) outFiles.push(rel);
    }
  };
  walk(root);
  return outFiles.sort();
}

const stampNow = () => {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
};

export async function backup(opts: { output?: string; quick?: boolean; label?: string; dryRun?: boolean; keep?: string }): Promise<void> {
  const root = defaultHermesRoot();
  if (!existsSync(root)) throw new CliError(`There is no Hermes home at ${root} to back up.`);
  if (opts.quick) {
    const home = hermesHome();
    const id = await createQuickSnapshot(home, opts.label ?? null);
    if (!id) {
      out('No state files found to snapshot.');
      return;
    }
    out(`State snapshot created: ${id}`);
    out(`  ${listQuickSnapshots(home, 1000).length} snapshot(s) stored in ${join(home, SNAPSHOTS_DIR)}/`);
    out(`  Restore with: /snapshot restore ${id}`);
    return;
  }
  const keep = opts.keep === undefined ? 3 : Number(opts.keep);
  if (!Number.isInteger(keep) || keep < 0) throw new CliError('--keep expects a whole number (0 keeps every earlier backup).', 2);
  const target = resolve(expandHome(opts.output ?? join(homedir(), `hermes-backup-${stampNow()}.zip`)));
  const files = backupFiles(root, target);
  if (opts.dryRun) {
    for (const f of files) out(f);
    out(`${files.length} file(s) would be backed up from ${root} to ${target}.`);
    return;
  }
  if (!files.length) throw new CliError(`Nothing to back up in ${root}.`);
  const partial = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const zip = new ZipWriter(partial);
  const failed: string[] = [];
  try {
    for (const rel of files) {
      const abs = join(root, rel);
      try {
        if (rel.endsWith('.db')) {
          const tmp = join(dirname(target), `.hermes-backup-${process.pid}-${basename(rel)}`);
          try {
            await copyDatabase(abs, tmp);
            await zip.addFile(rel, tmp);
          } finally {
            rmSync(tmp, { force: true });
          }
        } else await zip.addFile(rel, abs);
      } catch (e) {
        failed.push(`${rel} (${(e as Error).message})`);
      }
    }
    zip.close();
    renameSync(partial, target);
  } catch (e) {
    rmSync(partial, { force: true });
    throw new CliError(`Backup failed: ${(e as Error).message}`);
  }
  const size = statSync(target).size;
  out(`Backed up ${zip.count} file(s) from ${root} to ${target} (${(size / 1048576).toFixed(1)} MB).`);
  if (failed.length) {
    process.stderr.write(`⚠ Backup incomplete: ${failed.length} file(s) could not be read:\n${failed.map((f) => `  ${f}`).join('\n')}\n`);
    process.exitCode = 1;
  }
  if (keep > 0 && !opts.output) {
    const dir = dirname(target);
    const old = readdirSync(dir)
      .filter((n) => /^hermes-backup-.*\.zip$/.test(n))
      .sort()
      .reverse()
      .slice(keep);
    for (const n of old) rmSync(join(dir, n), { force: true });
    if (old.length) out(`Removed ${old.length} older backup(s) (keeping the newest ${keep}).`);
  }
  out(`Restore with: hermes import ${target}`);
}

export async function importBackup(zipPath: string, opts: { force?: boolean }): Promise<void> {
  const src = resolve(expandHome(zipPath));
  if (!existsSync(src)) throw new CliError(`No such file: ${src}`);
  let entries;
  try {
    entries = readZipEntries(src);
  } catch (e) {
    throw new CliError(e instanceof ZipError ? e.message : `Cannot read ${src}: ${(e as Error).message}`);
  }
  const files = entries.filter((e) => !e.isDir);
  const bad = files.filter((e) => !safeEntryPath(e.name) || e.isLink);
  if (bad.length) throw new CliError(`${src} has entries that would land outside the Hermes home or are links (${bad.slice(0, 3).map((e) => e.name).join(', ')}); refusing to import it.`);
  // Archives made from a home folder by hand may carry it as a top-level folder (.hermes/…).
  const tops = new Set(files.map((e) => safeEntryPath(e.name)!.split('/')[0]));
  const prefix = tops.size === 1 && ['.hermes', 'hermes'].includes([...tops][0]) && files.every((e) => safeEntryPath(e.name)!.includes('/')) ? `${[...tops][0]}/` : '';
  if (!files.some((e) => /(^|\/)(config\.yaml|state\.db|\.env|SOUL\.md|memories\/)/.test(e.name))) throw new CliError(`${src} does not look like a Hermes backup (no config.yaml, state.db, .env, SOUL.md or memories/).`);
  const root = defaultHermesRoot();
  const exists = ['config.yaml', 'state.db', '.env'].some((f) => existsSync(join(root, f)));
  if (exists && !opts.force) {
    if (!process.stdin.isTTY) throw new CliError(`${root} already has a Hermes setup; importing overwrites files in it. Add --force to go ahead (nothing was changed).`, 2);
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const a = (await rl.question(`Import ${basename(src)} into ${root}, overwriting files there? [y/N] `)).trim().toLowerCase();
    rl.close();
    if (a !== 'y' && a !== 'yes') throw new CliError('Cancelled; nothing was changed.', 1);
  }
  let restored = 0;
  let skipped = 0;
  for (const e of files) {
    const rel = safeEntryPath(e.name)!.slice(prefix.length);
    if (!rel || IMPORT_SKIP_NAMES.has(basename(rel))) {
      skipped++;
      continue;
    }
    const dest = inside(root, rel);
    if (existsSync(dest) && lstatSync(dest).isSymbolicLink()) throw new CliError(`${dest} is a symbolic link; refusing to write through it.`);
    if (rel.endsWith('.db')) {
      const tmp = join(dirname(dest), `.${basename(dest)}.import-${process.pid}`);
      try {
        await extractEntry(src, e, tmp);
        await restoreDatabase(tmp, dest);
      } finally {
        rmSync(tmp, { force: true });
      }
    } else {
      const tmp = `${dest}.import-${process.pid}`;
      await extractEntry(src, e, tmp);
      renameSync(tmp, dest);
    }
    if (SECRET_NAMES.has(basename(rel))) chmodSync(dest, 0o600);
    restored++;
  }
  out(`Imported ${restored} file(s) into ${root}${skipped ? ` (${skipped} runtime file(s) from the other machine left out)` : ''}.`);
  out('Restart a running gateway (hermes gateway restart) so it picks the imported state up.');
}
