// What a request carries before the conversation starts (system prompt + tool schemas) and the
// budget it is held to: shared by bench/prompt.ts (the figures) and test/tools/prompt-budget.test.ts
// (which fails when the default request outgrows it).

/** Tokens of system prompt + tool schemas a request may carry (issue 30: the leanest prompt). */
export const BUDGET = 3500;
/** Tools the default one-shot must still offer within it. */
export const MIN_TOOLS = 19;

/** Dummy credentials that make every optional built-in tool available. */
export const FULL_TOOL_ENV: Record<string, string> = {
  HASS_TOKEN: 'bench',
  HASS_URL: 'http://127.0.0.1:9',
  FAL_KEY: 'bench',
  OPENAI_API_KEY: 'bench',
  ELEVENLABS_API_KEY: 'bench',
  FIRECRAWL_API_KEY: 'bench',
  EXA_API_KEY: 'bench',
  TAVILY_API_KEY: 'bench',
  TELEGRAM_BOT_TOKEN: 'bench',
};

export interface PromptSize {
  tools: number;
  names: string[];
  systemChars: number;
  toolChars: number;
  tokens: number;
}

/** One request's fixed part: the system prompt and the tool schemas, as sent on the wire. */
export function promptSize(body: { messages?: { role: string; content: unknown }[]; tools?: unknown[] }): PromptSize {
  // The host line names this machine's user and working directory: counted as a typical one
  // (`root`, /home/user/project), so the figure is the same in every clone and on every machine.
  const system = (body.messages ?? [])
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n')
    .replace(/^Host: ([^;\n]*?)(?:, user [^;\n]+)?; working directory [^\n]*$/m, 'Host: $1, user root; working directory /home/user/project');
  const tools = body.tools ?? [];
  const toolChars = JSON.stringify(tools).length;
  const names = tools.map((t) => (t as { function?: { name?: string } }).function?.name ?? '?');
  return { tools: tools.length, names, systemChars: system.length, toolChars, tokens: Math.ceil((system.length + toolChars) / 4) };
}

