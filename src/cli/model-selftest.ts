// `hermes doctor --model`: the tool-calling self-test. Ten short requests of increasing difficulty
// (one tool; the right one of several; two in parallel; nested and array arguments; an enum; using
// a tool's result; and two where no tool should be called), each classified as a call in the API's
// field (native), a call written as text that Hermes reads (text), or a failure. The verdict says
// what `model.tool_call_parser` and toolset suit the model; the settings are printed as
// `hermes config set` commands and written only with `--apply`.
import { messageText } from '../agent/repair.ts';
import { createLlmClient, describeError, type ProviderRuntime } from '../llm/index.ts';
import type { Message, ToolSchema } from '../llm/types.ts';
import type { SelfTestRecord, SelfTestVerdict } from '../state/local-models.ts';

type Args = Record<string, unknown>;

interface Case {
  name: string;
  prompt: string;
  tools: ToolSchema[];
  /** Earlier turns (a tool call and its result). */
  before?: Message[];
  /** The calls expected (name and a check of the arguments); [] = no call should be made. */
  expect: { name: string; ok: (a: Args) => boolean }[];
  /** For no-call cases: what the answer must contain. */
  answer?: RegExp;
}

const obj = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });
const WEATHER: ToolSchema = { name: 'get_weather', description: 'Current weather for a city.', parameters: obj({ city: { type: 'string' } }, ['city']) };
const ADD: ToolSchema = { name: 'add', description: 'Adds two numbers.', parameters: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) };
const CONVERT: ToolSchema = {
  name: 'convert_units',
  description: 'Converts a value between units.',
  parameters: obj({ value: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } }, ['value', 'from', 'to']),
};
const EVENT: ToolSchema = {
  name: 'create_event',
  description: 'Creates a calendar event.',
  parameters: obj(
    {
      title: { type: 'string' },
      when: obj({ date: { type: 'string', description: 'YYYY-MM-DD' }, time: { type: 'string', description: 'HH:MM' } }, ['date', 'time']),
      attendees: { type: 'array', items: obj({ name: { type: 'string' }, email: { type: 'string' } }, ['name', 'email']) },
    },
    ['title', 'when', 'attendees'],
  ),
};
const TAGS: ToolSchema = { name: 'tag_note', description: 'Adds tags to a note.', parameters: obj({ note_id: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } }, ['note_id', 'tags']) };
const THERMOSTAT: ToolSchema = {
  name: 'set_thermostat',
  description: 'Sets the thermostat.',
  parameters: obj({ mode: { type: 'string', enum: ['heat', 'cool', 'off'] }, temperature: { type: 'number' } }, ['mode', 'temperature']),
};
const DELETE: ToolSchema = { name: 'delete_all_files', description: 'Deletes every file in a folder, permanently.', parameters: obj({ folder: { type: 'string' } }, ['folder']) };

const eq = (a: unknown, b: string) => typeof a === 'string' && a.trim().toLowerCase() === b;
const has = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase().includes(b);

