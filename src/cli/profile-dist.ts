// Profile distributions (Hermes's `hermes profile install|update|info`): a profile published as a git
// repository (or a local folder) with `distribution.yaml` at its root. Install copies the
// distribution-owned paths (default SOUL.md, config.yaml, mcp.json, skills/, cron/) into a profile and
// records where it came from; update pulls again and replaces them — skills and cron jobs per item,
// so the user's own stay — keeping config.yaml unless --force-config. The user's data (memories,
// sessions, .env, auth.json, state.db, logs…) is never part of a distribution and never touched.
import { parse, stringify } from 'yaml'; // static: yaml imported dynamically has no parse() in the bundle
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { canonicalProfile, profileDir, profileExists, profilesRoot, RESERVED_PROFILE_NAMES } from '../state/profiles.ts';
import { confirmOrRefuse, CliError } from './errors.ts';
import { writeAlias } from './profile-alias.ts';
import { trustItems } from './profile-trust.ts';
import { COMMAND_NAMES, ENV_HEADER, PROFILE_DIRS } from './profile-cmd.ts';

const MANIFEST = 'distribution.yaml';
/** The Hermes release whose formats this build keeps: what `hermes_requires` is checked against. */
export const HERMES_COMPAT_VERSION = '0.18.2';
const DEFAULT_OWNED = ['SOUL.md', 'config.yaml', 'mcp.json', 'skills', 'cron', MANIFEST];
/** Never part of a distribution (Hermes's list): secrets, databases, runtime state, user data. */
const USER_OWNED = new Set([
  'auth.json', '.env', 'state.db', 'state.db-shm', 'state.db-wal', 'gateway.pid', 'gateway_state.json', 'processes.json', 'auth.lock', 'active_profile',
  'errors.log', '.hermes_history', 'memories', 'sessions', 'logs', 'plans', 'workspace', 'home', 'image_cache', 'audio_cache', 'document_cache',
  'browser_screenshots', 'checkpoints', 'sandboxes', 'backups', 'cache', 'profiles', 'bin', 'node_modules', 'local', '.git',
]);

interface EnvRequirement {
  name: string;
  description: string;
  required: boolean;
  default?: string;
}

export interface DistributionManifest {
  name: string;
  version: string;
  description: string;
  hermes_requires: string;
  author: string;
  license: string;
  env_requires: EnvRequirement[];
  distribution_owned: string[];
  source: string;
  installed_at: string;
}

type Obj = Record<string, unknown>;
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

