// execute_code: the model writes a Python or JavaScript script that calls Hermes tools through a
// generated stub module (`hermes_tools`) speaking newline-delimited JSON-RPC over a Unix socket
// back to this process, which dispatches to the session's tools. Only what the script prints
// returns to the model; intermediate tool results never enter the context, and the inner calls do
// not use the parent's iteration budget.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';

/** Tools a script may call, with their parameters (required first) for the generated stubs. */
export const SANDBOX_TOOLS: { name: string; params: string[]; required: number; doc: string }[] = [
  { name: 'web_search', params: ['query', 'limit'], required: 1, doc: 'Search the web; returns {"data": {"web": [{title, url, description}]}}' },
  { name: 'web_extract', params: ['urls'], required: 1, doc: 'Read web pages (list of URLs) as Markdown; returns {"results": [{url, title, content}]}' },
  { name: 'read_file', params: ['path', 'offset', 'limit'], required: 1, doc: 'Read a text file; returns {"content": "N|line...", "total_lines": N}' },
  { name: 'write_file', params: ['path', 'content'], required: 2, doc: 'Write a file; returns {"bytes_written": N}' },
  { name: 'search_files', params: ['pattern', 'target', 'path', 'file_glob', 'limit', 'offset', 'output_mode', 'context'], required: 1, doc: 'ripgrep search; returns {"total_count", "matches"|"files"|"counts"}' },
  { name: 'patch', params: ['path', 'old_string', 'new_string', 'replace_all', 'mode', 'patch'], required: 0, doc: 'Edit a file (find/replace) or apply a V4A patch; returns {"success", "diff"}' },
  { name: 'terminal', params: ['command', 'timeout', 'workdir'], required: 1, doc: 'Run a shell command (foreground only); returns {"output", "exit_code"}' },
];

const schema = (z: Zod) =>
  z.object({
  code: z.string().min(1),
  language: z.enum(['python', 'javascript']).optional(),
});

export type ExecuteCodeArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'execute_code',
  toolset: 'code_execution',
  emoji: '🐍',
  description:
    'Run a Python (default) or JavaScript script that calls tools as functions, for many calls with logic between them; only what it prints comes back. `from hermes_tools import terminal` (JavaScript: the same module, async); each takes the tool\'s parameters and returns its result: ' + SANDBOX_TOOLS.map((t) => t.name).join(', ') + '.',
  schema,
  check: (s) => !!s.callTool,
  requirement: 'needs a session that can call tools from scripts (not offered to subagents)',
  async handler(a, ctx) {
    const { runExecuteCode } = await import('../impl/execute-code.ts');
    return runExecuteCode(a, ctx);
  },
});
