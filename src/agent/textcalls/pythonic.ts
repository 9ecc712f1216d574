// Pythonic calls (Llama 3.2 and Llama 4): the whole answer is a list of Python-style calls,
// `[get_weather(city="Paris", unit="celsius"), get_time(tz="CET")]`.
import { readPyCallList, skipTokens, skipWs, type Parsed, type TextCallFormat } from './common.ts';

export const pythonic: TextCallFormat = {
  name: 'pythonic',
  aliases: ['llama4_pythonic', 'llama3.2_pythonic'],
  markers: [],
  bare: 'pythonic',
  example: '[tool_name(arg="value")]',
  parse(text, from): Parsed | null {
    const r = readPyCallList(text, from);
    if ('error' in r || !r.calls.length) return null;
    const j = skipWs(text, skipTokens(text, r.end, ['<|eom_id|>', '<|eot_id|>', '<|eot|>']));
    if (j < text.length) return null;
    return { calls: r.calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.args) })), end: j };
  },
};
