// Loading plugins for a HERMES_HOME: discover, gate (plugins.enabled / disabled, project opt-in, safe
// mode), import each enabled plugin's ES module and call its `register(ctx)`, then wire the shell hooks
// of config.yaml (with first-use consent). Everything a plugin registers is kept per plugin, so a
// plugin whose register() throws leaves nothing half-registered behind.
import { pathToFileURL } from 'node:url';
import { hermesLog, logSettingsFrom } from '../state/logs.ts';
import { profileNameOf } from '../state/profiles.ts';
import { allowlistEntry, recordApproval } from './allowlist.ts';
import { buildContext, type PluginCliCommand } from './context.ts';
import { anyPluginDirs, discoverPlugins, pluginSettings, pluginState, truthy, type PluginState } from './discovery.ts';
import { removeExtensionsOf } from './extensions.ts';
import { errText, HookManager, hookTimeoutMs } from './hooks.ts';
import type { PluginManifest } from './manifest.ts';
import { outboundCallback, parseOutbound } from './outbound-webhooks.ts';
import { parseHooksBlock, shellCallback, type ShellHookSpec } from './shell-hooks.ts';
import { pluginHost, setPluginHost, type ActiveSession, type PluginCommand, type PluginContributions, type PluginTool, type PromptSection } from './state.ts';
import { parse } from 'yaml';

export interface LoadedPlugin {
  manifest: PluginManifest;
  state: PluginState;
  /** Loaded and registered without error. */
  loaded: boolean;
  error?: string;
  tools: string[];
  hooks: string[];
  commands: string[];
  cliCommands: string[];
  skills: string[];
  extensions: string[];
}

export interface ShellHookStatus {
  spec: ShellHookSpec;
  registered: boolean;
  reason?: string;
}

export interface LoadOptions {
  home: string;
  config: unknown;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `--accept-hooks`: approve new shell hooks without asking. */
  acceptHooks?: boolean;
  /** Asks a person about a new shell hook; absent when nobody can answer (the hook stays off). */
  askHookConsent?: (event: string, command: string) => Promise<boolean>;
  /** Where load problems go for the person (besides the log). */
  warn?: (message: string) => void;
}

export class PluginHost implements PluginContributions {
  readonly home: string;
  readonly config: unknown;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly hooks: HookManager;
  readonly profile: string;
  readonly plugins: LoadedPlugin[] = [];
  readonly shellHooks: ShellHookStatus[] = [];
  readonly warnings: string[] = [];
  readonly cliCommandList: (PluginCliCommand & { owner: string })[] = [];
  private readonly toolList: { tool: PluginTool; owner: string; override: boolean }[] = [];
  private readonly commandList: PluginCommand[] = [];
  private readonly sectionList: PromptSection[] = [];
  private readonly skillMap = new Map<string, { path: string; owner: string }>();
  private active: ActiveSession | null = null;

  constructor(o: { home: string; config: unknown; env: NodeJS.ProcessEnv; cwd: string }) {
    this.home = o.home;
    this.config = o.config;
    this.env = o.env;
    this.cwd = o.cwd;
    this.profile = profileNameOf(o.home, o.env);
    this.hooks = new HookManager({ timeoutMs: hookTimeoutMs(o.config), log: (level, msg) => this.log(level, msg) });
  }

  log(level: 'INFO' | 'WARNING' | 'ERROR', message: string): void {
    hermesLog(this.home, logSettingsFrom((this.config ?? {}) as never))?.write(level, 'hermes_cli.plugins', message);
  }

  tools() {
    return [...this.toolList];
  }
  commands(): PluginCommand[] {
    return [...this.commandList];
  }
  sections(): PromptSection[] {
    return [...this.sectionList];
  }
  skills(): Map<string, string> {
    return new Map([...this.skillMap].map(([k, v]) => [k, v.path]));
  }
  setActive(s: ActiveSession | null): void {
    this.active = s;
  }
  get activeSession(): ActiveSession | null {
    return this.active;
  }

