// What the text-call formats share: the call shape they produce, a string-aware JSON scanner, the
// JSON call shapes models write, and a small reader for Python-style call arguments.
import type { JsonSchema } from '../../llm/types.ts';

/** A call read from the text. `error` set: the call could not be read; the loop reports it to the model. */
export interface RawCall {
  name: string;
  /** The arguments as JSON text (what a structured call carries). */
  arguments: string;
  error?: string;
}

/** What a format read from the text: the calls and where its call syntax ends. */
export interface Parsed {
  calls: RawCall[];
  /** Index just past the last character of call syntax. */
  end: number;
}

export interface ParseContext {
  /** Schemas of the offered tools, by name (parameter types for formats that write values as text). */
  schemas: ReadonlyMap<string, JsonSchema>;
}

export interface TextCallFormat {
  /** The value of `model.tool_call_parser` that selects this format alone. */
  name: string;
  /** Other names people know it by (vLLM's parser names among them). */
  aliases: readonly string[];
  /** Literal tokens that open a call. Empty for formats that are a whole message (bare JSON). */
  markers: readonly string[];
  /** For whole-message formats: the first key/identifier probe (see scan.ts). */
  bare?: 'json' | 'pythonic';
  /** Reads the call syntax starting at `from` (a marker, or the first character of a bare message). */
  parse(text: string, from: number, ctx: ParseContext): Parsed | null;
  /** How a call looks in this format (for the repair message). */
  example: string;
}

/** Name used for a call whose name could not be read (the loop answers it with the parse error). */
export const UNREADABLE = 'invalid_tool_call';

export function skipWs(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\t' || text[i] === '\r')) i++;
  return i;
}

/**
 * Index just past the JSON object or array starting at `from` (balanced brackets, strings and
 * escapes respected), or -1 when it does not close before the end of the text.
 */
export function scanJsonValue(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** A JSON value starting at `from`: the value and where it ends, or an error. */
export function readJson(text: string, from: number): { value: unknown; end: number } | { error: string; end: number } {
  const end = scanJsonValue(text, from);
  if (end < 0) return { error: 'the JSON does not close (it was cut off, or a bracket or quote is missing)', end: text.length };
  try {
    return { value: JSON.parse(text.slice(from, end)), end };
  } catch (e) {
    return { error: `the JSON is not valid (${(e as Error).message})`, end };
  }
}

export const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Past any of `tokens` (end-of-turn markers) and blank space at `i`. */
export function skipTokens(text: string, i: number, tokens: readonly string[]): number {
  for (;;) {
    const j = skipWs(text, i);
    const t = tokens.find((e) => text.startsWith(e, j));
    if (!t) return i;
    i = j + t.length;
  }
}

/** Arguments as JSON text: objects are serialised, strings kept (the loop parses and reports them). */
export function argsText(v: unknown): string {
  if (v === undefined || v === null) return '{}';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

const NAME_KEYS = ['name', 'tool_name', 'tool', 'function'] as const;
const ARG_KEYS = ['arguments', 'parameters', 'args', 'input', 'tool_input', 'tool_args'] as const;

/** The keys a call object may open with (the bare-JSON probe holds text back only for these). */
export const CALL_KEYS: readonly string[] = [...NAME_KEYS, ...ARG_KEYS, 'type', 'id', 'tool_calls', 'call_id'];

/**
 * The JSON call shapes models write: `{"name", "arguments"|"parameters"…}`, OpenAI's
 * `{"type": "function", "function": {"name", "arguments"}}`, `{"tool_calls": [...]}`, and
 * `{"<tool name>": {…}}` when the single key is an offered tool. Returns null for anything else.
 */
export function callsFromJson(v: unknown, offered: ReadonlySet<string>): RawCall[] | null {
  if (Array.isArray(v)) {
    if (!v.length) return null;
    const out: RawCall[] = [];
    for (const item of v) {
      const c = callsFromJson(item, offered);
      if (!c) return null;
      out.push(...c);
    }
    return out;
  }
  if (!isObj(v)) return null;
  if (Array.isArray(v.tool_calls)) return callsFromJson(v.tool_calls, offered);
  if (isObj(v.function) && typeof v.function.name === 'string') {
    return [{ name: v.function.name, arguments: argsText(v.function.arguments ?? v.function.parameters) }];
  }
  for (const nk of NAME_KEYS) {
    const name = v[nk];
    if (typeof name !== 'string' || !name) continue;
    const ak = ARG_KEYS.find((k) => k in v);
    // {"name": …} alone is a call without arguments only when nothing else is in the object.
    const extra = Object.keys(v).filter((k) => k !== nk && k !== ak && k !== 'type' && k !== 'id' && k !== 'call_id');
    if (extra.length) return null;
    return [{ name, arguments: argsText(ak ? v[ak] : undefined) }];
  }
  const keys = Object.keys(v);
  if (keys.length === 1 && offered.has(keys[0]) && isObj(v[keys[0]])) return [{ name: keys[0], arguments: JSON.stringify(v[keys[0]]) }];
  return null;
}

/** The tool name in broken JSON, when one can be seen (`"name": "terminal"`). */
export function nameInBrokenJson(body: string): string {
  return /"(?:name|tool_name|function)"\s*:\s*"([^"\\]{1,128})"/.exec(body)?.[1] ?? '';
}

