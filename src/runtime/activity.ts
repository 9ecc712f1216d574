// How a tool call reads to a person: `┊ {emoji} {verb} {detail} {duration}`. Shared by the CLI,
// the REPL and the gateway's tool-progress messages.

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
};

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** The most telling argument of a call, on one line. */
export function toolDetail(name: string, args: Record<string, unknown>, max = 60): string {
  const pick = (...keys: string[]) => {
    for (const k of keys) {
      const v = args[k];
      if (typeof v === 'string' && v) return v;
      if (Array.isArray(v) && v.length) return v.map(String).join(', ');
    }
    return '';
  };
  let d = '';
  switch (name) {
    case 'terminal':
      d = pick('command');
      break;
    case 'process':
      d = [pick('action'), pick('session_id')].filter(Boolean).join(' ');
      break;
    case 'todo': {
      const todos = args.todos;
      d = Array.isArray(todos) ? `${todos.length} item(s)` : 'read';
      break;
    }
    case 'memory':
      d = [pick('action'), pick('target')].filter(Boolean).join(' ');
      break;
    case 'delegate_task':
      d = pick('goal') || (Array.isArray(args.tasks) ? `${args.tasks.length} task(s)` : '');
      break;
    default:
      d = pick('path', 'pattern', 'query', 'url', 'urls', 'name', 'question', 'goal', 'action', 'code');
  }
  return oneLine(d, max);
}

export function toolEmoji(name: string, fallback?: string): string {
  return fallback ?? EMOJI[name] ?? (name.startsWith('mcp_') ? '🔌' : '🛠️');
}

export function formatDuration(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** `durationMs` null: no duration (a call from a stored conversation). */
export function activityLine(name: string, args: Record<string, unknown>, durationMs: number | null, opts: { emoji?: string; failed?: boolean } = {}): string {
  const verb = VERBS[name] ?? name;
  const detail = toolDetail(name, args);
  return `┊ ${toolEmoji(name, opts.emoji)} ${verb}${detail ? ` ${detail}` : ''}${durationMs === null ? '' : `  ${formatDuration(durationMs)}`}${opts.failed ? '  ✗' : ''}`;
}
