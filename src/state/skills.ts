// Skills: HERMES_HOME/skills/<category>/<name>/SKILL.md with agentskills.io frontmatter (plus Hermes's
// `platforms`, `required_environment_variables` and `metadata.hermes`). Discovery, the prompt index,
// viewing with linked files, the agent's own create/edit/patch/delete, slash-command invocation; the
// skills that ship with the package are read in place from its skills/ folder (skills-bundled.ts).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { writeFileAtomic, byString } from './fsutil.ts';
import { expandHome } from './paths.ts';
import { scanForThreats, verdictOf, type ThreatFinding } from './threats.ts';
import { bundledOptedOut, bundledSkillsRoot, readBundledManifest, readSuppressedSkills, shortDirHash, writeSuppressedSkills } from './skills-bundled.ts';

export const SKILL_FILE = 'SKILL.md';
export const SUPPORT_DIRS = ['references', 'templates', 'scripts', 'assets', 'examples'];
export const NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const MAX_SKILL_CHARS = 100_000;

export type SkillSource = 'user' | 'bundled' | 'hub' | 'external';

export interface SkillEnvVar {
  name: string;
  prompt?: string;
  help?: string;
  required_for?: string;
}

export interface Skill {
  name: string;
  description: string;
  category: string | null;
  version?: string;
  license?: string;
  platforms: string[];
  tags: string[];
  relatedSkills: string[];
  fallbackForToolsets: string[];
  fallbackForTools: string[];
  requiresToolsets: string[];
  requiresTools: string[];
  requiredEnv: SkillEnvVar[];
  /** The skill's folder and its SKILL.md. */
  dir: string;
  path: string;
  source: SkillSource;
  /** Read in place from the package's skills/ (never written: an edit makes a copy in the home first). */
  packaged?: boolean;
  frontmatter: Record<string, unknown>;
}

export interface ParsedSkill {
  frontmatter: Record<string, unknown>;
  body: string;
}

/** Splits YAML frontmatter (between `---` lines) from the Markdown body. Throws on invalid YAML. */
export function parseFrontmatter(text: string): ParsedSkill {
  const t = text.replace(/^\ufeff/, '').replace(/\r\n/g, '\n');
  if (!t.startsWith('---\n')) return { frontmatter: {}, body: t };
  const end = t.indexOf('\n---', 4);
  if (end < 0) return { frontmatter: {}, body: t };
  const yamlText = t.slice(4, end);
  const after = t.indexOf('\n', end + 4);
  const body = after < 0 ? '' : t.slice(after + 1);
  const fm = parseYaml(yamlText) as unknown;
  if (fm !== null && fm !== undefined && (typeof fm !== 'object' || Array.isArray(fm))) throw new Error('the frontmatter must be a YAML mapping');
  return { frontmatter: (fm ?? {}) as Record<string, unknown>, body };
}

const strList = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x) => typeof x === 'string' || typeof x === 'number').map(String) : typeof v === 'string' && v ? [v] : [];

function hermesMeta(fm: Record<string, unknown>): Record<string, unknown> {
  const md = fm.metadata;
  if (md && typeof md === 'object' && !Array.isArray(md)) {
    const h = (md as Record<string, unknown>).hermes;
    if (h && typeof h === 'object' && !Array.isArray(h)) return h as Record<string, unknown>;
  }
  return {};
}

/** Builds a Skill from a SKILL.md path, or throws with the reason it is not valid. */
/** Parsed frontmatter by SKILL.md path, valid while the file's size and mtime are unchanged. */
type FrontmatterCache = Record<string, { mtimeMs: number; size: number; fm: Record<string, unknown> }>;

const FM_CACHE_FILE = '.skills_cache.json';

