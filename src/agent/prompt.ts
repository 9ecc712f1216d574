// The system prompt, assembled once per session in Hermes's order and then frozen, so the
// provider's prompt cache stays warm. Pure: callers read the files and pass the parts in.

export const DEFAULT_IDENTITY =
  'You are Hermes, an AI agent that gets real work done for its user. Be direct and concise; say plainly what you did and ' +
  'could not do; ask only when a request is genuinely ambiguous.';

export const PLATFORM_HINTS: Record<string, string> = {
  cli: 'You are in a terminal: short paragraphs, plain lists, fenced code; no tables or heavy Markdown. No attachments: name files by path.',
  acp: 'You are running inside a code editor through the Agent Client Protocol. The user sees your messages beside their code; refer to files by path.',
  telegram: 'You are chatting on Telegram. Keep replies short and conversational; basic Markdown (bold, italics, code) renders.',
  discord: 'You are chatting on Discord. Keep replies short; Discord Markdown renders. Messages over 2000 characters are split.',
  slack: 'You are chatting on Slack. Keep replies short; Slack mrkdwn renders (*bold*, _italic_, `code`).',
  email: 'You are answering by email. Write a complete, well-structured reply; plain text is safest.',
  api_server: 'You are answering through an OpenAI-compatible API. Answer the request directly.',
  cron: 'You are running a scheduled job with nobody watching. Do the task and produce the report; you cannot ask questions.',
  webhook: 'You are handling a webhook event with nobody watching. Do the task; you cannot ask questions.',
};

export interface PromptParts {
  /** SOUL.md content, or undefined for the default identity. */
  identity?: string;
  /** Behaviour guidance tied to the tools that are enabled (memory, skills, session search…). */
  toolGuidance?: string[];
  /** A memory provider's static block. */
  providerBlock?: string;
  /** agent.system_prompt / personality overlay. */
  systemMessage?: string;
  /** Frozen MEMORY.md snapshot block (with its header). */
  memory?: string;
  /** Frozen USER.md snapshot block (with its header). */
  userProfile?: string;
  /** The skills index block. */
  skillsIndex?: string;
  /** Plugins' system prompt sections (after memory and the user profile), each already headed. */
  pluginSections?: string[];
  /** The project context block (AGENTS.md etc.). */
  projectContext?: string;
  /** Set-up facts the model must know, e.g. configured MCP servers that failed to connect. */
  notes?: string[];
  /** Where the tools run (host, user, working directory, or the remote backend), one fact a line. */
  environment?: string[];
  /** The active Hermes profile, when it matters. */
  profile?: string;
  /** When the session starts. */
  now: Date;
  timezone?: string;
  /** The local zone's name when known (e.g. $TZ), shown beside the UTC offset. */
  localZoneName?: string;
  platform: string;
  sessionId?: string;
  model?: string;
  provider?: string;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The session's start time for the prompt. With no timezone configured this is plain local time
 * (no Intl: initialising ICU costs ~10 ms of start-up); a configured IANA zone goes through Intl.
 */
export function formatNow(now: Date, timezone?: string, localZoneName?: string): string {
  if (timezone) {
    try {
      const fmt = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        weekday: 'long',
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hour12: false,
      });
      return `${fmt.format(now)} (${timezone})`;
    } catch {
      // an unknown zone name: fall back to local time
    }
  }
  const off = -now.getTimezoneOffset();
  const zone = `UTC${off >= 0 ? '+' : '-'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  const day = `${DAYS[now.getDay()]}, ${MONTHS[now.getMonth()]} ${now.getDate()}, ${now.getFullYear()}`;
  return `${day} ${pad(now.getHours())}:${pad(now.getMinutes())} (${localZoneName ? `${localZoneName}, ` : ''}${zone})`;
}

export function buildSystemPrompt(p: PromptParts): string {
  const sections: string[] = [];
  sections.push((p.identity?.trim() || DEFAULT_IDENTITY).trim());
  if (p.toolGuidance?.length) sections.push(p.toolGuidance.join('\n\n'));
  if (p.notes?.length) sections.push(p.notes.join('\n\n'));
  if (p.providerBlock) sections.push(p.providerBlock);
  if (p.systemMessage?.trim()) sections.push(p.systemMessage.trim());
  if (p.memory) sections.push(p.memory);
  if (p.userProfile) sections.push(p.userProfile);
  if (p.pluginSections?.length) sections.push(...p.pluginSections);
  if (p.skillsIndex) sections.push(p.skillsIndex);
  if (p.projectContext) sections.push(p.projectContext);
  const meta = [`Current time: ${formatNow(p.now, p.timezone, p.localZoneName)}`];
  if (p.sessionId) meta.push(`Session ID: ${p.sessionId}`);
  if (p.model) meta.push(`Model: ${p.model}${p.provider ? ` (provider: ${p.provider})` : ''}`);
  if (p.environment?.length) meta.push(...p.environment);
  if (p.profile) meta.push(p.profile);
  sections.push(meta.join('\n'));
  const hint = PLATFORM_HINTS[p.platform];
  if (hint) sections.push(hint);
  return sections.join('\n\n');
}
