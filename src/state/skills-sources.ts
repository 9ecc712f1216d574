// Skill registries, as Python Hermes's Skills Hub reads them: the centralized Hermes skills index
// (a JSON catalog with resolved GitHub paths: search costs no GitHub calls) and GitHub "taps"
// (repositories of skill folders: Hermes's default taps plus skills/.hub/taps.json). Fetched skills
// go through the same quarantine and guard as every other install (skills-hub.ts).
//
// Every request is checked against private addresses (security.allow_private_urls opts out) and
// redirects are followed by hand, each hop checked again.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './fsutil.ts';
import { assertPublicUrl, SkillInstallError } from './skills-hub.ts';
import { bundleContentHash, hubDir, parseFrontmatter } from './skills.ts';

export const HERMES_INDEX_URL = 'https://hermes-agent.nousresearch.com/docs/api/skills-index.json';
export const GITHUB_API = 'https://api.github.com';
const INDEX_TTL_MS = 6 * 3600_000;
const TAP_CACHE_TTL_MS = 3600_000;
const MAX_BYTES = 5_000_000;

export interface Tap {
  repo: string;
  path: string;
}

export const DEFAULT_TAPS: Tap[] = [
  { repo: 'openai/skills', path: 'skills/.curated/' },
  { repo: 'openai/skills', path: 'skills/.system/' },
  { repo: 'anthropics/skills', path: 'skills/' },
  { repo: 'huggingface/skills', path: 'skills/' },
  { repo: 'NVIDIA/skills', path: 'skills/' },
  { repo: 'garrytan/gstack', path: '' },
];

const TRUSTED_REPOS = new Set(['openai/skills', 'anthropics/skills', 'nvidia/skills', 'huggingface/skills']);

export interface SkillMeta {
  name: string;
  description: string;
  source: string;
  identifier: string;
  trust_level: string;
  repo?: string;
  path?: string;
  tags?: string[];
}

export interface SkillBundle {
  name: string;
  files: Record<string, Buffer>;
  source: string;
  identifier: string;
  trust_level: string;
  metadata: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// taps.json ({"taps": [{"repo", "path"}]}, Hermes's file)

const tapsFile = (home: string) => join(hubDir(home), 'taps.json');

export function readTaps(home: string): Tap[] {
  try {
    const v = JSON.parse(readFileSync(tapsFile(home), 'utf8')) as { taps?: unknown };
    return Array.isArray(v.taps) ? (v.taps as Tap[]).filter((t) => t && typeof t.repo === 'string').map((t) => ({ repo: t.repo, path: typeof t.path === 'string' ? t.path : 'skills/' })) : [];
  } catch {
    return [];
  }
}

function writeTaps(home: string, taps: Tap[]): void {
  mkdirSync(hubDir(home), { recursive: true, mode: 0o700 });
  writeFileAtomic(tapsFile(home), `${JSON.stringify({ taps }, null, 2)}\n`, 0o644);
}

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export function addTap(home: string, repo: string, path = 'skills/'): boolean {
  if (!REPO.test(repo)) throw new SkillInstallError(`"${repo}" is not a GitHub repository (owner/name).`);
  const taps = readTaps(home);
  if (taps.some((t) => t.repo === repo)) return false;
  writeTaps(home, [...taps, { repo, path }]);
  return true;
}

export function removeTap(home: string, repo: string): boolean {
  const taps = readTaps(home);
  const rest = taps.filter((t) => t.repo !== repo);
  if (rest.length === taps.length) return false;
  writeTaps(home, rest);
  return true;
}

// ---------------------------------------------------------------------------------------------
// the hub

export interface HubOptions {
  home: string;
  allowPrivateUrls?: boolean;
  /** Overrides for self-hosted mirrors (skills.hub.index_url / skills.hub.github_api in config.yaml). */
  indexUrl?: string;
  githubApi?: string;
  githubToken?: string;
  /** Leave out Hermes's default taps (only the user's own). */
  noDefaultTaps?: boolean;
}

export class SkillsHub {
  private readonly o: HubOptions;
  private trees = new Map<string, { sha: string; branch: string; entries: { path: string; type: string; mode?: string }[] } | null>();

