// Mistral: `[TOOL_CALLS]` then a JSON array of `{"name", "arguments", "id"}` (tokenizers up to v7),
// or per call `[TOOL_CALLS]name[ARGS]{…}` (v11+; `[CALL_ID]id` between them in v13, and with the
// special tokens stripped on decode just `[TOOL_CALLS]name{…}`).
import { callsFromJson, readJson, skipWs, UNREADABLE, type Parsed, type RawCall, type TextCallFormat } from './common.ts';

const TAG = '[TOOL_CALLS]';

function oneCall(text: string, from: number, offered: ReadonlySet<string>): { calls: RawCall[]; end: number } {
  let i = skipWs(text, from);
  if (text[i] === '[' || text[i] === '{') {
    const r = readJson(text, i);
    if ('error' in r) return { calls: [{ name: UNREADABLE, arguments: '{}', error: r.error }], end: r.end };
    const calls = callsFromJson(r.value, offered);
    return { calls: calls ?? [{ name: UNREADABLE, arguments: '{}', error: 'the JSON after [TOOL_CALLS] needs "name" and "arguments"' }], end: r.end };
  }
  const m = /^([A-Za-z_][\w.-]*)\s*/.exec(text.slice(i, i + 200));
  if (!m) return { calls: [{ name: UNREADABLE, arguments: '{}', error: 'expected a tool name or a JSON list after [TOOL_CALLS]' }], end: text.length };
  const name = m[1];
  i += m[0].length;
  if (text.startsWith('[CALL_ID]', i)) {
    i += '[CALL_ID]'.length;
    while (i < text.length && /[A-Za-z0-9_-]/.test(text[i])) i++;
  }
  if (text.startsWith('[ARGS]', i)) i += '[ARGS]'.length;
  i = skipWs(text, i);
  if (text[i] !== '{') return { calls: [{ name, arguments: '{}', error: 'expected the JSON arguments after the tool name' }], end: i };
  const r = readJson(text, i);
  if ('error' in r) return { calls: [{ name, arguments: '{}', error: r.error }], end: r.end };
  return { calls: [{ name, arguments: JSON.stringify(r.value) }], end: r.end };
}

export const mistral: TextCallFormat = {
  name: 'mistral',
  aliases: ['mistral_v7', 'mistral_v11', 'devstral', 'magistral'],
  markers: [TAG],
  example: '[TOOL_CALLS][{"name": "<tool>", "arguments": {…}}]',
  parse(text, from, ctx): Parsed | null {
    const offered = new Set(ctx.schemas.keys());
    const calls: RawCall[] = [];
    let i = from;
    while (text.startsWith(TAG, i)) {
      const r = oneCall(text, i + TAG.length, offered);
      calls.push(...r.calls);
      i = r.end;
      const next = skipWs(text, i);
      if (!text.startsWith(TAG, next)) break;
      i = next;
    }
    const j = skipWs(text, i);
    if (text.startsWith('</s>', j)) i = j + 4;
    return calls.length ? { calls, end: i } : null;
  },
};