  /** The sinks a plugin's ctx writes into (used by context.ts). */
  sinks() {
    return {
      tool: (tool: PluginTool, owner: string, override: boolean) => {
        const clash = this.toolList.find((t) => t.tool.name === tool.name);
        if (clash) throw new Error(`tool "${tool.name}" is already registered by ${clash.owner}`);
        this.toolList.push({ tool, owner, override });
      },
      command: (def: PluginCommand) => {
        const clash = this.commandList.find((c) => c.name === def.name);
        if (clash) throw new Error(`slash command /${def.name} is already registered by ${clash.owner}`);
        this.commandList.push(def);
      },
      cliCommand: (c: PluginCliCommand & { owner: string }) => {
        if (this.cliCommandList.some((x) => x.name === c.name)) throw new Error(`CLI command "${c.name}" is already registered`);
        this.cliCommandList.push(c);
      },
      section: (s: PromptSection) => {
        if (this.sectionList.some((x) => x.id === s.id)) throw new Error(`system prompt section "${s.id}" is already registered`);
        if (this.sectionList.length >= 32) throw new Error('at most 32 system prompt sections can be registered');
        this.sectionList.push(s);
      },
      skill: (name: string, path: string, owner: string) => {
        if (this.skillMap.has(name)) throw new Error(`skill "${name}" is already registered`);
        this.skillMap.set(name, { path, owner });
      },
    };
  }

  /** Drops everything one plugin registered (its register() failed part-way). */
  private forget(owner: string): void {
    const keep = <T extends { owner?: string }>(list: T[]) => list.splice(0, list.length, ...list.filter((x) => x.owner !== owner));
    keep(this.toolList);
    keep(this.commandList);
    keep(this.sectionList);
    keep(this.cliCommandList);
    for (const [k, v] of [...this.skillMap]) if (v.owner === owner) this.skillMap.delete(k);
    this.hooks.unregisterOwner(owner);
    removeExtensionsOf(owner);
  }

  /** Imports one enabled plugin and runs its register(ctx). */
  async loadOne(m: PluginManifest, state: PluginState): Promise<LoadedPlugin> {
    const p: LoadedPlugin = { manifest: m, state, loaded: false, tools: [], hooks: [], commands: [], cliCommands: [], skills: [], extensions: [] };
    this.plugins.push(p);
    if (state !== 'enabled') return p;
    if (m.problem) {
      p.error = m.problem;
      return p;
    }
    const missing = m.requiresEnv.filter((e) => !this.env[e.name]).map((e) => e.name);
    if (missing.length) {
      p.error = `needs ${missing.join(', ')} (set ${missing.length > 1 ? 'them' : 'it'} in ${this.home}/.env)`;
      return p;
    }
    const owner = `plugin:${m.key}`;
    try {
      const mod = (await import(pathToFileURL(m.entry!).href)) as { register?: unknown; default?: unknown };
      const def = mod.default as { register?: unknown } | ((...a: unknown[]) => unknown) | undefined;
      const register = typeof mod.register === 'function' ? mod.register : typeof def === 'function' ? def : typeof def?.register === 'function' ? def.register : null;
      if (!register) throw new Error(`${m.entry} exports no register(ctx) function`);
      await (register as (ctx: unknown) => unknown)(buildContext(this, m, p));
      p.loaded = true;
    } catch (e) {
      this.forget(owner);
      for (const k of ['tools', 'hooks', 'commands', 'cliCommands', 'skills', 'extensions'] as const) p[k] = [];
      p.error = `register() failed: ${errText(e)}`;
    }
    return p;
  }

