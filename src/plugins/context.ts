// The `ctx` a plugin's register(ctx) receives: Hermes's PluginContext methods under their Hermes names
// (ctx.register_tool, ctx.register_hook, …) with camelCase twins (ctx.registerTool, …). Each call
// lands in a registry the core already reads — tools, slash commands, CLI commands, skills, system
// prompt sections, hooks, and the provider families (platforms, memory providers, terminal backends,
// image providers) — so nothing downstream special-cases a plugin.
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { PluginHost, LoadedPlugin } from './host.ts';
import { addExtension, type ExtensionKind } from './extensions.ts';
import type { HookCallback } from './hooks.ts';
import type { PluginManifest } from './manifest.ts';
import { pluginPorts, type PluginCommand, type PluginTool, type SectionInfo, type ToolHandlerExtra } from './state.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** `ctx.register_cli_command`: `hermes <name> …`, set up on a commander Command. */
export interface PluginCliCommand {
  name: string;
  description: string;
  setup?: (cmd: Command) => void;
  handler?: (...args: unknown[]) => unknown;
}

const pick = <T>(o: Obj, ...keys: string[]): T | undefined => keys.map((k) => o[k]).find((v) => v !== undefined) as T | undefined;

/** Checks `required` and top-level `type`s of a JSON Schema the light way; returns a problem or null. */
export function checkArgs(schema: Obj, args: Obj): string | null {
  const req = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const missing = req.filter((k) => args[k] === undefined);
  if (missing.length) return `missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
  const props = isObj(schema.properties) ? schema.properties : {};
  for (const [k, v] of Object.entries(args)) {
    const t = isObj(props[k]) ? (props[k] as Obj).type : undefined;
    if (typeof t !== 'string' || v === null) continue;
    const ok = t === 'integer' ? Number.isInteger(v) : t === 'number' ? typeof v === 'number' : t === 'array' ? Array.isArray(v) : t === 'object' ? isObj(v) : typeof v === t;
    if (!ok) return `argument "${k}" must be ${t === 'integer' ? 'an integer' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`}`;
  }
  return null;
}

function toolFromSpec(spec: Obj, m: PluginManifest): { tool: PluginTool; override: boolean } {
  const schema = isObj(spec.schema) ? spec.schema : {};
  const name = String(pick(spec, 'name') ?? schema.name ?? '').trim();
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw new Error(`register_tool: tool name "${name}" must be 1-64 letters, digits, "_" or "-"`);
  const handler = pick<(args: Obj, extra: ToolHandlerExtra) => unknown>(spec, 'handler');
  if (typeof handler !== 'function') throw new Error(`register_tool(${name}): handler must be a function`);
  const parameters = isObj(schema.parameters) ? schema.parameters : isObj(spec.parameters) ? (spec.parameters as Obj) : { type: 'object', properties: {} };
  const description = String(schema.description ?? pick(spec, 'description') ?? '');
  const checkFn = pick<() => unknown>(spec, 'check_fn', 'checkFn');
  const tool: PluginTool = {
    name,
    toolset: String(pick(spec, 'toolset') ?? m.name),
    description,
    parameters,
    emoji: typeof spec.emoji === 'string' ? spec.emoji : undefined,
    requiresEnv: (pick<unknown[]>(spec, 'requires_env', 'requiresEnv') ?? []).map(String),
    parallelSafe: !!pick(spec, 'parallel_safe', 'parallelSafe'),
    check: typeof checkFn === 'function' ? () => !!checkFn() : undefined,
    run: async (args, extra) => {
      const problem = checkArgs(parameters, args);
      if (problem) return { content: JSON.stringify({ error: `Invalid arguments for ${name}: ${problem}.` }), isError: true };
      const r = await handler(args, extra);
      return typeof r === 'string' ? r : JSON.stringify(r ?? null);
    },
  };
  return { tool, override: !!pick(spec, 'override') };
}

