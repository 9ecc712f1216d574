// An MCP server's `elicitation/create` (form mode) put to the person through the request broker:
// one clarify question per field, which every surface (REPL, TUI, one-shot on a terminal, gateway
// chats, ACP) already knows how to ask. An empty answer keeps the field's default (the SDK fills
// defaults in, SEP-1034); "decline" or "cancel" answer so; nobody to answer is a cancel.
import type { AgentRequest, Answered } from '../agent/types.ts';

export type Ask = (req: AgentRequest) => Promise<Answered<AgentRequest>>;

export interface ElicitParams {
  message: string;
  requestedSchema?: { properties?: Record<string, FieldSchema>; required?: string[] };
}

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown; title?: string }[] };
  minimum?: number;
  maximum?: number;
}

export type ElicitResult = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

const oneLine = (s: string, max = 400) => s.replace(/\s+/g, ' ').trim().slice(0, max);

function choicesOf(f: FieldSchema): string[] | undefined {
  if (f.type === 'boolean') return ['yes', 'no'];
  if (Array.isArray(f.enum)) return f.enum.map(String);
  if (Array.isArray(f.oneOf) && f.oneOf.every((o) => o && 'const' in o)) return f.oneOf.map((o) => String(o.const));
  if (f.type === 'array' && Array.isArray(f.items?.enum)) return f.items.enum.map(String);
  return undefined;
}

/** The typed value of an answer, or an error message. */
function convert(f: FieldSchema, text: string): { value?: unknown; error?: string } {
  switch (f.type) {
    case 'boolean': {
      const t = text.toLowerCase();
      if (['yes', 'y', 'true', '1', 'on'].includes(t)) return { value: true };
      if (['no', 'n', 'false', '0', 'off'].includes(t)) return { value: false };
      return { error: 'answer yes or no' };
    }
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n))) return { error: `a${f.type === 'integer' ? 'n integer' : ' number'} is needed` };
      if (f.minimum !== undefined && n < f.minimum) return { error: `at least ${f.minimum}` };
      if (f.maximum !== undefined && n > f.maximum) return { error: `at most ${f.maximum}` };
      return { value: n };
    }
    case 'array':
      return { value: text.split(',').map((s) => s.trim()).filter(Boolean) };
    default: {
      const choices = choicesOf(f);
      if (choices && !choices.includes(text)) {
        // "2" picks the second choice on surfaces that number them.
        const i = Number(text);
        if (Number.isInteger(i) && i >= 1 && i <= choices.length) return { value: choices[i - 1] };
        return { error: `one of: ${choices.join(', ')}` };
      }
      return { value: text };
    }
  }
}

/** Asks the person for each field of the form; returns the MCP result. */
export async function elicitThroughPerson(server: string, params: ElicitParams, ask: Ask | undefined): Promise<ElicitResult> {
  if (!ask) return { action: 'cancel' };
  const props = params.requestedSchema?.properties ?? {};
  const required = new Set(params.requestedSchema?.required ?? []);
  const head = `MCP server "${server}" asks: ${oneLine(params.message, 1000)}`;
  const names = Object.keys(props);
  if (!names.length) {
    const r = await ask({ kind: 'clarify', question: `${head}\n(answer "accept" or "decline")`, choices: ['accept', 'decline'] });
    if (r.source !== 'person') return { action: 'cancel' };
    const a = String(r.answer ?? '').trim().toLowerCase();
    return a === 'accept' || a === 'yes' || a === 'y' || a === '1' ? { action: 'accept', content: {} } : a === 'cancel' ? { action: 'cancel' } : { action: 'decline' };
  }
  const content: Record<string, unknown> = {};
  for (const [i, name] of names.entries()) {
    const f = props[name] ?? {};
    const label = oneLine(f.title || name, 120);
    const hasDefault = f.default !== undefined;
    const hint = hasDefault ? `Enter keeps ${JSON.stringify(f.default)}` : required.has(name) ? 'required' : 'Enter skips';
    let problem = '';
    for (let tries = 0; ; tries++) {
      const question = `${i === 0 ? `${head}\n` : ''}${label}${f.description ? ` — ${oneLine(f.description, 300)}` : ''} (${hint}; "decline" refuses)${problem ? `\n${problem}` : ''}`;
      const r = await ask({ kind: 'clarify', question, choices: choicesOf(f) });
      if (r.source !== 'person') return { action: 'cancel' };
      const text = String(r.answer ?? '').trim();
      if (text.toLowerCase() === 'decline') return { action: 'decline' };
      if (text.toLowerCase() === 'cancel') return { action: 'cancel' };
      if (!text) {
        if (hasDefault || !required.has(name)) break; // the default is applied by the SDK
        if (tries >= 2) return { action: 'decline' };
        problem = `"${label}" is required.`;
        continue;
      }
      const v = convert(f, text);
      if (v.error === undefined) {
        content[name] = v.value;
        break;
      }
      if (tries >= 2) return { action: 'decline' };
      problem = `"${text.slice(0, 40)}" is not valid for ${label}: ${v.error}.`;
    }
  }
  return { action: 'accept', content };
}