function readFmCache(home: string): FrontmatterCache {
  try {
    const v = JSON.parse(readFileSync(join(home, 'skills', FM_CACHE_FILE), 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as FrontmatterCache) : {};
  } catch {
    return {};
  }
}

function frontmatterOf(path: string, cache?: FrontmatterCache, changed?: { v: boolean }): Record<string, unknown> {
  if (cache) {
    const st = statSync(path);
    const hit = cache[path];
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.fm;
    const fm = parseFrontmatter(readFileSync(path, 'utf8')).frontmatter;
    cache[path] = { mtimeMs: st.mtimeMs, size: st.size, fm };
    if (changed) changed.v = true;
    return fm;
  }
  return parseFrontmatter(readFileSync(path, 'utf8')).frontmatter;
}

export function loadSkill(path: string, source: SkillSource, categoryHint: string | null, cache?: FrontmatterCache, changed?: { v: boolean }): Skill {
  const fm = frontmatterOf(path, cache, changed);
  const dir = dirname(path);
  const folder = dir.split(sep).pop() ?? '';
  const name = String(fm.name ?? folder).trim();
  if (!NAME_RE.test(name)) throw new Error(`invalid skill name "${name}" (lowercase letters, digits, ".", "_" or "-", at most 64)`);
  const h = hermesMeta(fm);
  const env = Array.isArray(fm.required_environment_variables) ? fm.required_environment_variables : [];
  return {
    name,
    description: String(fm.description ?? '').replace(/\s+/g, ' ').trim(),
    category: (typeof h.category === 'string' && h.category) || categoryHint,
    version: fm.version !== undefined ? String(fm.version) : undefined,
    license: typeof fm.license === 'string' ? fm.license : undefined,
    platforms: strList(fm.platforms).map((p) => p.toLowerCase()),
    tags: strList(h.tags ?? fm.tags),
    relatedSkills: strList(h.related_skills),
    fallbackForToolsets: strList(h.fallback_for_toolsets),
    fallbackForTools: strList(h.fallback_for_tools),
    requiresToolsets: strList(h.requires_toolsets),
    requiresTools: strList(h.requires_tools),
    requiredEnv: env
      .map((e): SkillEnvVar | null => (typeof e === 'string' ? { name: e } : e && typeof e === 'object' && typeof (e as SkillEnvVar).name === 'string' ? (e as SkillEnvVar) : null))
      .filter((e): e is SkillEnvVar => !!e),
    dir,
    path,
    source,
    frontmatter: fm,
  };
}

export interface SkillProblem {
  path: string;
  error: string;
}

export interface SkillRoot {
  dir: string;
  kind: 'home' | 'bundled' | 'external';
}

/**
 * The skill folders to look in, first name wins: HERMES_HOME/skills, the package's bundled skills
 * (read in place; none when the home opted out with `.no-bundled-skills`), then `skills.external_dirs`
 * (read-only). `bundledRoot: null` leaves the bundled skills out.
 */
export function skillRoots(home: string, externalDirs: string[] = [], bundledRoot: string | null = bundledSkillsRoot()): SkillRoot[] {
  const roots: SkillRoot[] = [{ dir: join(home, 'skills'), kind: 'home' }];
  if (bundledRoot && !bundledOptedOut(home)) roots.push({ dir: bundledRoot, kind: 'bundled' });
  return [...roots, ...externalDirs.map((d) => ({ dir: resolve(expandHome(d)), kind: 'external' as const }))];
}

export interface DiscoverOptions {
  /** The package's skills folder (default: this package's); null: leave bundled skills out. */
  bundledRoot?: string | null;
}

/** Finds every SKILL.md under the roots (depth ≤ 4, dot-folders skipped). First name wins. */
export function discoverSkills(home: string, externalDirs: string[] = [], problems?: SkillProblem[], opts: DiscoverOptions = {}): Skill[] {
  const out = new Map<string, Skill>();
  const bundled = readBundledManifest(home);
  const hub = readHubLock(home);
  const cache = readFmCache(home);
  const changed = { v: false };
  const seen = new Set<string>();
  let hidden: Set<string> | null = null;
  for (const root of skillRoots(home, externalDirs, opts.bundledRoot === undefined ? bundledSkillsRoot() : opts.bundledRoot)) {
    if (!existsSync(root.dir)) continue;
    if (root.kind === 'bundled') hidden = readSuppressedSkills(home);
    const walk = (dir: string, depth: number, rel: string[]) => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      if (entries.some((e) => e.name === SKILL_FILE && e.isFile())) {
        const path = join(dir, SKILL_FILE);
        try {
          const folder = rel[rel.length - 1];
          const source: SkillSource =
            root.kind === 'external' ? 'external' : root.kind === 'bundled' ? 'bundled' : hub.installed[folder] ? 'hub' : bundled.has(folder) ? 'bundled' : 'user';
          seen.add(path);
          const s = loadSkill(path, source, rel.length > 1 ? rel.slice(0, -1).join('/') : null, cache, changed);
          if (root.kind === 'bundled') s.packaged = true;
          if (!out.has(s.name) && !(s.packaged && hidden?.has(s.name))) out.set(s.name, s);
        } catch (e) {
          problems?.push({ path, error: (e as Error).message });
        }
        return; // a skill's own subfolders are its files, not more skills
      }
      if (depth >= 4) return;
      for (const e of entries) {
        if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
        walk(join(dir, e.name), depth + 1, [...rel, e.name]);
      }
    };
    walk(root.dir, 0, []);
  }
  for (const p of Object.keys(cache))
    if (!seen.has(p)) {
      delete cache[p];
      changed.v = true;
    }
  if (changed.v && existsSync(join(home, 'skills'))) {
    try {
      writeFileAtomic(join(home, 'skills', FM_CACHE_FILE), JSON.stringify(cache), 0o600);
    } catch {
      /* read-only: parse again next time */
    }
  }
  return [...out.values()].sort((a, b) => byString(a.category ?? '', b.category ?? '') || byString(a.name, b.name));
}

