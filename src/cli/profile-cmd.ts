// `hermes profile list|use|create|show|rename|delete|export|import` (alias: profile-alias.ts;
// install, update, info: profile-dist.ts). A profile is a HERMES_HOME of
// its own under <root>/profiles/<name> (Hermes's layout, so the same folders work with Python Hermes);
// `default` is the root home. Export writes a credential-free .tar.gz; import checks every member
// before extracting (no absolute paths, no `..`, no links).
import { askLine as ask } from './tty-prompts.ts';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { runningGateway } from '../gateway/pid-file.ts';
import { hermesHome } from '../state/paths.ts';
import { canonicalProfile, dirExists, profileDir, profileExists, profileNameOf, profilesRoot, RESERVED_PROFILE_NAMES, setStickyProfile, stickyProfile } from '../state/profiles.ts';
import { CliError } from './errors.ts';
import { moveAliases, removeAlias, writeAlias } from './profile-alias.ts';

const out = (s = ''): void => void process.stdout.write(`${s}\n`);

/** Folders every new profile starts with (Hermes's set). */
export const PROFILE_DIRS = ['memories', 'sessions', 'skills', 'skins', 'logs', 'plans', 'workspace', 'cron', 'home'];
const CLONE_FILES = ['config.yaml', '.env', 'SOUL.md', 'memories/MEMORY.md', 'memories/USER.md'];
/** Not copied by --clone-all: history and jobs bound to the source profile, and runtime files. */
const CLONE_ALL_SKIP = new Set(['state.db', 'state.db-wal', 'state.db-shm', 'sessions', 'backups', 'checkpoints', 'cron', 'profiles', 'node_modules', 'gateway.pid', 'gateway_state.json', 'processes.json', 'active_profile']);
/** Not exported: secrets, databases, runtime state, caches. */
const EXPORT_SKIP = new Set([...CLONE_ALL_SKIP, '.env', 'auth.json', 'auth.lock', 'logs', 'image_cache', 'audio_cache', 'document_cache', 'browser_screenshots', 'sandboxes', '.hermes_history', 'errors.log', 'kanban.db', 'kanban']);
/** Names that would shadow a hermes command in an alias wrapper. */
export const COMMAND_NAMES = ['chat', 'model', 'gateway', 'setup', 'login', 'logout', 'status', 'cron', 'doctor', 'config', 'pairing', 'skills', 'tools', 'mcp', 'sessions', 'insights', 'version', 'update', 'uninstall', 'profile', 'plugins', 'hooks', 'acp', 'kanban', 'dashboard', 'auth'];
export const ENV_HEADER = '# Secrets for this Hermes profile (API keys, tokens). They override the shell environment.\n# Settings belong in config.yaml.\n';

