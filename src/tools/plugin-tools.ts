// The tools plugins register (src/plugins/state.ts PluginTool) as ToolDefinitions: the plugin host
// sits below the tools and keeps them in its own terms; the registry's side adapts them here. One
// definition per plugin tool (a shared registry keeps one copy).
import type { PluginTool } from '../plugins/state.ts';
import type { ToolDefinition } from './types.ts';

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const defs = new WeakMap<PluginTool, ToolDefinition>();

export function pluginToolDefinition(t: PluginTool): ToolDefinition {
  const known = defs.get(t);
  if (known) return known;
  const check = t.check;
  const def: ToolDefinition = {
    name: t.name,
    toolset: t.toolset,
    description: t.description,
    // Plugin tools carry their own JSON Schema (what the model sees); the plugin checks arguments lightly.
    schema: (z) => z.record(z.string(), z.unknown()),
    jsonSchema: { ...t.parameters, type: 'object', properties: isObj(t.parameters.properties) ? t.parameters.properties : {} },
    emoji: t.emoji,
    requiresEnv: t.requiresEnv,
    parallelSafe: t.parallelSafe,
    check: check ? () => check() : undefined,
    // Plugin tools are on wherever the plugin is enabled (Hermes's behaviour); disabling the toolset turns them off.
    autoInclude: () => true,
    handler: async (args, ctx) => {
      return t.run(args as Record<string, unknown>, { task_id: ctx.taskId, session_id: ctx.sessionId, tool_call_id: ctx.callId, platform: ctx.platform, signal: ctx.signal });
    },
  };
  defs.set(t, def);
  return def;
}
