// Project context: the rules a project gives its agents. Only one kind is loaded, the first found:
// .hermes.md / HERMES.md (from the working directory up to the git root) → AGENTS.md → CLAUDE.md →
// .cursorrules (or .cursor/rules/*.mdc), the last three in the working directory only. Each file is
// capped at 20,000 characters (70% head, 20% tail) and scanned; a suspicious file is replaced by a
// [BLOCKED: …] marker. HERMES_MD_NAMES (comma-separated) replaces the list of rule files loaded
// automatically, in priority order; SOUL.md is loaded as the identity only while it is on the list.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseFrontmatter } from './skills.ts';
import { scanForThreats } from './threats.ts';

export const CONTEXT_MAX_CHARS = 20_000;

export interface ContextFile {
  /** Display name (relative to the working directory when outside it). */
  name: string;
  path: string;
  content: string;
  /** Set when the scan refused the file. */
  blocked?: string;
}

/** Keeps 70% of the budget from the head and 20% from the tail, with a marker between. */
export function truncateHeadTail(text: string, max = CONTEXT_MAX_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = Math.floor(max * 0.2);
  return `${text.slice(0, head)}\n\n[… ${(text.length - head - tail).toLocaleString('en-US')} characters of this file omitted …]\n\n${text.slice(-tail)}`;
}

/** The nearest folder at or above `dir` that holds .git, or null. */
export function gitRoot(dir: string): string | null {
  let d = dir;
  for (;;) {
    if (existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function read(path: string, name: string, stripFrontmatter: boolean): ContextFile {
  let text = readFileSync(path, 'utf8');
  if (stripFrontmatter) {
    try {
      text = parseFrontmatter(text).body;
    } catch {
      /* not YAML frontmatter after all: keep the text */
    }
  }
  text = text.trim();
  const findings = scanForThreats(text, 'context');
  if (findings.length) {
    const ids = [...new Set(findings.map((f) => f.category))].join(', ');
    return {
      name,
      path,
      content: `[BLOCKED: ${name} contained potential prompt injection (${ids}). Content not loaded.]`,
      blocked: findings.map((f) => f.id).join(', '),
    };
  }
  return { name, path, content: truncateHeadTail(text) };
}

/** The rule files loaded automatically when HERMES_MD_NAMES is not set (Hermes's default). */
export const DEFAULT_MD_NAMES = ['AGENTS.md', 'CLAUDE.md', '.cursorrules', 'SOUL.md'];

/** HERMES_MD_NAMES as a list of plain file names (anything with a path separator is ignored). */
export function ruleFileNames(env: NodeJS.ProcessEnv): string[] {
  const raw = env.HERMES_MD_NAMES;
  if (!raw?.trim()) return DEFAULT_MD_NAMES;
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x && !/[\\/]/.test(x) && x !== '.' && x !== '..');
}

/** The files a rule name stands for in a directory: AGENTS.md and CLAUDE.md also in lower case. */
function variants(name: string): string[] {
  const lower = name.toLowerCase();
  return (lower === 'agents.md' || lower === 'claude.md') && lower !== name ? [name, lower] : [name];
}

/** The project's context files, by the priority above (empty when none, or when rules are ignored). */
export function findProjectContext(cwd: string, names: string[] = DEFAULT_MD_NAMES): ContextFile[] {
  const root = gitRoot(cwd);
  // 1. .hermes.md / HERMES.md, nearest first, up to the git root (only cwd without a repository).
  let d = cwd;
  for (;;) {
    for (const n of ['.hermes.md', 'HERMES.md']) {
      const p = join(d, n);
      if (isFile(p)) return [read(p, d === cwd ? n : relative(cwd, p) || n, true)];
    }
    if (!root || d === root) break;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  // 2–4. AGENTS.md, CLAUDE.md, .cursorrules (or the HERMES_MD_NAMES list) in the working directory.
  for (const name of names) {
    if (name === 'SOUL.md') continue; // the identity, not project context
    for (const n of variants(name)) {
      const p = join(cwd, n);
      if (isFile(p)) return [read(p, n, false)];
    }
    if (name === '.cursorrules') {
      const mdc = cursorRules(cwd);
      if (mdc.length) return mdc;
    }
  }
  return [];
}

function cursorRules(cwd: string): ContextFile[] {
  const rulesDir = join(cwd, '.cursor', 'rules');
  if (!existsSync(rulesDir)) return [];
  let names: string[] = [];
  try {
    names = readdirSync(rulesDir).filter((f) => f.endsWith('.mdc')).sort();
  } catch {
    /* unreadable */
  }
  return names.map((n) => read(join(rulesDir, n), `.cursor/rules/${n}`, true));
}

/** Hint files of one directory (sub-directory discovery): the first present, read and scanned. */
export function readHint(dir: string, names: string[], maxChars: number): ContextFile | null {
  for (const name of names) {
    for (const n of variants(name)) {
      const p = join(dir, n);
      if (!isFile(p)) continue;
      const f = read(p, n, n === '.hermes.md' || n === 'HERMES.md');
      if (!f.content.trim()) continue;
      if (!f.blocked && f.content.length > maxChars) f.content = `${f.content.slice(0, maxChars)}\n\n[...truncated ${n}: ${f.content.length.toLocaleString('en-US')} characters in all]`;
      return f;
    }
  }
  return null;
}

/** The "# Project Context" prompt block, or undefined. */
export function buildProjectContext(files: ContextFile[]): string | undefined {
  const usable = files.filter((f) => f.content.trim());
  if (!usable.length) return undefined;
  return [
    '# Project Context',
    'The following project context files were found in the working directory and should be followed:',
    ...usable.map((f) => `## ${f.name}\n${f.content}`),
  ].join('\n\n');
}

/** Reads and scans SOUL.md: its text, or undefined (default identity) when missing or blocked. */
export function loadSoul(path: string): { identity?: string; blocked?: string } {
  if (!isFile(path)) return {};
  const text = readFileSync(path, 'utf8').trim();
  if (!text) return {};
  const findings = scanForThreats(text, 'context');
  if (findings.length) return { blocked: findings.map((f) => f.id).join(', ') };
  return { identity: truncateHeadTail(text) };
}