async function parseManifest(text: string, where: string): Promise<DistributionManifest> {
  let d: unknown;
  try {
    d = parse(text) ?? {};
  } catch (e) {
    throw new CliError(`${where} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!d || typeof d !== 'object' || Array.isArray(d)) throw new CliError(`${where} must be a mapping (name:, version:, …).`);
  const o = d as Obj;
  const name = str(o.name).trim();
  if (!name) throw new CliError(`${where} has no name:.`);
  if (o.env_requires !== undefined && !Array.isArray(o.env_requires)) throw new CliError(`${where}: env_requires must be a list.`);
  if (o.distribution_owned !== undefined && o.distribution_owned !== null && !Array.isArray(o.distribution_owned)) throw new CliError(`${where}: distribution_owned must be a list.`);
  const env = ((o.env_requires as unknown[]) ?? []).map((e) => {
    const x = (e && typeof e === 'object' ? e : {}) as Obj;
    if (!str(x.name).trim()) throw new CliError(`${where}: an env_requires entry has no name.`);
    return { name: str(x.name).trim(), description: str(x.description), required: x.required !== false, ...(x.default !== undefined && x.default !== null ? { default: str(x.default) } : {}) };
  });
  const owned = ((o.distribution_owned as unknown[]) ?? []).map((p) => str(p).trim().replace(/^\/+|\/+$/g, '')).filter(Boolean);
  for (const p of owned) if (p.split('/').includes('..') || USER_OWNED.has(p.split('/')[0])) throw new CliError(`${where}: "${p}" cannot be distribution-owned (user data stays with the user).`);
  return { name, version: str(o.version) || '0.1.0', description: str(o.description), hermes_requires: str(o.hermes_requires), author: str(o.author), license: str(o.license), env_requires: env, distribution_owned: owned, source: str(o.source), installed_at: str(o.installed_at) };
}

const semver = (v: string): number[] => {
  const parts = v.trim().replace(/^v/, '').split(/[-+]/)[0].split('.');
  while (parts.length < 3) parts.push('0');
  const n = parts.slice(0, 3).map(Number);
  if (n.some((x) => !Number.isInteger(x))) throw new CliError(`Unparseable version in hermes_requires: "${v}".`);
  return n;
};

export function checkRequires(spec: string, current = HERMES_COMPAT_VERSION): void {
  if (!spec.trim()) return;
  const m = /^\s*(>=|<=|==|!=|>|<)\s*(.+?)\s*$/.exec(spec);
  const [op, target] = m ? [m[1], m[2]] : ['>=', spec.trim()];
  const a = semver(current);
  const b = semver(target);
  const cmp = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const ok = { '>=': cmp >= 0, '<=': cmp <= 0, '==': cmp === 0, '!=': cmp !== 0, '>': cmp > 0, '<': cmp < 0 }[op];
  if (!ok) throw new CliError(`This distribution requires Hermes ${op}${target}; this build keeps Hermes ${current}'s formats.`);
}

const looksLikeGit = (s: string) => /\.git(#.*)?$/.test(s) || /^(git@|ssh:\/\/|git:\/\/|https?:\/\/|file:\/\/)/.test(s) || /^github\.com\/[\w.-]+\/[\w.-]+\/?$/.test(s);

/** The source as a local folder with distribution.yaml (git sources are cloned into `work`). */
function stage(source: string, work: string): { dir: string; provenance: string } {
  const src = source.trim();
  if (looksLikeGit(src)) {
    const [url0, ref] = src.split('#');
    const url = /^github\.com\//.test(url0) ? `https://${url0.replace(/\/$/, '')}` : url0;
    const dir = join(work, 'clone');
    const r = spawnSync('git', ['clone', '--depth', '1', ...(ref ? ['--branch', ref] : []), url, dir], { encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    if (r.error) throw new CliError(`git could not run (${(r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'install git' : r.error.message}).`);
    if (r.status !== 0) throw new CliError(`git clone failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
    rmSync(join(dir, '.git'), { recursive: true, force: true });
    if (!existsSync(join(dir, MANIFEST))) throw new CliError(`No ${MANIFEST} at the root of ${src}: it is not a Hermes profile distribution.`);
    return { dir, provenance: src };
  }
  const dir = resolve(src.replace(/^~(?=\/|$)/, process.env.HOME ?? '~'));
  if (!existsSync(dir) || !lstatSync(dir).isDirectory()) throw new CliError(`Cannot find the distribution ${source}: give a git URL (github.com/user/repo, https://…, git@…) or a folder with ${MANIFEST}.`);
  if (!existsSync(join(dir, MANIFEST))) throw new CliError(`No ${MANIFEST} in ${dir}: a folder source needs one at its root.`);
  return { dir, provenance: dir };
}

/** Refuses a tree with links (a distribution is plain files; a link could write outside the profile). */
function rejectLinks(root: string, dir = root): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) throw new CliError(`The distribution holds a symbolic link (${relative(root, p)}); not installed.`);
    if (e.isDirectory()) rejectLinks(root, p);
  }
}

function envExample(m: DistributionManifest): string {
  const lines = ['# Environment variables this Hermes distribution needs.', '# Copy the ones you use to .env and fill in your own values.', ''];
  for (const r of m.env_requires) {
    if (r.description) lines.push(`# ${r.description}`);
    lines.push(`# (${r.required ? 'required' : 'optional'})`, `${r.required ? '' : '# '}${r.name}=${r.default ?? ''}`, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Replaces each item of `src` in `dst`; under skills/, a category folder is merged skill by skill. */
function merge(src: string, dst: string, skills: boolean): void {
  mkdirSync(dst, { recursive: true });
  for (const item of readdirSync(src)) {
    const from = join(src, item);
    const to = join(dst, item);
    const category = skills && lstatSync(from).isDirectory() && !existsSync(join(from, 'SKILL.md'));
    if (category && existsSync(to) && lstatSync(to).isDirectory()) merge(from, to, true);
    else {
      rmSync(to, { recursive: true, force: true });
      cpSync(from, to, { recursive: true });
    }
  }
}

/** Copies the owned paths; owned folders (skills/, cron/) are merged item by item, so the user's own stay. */
function apply(from: string, to: string, m: DistributionManifest, o: { keepConfig: boolean }): string[] {
  const done: string[] = [];
  for (const p of m.distribution_owned.length ? m.distribution_owned : DEFAULT_OWNED) {
    if (p === MANIFEST) continue;
    const src = join(from, p);
    if (!existsSync(src)) continue;
    const dst = join(to, p);
    if (p === 'config.yaml' && o.keepConfig && existsSync(dst)) continue;
    if (lstatSync(src).isDirectory()) {
      if (existsSync(dst) && !lstatSync(dst).isDirectory()) throw new CliError(`${dst} is not a folder; move it away and try again.`);
      merge(src, dst, p === 'skills' || p.startsWith('skills/'));
    } else {
      mkdirSync(dirname(dst), { recursive: true });
      cpSync(src, dst);
    }
    done.push(p);
  }
  return done;
}

function preview(m: DistributionManifest, staged: string): string {
  const lines = [`Distribution ${m.name} v${m.version}${m.author ? ` by ${m.author}` : ''}${m.license ? ` (${m.license})` : ''}`];
  if (m.description) lines.push(`  ${m.description}`);
  if (m.hermes_requires) lines.push(`  needs Hermes ${m.hermes_requires}`);
  for (const r of m.env_requires) lines.push(`  env ${r.name}${r.required ? '' : ' (optional)'}${r.description ? ` — ${r.description}` : ''}`);
  const cron = join(staged, 'cron');
  if (existsSync(cron) && readdirSync(cron).length) lines.push('  ⚠ it ships cron jobs: they run on their schedule once the gateway runs this profile');
  // What else it brings that changes trust (approvals off, hooks, plugins, MCP servers…), so a yes
  // is given knowing it: the same list `hermes profile import` shows.
  const owned = new Set(m.distribution_owned.length ? m.distribution_owned : DEFAULT_OWNED);
  for (const i of trustItems(staged)) {
    if (i.what === 'cron/') continue;
    const path = i.what.replace(/\/$/, '');
    const top = existsSync(join(staged, path)) ? path : 'config.yaml'; // a setting lives in config.yaml
    if (owned.has(top)) lines.push(`  ⚠ ${i.what}: ${i.why}`);
  }
  return lines.join('\n');
}

async function installInto(staged: { dir: string; provenance: string }, m: DistributionManifest, name: string, o: { update: boolean; forceConfig?: boolean }): Promise<string[]> {
  const dir = profileDir(name);
  const fresh = !existsSync(dir);
  mkdirSync(profilesRoot(), { recursive: true, mode: 0o700 });
  if (fresh) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const d of PROFILE_DIRS) mkdirSync(join(dir, d), { recursive: true });
  if (!existsSync(join(dir, '.env'))) writeFileSync(join(dir, '.env'), ENV_HEADER, { mode: 0o600 });
  chmodSync(join(dir, '.env'), 0o600);
  const done = apply(staged.dir, dir, m, { keepConfig: o.update && !o.forceConfig });
  if (m.env_requires.length) writeFileSync(join(dir, '.env.EXAMPLE'), envExample(m));

  const record: Obj = { ...m, source: staged.provenance, installed_at: new Date().toISOString() };
  for (const k of Object.keys(record)) if (record[k] === '' || (Array.isArray(record[k]) && !(record[k] as unknown[]).length)) delete record[k];
  writeFileSync(join(dir, MANIFEST), stringify(record));
  return done;
}

function canon(name: string): string {
  try {
    return canonicalProfile(name);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

async function withStaged<T>(source: string, fn: (s: { dir: string; provenance: string }, m: DistributionManifest) => Promise<T>): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'hermes-dist-'));
  try {
    const s = stage(source, work);
    rejectLinks(s.dir);
    const m = await parseManifest(readFileSync(join(s.dir, MANIFEST), 'utf8'), `${source} ${MANIFEST}`);
    checkRequires(m.hermes_requires);
    return await fn(s, m);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `hermes profile install <source> [--name] [--alias] [--force] [--yes]`. */
export async function install(source: string, o: { name?: string; alias?: boolean; force?: boolean; yes?: boolean }): Promise<void> {
  await withStaged(source, async (s, m) => {
    const n = canon(o.name ?? m.name);
    if (n === 'default' || RESERVED_PROFILE_NAMES.includes(n) || COMMAND_NAMES.includes(n)) throw new CliError(`'${n}' is reserved; install with --name <another>.`);
    if (profileExists(n) && !o.force) throw new CliError(`Profile '${n}' already exists. \`hermes profile update ${n}\` updates a distribution; --force installs over it (its memories, sessions and keys stay).`);
    process.stdout.write(`${preview(m, s.dir)}\n`);
    await confirmOrRefuse(`Install it as profile '${n}'?`, o.yes, { nothing: 'nothing was installed' });
    const done = await installInto(s, m, n, { update: false });
    process.stdout.write(`✓ Installed ${m.name} v${m.version} as profile '${n}' at ${profileDir(n)} (${done.join(', ') || 'no files'}).\n`);
    if (m.env_requires.length) process.stdout.write(`  Set its variables: copy what you need from ${join(profileDir(n), '.env.EXAMPLE')} to ${join(profileDir(n), '.env')}.\n`);
    if (o.alias) process.stdout.write(`  Alias: ${writeAlias(n)} runs \`hermes -p ${n}\`.\n`);
    else process.stdout.write(`  Use it with \`hermes -p ${n}\`.\n`);
  });
}

async function installed(name: string): Promise<{ n: string; m: DistributionManifest }> {
  const n = canon(name);
  if (!profileExists(n)) throw new CliError(`Profile '${n}' does not exist.`);
  const file = join(profileDir(n), MANIFEST);
  if (!existsSync(file)) throw new CliError(`Profile '${n}' was not installed from a distribution (no ${MANIFEST}); \`hermes profile show ${n}\` describes it.`);
  return { n, m: await parseManifest(readFileSync(file, 'utf8'), file) };
}

/** `hermes profile update <name> [--force-config] [--yes]`. */
export async function update(name: string, o: { forceConfig?: boolean; yes?: boolean }): Promise<void> {
  const { n, m: old } = await installed(name);
  if (!old.source) throw new CliError(`Profile '${n}' has no recorded source in ${MANIFEST}; reinstall it with \`hermes profile install <source> --name ${n} --force\`.`);
  await withStaged(old.source, async (s, m) => {
    process.stdout.write(`${preview(m, s.dir)}\n  from ${old.source} (installed v${old.version}${old.installed_at ? ` on ${old.installed_at}` : ''})\n`);
    await confirmOrRefuse(`Update profile '${n}'${o.forceConfig ? ' (config.yaml is reset to the distribution’s)' : ''}?`, o.yes, { nothing: 'nothing was changed' });
    const done = await installInto(s, m, n, { update: true, forceConfig: o.forceConfig });
    process.stdout.write(`✓ Updated '${n}' to ${m.name} v${m.version} (${done.join(', ') || 'no files'}${o.forceConfig ? '' : '; your config.yaml was kept — --force-config resets it'}).\n`);
  });
}

/** `hermes profile info <name>`: the distribution a profile came from. */
export async function info(name: string): Promise<void> {
  const { n, m } = await installed(name);
  const lines = [`Profile:      ${n}`, `Distribution: ${m.name} v${m.version}`];
  if (m.description) lines.push(`Description:  ${m.description}`);
  if (m.author) lines.push(`Author:       ${m.author}`);
  if (m.license) lines.push(`License:      ${m.license}`);
  if (m.hermes_requires) lines.push(`Requires:     Hermes ${m.hermes_requires}`);
  lines.push(`Source:       ${m.source || '(not recorded)'}`, `Installed:    ${m.installed_at || '(unknown)'}`);
  for (const r of m.env_requires) lines.push(`Env:          ${r.name}${r.required ? '' : ' (optional)'}${r.description ? ` — ${r.description}` : ''}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
