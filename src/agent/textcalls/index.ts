// Tool calls written as text (local models without a server-side tool parser): the formats, the
// `model.tool_call_parser` setting, and the one decision the loop asks for — is this answer a call?
//
// `auto` tries every format, but takes a call only when it is unmistakable:
// - a format's own marker (`<tool_call>`, `<|python_tag|>`, `[TOOL_CALLS]`, DeepSeek's tokens) outside
//   code fences, inline code and <think> blocks, with a readable tool name after it: such calls go to
//   the loop like structured ones, so an unknown name or broken arguments are reported to the model
//   (the usual repair path) instead of ending the turn with raw markup as the answer;
// - a bare JSON or pythonic message only when every call names an offered tool and its arguments fit
//   the tool's schema (required parameters present, no unknown ones).
// A named parser reads only its format and takes what it finds, errors and all.
import type { JsonSchema, ToolSchema } from '../../llm/types.ts';
import { repairToolName } from '../repair.ts';
import { isObj, UNREADABLE, type ParseContext, type RawCall, type TextCallFormat } from './common.ts';
import { deepseek } from './deepseek.ts';
import { hermes } from './hermes.ts';
import { json } from './json.ts';
import { llama } from './llama.ts';
import { mistral } from './mistral.ts';
import { pythonic } from './pythonic.ts';
import { TextCallScanner } from './scan.ts';

export { TextCallScanner } from './scan.ts';
export { UNREADABLE, type RawCall, type TextCallFormat } from './common.ts';

export const FORMATS: readonly TextCallFormat[] = [hermes, llama, mistral, deepseek, json, pythonic];

/** The values `model.tool_call_parser` accepts (canonical names; aliases work too). */
export const PARSER_SETTINGS = ['auto', 'none', ...FORMATS.map((f) => f.name)];

/** The formats a setting turns on: [] for none, null for a name nobody knows. */
export function formatsFor(setting: string | undefined | null): readonly TextCallFormat[] | null {
  const s = String(setting ?? 'auto').trim().toLowerCase() || 'auto';
  if (s === 'auto') return FORMATS;
  if (s === 'none' || s === 'off' || s === 'false') return [];
  const f = FORMATS.find((x) => x.name === s || x.aliases.includes(s));
  if (!f) return null;
  // Llama 3.x writes the tagged form, the bare JSON-function form, or (3.2+) the pythonic list.
  return f === llama ? [llama, json, pythonic] : [f];
}

export interface FoundCalls {
  calls: RawCall[];
  /** The format that read them (`hermes`, `json`, …). */
  format: string;
  /** The call syntax occupies [start, end) of the text; the rest is prose. */
  start: number;
  end: number;
  /** The text around the calls, trimmed ('' when there is none). */
  prose: string;
}

/** Arguments a tool accepts: a JSON object with the required parameters and no unknown ones. */
export function fitsSchema(args: string, schema: JsonSchema | undefined): boolean {
  let v: unknown;
  try {
    v = JSON.parse(args || '{}');
  } catch {
    return false;
  }
  if (!isObj(v)) return false;
  if (!schema) return true;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  if (required.some((k) => typeof k === 'string' && !(k in v))) return false;
  const props = schema.properties;
  if (isObj(props) && schema.additionalProperties !== true && Object.keys(v).some((k) => !(k in props))) return false;
  return true;
}

/** A scanner for one streamed answer (null when the setting turns text calls off or no tools are offered). */
export function textCallScanner(setting: string | undefined, tools: readonly ToolSchema[]): TextCallScanner | null {
  const formats = formatsFor(setting) ?? FORMATS;
  if (!formats.length || !tools.length) return null;
  return new TextCallScanner(formats, tools.map((t) => t.name));
}

/**
 * Reads the calls in a finished answer. Pass the scanner that watched the stream (it has seen the
 * same text); without one the text is scanned here. Null: the answer is not a call.
 */
export function extractTextCalls(text: string, setting: string | undefined, tools: readonly ToolSchema[], scanner?: TextCallScanner | null): FoundCalls | null {
  const formats = formatsFor(setting) ?? FORMATS;
  if (!formats.length || !tools.length || !text) return null;
  const auto = formats === FORMATS;
  let sc = scanner;
  if (!sc) {
    sc = new TextCallScanner(formats, tools.map((t) => t.name));
    sc.push(text);
  }
  const region = sc.region();
  if (!region) return null;
  const ctx: ParseContext = { schemas: new Map(tools.map((t) => [t.name, t.parameters])) };
  const parsed = region.format.parse(text, region.start, ctx);
  if (!parsed?.calls.length) return null;
  const names = tools.map((t) => t.name);
  if (auto) {
    if (region.format.bare) {
      const ok = parsed.calls.every((c) => {
        if (c.error) return false;
        const name = repairToolName(c.name, names);
        return !!name && fitsSchema(c.arguments, ctx.schemas.get(name));
      });
      if (!ok) return null;
    } else if (parsed.calls.every((c) => c.name === UNREADABLE)) return null;
  }
  let end = parsed.end;
  // A model imitating the template sometimes goes on to write the tool's answer itself: drop it.
  const fake = text.indexOf('<tool_response>', end);
  if (fake >= 0) end = text.length;
  const before = text.slice(0, region.start).trim();
  const after = text.slice(end).trim();
  return { calls: parsed.calls, format: region.format.name, start: region.start, end, prose: [before, after].filter(Boolean).join('\n\n') };
}

/** The repair message for a call that could not be read. */
export function unreadableMessage(format: string, error: string): string {
  const f = FORMATS.find((x) => x.name === format);
  return `Your tool call could not be read: ${error}. Write it as ${f ? f.example : 'a JSON object with "name" and "arguments"'}, with the arguments as a JSON object.`;
}