function canon(name: string): string {
  try {
    return canonicalProfile(name);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

function existing(name: string): { name: string; dir: string } {
  const n = canon(name);
  if (!profileExists(n)) throw new CliError(`Profile '${n}' does not exist. Create it with: hermes profile create ${n}${listHint()}`);
  return { name: n, dir: profileDir(n) };
}

export function profileNames(): string[] {
  const root = profilesRoot();
  let named: string[] = [];
  try {
    named = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(e.name) && e.name !== 'default')
      .map((e) => e.name)
      .sort();
  } catch {
    /* no profiles yet */
  }
  return ['default', ...named];
}

const listHint = () => {
  const n = profileNames();
  return n.length > 1 ? ` (profiles: ${n.join(', ')})` : '';
};

/** The profile this run is in (from -p, the sticky default or HERMES_HOME). */
const current = () => profileNameOf(hermesHome());

function modelOf(dir: string): string {
  try {
    const text = readFileSync(join(dir, 'config.yaml'), 'utf8');
    const m = /^model:\s*\n(?:[ \t]+.*\n)*?[ \t]+default:\s*(\S+)/m.exec(text) ?? /^model:\s*(\S+)\s*$/m.exec(text);
    return m ? m[1].replace(/^['"]|['"]$/g, '') : '-';
  } catch {
    return '-';
  }
}

function gatewayOf(dir: string): string {
  const g = runningGateway(dir);
  return g ? `running (pid ${g.pid})` : 'stopped';
}

export async function list(opts: { json?: boolean }): Promise<void> {
  const cur = current();
  const sticky = stickyProfile();
  const rows = profileNames().map((n) => ({ name: n, path: profileDir(n), model: modelOf(profileDir(n)), gateway: gatewayOf(profileDir(n)), current: n === cur, sticky: n === sticky }));
  if (opts.json) return out(JSON.stringify(rows, null, 2));
  const w = Math.max(...rows.map((r) => r.name.length), 7);
  out(`  ${'PROFILE'.padEnd(w)}  ${'MODEL'.padEnd(24)}  GATEWAY`);
  for (const r of rows) out(`${r.current ? '*' : ' '} ${r.name.padEnd(w)}  ${r.model.padEnd(24)}  ${r.gateway}${r.sticky && r.name !== 'default' ? '  (sticky default)' : ''}`);
  if (rows.length === 1) out('\nOnly the default profile exists. Create another with `hermes profile create <name>`.');
}

export async function use(name: string): Promise<void> {
  const n = canon(name);
  try {
    setStickyProfile(n);
  } catch (e) {
    throw new CliError(`${(e as Error).message}${listHint()}`);
  }
  out(n === 'default' ? '✓ The default profile is in use again (the root home).' : `✓ '${n}' is now the default profile: \`hermes\` runs in ${profileDir(n)}. \`hermes profile use default\` switches back.`);
}

export async function create(name: string, o: { clone?: boolean; cloneAll?: boolean; cloneFrom?: string; alias?: boolean }): Promise<void> {
  const n = canon(name);
  if (n === 'default' || RESERVED_PROFILE_NAMES.includes(n)) throw new CliError(`'${n}' is a reserved name; pick another profile name.`);
  if (COMMAND_NAMES.includes(n)) throw new CliError(`'${n}' is a hermes command name; pick another profile name.`);
  const dir = profileDir(n);
  if (existsSync(dir)) throw new CliError(`Profile '${n}' already exists at ${dir}.`);
  const source = o.cloneFrom !== undefined ? existing(o.cloneFrom) : { name: current(), dir: hermesHome() };
  const cloning = o.clone || o.cloneAll || o.cloneFrom !== undefined;
  mkdirSync(profilesRoot(), { recursive: true, mode: 0o700 });
  const staging = mkdtempSync(join(profilesRoot(), `.create-${n}-`));
  try {
    if (o.cloneAll) {
      cpSync(source.dir, staging, { recursive: true, filter: (p) => !(dirname(p) === source.dir && CLONE_ALL_SKIP.has(basename(p))) && !p.endsWith('.sock') });
    } else if (cloning) {
      for (const f of CLONE_FILES) {
        const from = join(source.dir, f);
        if (!existsSync(from)) continue;
        mkdirSync(dirname(join(staging, f)), { recursive: true });
        cpSync(from, join(staging, f));
      }
    }
    for (const d of PROFILE_DIRS) mkdirSync(join(staging, d), { recursive: true });
    if (!existsSync(join(staging, '.env'))) writeFileSync(join(staging, '.env'), ENV_HEADER);
    chmodSync(join(staging, '.env'), 0o600);
    renameSync(staging, dir);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  out(`✓ Created profile '${n}' at ${dir}${cloning ? ` (${o.cloneAll ? 'everything but history' : 'config, keys, SOUL.md and memories'} cloned from '${source.name}')` : ''}.`);
  out(`  Use it with \`hermes -p ${n}\`, or make it the default with \`hermes profile use ${n}\`.${cloning ? '' : ` Set it up with \`hermes -p ${n} setup\`.`}`);
  if (o.alias === false) return;
  try {
    out(`  Alias: ${writeAlias(n)} runs \`hermes -p ${n}\`.`);
  } catch (e) {
    out(`  No alias written: ${(e as Error).message}`);
  }
}

function countSessions(dir: string): string {
  const db = join(dir, 'state.db');
  return existsSync(db) ? 'state.db present' : 'no sessions yet';
}

export async function show(name?: string): Promise<void> {
  const p = name === undefined ? { name: current(), dir: hermesHome() } : existing(name);
  out(`Profile:  ${p.name}${p.name === stickyProfile() && p.name !== 'default' ? ' (sticky default)' : ''}`);
  out(`Path:     ${p.dir}`);
  out(`Model:    ${modelOf(p.dir)}`);
  out(`Keys:     ${existsSync(join(p.dir, '.env')) ? join(p.dir, '.env') : 'no .env'}`);
  out(`Sessions: ${countSessions(p.dir)}`);
  out(`Skills:   ${dirExists(join(p.dir, 'skills')) ? readdirSync(join(p.dir, 'skills')).filter((x) => !x.startsWith('.')).length : 0} folder(s)`);
  out(`Gateway:  ${gatewayOf(p.dir)}`);
}

function refuseRunningGateway(n: string, dir: string, what: string): void {
  const g = runningGateway(dir);
  if (g) throw new CliError(`Profile '${n}' has a running gateway (pid ${g.pid}); stop it first with \`hermes -p ${n} gateway stop\`, then ${what} again.`);
}

export async function rename(oldName: string, newName: string): Promise<void> {
  const from = existing(oldName);
  if (from.name === 'default') throw new CliError('The default profile is the root home and cannot be renamed.');
  const to = canon(newName);
  if (to === 'default' || RESERVED_PROFILE_NAMES.includes(to) || COMMAND_NAMES.includes(to)) throw new CliError(`'${to}' is reserved; pick another name.`);
  if (existsSync(profileDir(to))) throw new CliError(`Profile '${to}' already exists.`);
  refuseRunningGateway(from.name, from.dir, 'rename');
  renameSync(from.dir, profileDir(to));
  if (stickyProfile() === from.name) setStickyProfile(to);
  out(`✓ Renamed '${from.name}' to '${to}'.`);
  for (const line of moveAliases(from.name, to)) out(line);
}

export async function remove(name: string, o: { yes?: boolean }): Promise<void> {
  const p = existing(name);
  if (p.name === 'default') throw new CliError('The default profile is the root home and cannot be deleted.');
  refuseRunningGateway(p.name, p.dir, 'delete');
  if (!o.yes) {
    if (!process.stdin.isTTY) throw new CliError(`Deleting '${p.name}' removes ${p.dir} with its sessions, keys and memory. Add --yes to confirm.`);
    const typed = await ask(`This deletes ${p.dir} (sessions, keys, memory, skills). Type the profile name to confirm: `);
    if (typed !== p.name) {
      out('Cancelled; nothing was deleted.');
      return;
    }
  }
  rmSync(p.dir, { recursive: true, force: true });
  if (stickyProfile() === p.name) setStickyProfile('default');
  try {
    if (removeAlias(p.name)) out(`  Removed its alias.`);
  } catch {
    /* a command of that name that Hermes did not write stays */
  }
  out(`✓ Deleted profile '${p.name}'.`);
}

function tar(args: string[], cwd?: string): string {
  const r = spawnSync('tar', args, { cwd, encoding: 'utf8' });
  if (r.error) throw new CliError(`tar could not run (${(r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'install tar' : r.error.message}).`);
  if (r.status !== 0) throw new CliError(`tar failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
  return r.stdout;
}

export async function exportProfile(name: string, o: { output?: string }): Promise<void> {
  const p = existing(name);
  const file = resolve(o.output ?? `${p.name}.tar.gz`);
  const entries = readdirSync(p.dir).filter((e) => !EXPORT_SKIP.has(e) && !e.endsWith('.sock') && !e.endsWith('.lock'));
  // The archive's top folder is the profile name, as Hermes writes it.
  const stage = mkdtempSync(join(tmpdir(), 'hermes-export-'));
  try {
    const top = join(stage, p.name);
    mkdirSync(top);
    for (const e of entries) cpSync(join(p.dir, e), join(top, e), { recursive: true, verbatimSymlinks: true });
    tar(['-czf', file, '-C', stage, p.name]);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  chmodSync(file, 0o600);
  out(`✓ Exported '${p.name}' to ${file} (without .env, auth.json, state.db, logs and cron jobs).`);
}

export async function importProfile(archive: string, o: { name?: string; trust?: boolean }): Promise<void> {
  const file = resolve(archive);
  if (!existsSync(file)) throw new CliError(`No such archive: ${file}`);
  const listing = tar(['-tvzf', file]).split('\n').filter(Boolean);
  const members = tar(['-tzf', file]).split('\n').filter(Boolean);
  const tops = new Set(members.map((m) => m.replace(/^\.\//, '').split('/')[0]).filter(Boolean));
  const bad = members.find((m) => m.startsWith('/') || m.split('/').includes('..'));
  if (bad) throw new CliError(`The archive holds an unsafe path (${bad}); not imported.`);
  if (listing.some((l) => l[0] === 'l' || l[0] === 'h')) throw new CliError('The archive holds links; a profile export has none, so it was not imported.');
  if (tops.size !== 1) throw new CliError(`The archive must hold one top folder (the profile); it holds ${[...tops].join(', ') || 'nothing'}.`);
  const top = [...tops][0];
  const n = canon(o.name ?? top);
  if (n === 'default' || RESERVED_PROFILE_NAMES.includes(n) || COMMAND_NAMES.includes(n)) throw new CliError(`'${n}' is reserved; import with --name <another>.`);
  const dir = profileDir(n);
  if (existsSync(dir)) throw new CliError(`Profile '${n}' already exists; import with --name <another>.`);
  mkdirSync(profilesRoot(), { recursive: true, mode: 0o700 });
  const stage = mkdtempSync(join(profilesRoot(), '.import-'));
  let leftOut: string[] = [];
  try {
    tar(['-xzf', file, '-C', stage, '--no-same-owner', '--no-same-permissions']);
    const from = join(stage, top);
    // What it brings that changes trust is shown, and kept only after a yes (or --trust).
    const { dropTrust, trustItems } = await import('./profile-trust.ts');
    const items = trustItems(from);
    if (items.length) {
      process.stderr.write(`The archive brings things that change what Hermes trusts:\n${items.map((i) => `  ${i.what} (${i.why})\n`).join('')}`);
      const keep = !!o.trust || (!!process.stdin.isTTY && /^(y|yes)$/i.test(await ask('Import these too? [y/N] ')));
      if (!keep) {
        dropTrust(from);
        leftOut = items.map((i) => i.what);
      }
    }
    for (const d of PROFILE_DIRS) mkdirSync(join(from, d), { recursive: true });
    if (!existsSync(join(from, '.env'))) writeFileSync(join(from, '.env'), ENV_HEADER, { mode: 0o600 });
    renameSync(from, dir);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  out(`✓ Imported profile '${n}' into ${dir}. Its keys were not exported: add them with \`hermes -p ${n} setup\` or to ${join(dir, '.env')}.`);
  if (leftOut.length) process.stderr.write(`hermes: left out of '${n}' because they change what Hermes trusts (import again with --trust to keep them): ${leftOut.join(', ')}\n`);
}
