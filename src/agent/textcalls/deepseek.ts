// DeepSeek's tool-call tokens (fullwidth bars U+FF5C and U+2581 blocks, as in the models' chat templates):
//   V3 / R1:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
//   V3.1+:    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
import { isObj, readJson, skipWs, UNREADABLE, type Parsed, type RawCall, type TextCallFormat } from './common.ts';

export const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
export const CALL_BEGIN = '<｜tool▁call▁begin｜>';
export const SEP = '<｜tool▁sep｜>';
export const CALL_END = '<｜tool▁call▁end｜>';
export const CALLS_END = '<｜tool▁calls▁end｜>';
const EOS = '<｜end▁of▁sentence｜>';

function argsFrom(text: string, from: number, to: number): { args: string } | { error: string } {
  let i = skipWs(text, from);
  const fence = /^```(?:json)?\s*\n?/.exec(text.slice(i, Math.min(to, i + 16)));
  if (fence) i += fence[0].length;
  if (i >= to) return { args: '{}' };
  if (text[i] !== '{') return { error: 'expected a JSON object of arguments after the tool name' };
  const r = readJson(text.slice(0, to), i);
  if ('error' in r) return { error: r.error };
  if (!isObj(r.value)) return { error: 'the arguments must be a JSON object' };
  return { args: JSON.stringify(r.value) };
}

function oneCall(text: string, from: number): { call: RawCall; end: number } {
  const close = text.indexOf(CALL_END, from);
  const to = close < 0 ? text.length : close;
  const end = close < 0 ? text.length : close + CALL_END.length;
  const sep = text.indexOf(SEP, from);
  if (sep < 0 || sep > to) return { call: { name: UNREADABLE, arguments: '{}', error: 'the call has no <｜tool▁sep｜> between name and arguments' }, end };
  const left = text.slice(from, sep).trim();
  let name: string;
  let argsAt: number;
  if (left === 'function' || left === '') {
    // V3 / R1: the name is the rest of the line after the separator.
    const nl = text.indexOf('\n', sep);
    const nameEnd = nl < 0 || nl > to ? to : nl;
    name = text.slice(sep + SEP.length, nameEnd).trim();
    argsAt = nameEnd;
  } else {
    name = left;
    argsAt = sep + SEP.length;
  }
  const a = argsFrom(text, argsAt, to);
  if (!name) return { call: { name: UNREADABLE, arguments: '{}', error: 'the call has no tool name' }, end };
  return { call: 'error' in a ? { name, arguments: '{}', error: a.error } : { name, arguments: a.args }, end };
}

export const deepseek: TextCallFormat = {
  name: 'deepseek',
  aliases: ['deepseek_v3', 'deepseek_v31', 'deepseek_v3.1', 'deepseek_r1', 'deepseek-v3', 'deepseek-r1'],
  markers: [CALLS_BEGIN, CALL_BEGIN],
  example: `${CALLS_BEGIN}${CALL_BEGIN}<tool>${SEP}{…}${CALL_END}${CALLS_END}`,
  parse(text, from): Parsed | null {
    let i = from;
    if (text.startsWith(CALLS_BEGIN, i)) i += CALLS_BEGIN.length;
    const calls: RawCall[] = [];
    for (;;) {
      const j = skipWs(text, i);
      if (!text.startsWith(CALL_BEGIN, j)) break;
      const r = oneCall(text, j + CALL_BEGIN.length);
      calls.push(r.call);
      i = r.end;
    }
    for (const t of [CALLS_END, EOS]) {
      const j = skipWs(text, i);
      if (text.startsWith(t, j)) i = j + t.length;
    }
    return calls.length ? { calls, end: i } : null;
  },
};