/**
 * Skills turned off in config.yaml (Hermes's keys): `skills.disabled` everywhere and
 * `skills.platform_disabled.<platform>` on one platform. The model neither sees nor loads them.
 */
export function disabledSkillNames(config: unknown, platform?: string): Set<string> {
  const sk = ((config as { skills?: Record<string, unknown> } | null)?.skills ?? {}) as Record<string, unknown>;
  const names = Array.isArray(sk.disabled) ? sk.disabled.map(String) : [];
  const per = sk.platform_disabled as Record<string, unknown> | undefined;
  if (platform && per && Array.isArray(per[platform])) names.push(...(per[platform] as unknown[]).map(String));
  return new Set(names);
}

export function findSkill(skills: Skill[], name: string): Skill | undefined {
  const n = name.trim().replace(/^\//, '').toLowerCase();
  return skills.find((s) => s.name === n);
}

export interface SkillEnvironment {
  /** process.platform of this machine. */
  os: NodeJS.Platform;
  /** Toolsets whose tools are enabled in the session. */
  toolsets: Set<string>;
  /** Tool names enabled in the session. */
  tools: Set<string>;
}

const OS_NAMES: Record<string, string[]> = { darwin: ['macos', 'darwin', 'osx', 'mac'], linux: ['linux'], win32: ['windows', 'win32', 'win'] };

/** Whether a skill is meant for this operating system (no `platforms` = every one). */
export function skillOnPlatform(s: Skill, os: NodeJS.Platform): boolean {
  return !s.platforms.length || s.platforms.some((p) => (OS_NAMES[os] ?? [os]).includes(p));
}

/** Whether a skill applies here: its platforms, and its conditional activation fields. */
export function skillApplies(s: Skill, env: SkillEnvironment): boolean {
  if (!skillOnPlatform(s, env.os)) return false;
  if (s.requiresToolsets.some((t) => !env.toolsets.has(t))) return false;
  if (s.requiresTools.some((t) => !env.tools.has(t))) return false;
  // A fallback only shows when what it stands in for is missing.
  if (s.fallbackForToolsets.length && s.fallbackForToolsets.every((t) => env.toolsets.has(t))) return false;
  if (s.fallbackForTools.length && s.fallbackForTools.every((t) => env.tools.has(t))) return false;
  return true;
}

/**
 * The skills block of the system prompt, grouped by category; undefined when there are none. The
 * user's own, hub and external skills come with their descriptions; bundled skills (those that ship
 * with Hermes, some 30) by name only, which keeps the prompt within its budget: their names say what
 * they are for, and skills_list or skill_view gives the rest.
 */
export function buildSkillsIndex(skills: Skill[]): string | undefined {
  if (!skills.length) return undefined;
  const groups = new Map<string, Skill[]>();
  for (const s of skills) {
    const c = s.category ?? 'general';
    groups.set(c, [...(groups.get(c) ?? []), s]);
  }
  const lines: string[] = [];
  for (const [cat, list] of [...groups.entries()].sort(([a], [b]) => byString(a, b))) {
    const described = list.filter((s) => s.source !== 'bundled');
    const named = list.filter((s) => s.source === 'bundled').map((s) => s.name);
    if (!described.length) {
      lines.push(`${cat}: ${named.join(', ')}`);
      continue;
    }
    lines.push(`${cat}:`);
    for (const s of described) lines.push(`  - ${s.name}: ${s.description || '(no description)'}`);
    if (named.length) lines.push(`  - ${named.join(', ')}`);
  }
  return [
    'Skills: before replying, scan this list; if one fits even partly, you must load it with skill_view(name) and follow it.',
    '<available_skills>',
    ...lines,
    '</available_skills>',
  ].join('\n');
}

/** Files a skill ships besides SKILL.md (relative paths), for skill_view and invocations. */
export function linkedFiles(s: Skill, max = 200): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => byString(a.name, b.name))) {
      if (out.length >= max) return;
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), r);
      else if (e.isFile() && r !== SKILL_FILE) out.push(r);
    }
  };
  walk(s.dir, '');
  return out;
}