/** A parameter value written as text (XML-style formats): typed by the tool's schema when it says. */
export function typedValue(raw: string, schema: JsonSchema | undefined): unknown {
  const type = schema?.type;
  if (type === 'string') return raw;
  const t = raw.trim();
  try {
    return JSON.parse(t);
  } catch {
    if (t === 'True' || t === 'False') return t === 'True';
    if (t === 'None') return null;
    return raw;
  }
}

export function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  const props = schema?.properties;
  return isObj(props) && isObj(props[key]) ? (props[key] as JsonSchema) : undefined;
}

// -------------------------------------------------------------------------------------------------
// Python-style calls: `name(a=1, b="x", c=[1, 2], d={"k": None})` (Llama's pythonic and built-in
// tool formats). A literal reader, not an evaluator: anything else is a parse error.

class PyReader {
  readonly s: string;
  i: number;
  constructor(s: string, from: number) {
    this.s = s;
    this.i = from;
  }
  ws(): void {
    this.i = skipWs(this.s, this.i);
  }
  fail(what: string): never {
    throw new Error(`${what} at character ${this.i}`);
  }
  ident(): string {
    const m = /^[A-Za-z_][\w.]*/.exec(this.s.slice(this.i, this.i + 200));
    if (!m) this.fail('expected a name');
    this.i += m[0].length;
    return m[0];
  }
  expect(ch: string): void {
    this.ws();
    if (this.s[this.i] !== ch) this.fail(`expected "${ch}"`);
    this.i++;
  }
  value(): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === '"' || c === "'") return this.str(c);
    if (c === '[' || c === '(') return this.list(c === '[' ? ']' : ')');
    if (c === '{') return this.dict();
    const m = /^-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)/.exec(this.s.slice(this.i, this.i + 64));
    if (m) {
      this.i += m[0].length;
      return Number(m[0]);
    }
    for (const [word, v] of [['True', true], ['False', false], ['None', null], ['true', true], ['false', false], ['null', null]] as const) {
      if (this.s.startsWith(word, this.i) && !/\w/.test(this.s[this.i + word.length] ?? '')) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail('expected a value');
  }
  str(q: string): string {
    const triple = this.s.startsWith(q.repeat(3), this.i);
    const close = triple ? q.repeat(3) : q;
    this.i += close.length;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('unterminated string');
      if (this.s.startsWith(close, this.i)) {
        this.i += close.length;
        return out;
      }
      const c = this.s[this.i++];
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.i++];
      const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
      if (e === 'u' || e === 'x') {
        const len = e === 'u' ? 4 : 2;
        const hex = this.s.slice(this.i, this.i + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) this.fail('bad escape');
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += len;
      } else out += map[e] ?? `\\${e}`;
    }
  }
  list(close: string): unknown[] {
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== close) this.fail(`expected "," or "${close}"`);
    }
  }
  dict(): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return out;
      }
      const k = this.value();
      if (typeof k !== 'string' && typeof k !== 'number') this.fail('expected a string key');
      this.expect(':');
      out[String(k)] = this.value();
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') this.fail('expected "," or "}"');
    }
  }
  /** `name(k=v, …)`: keyword arguments only (positional ones cannot be mapped to parameters). */
  call(): { name: string; args: Record<string, unknown> } {
    this.ws();
    const name = this.ident();
    this.expect('(');
    const args: Record<string, unknown> = {};
    for (;;) {
      this.ws();
      if (this.s[this.i] === ')') {
        this.i++;
        return { name, args };
      }
      const k = this.ident();
      this.expect('=');
      args[k] = this.value();
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== ')') this.fail('expected "," or ")"');
    }
  }
}

/** Reads `name(k=v, …)` at `from`. */
export function readPyCall(text: string, from: number): { name: string; args: Record<string, unknown>; end: number } | { error: string } {
  const r = new PyReader(text, from);
  try {
    const c = r.call();
    return { ...c, end: r.i };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Reads `[name(k=v), other(…)]` at `from` (a `[`). */
export function readPyCallList(text: string, from: number): { calls: { name: string; args: Record<string, unknown> }[]; end: number } | { error: string } {
  const r = new PyReader(text, from);
  try {
    r.expect('[');
    const calls: { name: string; args: Record<string, unknown> }[] = [];
    for (;;) {
      r.ws();
      if (r.s[r.i] === ']') {
        r.i++;
        return { calls, end: r.i };
      }
      calls.push(r.call());
      r.ws();
      if (r.s[r.i] === ',') r.i++;
      else if (r.s[r.i] !== ']') r.fail('expected "," or "]"');
    }
  } catch (e) {
    return { error: (e as Error).message };
  }
}
