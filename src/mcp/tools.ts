// MCP tools as Hermes tool definitions: `mcp_<server>_<tool>` in toolset `mcp-<server>`, plus
// list/read resources and list/get prompts utility tools when the server offers them.
import type { z } from 'zod';
import type { ToolOutcome } from '../agent/types.ts';
import type { JsonSchema } from '../llm/types.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { mcpToolName, mcpToolset, toolAllowed } from './config.ts';
import { cleanError, McpCallError, type McpConnection } from './connection.ts';

const MAX_DESCRIPTION = 4000;

interface ContentItem {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

/** A content list (tool result, prompt message, resource) as text for the model. */
export function contentText(items: ContentItem[] | undefined): string {
  const parts: string[] = [];
  for (const c of items ?? []) {
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'image' || c.type === 'audio') parts.push(`[${c.type}: ${c.mimeType ?? 'unknown type'}, ${Math.floor(((c.data?.length ?? 0) * 3) / 4)} bytes]`);
    else if (c.type === 'resource' && c.resource) {
      if (typeof c.resource.text === 'string') parts.push(c.resource.text);
      else parts.push(`[resource ${c.resource.uri ?? ''} (${c.resource.mimeType ?? 'binary'}, ${Math.floor(((c.resource.blob?.length ?? 0) * 3) / 4)} bytes)]`);
    } else if (c.type === 'resource_link') parts.push(`[resource: ${c.uri}${c.name ? ` (${c.name})` : ''}]`);
  }
  return parts.join('\n');
}

/** An MCP CallToolResult as the JSON string the model reads. */
export function formatCallResult(r: { content?: unknown; structuredContent?: unknown; isError?: boolean; toolResult?: unknown }): ToolOutcome {
  const text = contentText(r.content as ContentItem[] | undefined);
  if (r.isError) return { content: JSON.stringify({ error: cleanError(text || 'The MCP tool reported an error without details.') }), isError: true };
  // Servers send structured results serialized as text too (the MCP spec asks them to): the text
  // alone goes to the model, the structure only when there is no text.
  const out: Record<string, unknown> = {};
  if (text) out.result = text;
  else if (r.structuredContent !== undefined) out.result = r.structuredContent;
  else out.result = r.toolResult !== undefined ? r.toolResult : '';
  return { content: JSON.stringify(out) };
}

/** The server's input schema, cleaned for providers: an object schema without `$schema`. */
export function cleanInputSchema(schema: unknown): JsonSchema {
  const s = schema && typeof schema === 'object' && !Array.isArray(schema) ? { ...(schema as JsonSchema) } : {};
  delete s.$schema;
  if (s.type !== 'object') s.type = 'object';
  if (!s.properties || typeof s.properties !== 'object') s.properties = {};
  return s;
}

/** MCP tools carry their own JSON Schema; the arguments are passed through as given. */
const anyArgs = (zod: typeof z) => zod.record(zod.string(), zod.unknown());

function failed(e: unknown): ToolOutcome {
  const msg = e instanceof McpCallError ? e.message : cleanError(`MCP call failed: ${(e as Error)?.message ?? String(e)}`);
  return { content: JSON.stringify({ error: msg }), isError: true };
}

/** Tool definitions for one connected server (empty while it is not connected). */
export function mcpToolDefinitions(conn: McpConnection): ToolDefinition[] {
  const cfg = conn.config;
  const toolset = mcpToolset(cfg.name);
  const defs: ToolDefinition[] = [];
  const taken = new Set<string>();
  for (const t of conn.tools) {
    if (!toolAllowed(cfg, t.name)) continue;
    let name = mcpToolName(cfg.name, t.name);
    for (let i = 2; taken.has(name); i++) name = `${mcpToolName(cfg.name, t.name).slice(0, 60)}_${i}`;
    taken.add(name);
    const original = t.name;
    defs.push({
      name,
      toolset,
      description: (t.description?.trim() || `The "${original}" tool of the MCP server "${cfg.name}".`).slice(0, MAX_DESCRIPTION),
      schema: anyArgs,
      jsonSchema: cleanInputSchema(t.inputSchema),
      emoji: '🔌',
      parallelSafe: cfg.parallel || undefined,
      async handler(args, ctx) {
        try {
          const r = await conn.callTool(original, args as Record<string, unknown>, ctx.signal, (p) => ctx.progress(p), (req) => ctx.ask(req));
          return formatCallResult(r);
        } catch (e) {
          return failed(e);
        }
      },
    });
  }
  const utility = (tool: string, description: string, schema: (zod: typeof z) => z.ZodType, handler: ToolDefinition['handler']) => {
    const name = mcpToolName(cfg.name, tool);
    if (taken.has(name)) return;
    taken.add(name);
    defs.push({ name, toolset, description, schema, emoji: '🔌', parallelSafe: true, handler });
  };
  if (cfg.resources && conn.hasResources) {
    utility('list_resources', `List the resources (files, documents, data) the MCP server "${cfg.name}" offers, with their URIs.`, (z) => z.object({}), async (_a, ctx) => {
      try {
        return JSON.stringify(await conn.listResources(ctx.signal));
      } catch (e) {
        return failed(e);
      }
    });
    utility(
      'read_resource',
      `Read one resource of the MCP server "${cfg.name}" by its URI (see mcp_${cfg.name.replace(/[^A-Za-z0-9_]/g, '_')}_list_resources).`,
      (z) => z.object({ uri: z.string().min(1).describe('The resource URI') }),
      async (a, ctx) => {
        try {
          const r = await conn.readResource(String((a as { uri: string }).uri), ctx.signal);
          const contents = (r.contents ?? []).map((c) => ({ type: 'resource', resource: c as ContentItem['resource'] }));
          return JSON.stringify({ uri: (a as { uri: string }).uri, content: contentText(contents) });
        } catch (e) {
          return failed(e);
        }
      },
    );
  }
  if (cfg.prompts && conn.hasPrompts) {
    utility('list_prompts', `List the prompt templates the MCP server "${cfg.name}" offers, with their arguments.`, (z) => z.object({}), async (_a, ctx) => {
      try {
        const r = await conn.listPrompts(ctx.signal);
        return JSON.stringify({ prompts: r.prompts });
      } catch (e) {
        return failed(e);
      }
    });
    utility(
      'get_prompt',
      `Get a prompt template of the MCP server "${cfg.name}", filled in with arguments.`,
      (z) => z.object({ name: z.string().min(1).describe('The prompt name'), arguments: z.record(z.string(), z.string()).optional().describe('Prompt arguments (name: value)') }),
      async (a, ctx) => {
        const args = a as { name: string; arguments?: Record<string, string> };
        try {
          const r = await conn.getPrompt(args.name, args.arguments ?? {}, ctx.signal);
          const messages = (r.messages ?? []).map((m) => ({ role: m.role, content: contentText([m.content as ContentItem]) }));
          return JSON.stringify({ name: args.name, description: r.description, messages });
        } catch (e) {
          return failed(e);
        }
      },
    );
  }
  return defs;
}