/** Resolves a path inside a skill's folder; throws on traversal or symlinks out of it. */
export function resolveInSkill(s: Skill, filePath: string): string {
  if (!filePath || isAbsolute(filePath)) throw new Error('file_path must be a relative path inside the skill (e.g. references/api.md).');
  const p = resolve(s.dir, normalize(filePath));
  const rel = relative(s.dir, p);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`file_path "${filePath}" is outside the skill's folder.`);
  if (existsSync(p)) {
    const real = realpathSync(p);
    const realDir = realpathSync(s.dir);
    if (real !== realDir && !real.startsWith(realDir + sep)) throw new Error(`file_path "${filePath}" points outside the skill's folder.`);
  }
  return p;
}

/** What skill_view returns: the whole SKILL.md and the list of linked files, or one linked file. */
export function viewSkill(s: Skill, filePath?: string): Record<string, unknown> {
  if (filePath) {
    const p = resolveInSkill(s, filePath);
    if (!existsSync(p) || !statSync(p).isFile()) throw new Error(`The skill ${s.name} has no file ${filePath}. Files: ${linkedFiles(s).join(', ') || '(none)'}.`);
    const buf = readFileSync(p);
    if (buf.includes(0)) return { name: s.name, file_path: filePath, binary: true, size: buf.length, note: 'Binary file: use it by path.', path: p };
    const text = buf.toString('utf8');
    return { name: s.name, file_path: filePath, path: p, content: text.length > MAX_SKILL_CHARS ? `${text.slice(0, MAX_SKILL_CHARS)}\n[… truncated]` : text };
  }
  const content = readFileSync(s.path, 'utf8');
  return {
    name: s.name,
    description: s.description,
    category: s.category,
    tags: s.tags,
    related_skills: s.relatedSkills,
    path: s.dir,
    content: content.length > MAX_SKILL_CHARS ? `${content.slice(0, MAX_SKILL_CHARS)}\n[… truncated]` : content,
    linked_files: linkedFiles(s),
  };
}

/** The user message a `/skill-name [instruction]` sends: the skill, its files, the instruction. */
export function buildSkillInvocation(skills: Skill[], instruction: string): string {
  const parts: string[] = [];
  for (const s of skills) {
    const { body } = parseFrontmatter(readFileSync(s.path, 'utf8'));
    const files = linkedFiles(s);
    parts.push(
      [
        `[The user invoked the skill "${s.name}". Follow it for this request.]`,
        '',
        `<skill name="${s.name}" path="${s.dir}">`,
        body.trim(),
        '</skill>',
        ...(files.length ? ['', `Files in this skill (load one with skill_view("${s.name}", file_path) when a step needs it):`, ...files.map((f) => `- ${f}`)] : []),
      ].join('\n'),
    );
  }
  parts.push(instruction.trim() ? `User instruction: ${instruction.trim()}` : 'User instruction: (none given; apply the skill to the current context, or ask what to apply it to)');
  return parts.join('\n\n');
}

/** Parses `/a /b rest` into the leading skills (up to 5) and the instruction. */
export function parseSkillStack(skills: Skill[], first: string, args: string): { skills: Skill[]; instruction: string } | null {
  const head = findSkill(skills, first);
  if (!head) return null;
  const chosen = [head];
  let rest = args.trim();
  for (;;) {
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(rest);
    if (!m || chosen.length >= 5) break;
    const s = findSkill(skills, m[1]);
    if (!s || chosen.includes(s)) break;
    chosen.push(s);
    rest = m[2];
  }
  return { skills: chosen, instruction: rest };
}

// ---------------------------------------------------------------------------------------------
// The agent's own skills: skill_manage

