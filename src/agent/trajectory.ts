// Conversations as ShareGPT trajectories for training, in Hermes's format: roles system/human/gpt/tool,
// every gpt turn opening with a <think> block, tool calls as <tool_call> JSON blocks and the results
// of one assistant message grouped into one tool turn of <tool_response> blocks.
import type { Message, ToolSchema } from '../llm/types.ts';
import { messageText } from './repair.ts';

export interface ShareGptTurn {
  from: 'system' | 'human' | 'gpt' | 'tool';
  value: string;
}

export interface TrajectoryEntry {
  conversations: ShareGptTurn[];
  timestamp: string;
  model: string;
  completed: boolean;
}

/** The function-calling system prompt a trajectory opens with, listing the tools as JSON. */
export function trajectorySystemPrompt(tools: ToolSchema[]): string {
  const defs = tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters, required: null }));
  return [
    'You are a function calling AI model. Function signatures are given inside <tools></tools> XML tags. You may call one or more ' +
      'functions to help with the user query; when none is relevant, answer in natural language. Do not guess argument values. ' +
      'Function results come back inside <tool_response></tool_response> XML tags.',
    `<tools>\n${JSON.stringify(defs)}\n</tools>`,
    'For each function call, return a JSON object with the function name and arguments inside <tool_call></tool_call> XML tags:',
    '<tool_call>\n{"name": <function-name>, "arguments": <args-dict>}\n</tool_call>',
  ].join('\n');
}

const SCRATCHPAD = /<REASONING_SCRATCHPAD>([\s\S]*?)<\/REASONING_SCRATCHPAD>/;

function parseArgs(raw: string): unknown {
  try {
    const v = JSON.parse(raw || '{}') as unknown;
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

function parseContent(text: string): unknown {
  const t = text.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      return JSON.parse(t);
    } catch {
      /* not JSON after all */
    }
  }
  return text;
}

/** Converts a conversation (without its system prompt) to ShareGPT turns. */
export function toShareGpt(history: Message[], tools: ToolSchema[]): ShareGptTurn[] {
  const out: ShareGptTurn[] = [{ from: 'system', value: trajectorySystemPrompt(tools) }];
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role === 'system') continue;
    if (m.role === 'user') {
      out.push({ from: 'human', value: messageText(m.content) });
      continue;
    }
    if (m.role === 'assistant') {
      let text = messageText(m.content);
      let reasoning = m.reasoning ?? '';
      const pad = SCRATCHPAD.exec(text);
      if (pad) {
        reasoning = reasoning || pad[1].trim();
        text = text.replace(SCRATCHPAD, '').trim();
      }
      let value = `<think>\n${reasoning.trim() ? `${reasoning.trim()}\n` : ''}</think>\n`;
      if (text.trim()) value += text.trim();
      for (const c of m.tool_calls ?? [])
        value += `${value.endsWith('\n') ? '' : '\n'}<tool_call>\n${JSON.stringify({ name: c.function.name, arguments: parseArgs(c.function.arguments) })}\n</tool_call>`;
      out.push({ from: 'gpt', value });
      // The results of this message's calls become one tool turn.
      const results: string[] = [];
      let j = i + 1;
      while (j < history.length && history[j].role === 'tool') {
        const r = history[j];
        const call = m.tool_calls?.find((c) => c.id === r.tool_call_id) ?? m.tool_calls?.[results.length];
        results.push(
          `<tool_response>\n${JSON.stringify({ tool_call_id: r.tool_call_id ?? call?.id ?? '', name: r.tool_name ?? call?.function.name ?? 'tool', content: parseContent(messageText(r.content)) })}\n</tool_response>`,
        );
        j++;
      }
      if (results.length) out.push({ from: 'tool', value: results.join('\n') });
      i = j - 1;
      continue;
    }
    // A tool message without its call (should not happen): keep it as a tool turn.
    out.push({ from: 'tool', value: `<tool_response>\n${JSON.stringify({ tool_call_id: m.tool_call_id ?? '', name: m.tool_name ?? 'tool', content: parseContent(messageText(m.content)) })}\n</tool_response>` });
  }
  return out;
}

/** Whether every gpt turn of a trajectory has non-empty reasoning. */
export function hasReasoning(turns: ShareGptTurn[]): boolean {
  return turns.some((t) => t.from === 'gpt' && !t.value.startsWith('<think>\n</think>'));
}
