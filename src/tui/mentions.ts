// `@` completion in the TUI's input: paths under the working directory, written in Hermes's
// reference syntax (`@file:path`, `@folder:path`). A bare `@part` searches file and folder names
// below the directory (hidden folders, node_modules and build output skipped, a bounded walk);
// `@file:dir/pa` lists that folder. The runtime does not inline referenced files yet (Python Hermes
// does): the model sees the reference and reads the file with its tools.

import { readdirSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { CompletionItem, Completions } from '../cli/repl/completion.ts';

const KINDS: CompletionItem[] = [
  { value: '@file:', label: '@file:', hint: 'a file below this directory' },
  { value: '@folder:', label: '@folder:', hint: 'a folder below this directory' },
];

const SKIP = new Set(['node_modules', 'dist', 'build', 'target', '__pycache__', '.git', 'venv', '.venv']);
const MAX_FILES = 5000;
const MAX_DEPTH = 6;
const MAX_ITEMS = 50;

interface PathEntry {
  path: string;
  dir: boolean;
}

/** Files and folders below `root` (relative, `/`-separated), breadth first, bounded. */
export function walk(root: string): PathEntry[] {
  const out: PathEntry[] = [];
  let level = [root];
  for (let depth = 0; depth < MAX_DEPTH && level.length && out.length < MAX_FILES; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let list: Dirent[];
      try {
        list = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      list.sort((a, b) => a.name.localeCompare(b.name));
      for (const d of list) {
        if (d.name.startsWith('.') || SKIP.has(d.name)) continue;
        const abs = join(dir, d.name);
        const rel = relative(root, abs).split(sep).join('/');
        if (d.isDirectory()) {
          out.push({ path: rel, dir: true });
          next.push(abs);
        } else out.push({ path: rel, dir: false });
        if (out.length >= MAX_FILES) break;
      }
    }
    level = next;
  }
  return out;
}

/** The `@…` token the cursor is at the end of, with its offset, or null. */
export function mentionAt(text: string, cursor: number): { token: string; from: number } | null {
  const before = text.slice(0, cursor);
  const m = /(^|\s)(@[^\s@]*)$/.exec(before);
  if (!m) return null;
  return { token: m[2], from: before.length - m[2].length };
}

export class MentionIndex {
  private readonly root: string;
  private cached: { at: number; entries: PathEntry[] } | null = null;
  private readonly now: () => number;

  constructor(root: string, now: () => number = Date.now) {
    this.root = root;
    this.now = now;
  }

  private entries(): PathEntry[] {
    if (!this.cached || this.now() - this.cached.at > 10_000) this.cached = { at: this.now(), entries: walk(this.root) };
    return this.cached.entries;
  }

  /** Completions for the `@` token at the cursor, or null. */
  complete(text: string, cursor: number): Completions | null {
    const at = mentionAt(text, cursor);
    if (!at) return null;
    const tok = at.token;
    const kind = /^@(file|folder):(.*)$/.exec(tok);
    let items: CompletionItem[];
    if (kind) items = this.paths(kind[2], kind[1] === 'folder');
    else if (tok === '@') items = KINDS;
    else {
      const q = tok.slice(1);
      const kinds = KINDS.filter((k) => k.label.slice(1).startsWith(q.toLowerCase()));
      items = [...kinds, ...this.paths(q, false)];
    }
    items = items.filter((i) => i.value.trimEnd() !== tok);
    return items.length ? { items: items.slice(0, MAX_ITEMS), from: at.from } : null;
  }

  /** Paths matching `q`: a folder's entries when `q` has a `/`, else names anywhere below the root. */
  private paths(q: string, foldersOnly: boolean): CompletionItem[] {
    const all = this.entries().filter((e) => !foldersOnly || e.dir);
    const lower = q.toLowerCase();
    let hits: PathEntry[];
    if (q.includes('/')) {
      const dir = q.slice(0, q.lastIndexOf('/') + 1);
      hits = all.filter((e) => e.path.toLowerCase().startsWith(lower) && !e.path.slice(dir.length).includes('/'));
    } else if (!q) {
      hits = all.filter((e) => !e.path.includes('/'));
    } else {
      const base = (p: string) => p.slice(p.lastIndexOf('/') + 1).toLowerCase();
      const rank = (e: PathEntry) => (base(e.path).startsWith(lower) ? 0 : e.path.toLowerCase().startsWith(lower) ? 1 : 2);
      hits = all
        .filter((e) => e.path.toLowerCase().includes(lower))
        .sort((a, b) => rank(a) - rank(b) || a.path.split('/').length - b.path.split('/').length || a.path.length - b.path.length);
    }
    return hits.slice(0, MAX_ITEMS).map((e) => ({
      value: e.dir ? `@${foldersOnly ? 'folder' : 'file'}:${e.path}/` : `@file:${e.path} `,
      label: e.dir ? `${e.path}/` : e.path,
      hint: e.dir ? 'folder' : '',
    }));
  }
}
