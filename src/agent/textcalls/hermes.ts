// Hermes / Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one block per call; Qwen3-Coder
// writes XML inside the same tags: `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>`.
import {
  nameInBrokenJson,
  propertySchema,
  readJson,
  skipWs,
  typedValue,
  UNREADABLE,
  callsFromJson,
  type ParseContext,
  type Parsed,
  type RawCall,
  type TextCallFormat,
} from './common.ts';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const FN = '<function=';

/** `<function=name>…</function>` (Qwen3-Coder's XML) at `from`. */
export function readXmlFunction(text: string, from: number, ctx: ParseContext): { call: RawCall; end: number } {
  const gt = text.indexOf('>', from);
  const close = text.indexOf('</function>', from);
  const bodyEnd = close < 0 ? text.length : close;
  const end = close < 0 ? text.length : close + '</function>'.length;
  if (gt < 0 || gt > bodyEnd) return { call: { name: UNREADABLE, arguments: '{}', error: 'the <function=…> tag is not closed with ">"' }, end };
  const name = text.slice(from + FN.length, gt).trim();
  const schema = ctx.schemas.get(name);
  const args: Record<string, unknown> = {};
  const re = /<parameter=([^>\n]*)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g;
  const body = text.slice(gt + 1, bodyEnd);
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (!m[0]) break;
    const key = m[1].trim();
    const raw = m[2].replace(/^\n/, '').replace(/\n$/, '');
    args[key] = typedValue(raw, propertySchema(schema, key));
  }
  return { call: { name: name || UNREADABLE, arguments: JSON.stringify(args), ...(name ? {} : { error: 'the <function=…> tag has no name' }) }, end };
}

/** One block's body at `from` (just after `<tool_call>`): the call and where the block ends. */
function readBlock(text: string, from: number, ctx: ParseContext, offered: ReadonlySet<string>): { call: RawCall; end: number } {
  let i = skipWs(text, from);
  let fenced = false;
  const fence = /^```[a-z]*\n/.exec(text.slice(i, i + 16));
  if (fence) {
    fenced = true;
    i += fence[0].length;
  }
  const closeTag = (j: number) => {
    j = skipWs(text, j);
    if (fenced && text.startsWith('```', j)) j = skipWs(text, j + 3);
    return text.startsWith(CLOSE, j) ? j + CLOSE.length : j;
  };
  if (text.startsWith(FN, i)) {
    const r = readXmlFunction(text, i, ctx);
    return { call: r.call, end: closeTag(r.end) };
  }
  const nextClose = text.indexOf(CLOSE, i);
  const blockEnd = nextClose < 0 ? text.length : nextClose + CLOSE.length;
  if (text[i] !== '{') {
    const body = text.slice(i, nextClose < 0 ? text.length : nextClose);
    return { call: { name: UNREADABLE, arguments: '{}', error: `expected a JSON object inside <tool_call>, found "${body.trim().slice(0, 60)}"` }, end: blockEnd };
  }
  const r = readJson(text, i);
  if ('error' in r) {
    const body = text.slice(i, nextClose < 0 ? text.length : nextClose);
    return { call: { name: nameInBrokenJson(body) || UNREADABLE, arguments: '{}', error: r.error }, end: blockEnd };
  }
  const calls = callsFromJson(r.value, offered);
  if (!calls || calls.length !== 1) return { call: { name: UNREADABLE, arguments: '{}', error: 'the JSON inside <tool_call> needs "name" and "arguments"' }, end: closeTag(r.end) };
  return { call: calls[0], end: closeTag(r.end) };
}

export const hermes: TextCallFormat = {
  name: 'hermes',
  aliases: ['qwen', 'qwen2', 'qwen2.5', 'qwen3', 'qwen3_coder', 'hermes2_pro', 'hermes3', 'hermes4', 'nous'],
  markers: [OPEN],
  example: '<tool_call>\n{"name": "<tool>", "arguments": {…}}\n</tool_call>',
  parse(text, from, ctx): Parsed | null {
    const offered = new Set(ctx.schemas.keys());
    const calls: RawCall[] = [];
    let end = from;
    // Every block from here on (prose between blocks goes with them), unless a code fence intervenes.
    for (let at = text.indexOf(OPEN, from); at >= 0; at = text.indexOf(OPEN, end)) {
      if (calls.length && text.slice(end, at).includes('```')) break;
      const b = readBlock(text, at + OPEN.length, ctx, offered);
      calls.push(b.call);
      end = b.end;
    }
    return calls.length ? { calls, end } : null;
  },
};
