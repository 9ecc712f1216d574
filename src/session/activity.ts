// How a tool call reads to a person: its verb, emoji and main argument (`┊ {emoji} {verb} {detail}
// {duration}` is put together by describe.ts, the event describer every surface uses; the gateway's
// tool-progress messages and the API server's progress events take the emoji and detail).

const VERBS: Record<string, string> = {
  terminal: '$',
  process: 'process',
  read_file: 'read',
  write_file: 'write',
  patch: 'patch',
  search_files: 'search',
  web_search: 'search web',
  web_extract: 'fetch',
  todo: 'plan',
  memory: 'remember',
  session_search: 'recall',
  skill_view: 'skill',
  skills_list: 'skills',
  skill_manage: 'skill edit',
  delegate_task: 'delegate',
  execute_code: 'run code',
  clarify: 'ask',
  vision_analyze: 'look',
  cronjob: 'cron',
  send_message: 'send',
  exec_command: '$',
  apply_patch: 'patch',
};

const EMOJI: Record<string, string> = {
  terminal: '💻',
  process: '⚙️',
  read_file: '📖',
  write_file: '✍️',
  patch: '🔧',
  search_files: '🔎',
  web_search: '🔍',
  web_extract: '📄',
  todo: '📋',
  memory: '💾',
  session_search: '🗂️',
  delegate_task: '🔀',
  execute_code: '🐍',
  clarify: '❓',
  vision_analyze: '👁️',
  exec_command: '💻',
  apply_patch: '🔧',
};

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** The argument (or arguments) that tell a call apart, per tool; the rest use MAIN_KEYS. */
const MAIN: Record<string, (a: Args) => string> = {
  terminal: (a) => str(a.command),
  // Codex's shell: `/bin/bash -lc '<command>'` reads as the command itself.
  exec_command: (a) => unwrapShell(str(a.command) || str(a.cmd)),
  apply_patch: (a) => changesOf(a.changes) || str(a.patch).split('\n').find((l) => /^\*\*\* (Add|Update|Delete) File: /.test(l))?.replace(/^\*\*\* /, '') || '',
  process: (a) => join(str(a.action), str(a.session_id)),
  todo: (a) => (Array.isArray(a.todos) ? `${a.todos.length} item(s)` : 'read'),
  memory: (a) => join(str(a.action), str(a.target)),
  delegate_task: (a) => str(a.goal) || (Array.isArray(a.tasks) ? `${a.tasks.length} task(s)` : ''),
  search_files: (a) => join(str(a.pattern), str(a.path) ? `in ${str(a.path)}` : ''),
  cronjob: (a) => join(str(a.action), str(a.name) || str(a.job_id)),
  send_message: (a) => join(str(a.action) === 'send' ? '' : str(a.action), str(a.target)),
  skill_manage: (a) => join(str(a.action), str(a.name)),
  session_search: (a) => str(a.query) || str(a.session_id),
  kanban_create: (a) => join(str(a.title), str(a.assignee) ? `→ ${str(a.assignee)}` : ''),
  kanban_link: (a) => join(str(a.parent_id), '→', str(a.child_id)),
  kanban_block: (a) => join(str(a.task_id), str(a.reason)),
  kanban_comment: (a) => join(str(a.task_id), str(a.body)),
  kanban_list: (a) => join(str(a.assignee), str(a.status)),
  ha_call_service: (a) => join([str(a.domain), str(a.service)].filter(Boolean).join('.'), str(a.entity_id)),
  browser_type: (a) => join(str(a.ref), str(a.text)),
  text_to_speech: (a) => str(a.text),
  image_generate: (a) => str(a.prompt),
};

/** Arguments that usually say what a call is about, in order. */
const MAIN_KEYS = ['command', 'cmd', 'path', 'file_path', 'pattern', 'query', 'url', 'urls', 'image_url', 'name', 'title', 'question', 'prompt', 'text', 'goal', 'task_id', 'job_id', 'session_id', 'entity_id', 'target', 'action', 'code', 'ref', 'key', 'direction', 'domain', 'id', 'message', 'content'];

type Args = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number') ? v.join(', ') : '');
const join = (...parts: string[]) => parts.filter(Boolean).join(' ');

function unwrapShell(cmd: string): string {
  const m = /^(?:\S*\/)?(?:ba|z|da)?sh\s+-l?c\s+(['"])([\s\S]*)\1$/.exec(cmd.trim());
  return m ? (m[1] === "'" ? m[2].replace(/'\\''/g, "'") : m[2]) : cmd;
}

function changesOf(v: unknown): string {
  if (!Array.isArray(v) || !v.length) return '';
  const paths = v.map((c) => (c && typeof c === 'object' ? str((c as Args).path) : '')).filter(Boolean);
  return paths.slice(0, 3).join(', ') + (paths.length > 3 ? ` +${paths.length - 3} more` : '');
}

/**
 * The most telling argument of a call, on one line: the tool's own choice, else the first of
 * MAIN_KEYS it has, else its first short argument of any name — so every call shows what it is
 * about (MCP and Codex tools included).
 */
export function toolDetail(name: string, args: Record<string, unknown>, max = 60): string {
  const a = args && typeof args === 'object' ? args : {};
  let d = MAIN[name]?.(a) ?? '';
  if (!d) for (const k of MAIN_KEYS) if ((d = str(a[k]))) break;
  if (!d) {
    const first = Object.entries(a).find(([, v]) => str(v));
    if (first) d = `${first[0]}=${str(first[1])}`;
  }
  return oneLine(d, max);
}

export function toolEmoji(name: string, fallback?: string): string {
  return fallback ?? EMOJI[name] ?? (name.startsWith('mcp_') || name.startsWith('mcp.') ? '🔌' : '🛠️');
}

export function formatDuration(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** A tool's verb in an activity line (`terminal` reads `$`, `read_file` reads `read`); its name when it has none. */
export function toolVerb(name: string): string {
  return VERBS[name] ?? name;
}
