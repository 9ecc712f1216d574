// Rough token counts for budgeting before the provider reports real usage (~4 chars per token).
import type { Message, ToolSchema } from '../llm/types.ts';

export const CHARS_PER_TOKEN = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(m: Message): number {
  let chars = 0;
  if (typeof m.content === 'string') chars += m.content.length;
  else if (Array.isArray(m.content)) for (const p of m.content) chars += p.type === 'text' ? p.text.length : 1000;
  for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length + 20;
  if (m.reasoning) chars += m.reasoning.length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + 4;
}

export function estimateMessagesTokens(ms: Message[]): number {
  return ms.reduce((n, m) => n + estimateMessageTokens(m), 0);
}

export function estimateToolsTokens(tools: ToolSchema[]): number {
  return estimateTextTokens(JSON.stringify(tools));
}
