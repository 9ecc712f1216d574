// The plugin host of each HERMES_HOME loaded in this process, and what the core reads from it. Tiny
// on purpose: the Session and the registries import this, so start-up pays nothing when no plugin
// was loaded (every getter answers "none").
import type { HookManager } from './hooks.ts';
import type { PluginHost } from './host.ts';
import type { CompleteRequest, CompleteResult } from './llm.ts';
import type { PluginManifest } from './manifest.ts';

export interface PromptSection {
  id: string;
  owner: string;
  position: 'after_memory';
  maxChars: number;
  content: string | ((info: SectionInfo) => unknown);
}

export interface SectionInfo {
  session_id: string;
  model: string;
  provider: string;
  platform: string;
  profile_name: string;
  cwd: string;
}

/** Extra arguments a plugin tool handler gets (Hermes passes them as keyword arguments). */
export interface ToolHandlerExtra {
  task_id: string;
  session_id: string;
  tool_call_id: string;
  platform: string;
  signal: AbortSignal;
}

/**
 * A tool a plugin registered (`ctx.register_tool`), in the plugin's own terms; the tool registry's
 * side makes it a ToolDefinition (src/tools/plugin-tools.ts). Plugins sit below the tools.
 */
export interface PluginTool {
  name: string;
  toolset: string;
  description: string;
  /** The JSON Schema of its arguments, as the plugin gave it (what the model sees). */
  parameters: Record<string, unknown>;
  emoji?: string;
  requiresEnv: string[];
  parallelSafe: boolean;
  /** The plugin's check_fn: false hides the tool. */
  check?: () => boolean;
  /** Runs it: the arguments are checked against `parameters` first (an error result when they do not fit). */
  run(args: Record<string, unknown>, extra: ToolHandlerExtra): Promise<string | { content: string; isError: boolean }>;
}

/**
 * A slash command a plugin registered (`ctx.register_command`); the command registry's side makes it
 * a CommandDef (src/commands/plugin-commands.ts).
 */
export interface PluginCommand {
  name: string;
  owner: string;
  description: string;
  args?: string;
  run(args: string, info: { session_id: string; platform: string; surface: string }): Promise<{ output?: string; send?: string }>;
}

/** What a session needs to interact with (dispatch_tool, inject_message). */
export interface ActiveSession {
  id: string;
  platform: string;
  callTool(name: string, args: Record<string, unknown>): Promise<{ content: string; isError?: boolean }>;
  inject(content: string): boolean;
}

/** The read side of a loaded plugin host. */
export interface PluginContributions {
  readonly home: string;
  readonly hooks: HookManager;
  tools(): { tool: PluginTool; owner: string; override: boolean }[];
  commands(): PluginCommand[];
  sections(): PromptSection[];
  /** `plugin:skill` → the SKILL.md path. */
  skills(): Map<string, string>;
  /** The profile name HERMES_HOME belongs to (`default` outside profiles). */
  readonly profile: string;
  /** Sessions of this process register here so plugins can reach the one in use. */
  setActive(s: ActiveSession | null): void;
}

const hosts = new Map<string, PluginContributions>();

export function setPluginHost(home: string, host: PluginContributions | null): void {
  if (host) hosts.set(home, host);
  else hosts.delete(home);
}

/** The host loaded for this home, or undefined when plugins were never loaded for it. */
export function pluginHost(home: string): PluginContributions | undefined {
  return hosts.get(home);
}

/** The only host of this process (surfaces that do not know the home, e.g. ACP commands). */
export function currentPluginHost(): PluginContributions | undefined {
  return hosts.size === 1 ? hosts.values().next().value : undefined;
}

/**
 * Fires an observer hook at the plugins loaded for `home` (else the process's only host), with the
 * host's `profile_name` added. Never throws, never waits, and costs nothing when no plugin registered
 * the event: the payload is built only then. For core code outside a Session (kanban, gateway, TTS).
 */
export function notifyPluginHook(home: string | undefined, event: string, payload: () => Record<string, unknown>): void {
  const host = (home ? hosts.get(home) : undefined) ?? currentPluginHost();
  if (!host?.hooks.has(event)) return;
  host.hooks.notify(event, () => ({ profile_name: host.profile, ...payload() }));
}

/** Whether the plugins of `home` (else the only host) registered any of these events. */
export function pluginHooksWant(home: string | undefined, events: readonly string[]): boolean {
  const host = (home ? hosts.get(home) : undefined) ?? currentPluginHost();
  return !!host?.hooks.hasAny(events);
}

/**
 * What plugins may ask of the layers above them, lent by the surface that loads them
 * (`loadSurfacePlugins({ ports })`; src/mcp/plugin-call.ts `pluginPorts`): `ctx.llm.complete` runs
 * one model call through the session runtime, `ctx.call_mcp` one tool of an MCP server. Absent,
 * those calls say they are not available; nothing else changes.
 */
export interface PluginPorts {
  complete?(host: PluginHost, m: PluginManifest, req: CompleteRequest): Promise<CompleteResult>;
  /** `server` is already allowed for the plugin (plugins.entries.<id>.mcp_allowlist). */
  callMcp?(host: PluginHost, server: string, tool: string, args: Record<string, unknown>, timeoutS: number): Promise<Record<string, unknown>>;
}

let ports: PluginPorts = {};

export function lendPluginPorts(p: PluginPorts): void {
  ports = { ...ports, ...p };
}

export function pluginPorts(): PluginPorts {
  return ports;
}
