// A bare JSON message: the whole answer is a call object or a list of them — Llama 3.x's
// JSON-function style `{"name": …, "parameters": {…}}` (several joined by `;`), `{"name", "arguments"}`,
// OpenAI's `{"type": "function", "function": {…}}`, `{"tool_calls": […]}`, or `{"<tool>": {…}}`.
import { callsFromJson, readJson, skipTokens, skipWs, type Parsed, type RawCall, type TextCallFormat } from './common.ts';

const END_TOKENS = ['<|eom_id|>', '<|eot_id|>', '</s>'];

export const json: TextCallFormat = {
  name: 'json',
  aliases: ['bare_json', 'llama3_json_bare'],
  markers: [],
  bare: 'json',
  example: '{"name": "<tool>", "arguments": {…}}',
  parse(text, from, ctx): Parsed | null {
    const offered = new Set(ctx.schemas.keys());
    const calls: RawCall[] = [];
    let i = from;
    for (;;) {
      const r = readJson(text, i);
      if ('error' in r) return null;
      const c = callsFromJson(r.value, offered);
      if (!c) return null;
      calls.push(...c);
      i = r.end;
      let j = skipWs(text, i);
      if (text[j] === ';' || text[j] === ',') j = skipWs(text, j + 1);
      if (text[j] !== '{' && text[j] !== '[') break;
      i = j;
    }
    // The message is the call and nothing else.
    const j = skipWs(text, skipTokens(text, i, END_TOKENS));
    return j >= text.length ? { calls, end: j } : null;
  },
};