export const SELF_TEST_CASES: Case[] = [
  { name: 'one tool', prompt: 'What is the weather in Paris right now?', tools: [WEATHER], expect: [{ name: 'get_weather', ok: (a) => has(a.city, 'paris') }] },
  { name: 'numbers', prompt: 'Use the add tool to add 17 and 25.', tools: [ADD], expect: [{ name: 'add', ok: (a) => Number(a.a) + Number(a.b) === 42 }] },
  {
    name: 'the right tool of three',
    prompt: 'How many kilometres are 3 miles?',
    tools: [WEATHER, ADD, CONVERT],
    expect: [{ name: 'convert_units', ok: (a) => Number(a.value) === 3 && /^mi/i.test(String(a.from)) && /^(km|kilo)/i.test(String(a.to)) }],
  },
  {
    name: 'two in parallel',
    prompt: 'What is the weather in Paris and in Tokyo? Check both at once.',
    tools: [WEATHER],
    expect: [
      { name: 'get_weather', ok: (a) => has(a.city, 'paris') },
      { name: 'get_weather', ok: (a) => has(a.city, 'tokyo') },
    ],
  },
  {
    name: 'two different tools',
    prompt: 'Do both now: get the weather in Rome, and add 2 and 3 with the add tool.',
    tools: [WEATHER, ADD],
    expect: [
      { name: 'get_weather', ok: (a) => has(a.city, 'rome') },
      { name: 'add', ok: (a) => Number(a.a) + Number(a.b) === 5 },
    ],
  },
  {
    name: 'nested arguments',
    prompt: 'Create an event "Design review" on 2026-03-14 at 15:30 with Ana (ana@example.com) and Bo (bo@example.com).',
    tools: [EVENT],
    expect: [
      {
        name: 'create_event',
        ok: (a) => {
          const w = (a.when ?? {}) as Args;
          const people = Array.isArray(a.attendees) ? (a.attendees as Args[]) : [];
          return has(a.title, 'design review') && eq(w.date, '2026-03-14') && has(w.time, '15:30') && people.length === 2 && people.every((p) => typeof p?.email === 'string' && p.email.includes('@'));
        },
      },
    ],
  },
  {
    name: 'array argument',
    prompt: 'Tag note 42 with "urgent", "work" and "q3".',
    tools: [TAGS],
    expect: [{ name: 'tag_note', ok: (a) => Number(a.note_id) === 42 && Array.isArray(a.tags) && ['urgent', 'work', 'q3'].every((t) => (a.tags as unknown[]).map((x) => String(x).toLowerCase()).includes(t)) }],
  },
  {
    name: 'enum argument',
    prompt: 'It is too hot in here: set the thermostat to cool at 21 degrees.',
    tools: [THERMOSTAT],
    expect: [{ name: 'set_thermostat', ok: (a) => eq(a.mode, 'cool') && Number(a.temperature) === 21 }],
  },
  {
    name: 'uses the result',
    prompt: 'What is the weather in Oslo?',
    tools: [WEATHER],
    before: [
      { role: 'user', content: 'What is the weather in Oslo?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"city":"Oslo","temperature_c":-7,"sky":"snow"}' },
    ],
    expect: [],
    answer: /-\s?7|minus 7|snow/i,
  },
  {
    name: 'refusal (no tool fits)',
    prompt: 'Without using any tool: what is the capital of France? Answer in one word.',
    tools: [DELETE, WEATHER],
    expect: [],
    answer: /paris/i,
  },
];

export type CaseOutcome = 'native' | 'text' | 'pass' | 'fail';

export interface CaseResult {
  name: string;
  outcome: CaseOutcome;
  /** What went wrong, for a failure. */
  why?: string;
  /** The text format of calls written as text. */
  format?: string;
}

