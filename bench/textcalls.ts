// Cost of reading tool calls written as text: the streaming scanner plus the end-of-answer parse,
// on a long ordinary answer (no call; the common case, which must cost next to nothing) and on a
// long call (a write_file whose content is the same answer).
import { extractTextCalls, textCallScanner } from '../src/agent/textcalls/index.ts';
import type { ToolSchema } from '../src/llm/types.ts';
import { median, type Bench, type BenchRow } from './lib.ts';

const TOOLS: ToolSchema[] = ['terminal', 'read_file', 'write_file', 'patch', 'search_files', 'web_search', 'web_extract', 'todo', 'memory', 'delegate_task'].map((name) => ({
  name,
  description: name,
  parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' }, command: { type: 'string' } } },
}));

/** About 20 KB of the Markdown a coding answer is made of: prose, lists, links, inline code, fences, `<` and `[`. */
function longAnswer(): string {
  const para =
    'The parser walks the input once. When it meets a `<` it checks whether a tag starts there; a < b comparisons and ' +
    '[links](https://example.com/docs) are ordinary text, and so are arrays like [1, 2, 3] or maps like {"a": 1}.\n\n' +
    '- Step one: read `config.yaml` and merge it over the defaults.\n- Step two: resolve the provider <b>before</b> the first request.\n\n' +
    '```ts\nfunction pick<T>(xs: T[], n: number): T[] {\n  return xs.length > n ? xs.slice(0, n) : [...xs];\n}\n```\n\n';
  let s = '## Summary of the change\n\n';
  while (s.length < 20_000) s += para;
  return s;
}

function run(text: string, withScanner: boolean): number {
  const t0 = process.hrtime.bigint();
  const sc = withScanner ? textCallScanner('auto', TOOLS) : null;
  let shown = 0;
  for (let i = 0; i < text.length; i += 8) {
    const d = text.slice(i, i + 8); // local servers stream a token or two per event
    shown += sc ? sc.push(d).length : d.length;
  }
  if (sc) {
    const found = extractTextCalls(text, 'auto', TOOLS, sc);
    shown += sc.finish(found ? { start: found.start, end: found.end } : null).length;
  }
  if (shown < 0) throw new Error('unreachable');
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function measure(text: string): { ms: number; base: number } {
  for (let i = 0; i < 30; i++) {
    run(text, true);
    run(text, false);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 200; i++) {
    a.push(run(text, true));
    b.push(run(text, false));
  }
  return { ms: median(a), base: median(b) };
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const answer = longAnswer();
  const kb = answer.length / 1024;
  const plain = measure(answer);
  const extra = Math.max(0, plain.ms - plain.base);
  rows.push({
    name: `text-call scan, ${kb.toFixed(0)} KB answer, no call`,
    value: extra * 1000,
    unit: 'µs',
    target: '≤ 1000 µs',
    ok: extra <= 1,
    note: `${((extra * 1000) / kb).toFixed(1)} µs/KB over plain streaming, ${Math.ceil(answer.length / 8)} deltas`,
  });
  const call = `I'll write the file.\n<tool_call>\n${JSON.stringify({ name: 'write_file', arguments: { path: 'NOTES.md', content: answer } })}\n</tool_call>`;
  const c = measure(call);
  rows.push({
    name: `text-call scan + parse, ${(call.length / 1024).toFixed(0)} KB write_file call`,
    value: Math.max(0, c.ms - c.base) * 1000,
    unit: 'µs',
    note: 'held from <tool_call> on, parsed once at the end',
  });
  return rows;
};

export default bench;