export interface ManageResult {
  success: boolean;
  [key: string]: unknown;
}

export interface ManageArgs {
  action: 'create' | 'edit' | 'patch' | 'delete' | 'write_file' | 'remove_file';
  name: string;
  content?: string;
  category?: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
  file_path?: string;
  file_content?: string;
}

function scanText(text: string): ThreatFinding[] | null {
  const f = scanForThreats(text, 'skill');
  return verdictOf(f) === 'dangerous' ? f.filter((x) => x.severity === 'dangerous') : null;
}

function blocked(f: ThreatFinding[]): ManageResult {
  return {
    success: false,
    error: `Blocked by the skills guard: ${f.map((x) => `${x.category} (${x.id}: "${x.match}")`).join('; ')}. Skills must not carry prompt injections, secret exfiltration or destructive commands.`,
  };
}

function validateSkillText(text: string, expectedName?: string): string | null {
  if (text.length > MAX_SKILL_CHARS) return `SKILL.md is too large (${text.length} characters; at most ${MAX_SKILL_CHARS}).`;
  let fm: Record<string, unknown>;
  try {
    fm = parseFrontmatter(text).frontmatter;
  } catch (e) {
    return `The frontmatter is not valid YAML: ${(e as Error).message}.`;
  }
  if (!text.replace(/^\ufeff/, '').startsWith('---\n')) return 'SKILL.md must start with YAML frontmatter: ---\\nname: …\\ndescription: …\\n---';
  if (typeof fm.name !== 'string' || !NAME_RE.test(fm.name)) return 'The frontmatter needs `name` (lowercase letters, digits, ".", "_" or "-", at most 64).';
  if (expectedName && fm.name !== expectedName) return `The frontmatter name "${fm.name}" must match the skill name "${expectedName}".`;
  if (typeof fm.description !== 'string' || !fm.description.trim()) return 'The frontmatter needs a one-line `description` of when to use the skill.';
  return null;
}

/**
 * Create, edit, patch, delete a skill in HERMES_HOME/skills, or add/remove one of its files. Every
 * write is scanned; deletes move the skill to skills/.archive/ (recoverable).
 */
