// Small helpers for provider tool schemas and results.
import type { ToolSchema } from '../llm/types.ts';

type Prop = { type: string; description: string; enum?: string[] };

export function toolSchema(name: string, description: string, properties: Record<string, Prop> = {}, required: string[] = []): ToolSchema {
  return { name, description, parameters: { type: 'object', properties, required } } as ToolSchema;
}

export const str = (description: string, e?: string[]): Prop => (e ? { type: 'string', description, enum: e } : { type: 'string', description });
export const int = (description: string): Prop => ({ type: 'integer', description });
export const num = (description: string): Prop => ({ type: 'number', description });

export const toolOk = (v: Record<string, unknown>) => JSON.stringify(v);
export const toolErr = (message: string) => JSON.stringify({ error: message });

/** The text of a message for syncing (recall blocks we injected never travel back). */
export function cleanForCapture(text: string): string {
  return text.replace(/<memory-context>[\s\S]*?<\/memory-context>\s*/g, '').trim();
}
