// Sub-directory context discovery, as in Hermes: the system prompt has the working directory's
// AGENTS.md; when a tool call first touches another directory (a path argument, or a path in a
// terminal command), that directory's own rule file (and those of its parents, up to five levels,
// stopping at directories already seen) is read, scanned, and appended to the tool's result — the
// moment it becomes relevant, without changing the system prompt (its cache stays warm).
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import type { AgentTool } from '../agent/types.ts';
import { readHint } from '../state/context-files.ts';

const MAX_HINT_CHARS = 8_000;

/** The files looked for in each directory: .hermes.md first, then the rule files (HERMES_MD_NAMES), SOUL.md aside. */
export function hintNames(ruleNames: string[], includeHermesMd = true): string[] {
  return [...(includeHermesMd ? ['.hermes.md', 'HERMES.md'] : []), ...ruleNames.filter((n) => n !== 'SOUL.md')];
}
const MAX_ANCESTOR_WALK = 5;
const PATH_KEYS = ['path', 'file_path', 'workdir'];
const COMMAND_TOOLS = new Set(['terminal']);

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Words of a shell command that look like paths (have a / or a .), without flags and URLs. */
function pathTokens(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const t = m[1] ?? m[2] ?? m[3] ?? '';
    if (!t || t.startsWith('-')) continue;
    if (!t.includes('/') && !t.includes('.')) continue;
    if (/^(https?:\/\/|git@)/.test(t)) continue;
    out.push(t);
  }
  return out;
}

export class SubdirHints {
  private readonly cwd: string;
  private readonly names: string[];
  private readonly seen = new Set<string>();

  /** `names`: the hint files looked for in each directory, in priority order. */
  constructor(cwd: string, names: string[]) {
    this.cwd = resolve(cwd);
    this.names = names;
    this.seen.add(this.cwd); // its rules are in the system prompt already
  }

  /** The hint text to append to a tool's result, or null when the call reached no new directory. */
  check(toolName: string, args: Record<string, unknown>): string | null {
    const dirs = new Set<string>();
    for (const k of PATH_KEYS) {
      const v = args[k];
      if (typeof v === 'string' && v.trim()) this.candidates(v.trim(), dirs);
    }
    if (COMMAND_TOOLS.has(toolName) && typeof args.command === 'string') for (const t of pathTokens(args.command)) this.candidates(t, dirs);
    const found: string[] = [];
    for (const d of dirs) {
      this.seen.add(d);
      const f = readHint(d, this.names, MAX_HINT_CHARS);
      if (f) found.push(`[Subdirectory context discovered: ${f.path}]\n${f.content}`);
    }
    return found.length ? `\n\n${found.join('\n\n')}` : null;
  }

  /** A path's directory and its parents (at most five), up to the first one already seen. */
  private candidates(raw: string, out: Set<string>): void {
    let p = raw === '~' || raw.startsWith('~/') ? resolve(homedir(), raw.slice(2)) : isAbsolute(raw) ? resolve(raw) : resolve(this.cwd, raw);
    if (extname(p) || isFile(p)) p = dirname(p);
    for (let i = 0; i < MAX_ANCESTOR_WALK; i++) {
      if (this.seen.has(p)) break;
      if (isDir(p)) out.add(p);
      const up = dirname(p);
      if (up === p) break;
      p = up;
    }
  }
}

/** The tool with discovered hints appended to its results (`hints()` is the session's current tracker). */
export function withHints(tool: AgentTool, hints: () => SubdirHints | null): AgentTool {
  return {
    ...tool,
    async execute(args, ctx) {
      const out = await tool.execute(args, ctx);
      let extra: string | null = null;
      try {
        extra = hints()?.check(tool.name, args) ?? null;
      } catch {
        extra = null;
      }
      return extra ? { ...out, content: out.content + extra } : out;
    },
  };
}