export function manageSkill(home: string, a: ManageArgs, externalDirs: string[] = []): ManageResult {
  const root = join(home, 'skills');
  const name = a.name?.trim();
  if (!name || !NAME_RE.test(name)) return { success: false, error: 'Give a skill `name`: lowercase letters, digits, ".", "_" or "-", at most 64 characters.' };
  const skills = discoverSkills(home, externalDirs);
  let existing = findSkill(skills, name);
  if (existing && existing.source === 'external' && a.action !== 'create')
    return { success: false, error: `The skill ${name} lives in an external folder (${existing.dir}), which is read-only here.` };
  let forked = '';
  let forkedDir = '';
  if (existing?.packaged && a.action === 'delete') {
    // The package's copy is never removed: the skill is hidden in this home instead.
    const hidden = readSuppressedSkills(home);
    hidden.add(name);
    writeSuppressedSkills(home, hidden);
    return { success: true, message: `Hid the bundled skill ${name} in this home (\`hermes skills reset ${name}\` offers it again).` };
  }
  if (existing?.packaged && a.action !== 'create') {
    // Changing a bundled skill makes it the user's own: a copy in the home, which takes precedence.
    const rel = relative(realpathSync(bundledSkillsRoot()), realpathSync(existing.dir));
    const dest = join(root, rel);
    if (rel.startsWith('..') || isAbsolute(rel) || existsSync(dest)) return { success: false, error: `Cannot copy the bundled skill ${name} into ${dest}.` };
    mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
    cpSync(existing.dir, dest, { recursive: true });
    forkedDir = dest;
    existing = loadSkill(join(dest, SKILL_FILE), 'user', existing.category);
    forked = ` (a copy of the bundled skill, now yours: ${dest})`;
  }

  const result = ((): ManageResult => {
    switch (a.action) {
      case 'create': {
        if (existing) return { success: false, error: `A skill named ${name} already exists (${existing.dir}). Use action "edit" or "patch" to change it.` };
        if (!a.content) return { success: false, error: '`content` is required: the full SKILL.md, starting with frontmatter (name, description).' };
        const invalid = validateSkillText(a.content, name);
        if (invalid) return { success: false, error: invalid };
        const f = scanText(a.content);
        if (f) return blocked(f);
        const category = a.category?.trim().replace(/[^a-z0-9._-]/gi, '-').toLowerCase();
        const dir = category ? join(root, category, name) : join(root, name);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileAtomic(join(dir, SKILL_FILE), a.content.endsWith('\n') ? a.content : `${a.content}\n`, 0o644);
        return { success: true, message: `Created skill ${name}.`, path: dir, note: 'It is usable now with skill_view; it joins the skills index from the next session.' };
      }
      case 'edit': {
        if (!existing) return { success: false, error: `No skill named ${name}. Use action "create".` };
        if (!a.content) return { success: false, error: '`content` is required: the full new SKILL.md.' };
        const invalid = validateSkillText(a.content, name);
        if (invalid) return { success: false, error: invalid };
        const f = scanText(a.content);
        if (f) return blocked(f);
        writeFileAtomic(existing.path, a.content.endsWith('\n') ? a.content : `${a.content}\n`, 0o644);
        return { success: true, message: `Rewrote ${name}/SKILL.md${forked}.`, path: existing.path };
      }
      case 'patch': {
        if (!existing) return { success: false, error: `No skill named ${name}.` };
        if (!a.old_string) return { success: false, error: '`old_string` is required: the exact text to replace.' };
        let target: string;
        try {
          target = a.file_path ? resolveInSkill(existing, a.file_path) : existing.path;
        } catch (e) {
          return { success: false, error: (e as Error).message };
        }
        if (!existsSync(target)) return { success: false, error: `No file ${a.file_path} in ${name}.` };
        const text = readFileSync(target, 'utf8');
        const count = text.split(a.old_string).length - 1;
        if (!count) return { success: false, error: `old_string was not found in ${a.file_path ?? SKILL_FILE}. Copy it exactly (whitespace included) from skill_view.` };
        if (count > 1 && !a.replace_all) return { success: false, error: `old_string occurs ${count} times; add context to make it unique, or set replace_all.` };
        const next = a.replace_all ? text.split(a.old_string).join(a.new_string ?? '') : text.replace(a.old_string, () => a.new_string ?? '');
        if (!a.file_path) {
          const invalid = validateSkillText(next, name);
          if (invalid) return { success: false, error: `After the patch: ${invalid}` };
        }
        const f = scanText(next);
        if (f) return blocked(f);
        writeFileAtomic(target, next, 0o644);
        return { success: true, message: `Patched ${name}/${a.file_path ?? SKILL_FILE} (${a.replace_all ? count : 1} replacement${count > 1 && a.replace_all ? 's' : ''})${forked}.` };
      }
      case 'delete': {
        if (!existing) return { success: false, error: `No skill named ${name}.` };
        const archive = join(root, '.archive');
        mkdirSync(archive, { recursive: true, mode: 0o700 });
        const dest = join(archive, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
        renameSync(existing.dir, dest);
        return { success: true, message: `Deleted skill ${name} (kept a copy in ${dest}).` };
      }
      case 'write_file': {
        if (!existing) return { success: false, error: `No skill named ${name}.` };
        if (!a.file_path || a.file_content === undefined) return { success: false, error: '`file_path` and `file_content` are required.' };
        const top = normalize(a.file_path).split(/[\\/]/)[0];
        if (!SUPPORT_DIRS.includes(top)) return { success: false, error: `Files go under ${SUPPORT_DIRS.join('/, ')}/ (got "${a.file_path}").` };
        let target: string;
        try {
          target = resolveInSkill(existing, a.file_path);
        } catch (e) {
          return { success: false, error: (e as Error).message };
        }
        const f = scanText(a.file_content);
        if (f) return blocked(f);
        mkdirSync(dirname(target), { recursive: true });
        writeFileAtomic(target, a.file_content, top === 'scripts' ? 0o755 : 0o644);
        return { success: true, message: `Wrote ${name}/${a.file_path}${forked}.` };
      }
      case 'remove_file': {
        if (!existing) return { success: false, error: `No skill named ${name}.` };
        if (!a.file_path) return { success: false, error: '`file_path` is required.' };
        let target: string;
        try {
          target = resolveInSkill(existing, a.file_path);
        } catch (e) {
          return { success: false, error: (e as Error).message };
        }
        if (target === existing.path) return { success: false, error: 'SKILL.md cannot be removed; delete the skill instead.' };
        if (!existsSync(target)) return { success: false, error: `No file ${a.file_path} in ${name}.` };
        rmSync(target, { force: true });
        return { success: true, message: `Removed ${name}/${a.file_path}${forked}.` };
      }
      default:
        return { success: false, error: `Unknown action "${(a as { action: string }).action}". Use create, edit, patch, delete, write_file or remove_file.` };
    }
  })();
  // A failed change leaves no copy of the bundled skill behind.
  if (forkedDir && !result.success) rmSync(forkedDir, { recursive: true, force: true });
  return result;
}

// ---------------------------------------------------------------------------------------------
// Bundled skills live in skills-bundled.ts (read in place; Hermes's manifest format and hash).

export { bundledSkillHash, bundledSkillsRoot, bundledSkillsSignature, readBundledManifest, retireSeededCopies, type RetireResult } from './skills-bundled.ts';

// ---------------------------------------------------------------------------------------------
// Hub provenance (.hub/lock.json), read here so discovery can tell where a skill came from.

/** One installed skill in .hub/lock.json, in Hermes's shape plus the guard's findings. */
export interface HubLockEntry {
  /** local | git | url */
  source: string;
  /** What was installed from: a folder, a git URL (url#subdir), a SKILL.md URL. */
  identifier: string;
  trust_level: string;
  scan_verdict: string;
  /** "sha256:" + 16 hex characters over the installed files. */
  content_hash: string;
  /** Relative to HERMES_HOME/skills. */
  install_path: string;
  files: string[];
  installed_at: string;
  scanner_version?: number;
  findings?: { id: string; category: string; severity: string; file?: string; line?: number }[];
  forced?: boolean;
  /** Hub installs: source_url, source_revision (the upstream tree it came from). */
  metadata?: Record<string, unknown>;
}

/** .hub/lock.json: `installed` by skill name; other keys (written by other tools) are kept. */
export interface HubLock {
  version: number;
  installed: Record<string, HubLockEntry>;
  [key: string]: unknown;
}

export function hubDir(home: string): string {
  return join(home, 'skills', '.hub');
}

export function readHubLock(home: string): HubLock {
  const p = join(hubDir(home), 'lock.json');
  try {
    const v = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const installed = v.installed && typeof v.installed === 'object' && !Array.isArray(v.installed) ? (v.installed as Record<string, HubLockEntry>) : {};
      return { ...v, version: typeof v.version === 'number' ? v.version : 1, installed };
    }
  } catch {
    /* missing or broken: start fresh */
  }
  return { version: 1, installed: {} };
}

