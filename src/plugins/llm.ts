// `ctx.llm.complete` / `complete_structured`: one model call with the user's own provider, model and
// credentials (whatever the session would use), outside any conversation. Loaded on first use. The
// call itself is the `complete` port the surface lent (src/session/plugin-llm.ts): plugins sit below
// the session runtime and never import it.
import type { Message } from '../llm/types.ts';
import type { PluginHost } from './host.ts';
import type { PluginManifest } from './manifest.ts';
import { pluginPorts } from './state.ts';

type Obj = Record<string, unknown>;

/** One model call a plugin asked for, as the `complete` port receives it. */
export interface CompleteRequest {
  system: string;
  messages: Message[];
  maxTokens?: number;
  temperature?: number;
  purpose?: string;
}

export interface CompleteResult {
  text: string;
  model: string;
  provider: string;
  purpose?: string;
}

function messagesOf(o: Obj): { system: string; messages: Message[] } {
  let system = typeof o.system === 'string' ? o.system : '';
  const messages: Message[] = [];
  const raw = Array.isArray(o.messages) ? o.messages : typeof o.prompt === 'string' ? [{ role: 'user', content: o.prompt }] : [];
  for (const m of raw as Obj[]) {
    if (!m || typeof m !== 'object') continue;
    const role = String(m.role ?? 'user');
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
    if (role === 'system') system = system ? `${system}\n\n${content}` : content;
    else messages.push({ role: role === 'assistant' ? 'assistant' : 'user', content });
  }
  if (!messages.length) throw new Error('llm.complete needs messages=[{role, content}, …] (or prompt="…")');
  return { system, messages };
}

export async function pluginComplete(host: PluginHost, m: PluginManifest, o: Obj): Promise<CompleteResult> {
  const complete = pluginPorts().complete;
  if (!complete) throw new Error('llm.complete is not available in this command (no session runtime was lent to plugins)');
  const { system, messages } = messagesOf(o);
  const purpose = typeof o.purpose === 'string' ? o.purpose : undefined;
  const maxTokens = Number(o.max_tokens ?? o.maxTokens) || undefined;
  const temperature = o.temperature === undefined ? undefined : Number(o.temperature);
  return complete(host, m, { system, messages, maxTokens, temperature, purpose });
}

/** The first JSON object or array in a reply (models wrap JSON in prose or fences). */
function parseJson(text: string): unknown {
  const t = text.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
  try {
    return JSON.parse(t);
  } catch {
    const m = /[[{][\s\S]*[\]}]/.exec(t);
    if (!m) return null;
    try {
      return JSON.parse(m[0]);
    } catch {
      return null;
    }
  }
}

export async function pluginCompleteStructured(host: PluginHost, m: PluginManifest, o: Obj): Promise<CompleteResult & { parsed: unknown }> {
  const schema = o.json_schema ?? o.jsonSchema;
  const input = Array.isArray(o.input) ? (o.input as Obj[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n') : String(o.input ?? '');
  const system = `${String(o.instructions ?? '')}\n\nAnswer with one JSON value only, no prose${schema ? `, matching this JSON Schema:\n${JSON.stringify(schema)}` : ''}.`.trim();
  const r = await pluginComplete(host, m, { ...o, system, messages: [{ role: 'user', content: input }] });
  return { ...r, parsed: parseJson(r.text) };
}