  constructor(o: HubOptions) {
    this.o = o;
  }

  private get api(): string {
    return (this.o.githubApi || GITHUB_API).replace(/\/+$/, '');
  }

  private cachePath(key: string): string {
    return join(hubDir(this.o.home), 'index-cache', `${key.replace(/[^A-Za-z0-9_.-]+/g, '_')}.json`);
  }

  private readCache<T>(key: string, ttlMs: number): T | null {
    const p = this.cachePath(key);
    try {
      if (Date.now() - statSync(p).mtimeMs > ttlMs) return null;
      return JSON.parse(readFileSync(p, 'utf8')) as T;
    } catch {
      return null;
    }
  }

  private writeCache(key: string, v: unknown): void {
    const p = this.cachePath(key);
    try {
      mkdirSync(dirname(p), { recursive: true });
      // Cached text is unvetted community content: keep search tools out of the hub folder.
      const ignore = join(hubDir(this.o.home), '.ignore');
      if (!existsSync(ignore)) writeFileSync(ignore, '# Exclude hub internals from search tools\n*\n');
      writeFileSync(p, JSON.stringify(v));
    } catch {
      /* cache is optional */
    }
  }

  /** GET with SSRF checks on every hop; null on 404. */
  private async get(url: string, headers: Record<string, string> = {}): Promise<Buffer | null> {
    let current = url;
    for (let hop = 0; hop < 6; hop++) {
      await assertPublicUrl(current, !!this.o.allowPrivateUrls);
      const res = await fetch(current, { headers: { 'User-Agent': 'hermes-agent', ...headers }, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
      if (res.status >= 300 && res.status < 400) {
        const loc = res.headers.get('location');
        if (!loc) throw new SkillInstallError(`${current} redirected without a location.`);
        current = new URL(loc, current).href;
        continue;
      }
      if (res.status === 404) return null;
      if (res.status === 403 && res.headers.get('x-ratelimit-remaining') === '0')
        throw new SkillInstallError('GitHub’s API rate limit is used up (60 requests an hour without a token). Set GITHUB_TOKEN in ~/.hermes/.env to raise it to 5,000.');
      if (!res.ok) throw new SkillInstallError(`${current}: HTTP ${res.status}.`);
      const buf = Buffer.from(await res.arrayBuffer());
      if (buf.length > MAX_BYTES) throw new SkillInstallError(`${current} is larger than ${MAX_BYTES} bytes.`);
      return buf;
    }
    throw new SkillInstallError(`${url}: too many redirects.`);
  }

  private gh(path: string, raw = false): Promise<Buffer | null> {
    const headers: Record<string, string> = { Accept: raw ? 'application/vnd.github.v3.raw' : 'application/vnd.github.v3+json' };
    if (this.o.githubToken) headers.Authorization = `token ${this.o.githubToken}`;
    return this.get(`${this.api}/repos/${path}`, headers);
  }

  // --- the Hermes index -----------------------------------------------------------------------

  /** The centralized index (cached 6 h; a stale copy when the network fails). */
  async index(): Promise<SkillMeta[]> {
    type Index = { skills?: SkillMeta[] };
    const fresh = this.readCache<Index>('hermes-index', INDEX_TTL_MS);
    if (fresh?.skills) return fresh.skills;
    try {
      const buf = await this.get(this.o.indexUrl || HERMES_INDEX_URL, { Accept: 'application/json' });
      const data = buf ? (JSON.parse(buf.toString('utf8')) as Index) : null;
      if (data && Array.isArray(data.skills)) {
        this.writeCache('hermes-index', data);
        return data.skills;
      }
    } catch {
      /* fall back to the stale cache */
    }
    return this.readCache<Index>('hermes-index', Infinity)?.skills ?? [];
  }

  // --- GitHub taps ----------------------------------------------------------------------------

  taps(): Tap[] {
    return [...(this.o.noDefaultTaps ? [] : DEFAULT_TAPS), ...readTaps(this.o.home)];
  }

  private async tree(repo: string) {
    if (this.trees.has(repo)) return this.trees.get(repo)!;
    let out: { sha: string; branch: string; entries: { path: string; type: string; mode?: string }[] } | null = null;
    const info = await this.gh(repo);
    if (info) {
      const branch = String((JSON.parse(info.toString('utf8')) as { default_branch?: string }).default_branch ?? 'main');
      const t = await this.gh(`${repo}/git/trees/${encodeURIComponent(branch)}?recursive=1`);
      if (t) {
        const data = JSON.parse(t.toString('utf8')) as { sha?: string; truncated?: boolean; tree?: { path: string; type: string; mode?: string }[] };
        if (!data.truncated) out = { sha: String(data.sha ?? ''), branch, entries: data.tree ?? [] };
      }
    }
    this.trees.set(repo, out);
    return out;
  }

  /** Skills in one tap (one level of folders below its path), cached for an hour. */
  async tapSkills(tap: Tap): Promise<SkillMeta[]> {
    const key = `${tap.repo}_${tap.path}`;
    const cached = this.readCache<SkillMeta[]>(key, TAP_CACHE_TTL_MS);
    if (cached) return cached;
    const prefix = tap.path.replace(/\/+$/, '');
    const listing = await this.gh(`${tap.repo}/contents/${prefix}`);
    if (!listing) return [];
    const entries = JSON.parse(listing.toString('utf8')) as { name: string; type: string }[];
    const out: SkillMeta[] = [];
    for (const e of Array.isArray(entries) ? entries : []) {
      if (e.type !== 'dir' || e.name.startsWith('.') || e.name.startsWith('_')) continue;
      const meta = await this.inspectGithub(`${tap.repo}/${prefix ? `${prefix}/` : ''}${e.name}`);
      if (meta) out.push(meta);
    }
    this.writeCache(key, out);
    return out;
  }

  private async inspectGithub(identifier: string): Promise<SkillMeta | null> {
    const parts = identifier.split('/');
    if (parts.length < 3) return null;
    const repo = `${parts[0]}/${parts[1]}`;
    const path = parts.slice(2).join('/').replace(/\/+$/, '');
    const md = await this.gh(`${repo}/contents/${path}/SKILL.md`, true);
    if (!md) return null;
    let fm: Record<string, unknown> = {};
    try {
      fm = parseFrontmatter(md.toString('utf8')).frontmatter;
    } catch {
      /* no frontmatter: name from the folder */
    }
    const tags = Array.isArray(fm.tags) ? fm.tags.map(String) : [];
    return {
      name: String(fm.name ?? parts[parts.length - 1]),
      description: String(fm.description ?? '').slice(0, 300),
      source: 'github',
      identifier,
      trust_level: TRUSTED_REPOS.has(repo.toLowerCase()) ? 'trusted' : 'community',
      repo,
      path,
      tags,
    };
  }

  /** A skill's files from GitHub (the whole folder, pinned to one tree), or null. */
  async fetchGithub(identifier: string): Promise<SkillBundle | null> {
    const parts = identifier.split('/');
    if (parts.length < 3) return null;
    const repo = `${parts[0]}/${parts[1]}`;
    const dir = parts.slice(2).join('/').replace(/\/+$/, '');
    const tree = await this.tree(repo);
    const ref = tree?.sha ? `?ref=${tree.sha}` : '';
    const md = await this.gh(`${repo}/contents/${dir}/SKILL.md${ref}`, true);
    if (!md) return null;
    const files: Record<string, Buffer> = { 'SKILL.md': md };
    if (tree) {
      for (const e of tree.entries) {
        if (!e.path.startsWith(`${dir}/`)) continue;
        const rel = e.path.slice(dir.length + 1);
        if (rel === 'SKILL.md' || e.type !== 'blob') continue;
        if (e.mode === '120000') throw new SkillInstallError(`${identifier} contains a symbolic link (${rel}); refused.`);
        if (rel.split('/').some((p) => p.startsWith('.') || p === '__pycache__') || rel.endsWith('.pyc')) continue;
        if (rel.split('/').includes('..')) throw new SkillInstallError(`${identifier}: unsafe path ${rel}.`);
        const body = await this.gh(`${repo}/contents/${e.path}${ref}`, true);
        if (body) files[rel] = body;
      }
    }
    const name = dir.split('/').pop()!;
    return {
      name,
      files,
      source: 'github',
      identifier,
      trust_level: TRUSTED_REPOS.has(repo.toLowerCase()) ? 'trusted' : 'community',
      metadata: { source_url: `https://github.com/${repo}/${tree?.sha ? `tree/${tree.sha}/` : ''}${dir}`, source_revision: tree?.sha ?? '' },
    };
  }

  /** The tree revision a GitHub skill would be fetched at now (no file downloads). */
  async currentRevision(identifier: string): Promise<string> {
    const parts = identifier.split('/');
    if (parts.length < 3) return '';
    return (await this.tree(`${parts[0]}/${parts[1]}`))?.sha ?? '';
  }

  // --- search, inspect, fetch across sources -----------------------------------------------------

  /** Skills matching `query` (everything when empty), index first, then taps; deduplicated by identifier. */
  async search(query: string, o: { source?: string; limit?: number } = {}): Promise<{ results: SkillMeta[]; errors: string[] }> {
    const q = query.trim().toLowerCase();
    const source = (o.source ?? 'all').toLowerCase();
    const errors: string[] = [];
    const out: SkillMeta[] = [];
    const match = (m: SkillMeta) => !q || [m.name, m.description, m.identifier, ...(m.tags ?? [])].some((x) => String(x ?? '').toLowerCase().includes(q));
    let index: SkillMeta[] = [];
    if (source === 'all' || source === 'official' || source === 'hermes-index') {
      try {
        index = (await this.index()).filter((m) => source === 'all' || source === 'hermes-index' || m.source === 'official');
      } catch (e) {
        errors.push(`hermes index: ${(e as Error).message}`);
      }
      out.push(...index.filter(match));
    }
    // The index already covers the default taps; GitHub is asked only for what it does not know.
    if (source === 'all' || source === 'github') {
      const taps = source === 'github' || !index.length ? this.taps() : readTaps(this.o.home);
      for (const tap of taps) {
        try {
          out.push(...(await this.tapSkills(tap)).filter(match));
        } catch (e) {
          errors.push(`${tap.repo}: ${(e as Error).message}`);
        }
      }
    }
    const seen = new Set<string>();
    const rank = (m: SkillMeta) => (m.trust_level === 'builtin' ? 0 : m.trust_level === 'trusted' ? 1 : 2);
    const exact = (m: SkillMeta) => (m.name.toLowerCase() === q ? 0 : m.name.toLowerCase().startsWith(q) ? 1 : 2);
    const results = out
      .filter((m) => (seen.has(m.identifier) ? false : (seen.add(m.identifier), true)))
      .sort((a, b) => exact(a) - exact(b) || rank(a) - rank(b));
    return { results: results.slice(0, o.limit ?? 10), errors };
  }

  /** Metadata for an identifier: from the index, else by reading its SKILL.md on GitHub. */
  async inspect(identifier: string): Promise<SkillMeta | null> {
    const entry = await this.indexEntry(identifier);
    if (entry) return entry;
    return this.inspectGithub(identifier.replace(/^github\//, ''));
  }

  private async indexEntry(identifier: string): Promise<(SkillMeta & { resolved_github_id?: string }) | null> {
    const strip = (s: string) => s.replace(/^(skills-sh|skills\.sh|official|github|clawhub)\//, '');
    const all = (await this.index()) as (SkillMeta & { resolved_github_id?: string })[];
    return all.find((s) => s.identifier === identifier) ?? all.find((s) => strip(s.identifier) === strip(identifier)) ?? all.find((s) => s.name === identifier) ?? null;
  }

  /** Downloads a skill: via the index's resolved GitHub path, else as owner/repo/path on GitHub. */
  async fetch(identifier: string): Promise<SkillBundle | null> {
    const entry = await this.indexEntry(identifier);
    if (entry) {
      const candidates = [entry.resolved_github_id, entry.repo && entry.path ? `${entry.repo}/${entry.path}` : undefined].filter(Boolean) as string[];
      for (const id of candidates) {
        const b = await this.fetchGithub(id);
        if (b) return { ...b, source: entry.source || 'hermes-index', identifier: entry.identifier, trust_level: entry.trust_level || b.trust_level };
      }
      return null;
    }
    return this.fetchGithub(identifier.replace(/^github\//, ''));
  }
}

export { bundleContentHash };
