// The tool registry: definitions in, the session's bound AgentTools out.
import type { z } from 'zod';
import type { AgentTool, ToolCallContext, ToolOutcome } from '../agent/types.ts';
import type { JsonSchema } from '../llm/types.ts';
import { redactionEnabled, redactResult } from '../policy/redact.ts';
import { toolContext } from './context.ts';
import { resolveToolsetNames } from './toolsets.ts';
import type { ToolDefinition, ToolSession } from './types.ts';
import { getZod } from './zod.ts';

/**
 * JSON Schemas of the built-in tools, computed at build time and inlined into the bundle as JSON text
 * (an object would be initialised by every module of the bundle, `hermes --version` included).
 */
declare const __HERMES_TOOL_SCHEMAS__: string | undefined;
const PRECOMPUTED: Record<string, JsonSchema> = typeof __HERMES_TOOL_SCHEMAS__ === 'undefined' ? {} : (JSON.parse(__HERMES_TOOL_SCHEMAS__) as Record<string, JsonSchema>);

const resolved = new WeakMap<ToolDefinition, z.ZodType>();

/** The zod schema of a definition (calling the schema function once, with zod loaded on demand). */
export function zodSchemaOf(def: ToolDefinition): z.ZodType {
  if (typeof def.schema !== 'function') return def.schema;
  let s = resolved.get(def);
  if (!s) {
    s = (def.schema as (zod: ReturnType<typeof getZod>) => z.ZodType)(getZod());
    resolved.set(def, s);
  }
  return s;
}

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * zod → the JSON Schema the model sees, without noise: $schema, ±MAX_SAFE_INTEGER bounds, and the
 * trivial lower bounds (a non-empty string or list, a count from 0 or 1) and string length caps that
 * every request would pay for. zod still enforces them on each call, and its error names the argument.
 */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const clean = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === '$schema') continue;
        if ((k === 'maximum' && x === MAX_SAFE) || (k === 'minimum' && x === -MAX_SAFE)) continue;
        if ((k === 'minLength' || k === 'minItems') && x === 1) continue;
        if (k === 'maxLength' && typeof x === 'number') continue;
        if (k === 'minimum' && (x === 0 || x === 1)) continue;
        out[k] = clean(x);
      }
      return out;
    }
    return v;
  };
  return clean(getZod().toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
}

function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? `\`${i.path.join('.')}\`` : 'arguments'}: ${i.message}`)
    .join('; ');
}

/** Runs one of a session's bound tools by name (execute_code's RPC dispatch). */
export async function callToolFrom(tools: AgentTool[], name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutcome> {
  const t = tools.find((x) => x.name === name);
  if (!t) return { content: JSON.stringify({ error: `The tool "${name}" is not enabled in this session.` }), isError: true };
  return t.execute(args, ctx);
}

export interface Availability {
  name: string;
  toolset: string;
  available: boolean;
  reason?: string;
}

export class ToolRegistry {
  private readonly defs = new Map<string, ToolDefinition>();
  private readonly schemaCache = new Map<string, JsonSchema>();

  register(def: ToolDefinition, opts: { override?: boolean } = {}): void {
    const existing = this.defs.get(def.name);
    if (existing && existing.toolset !== def.toolset && !opts.override)
      throw new Error(`Tool "${def.name}" is already registered by toolset "${existing.toolset}".`);
    this.defs.set(def.name, def as ToolDefinition);
    this.schemaCache.delete(def.name);
  }

  unregister(name: string): void {
    this.defs.delete(name);
    this.schemaCache.delete(name);
  }

  get(name: string): ToolDefinition | undefined {
    return this.defs.get(name);
  }

  all(): ToolDefinition[] {
    return [...this.defs.values()];
  }

  /** Tool names per toolset, as registered. */
  toolsets(): Map<string, string[]> {
    const m = new Map<string, string[]>();
    for (const d of this.defs.values()) m.set(d.toolset, [...(m.get(d.toolset) ?? []), d.name]);
    return m;
  }

  availability(services: ToolSession): Availability[] {
    return this.all().map((d) => {
      const missing = (d.requiresEnv ?? []).filter((v) => !services.env[v]);
      if (missing.length) return { name: d.name, toolset: d.toolset, available: false, reason: `needs ${missing.join(', ')}` };
      try {
        if (d.check && !d.check(services)) {
          const reason = typeof d.requirement === 'function' ? d.requirement(services) : d.requirement;
          return { name: d.name, toolset: d.toolset, available: false, reason: reason ?? 'requirements not met' };
        }
      } catch (e) {
        return { name: d.name, toolset: d.toolset, available: false, reason: (e as Error).message };
      }
      return { name: d.name, toolset: d.toolset, available: true };
    });
  }

  schemaOf(def: ToolDefinition): JsonSchema {
    let s = this.schemaCache.get(def.name);
    if (!s) {
      s = def.jsonSchema ?? ((typeof def.schema === 'function' && PRECOMPUTED[def.name]) || toJsonSchema(zodSchemaOf(def)));
      this.schemaCache.set(def.name, s);
    }
    return s;
  }

  /**
   * The session's tools: the requested toolsets (or tool names), minus disabled toolsets, minus
   * unavailable tools, each bound to the session's services.
   */
  build(requested: string[], services: ToolSession, disabled: string[] = []): AgentTool[] {
    const names = resolveToolsetNames(requested, disabled, this.toolsets(), services.config.custom_toolsets ?? {});
    const off = new Set(disabled.map((d) => d.trim()));
    for (const d of this.defs.values()) if (d.autoInclude?.(services) && !off.has(d.toolset) && !off.has(d.name)) names.add(d.name);
    const available = new Set(this.availability(services).filter((a) => a.available).map((a) => a.name));
    return this.all()
      .filter((d) => names.has(d.name) && available.has(d.name))
      .map((d) => this.bind(d, services));
  }

  bind(def: ToolDefinition, services: ToolSession): AgentTool {
    const redact = def.redact !== false && redactionEnabled(services.env, services.config);
    const finish = (o: ToolOutcome): ToolOutcome => (redact ? { ...o, content: redactResult(o.content) } : o);
    return {
      name: def.name,
      toolset: def.toolset,
      emoji: def.emoji,
      parallelSafe: def.parallelSafe,
      maxResultChars: def.maxResultChars,
      schema: { name: def.name, description: def.description, parameters: this.schemaOf(def) },
      paths: def.paths
        ? (args) => {
            const parsed = zodSchemaOf(def).safeParse(args);
            return parsed.success ? def.paths!(parsed.data, services) : null;
          }
        : undefined,
      execute: async (args, ctx): Promise<ToolOutcome> => {
        const parsed = zodSchemaOf(def).safeParse(args);
        if (!parsed.success)
          return {
            content: JSON.stringify({ error: `Invalid arguments for ${def.name}: ${describeIssues(parsed.error)}.` }),
            isError: true,
          };
        try {
          const r = await def.handler(parsed.data, toolContext(ctx, services));
          return finish(typeof r === 'string' ? { content: r } : r);
        } catch (e) {
          const err = e as Error;
          return finish({
            content: JSON.stringify({ error: `Tool execution failed: ${err?.name ?? 'Error'}: ${err?.message ?? String(e)}` }),
            isError: true,
          });
        }
      },
    };
  }
}