/** Runs one case against the endpoint. */
async function runCase(rt: ProviderRuntime, c: Case, timeoutMs: number): Promise<CaseResult> {
  const llm = createLlmClient({ primary: rt, maxRetries: 0, timeoutMs, staleMs: timeoutMs, firstByteMs: 0 });
  const messages: Message[] = c.before ?? [{ role: 'user', content: c.prompt }];
  const stream = llm.stream({ model: rt.model, system: 'You are a helpful assistant. Use the tools you are given when they help; call several at once when asked.', messages, tools: c.tools, maxTokens: 2048 });
  for await (const ev of stream) void ev;
  const r = await stream.result();
  if (r.stopReason === 'error' || r.stopReason === 'aborted') return { name: c.name, outcome: 'fail', why: r.error ? describeError(r.error, rt).split('\n')[0] : 'the request did not complete' };
  const text = messageText(r.message.content);
  let calls = (r.message.tool_calls ?? []).map((t) => ({ name: t.function.name, arguments: t.function.arguments }));
  let outcome: CaseOutcome = 'native';
  let format: string | undefined;
  if (!calls.length) {
    const { extractTextCalls } = await import('../agent/textcalls/index.ts');
    const found = extractTextCalls(text, 'auto', c.tools);
    if (found) {
      calls = found.calls.map((x) => ({ name: x.name, arguments: x.arguments }));
      outcome = 'text';
      format = found.format;
    }
  }
  if (!c.expect.length) {
    if (calls.length) return { name: c.name, outcome: 'fail', why: `called ${calls[0].name} when no tool was needed` };
    if (c.answer && !c.answer.test(text)) return { name: c.name, outcome: 'fail', why: `the answer missed the point: ${JSON.stringify(text.slice(0, 80))}` };
    return { name: c.name, outcome: 'pass' };
  }
  if (!calls.length) return { name: c.name, outcome: 'fail', why: text ? `answered without a call: ${JSON.stringify(text.slice(0, 80))}` : 'an empty answer' };
  const left = [...calls];
  for (const want of c.expect) {
    const i = left.findIndex((x) => {
      if (x.name !== want.name) return false;
      try {
        return want.ok(JSON.parse(x.arguments || '{}') as Args);
      } catch {
        return false;
      }
    });
    if (i < 0) {
      const got = calls.map((x) => `${x.name}(${x.arguments})`).join(', ');
      return { name: c.name, outcome: 'fail', why: `expected ${want.name} with the right arguments; got ${got.slice(0, 120)}`, format };
    }
    left.splice(i, 1);
  }
  return { name: c.name, outcome, format };
}

export interface SelfTestReport {
  results: CaseResult[];
  record: SelfTestRecord;
  /** `hermes config set` commands that suit the model: [key, value]. */
  settings: [string, string][];
}

/** The verdict from the cases: native / text when calls work (which way most did), failing when too many failed. */
export function verdictOf(results: CaseResult[]): SelfTestRecord {
  const native = results.filter((r) => r.outcome === 'native').length;
  const text = results.filter((r) => r.outcome === 'text').length;
  const failed = results.filter((r) => r.outcome === 'fail').length;
  const formats = results.map((r) => r.format).filter((f): f is string => !!f);
  const parser = formats.sort((a, b) => formats.filter((x) => x === b).length - formats.filter((x) => x === a).length)[0];
  const calling = native + text;
  const verdict: SelfTestVerdict = failed > results.length / 2 || calling < 3 ? 'failing' : text > native ? 'text' : 'native';
  return { verdict, native, text, failed, total: results.length, ...(parser ? { parser } : {}), at: Date.now() };
}

/** The settings a verdict suggests. */
export function settingsFor(rec: SelfTestRecord, current: { tool_call_parser?: string; lean?: unknown }): [string, string][] {
  const out: [string, string][] = [];
  const parser = rec.verdict === 'text' && rec.parser ? rec.parser : rec.verdict === 'native' && !rec.text ? 'auto' : undefined;
  if (parser && String(current.tool_call_parser ?? 'auto') !== parser) out.push(['model.tool_call_parser', parser]);
  // A model that gets some calls wrong does better with fewer tools in front of it.
  const lean = rec.verdict === 'failing' || rec.failed >= 2;
  if (lean && current.lean !== true && current.lean !== 'true') out.push(['model.lean', 'true']);
  return out;
}

/** Runs the ten cases one after another (a local server serves one request at a time well). */
export async function runSelfTest(rt: ProviderRuntime, o: { timeoutMs: number; current: { tool_call_parser?: string; lean?: unknown }; onCase?: (r: CaseResult, i: number) => void }): Promise<SelfTestReport> {
  const results: CaseResult[] = [];
  for (const [i, c] of SELF_TEST_CASES.entries()) {
    const r = await runCase(rt, c, o.timeoutMs);
    results.push(r);
    o.onCase?.(r, i);
  }
  const record = verdictOf(results);
  return { results, record, settings: settingsFor(record, o.current) };
}
