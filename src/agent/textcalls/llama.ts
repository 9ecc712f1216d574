// Llama 3.x: `<|python_tag|>` followed by JSON calls (`{"name": …, "parameters": {…}}`, several joined
// by `;`) or a built-in call (`brave_search.call(query="…")`), and the custom-tool form
// `<function=name>{"arg": …}</function>`. The untagged JSON-function style is the bare JSON format.
import {
  callsFromJson,
  isObj,
  readJson,
  readPyCall,
  skipTokens,
  skipWs,
  UNREADABLE,
  type ParseContext,
  type Parsed,
  type RawCall,
  type TextCallFormat,
} from './common.ts';
import { readXmlFunction } from './hermes.ts';

const TAG = '<|python_tag|>';
const FN = '<function=';
const END_TOKENS = ['<|eom_id|>', '<|eot_id|>'];

function afterPythonTag(text: string, from: number, offered: ReadonlySet<string>): Parsed {
  let i = skipWs(text, from);
  const calls: RawCall[] = [];
  if (text[i] === '{' || text[i] === '[') {
    for (;;) {
      const r = readJson(text, i);
      if ('error' in r) {
        calls.push({ name: UNREADABLE, arguments: '{}', error: r.error });
        return { calls, end: r.end };
      }
      const c = callsFromJson(r.value, offered);
      calls.push(...(c ?? [{ name: UNREADABLE, arguments: '{}', error: 'the JSON after <|python_tag|> needs "name" and "parameters"' }]));
      i = r.end;
      const j = skipWs(text, i);
      const k = text[j] === ';' || text[j] === ',' ? skipWs(text, j + 1) : j;
      if (text[k] !== '{') return { calls, end: i };
      i = k;
    }
  }
  const r = readPyCall(text, i);
  if ('error' in r) return { calls: [{ name: UNREADABLE, arguments: '{}', error: `after <|python_tag|> expected a JSON tool call (${r.error})` }], end: text.length };
  return { calls: [{ name: r.name.replace(/\.call$/, ''), arguments: JSON.stringify(r.args) }], end: r.end };
}

function functionTags(text: string, from: number, ctx: ParseContext): Parsed {
  const calls: RawCall[] = [];
  let i = from;
  while (text.startsWith(FN, i)) {
    const gt = text.indexOf('>', i);
    const j = gt < 0 ? -1 : skipWs(text, gt + 1);
    if (j >= 0 && text[j] === '{') {
      const name = text.slice(i + FN.length, gt).trim();
      const r = readJson(text, j);
      let end = r.end;
      const k = skipWs(text, end);
      if (text.startsWith('</function>', k)) end = k + '</function>'.length;
      if ('error' in r) calls.push({ name: name || UNREADABLE, arguments: '{}', error: r.error });
      else if (!isObj(r.value)) calls.push({ name: name || UNREADABLE, arguments: '{}', error: 'the arguments must be a JSON object' });
      else calls.push({ name: name || UNREADABLE, arguments: JSON.stringify(r.value), ...(name ? {} : { error: 'the <function=…> tag has no name' }) });
      i = end;
    } else {
      const r = readXmlFunction(text, i, ctx);
      calls.push(r.call);
      i = r.end;
    }
    const next = skipWs(text, i);
    if (!text.startsWith(FN, next)) break;
    i = next;
  }
  return { calls, end: i };
}

export const llama: TextCallFormat = {
  name: 'llama3',
  aliases: ['llama', 'llama3_json', 'llama3.1', 'llama3.2', 'llama3.3', 'llama4_json'],
  markers: [TAG, FN],
  example: '<|python_tag|>{"name": "<tool>", "parameters": {…}}',
  parse(text, from, ctx) {
    const offered = new Set(ctx.schemas.keys());
    const r = text.startsWith(TAG, from) ? afterPythonTag(text, from + TAG.length, offered) : functionTags(text, from, ctx);
    return r.calls.length ? { calls: r.calls, end: skipTokens(text, r.end, END_TOKENS) } : null;
  },
};
