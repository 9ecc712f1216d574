// Hermes tool calls as ACP tool calls: a kind (edit, execute, read, search, fetch…), a title, the
// files they touch, and their results as text or diffs.
import { isAbsolute, resolve } from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk/unstable';
import type { FileEdit } from './edits.ts';

const KINDS: Record<string, ToolKind> = {
  terminal: 'execute',
  process: 'execute',
  execute_code: 'execute',
  read_file: 'read',
  vision_analyze: 'read',
  search_files: 'search',
  web_search: 'search',
  session_search: 'search',
  web_extract: 'fetch',
  write_file: 'edit',
  patch: 'edit',
  todo: 'think',
  delegate_task: 'think',
  memory: 'think',
};

export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? 'other';
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export function toolTitle(name: string, args: Record<string, unknown>): string {
  switch (name) {
    case 'terminal':
      return clip(str(args.command).replace(/\s+/g, ' ').trim() || 'terminal', 200);
    case 'process':
      return `process ${str(args.action)}${args.session_id ? ` ${str(args.session_id)}` : ''}`;
    case 'read_file':
      return `Read ${str(args.path)}${args.offset ? ` (from line ${str(args.offset)})` : ''}`;
    case 'write_file':
      return `Write ${str(args.path)}`;
    case 'patch': {
      if (args.path) return `Edit ${str(args.path)}`;
      const files = [...str(args.patch).matchAll(/^\*\*\*\s+(?:Update|Add|Delete)\s+File:\s*(.+)$/gm)].map((m) => m[1].trim());
      return files.length === 1 ? `Edit ${files[0]}` : `Apply patch${files.length ? ` (${files.length} files)` : ''}`;
    }
    case 'search_files':
      return `Search ${clip(str(args.pattern), 80)}${args.path ? ` in ${str(args.path)}` : ''}`;
    case 'web_search':
      return `Web search: ${clip(str(args.query), 100)}`;
    case 'web_extract': {
      const urls = Array.isArray(args.urls) ? args.urls.map(str) : [str(args.url)];
      return `Fetch ${clip(urls.filter(Boolean).join(', '), 120)}`;
    }
    case 'vision_analyze':
      return `Look at ${clip(str(args.image_url ?? args.path), 100)}`;
    case 'execute_code':
      return 'Run code';
    case 'delegate_task':
      return `Delegate: ${clip(str(args.goal), 100)}`;
    case 'todo':
      return 'Update plan';
    default:
      return name.startsWith('mcp_') ? `${name} ${clip(JSON.stringify(args), 100)}` : name;
  }
}

export function toolLocations(name: string, args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  if ((name === 'read_file' || name === 'write_file' || (name === 'patch' && args.path)) && typeof args.path === 'string')
    return [{ path: abs(args.path), ...(name === 'read_file' && typeof args.offset === 'number' ? { line: args.offset } : {}) }];
  if (name === 'patch' && typeof args.patch === 'string')
    return [...args.patch.matchAll(/^\*\*\*\s+(?:Update|Add|Delete)\s+File:\s*(.+)$/gm)].map((m) => ({ path: abs(m[1].trim()) }));
  if (name === 'search_files' && typeof args.path === 'string') return [{ path: abs(args.path) }];
  return [];
}

const MAX_TEXT = 20_000;

export const textContent = (text: string): ToolCallContent => ({ type: 'content', content: { type: 'text', text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n[… ${text.length - MAX_TEXT} more characters …]` : text } });

export const diffContent = (e: FileEdit): ToolCallContent => ({ type: 'diff', path: e.path, oldText: e.oldText, newText: e.newText });

/** A finished tool call's result for the editor (a diff for edits, output for commands). */
export function resultContent(name: string, content: string, edits: FileEdit[] | undefined): ToolCallContent[] {
  if (edits?.length) return edits.map(diffContent);
  let parsed: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(content) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) parsed = v as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  if (parsed && typeof parsed.error === 'string') return [textContent(parsed.error)];
  if (name === 'terminal' && parsed) {
    const out = str(parsed.output);
    const code = parsed.exit_code;
    return [textContent(`${out ? '```\n' + out.replace(/\n$/, '') + '\n```' : '(no output)'}${code !== undefined && code !== 0 ? `\nexit code ${str(code)}` : ''}`)];
  }
  if (name === 'read_file' && parsed && typeof parsed.content === 'string') return [textContent('```\n' + parsed.content.replace(/^(\d+)\|/gm, '') + '\n```')];
  if (name.startsWith('mcp_') && parsed && typeof parsed.result === 'string') return [textContent(parsed.result)];
  return [textContent(content)];
}