/**
 * The hash Hermes records for an installed hub skill (`skills_guard.content_hash`): "sha256:" + 16 hex
 * of a SHA-256 over every file (dot-files too), in POSIX relative-path string order, each as
 * `path \0 bytes`. The same digest as `bundleContentHash` over the fetched files.
 */
export function skillContentHash(dir: string): string {
  const files: Record<string, Buffer> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else if (e.isFile()) files[r] = readFileSync(join(d, e.name));
    }
  };
  walk(dir, '');
  return bundleContentHash(files);
}

/** Hermes's `bundle_content_hash` over files in memory (relative POSIX path → bytes). */
export function bundleContentHash(files: Record<string, Buffer | string>): string {
  const h = createHash('sha256');
  for (const rel of Object.keys(files).map((k) => k.split('\\').join('/')).sort(byCodeUnit)) {
    h.update(rel, 'utf8');
    h.update('\0');
    const v = files[rel];
    h.update(typeof v === 'string' ? Buffer.from(v, 'utf8') : v);
  }
  return `sha256:${h.digest('hex').slice(0, 16)}`;
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether an installed skill still matches its lock entry (either hash form this project has written). */
export function unchangedSinceInstall(entry: { content_hash?: string }, dir: string): boolean {
  const h = entry.content_hash ?? '';
  return h === skillContentHash(dir) || h === `sha256:${shortDirHash(dir)}`;
}

/** SKILL.md files under the skills directories (hidden folders such as .hub and .archive skipped). */
export function countSkills(dirs: string[], maxDepth = 4): number {
  let n = 0;
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.isFile() && e.name === 'SKILL.md')) {
      n++;
      return;
    }
    if (depth >= maxDepth) return;
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) walk(join(dir, e.name), depth + 1);
  };
  for (const d of dirs) walk(d, 0);
  return n;
}