  /** Registers the configured shell hooks that have consent (asking for new ones when someone can). */
  async loadShellHooks(o: LoadOptions): Promise<void> {
    const cfg = (o.config ?? {}) as { hooks?: unknown; hooks_auto_accept?: unknown };
    const specs = parseHooksBlock(cfg.hooks, (w) => this.problem(w, o));
    if (!specs.length) return;
    const accept = !!o.acceptHooks || truthy(o.env.HERMES_ACCEPT_HOOKS) || truthy(cfg.hooks_auto_accept);
    for (const spec of specs) {
      let ok = !!allowlistEntry(this.home, spec.event, spec.command);
      if (!ok && accept) {
        recordApproval(this.home, spec.event, spec.command);
        this.log('INFO', `shell hook auto-approved (--accept-hooks / HERMES_ACCEPT_HOOKS / hooks_auto_accept): ${spec.event} -> ${spec.command}`);
        ok = true;
      } else if (!ok && o.askHookConsent) {
        ok = await o.askHookConsent(spec.event, spec.command);
        if (ok) recordApproval(this.home, spec.event, spec.command);
      }
      if (!ok) {
        const reason = 'not approved yet';
        this.shellHooks.push({ spec, registered: false, reason });
        this.problem(
          `shell hook for ${spec.event} (${spec.command}) is not approved, so it does not run. Approve it at the prompt of an interactive \`hermes\`, or with --accept-hooks, HERMES_ACCEPT_HOOKS=1 or hooks_auto_accept: true.`,
          o,
        );
        continue;
      }
      this.hooks.register(spec.event, shellCallback(spec, { home: this.home, env: this.env, config: this.config, profile: this.profile, cwd: () => process.cwd(), log: (l, msg) => this.log(l === 'INFO' ? 'INFO' : 'WARNING', msg) }), `shell:${spec.command}`, 'shell');
      this.shellHooks.push({ spec, registered: true });
    }
  }

  /** Registers the `hooks.outbound` targets (no consent needed: they run no code here, as in Hermes). */
  loadOutboundWebhooks(o: LoadOptions): void {
    const cfg = (o.config ?? {}) as { hooks?: { outbound?: unknown } };
    const hooks = cfg.hooks && typeof cfg.hooks === 'object' ? cfg.hooks : {};
    for (const t of parseOutbound(hooks.outbound, this.env, (w) => this.problem(w, o))) {
      for (const event of t.events) this.hooks.register(event, outboundCallback(event, t, { home: this.home, cwd: () => process.cwd(), profile: this.profile }), `outbound:${t.name || t.url}`, 'shell');
      this.log('INFO', `outbound webhook registered: ${t.events.join(', ')} -> ${t.name || t.url}${t.secret ? ' (signed)' : ' (unsigned)'}`);
    }
  }

  problem(message: string, o?: { warn?: (m: string) => void }): void {
    this.warnings.push(message);
    this.log('WARNING', message);
    o?.warn?.(message);
  }
}

/**
 * Loads the plugins and shell hooks of a HERMES_HOME once per process and returns the host (the same
 * host on later calls). With HERMES_SAFE_MODE set, nothing user-configured runs.
 */
export async function loadPlugins(o: LoadOptions): Promise<PluginHost> {
  const existing = pluginHost(o.home);
  if (existing instanceof PluginHost) return existing;
  const host = new PluginHost(o);
  setPluginHost(o.home, host);
  if (truthy(o.env.HERMES_SAFE_MODE)) {
    host.log('INFO', 'HERMES_SAFE_MODE: plugins and shell hooks are not loaded');
    return host;
  }
  if (anyPluginDirs(o, o.config)) {
    const settings = pluginSettings(o.config);
    for (const m of discoverPlugins(o, (t) => parse(t))) {
      const p = await host.loadOne(m, pluginState(m, settings));
      if (p.error) host.problem(`plugin ${m.key}: ${p.error}`, o);
      else if (p.loaded) host.log('INFO', `plugin ${m.key} loaded (${[p.tools.length && `${p.tools.length} tools`, p.hooks.length && `${p.hooks.length} hooks`, p.commands.length && `${p.commands.length} commands`].filter(Boolean).join(', ') || 'nothing registered'})`);
    }
  }
  await host.loadShellHooks(o);
  host.loadOutboundWebhooks(o);
  return host;
}

/** Forgets the loaded host of a home (tests; `hermes plugins` commands that reload). */
export function unloadPlugins(home: string): void {
  setPluginHost(home, null);
}