function commandFromArgs(owner: string, a: unknown[]): PluginCommand {
  const spec: Obj = isObj(a[0]) ? a[0] : { name: a[0], handler: a[1], description: a[2], args: a[3] };
  const name = String(spec.name ?? '').replace(/^\//, '').trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(name)) throw new Error(`register_command: "/${name}" must be 1-32 lower-case letters, digits, "_" or "-"`);
  const handler = spec.handler as (args: string, info: Obj) => unknown;
  if (typeof handler !== 'function') throw new Error(`register_command(/${name}): handler must be a function`);
  return {
    name,
    owner,
    description: String(spec.description ?? `from ${owner}`),
    args: typeof (spec.args ?? spec.args_hint) === 'string' ? String(spec.args ?? spec.args_hint) : undefined,
    async run(args, info) {
      const r = await handler(args, info);
      if (r === undefined || r === null) return {};
      if (typeof r === 'string') return { output: r };
      if (isObj(r) && ('output' in r || 'send' in r)) return { output: r.output as string | undefined, send: r.send as string | undefined };
      return { output: JSON.stringify(r) };
    },
  };
}

/** The object handed to one plugin's register(ctx). */
export function buildContext(host: PluginHost, m: PluginManifest, p: LoadedPlugin): Obj {
  const owner = `plugin:${m.key}`;
  const sinks = host.sinks();
  const settings = (): Obj => {
    const entries = (host.config as { plugins?: { entries?: Obj } } | undefined)?.plugins?.entries;
    const e = isObj(entries) ? (entries[m.key] ?? entries[m.name]) : undefined;
    return isObj(e) ? e : {};
  };
  const extension = (kind: ExtensionKind, what: string) => (value: unknown) => {
    const name = isObj(value) && typeof value.name === 'string' ? value.name : '';
    if (!name) throw new Error(`${what}: the ${kind.replace('_', ' ')} needs a name`);
    addExtension(kind, name, owner, value);
    p.extensions.push(`${kind}:${name}`);
  };

  const api: Obj = {
    manifest: m,
    plugin_id: m.key,
    hermes_home: host.home,
    profile_name: host.profile,
    log: (message: unknown, level: unknown = 'INFO') => host.log(level === 'WARNING' || level === 'ERROR' ? level : 'INFO', `${m.key}: ${String(message)}`),

    register_tool(spec: unknown, ...rest: unknown[]) {
      const s: Obj = isObj(spec) ? spec : { name: spec, toolset: rest[0], schema: rest[1], handler: rest[2] };
      const { tool, override } = toolFromSpec(s, m);
      const allowed = settings().allow_tool_override === true;
      if (override && !allowed) throw new Error(`register_tool(${tool.name}): replacing a built-in tool needs plugins.entries.${m.key}.allow_tool_override: true`);
      sinks.tool(tool, owner, override && allowed);
      p.tools.push(tool.name);
    },

    register_hook(event: unknown, callback: unknown) {
      host.hooks.register(String(event), callback as HookCallback, owner, 'plugin');
      p.hooks.push(String(event));
    },

    register_command(...a: unknown[]) {
      const def = commandFromArgs(owner, a);
      sinks.command(def);
      p.commands.push(def.name);
    },

    register_cli_command(...a: unknown[]) {
      const spec: Obj = isObj(a[0]) ? a[0] : { name: a[0], help: a[1], setup: a[2], handler: a[3] };
      const name = String(spec.name ?? '').trim();
      if (!/^[a-z][a-z0-9-]{0,31}$/.test(name)) throw new Error(`register_cli_command: "${name}" must be lower-case letters, digits or "-"`);
      sinks.cliCommand({ name, owner, description: String(spec.help ?? spec.description ?? `from ${owner}`), setup: spec.setup as PluginCliCommand['setup'], handler: spec.handler as PluginCliCommand['handler'] });
      p.cliCommands.push(name);
    },

    register_skill(name: unknown, path: unknown) {
      const n = String(name ?? '').trim();
      if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(n)) throw new Error(`register_skill: "${n}" is not a skill name`);
      let file = resolve(m.dir, String(path ?? ''));
      if (!file.endsWith('.md')) file = join(file, 'SKILL.md');
      const full = `${m.name}:${n}`;
      sinks.skill(full, file, owner);
      p.skills.push(full);
    },

    register_system_prompt_section(id: unknown, content: unknown, opts: unknown = {}) {
      const o = isObj(opts) ? opts : {};
      const sid = String(id ?? '');
      if (!/^[a-z0-9][a-z0-9._-]{0,127}$/.test(sid)) throw new Error(`register_system_prompt_section: id "${sid}" must be 1-128 lower-case letters, digits, ".", "_" or "-"`);
      if (typeof content !== 'string' && typeof content !== 'function') throw new Error('register_system_prompt_section: content must be a string or a function');
      const position = String(o.position ?? 'after_memory');
      if (position !== 'after_memory') throw new Error(`register_system_prompt_section: position "${position}" is not supported (only after_memory)`);
      const max = Math.min(4000, Number(o.max_chars ?? o.maxChars ?? 4000) || 4000);
      sinks.section({ id: sid, owner, position: 'after_memory', maxChars: max, content: content as string | ((i: SectionInfo) => unknown) });
    },

    register_platform: extension('platform', 'register_platform'),
    register_memory_provider: extension('memory_provider', 'register_memory_provider'),
    register_terminal_environment_provider: extension('terminal_backend', 'register_terminal_environment_provider'),
    register_image_gen_provider: extension('image_provider', 'register_image_gen_provider'),

    get_config(key: unknown, fallback?: unknown) {
      let v: unknown = settings().settings ?? settings().config;
      for (const part of String(key).split('.')) v = isObj(v) ? v[part] : undefined;
      return v === undefined ? fallback : v;
    },

    has_plugin(id: unknown) {
      return host.plugins.some((x) => x.loaded && (x.manifest.key === id || x.manifest.name === id));
    },

    /** Runs one of the active session's tools, with that session's context (approvals included). */
    async dispatch_tool(name: unknown, args: unknown = {}) {
      const s = host.activeSession;
      if (!s) return JSON.stringify({ error: 'No session is running in this process, so there is no tool to dispatch.' });
      const r = await s.callTool(String(name), isObj(args) ? args : {});
      return r.content;
    },

    /** Queues text as the next user message of the active CLI session; false when there is none. */
    inject_message(content: unknown, role: unknown = 'user') {
      const s = host.activeSession;
      if (!s || typeof content !== 'string' || !content.trim()) return false;
      return s.inject(role === 'user' ? content : `[${String(role)}] ${content}`);
    },

    llm: {
      async complete(o: unknown = {}) {
        const { pluginComplete } = await import('./llm.ts');
        return pluginComplete(host, m, isObj(o) ? o : {});
      },
      async complete_structured(o: unknown = {}) {
        const { pluginCompleteStructured } = await import('./llm.ts');
        return pluginCompleteStructured(host, m, isObj(o) ? o : {});
      },
    },

    async call_mcp(server: unknown, tool: unknown, args: unknown = {}, timeout: unknown = 30) {
      const name = String(server);
      const allow = Array.isArray(settings().mcp_allowlist) ? (settings().mcp_allowlist as unknown[]).map(String) : [];
      if (!allow.includes(name)) throw new Error(`plugin ${m.key} may not call MCP server "${name}": add it to plugins.entries.${m.key}.mcp_allowlist in config.yaml`);
      const callMcp = pluginPorts().callMcp;
      if (!callMcp) throw new Error('call_mcp is not available in this command (no MCP client was lent to plugins)');
      return callMcp(host, name, String(tool), isObj(args) ? args : {}, Number(timeout));
    },
  };
  // camelCase twins for JavaScript authors: registerTool, registerHook, callMcp, …
  for (const k of Object.keys(api)) {
    const camel = k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    if (camel !== k && typeof api[k] === 'function') api[camel] = api[k];
  }
  const llm = api.llm as Obj;
  llm.completeStructured = llm.complete_structured;
  api.registerTerminalBackend = api.register_terminal_environment_provider;
  api.registerImageProvider = api.register_image_gen_provider;
  return api;
}
