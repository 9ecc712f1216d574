// One slash-command registry for every surface: the CLI REPL, the gateway and ACP read the same
// definitions (name, aliases, args, help, where they apply, whether allowed mid-turn).
import type { Skin } from '../state/skins.ts';
import type { Session } from '../session/session.ts';
import { nearest } from './suggest.ts';
import { t } from '../i18n/index.ts';

export type Surface = 'cli' | 'gateway' | 'acp';
export type CommandCategory = 'session' | 'config' | 'tools' | 'info';

/** What the surface should do after a command ran. */
export interface CommandResult {
  /** Text to show the person. */
  output?: string;
  /** Send this as a user message to the agent (e.g. /retry, a skill invocation). */
  send?: string;
  /** Text to put back in the input line for editing (/undo re-prompt). */
  prefill?: string;
  /** Surface actions. */
  /** runtime_changed: the turn runtime was switched (/codex-runtime); a surface may drop a cached session. */
  action?: 'quit' | 'clear_screen' | 'new_session' | 'stop' | 'runtime_changed' | 'redraw';
  /**
   * Put this text in the input line (a terminal surface): with the command's `complete()` it makes
   * a picker (`/model ` opens the menu of the provider's models).
   */
  input?: string;
}

/** Surface-specific abilities a command may use; every member is optional. */
/** The messaging gateway as a terminal sees it (/platforms, /handoff); src/gateway/command-ports.ts. */
export interface GatewayPorts {
  /** /platforms: the running gateway's platforms and their states, or how to start it. */
  status(home: string): Promise<string>;
  /** /handoff: why `platform` cannot take a handoff (unknown, not set up, no home channel), or null. */
  handoffProblem(platform: string, config: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<string | null>;
}

/** A platform of the running gateway as /platform shows it. */
export interface ChatPlatformRow {
  name: string;
  state: string;
  attempts?: number;
  lastError?: string;
}

/**
 * What a messaging chat lends its commands (the gateway's /approve, /deny, /sethome, /restart,
 * /platform, /commands): the chat, its pending approval and the gateway process. Lent by
 * src/gateway/command-dispatch.ts; commands never import the gateway.
 */
export interface ChatPorts {
  platform: string;
  chatId: string;
  chatType: string;
  threadId?: string;
  /** Answers the approval this chat's agent waits on; false when none waits. */
  approve(choice: 'once' | 'session' | 'always' | 'deny'): boolean;
  /** Makes this chat the platform's home channel; the `NAME=value` saved in .env. */
  setHome(): string;
  /** Drains running turns and restarts the gateway process; null when it cannot (the reason otherwise). */
  restart(): { running: number } | string;
  /** The gateway's platforms and their states. */
  platforms(): ChatPlatformRow[];
  /** Stops retrying a failing platform / retries a paused one; the line to show. */
  pausePlatform(name: string): string;
  resumePlatform(name: string): string;
}

export interface SurfaceHooks {
  /** A messaging chat's abilities (the gateway lends them). */
  chat?: ChatPorts;
  /** The gateway's status and handoff checks (terminal surfaces lend them). */
  gatewayPorts?: GatewayPorts;
  /** Lists recent sessions / resumes one (needs the session store). */
  resume?(idOrTitle: string): Promise<string>;
  /** Extra status lines only the surface knows (platform, chat id…). */
  statusLines?(): string[];
  /** Puts text on the person's clipboard; says how (terminal escape, a clipboard program). */
  copy?(text: string): Promise<string>;
  /** Opens $EDITOR with `initial`; the text written, or null when nothing was. */
  compose?(initial: string): Promise<string | null>;
  /** An image from the clipboard as a data: URL, or null when there is none. */
  pasteImage?(): Promise<string | null>;
  /** The person's identity and rights on this surface (gateway: the sender; CLI: the local user). */
  whoami?(): string;
  /** CLI: /resume goes back to the resumed session's folder (unless --no-restore-cwd); the line to show. */
  changeDir?(dir: string | null): string | null;
  /** The classic REPL: redraw with this skin (/skin) or busy-indicator style (/indicator). */
  applySkin?(skin: Skin): void;
  applyIndicator?(style: string): void;
  /** Text shown later, outside a command's output (the REPL and TUI: a followed subagent's transcript lines). */
  show?(text: string): void;
}

export interface CommandContext {
  session: Session;
  surface: Surface;
  hooks: SurfaceHooks;
}

export interface CommandDef {
  name: string;
  aliases?: string[];
  /** Usage hint for the arguments, e.g. `[name]`. */
  args?: string;
  description: string;
  category: CommandCategory;
  surfaces: Surface[];
  /** May run while the agent is working. */
  midTurn?: boolean;
  /** Subcommand / argument completions for the autocomplete menu. */
  completions?: string[];
  /** Completions that depend on the session (e.g. the models the provider serves); no I/O. */
  complete?(ctx: CommandContext, partial: string): { value: string; hint?: string }[] | null;
  run(ctx: CommandContext, args: string): Promise<CommandResult> | CommandResult;
}

export const ALL_SURFACES: Surface[] = ['cli', 'gateway', 'acp'];

export class CommandRegistry {
  private readonly defs: CommandDef[] = [];

  add(...defs: CommandDef[]): this {
    for (const d of defs) {
      const clash = this.defs.find((x) => x.name === d.name);
      if (clash) throw new Error(`slash command /${d.name} defined twice`);
      this.defs.push(d);
    }
    return this;
  }

  /** Replaces a definition by name (used by layers that extend a command). */
  replace(def: CommandDef): void {
    const i = this.defs.findIndex((x) => x.name === def.name);
    if (i >= 0) this.defs[i] = def;
    else this.defs.push(def);
  }

  list(surface?: Surface): CommandDef[] {
    return surface ? this.defs.filter((d) => d.surfaces.includes(surface)) : [...this.defs];
  }

  /**
   * Resolves `/name args`: exact name, then alias, then a unique prefix (an ambiguous prefix takes
   * the first command in registry order, as Hermes does). Case-insensitive.
   */
  resolve(input: string, surface: Surface): { def: CommandDef; args: string } | { error: string } {
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(input.trim());
    if (!m) return { error: 'not a slash command' };
    const name = m[1].toLowerCase();
    const args = m[2].trim();
    const defs = this.list(surface);
    const exact = defs.find((d) => d.name === name) ?? defs.find((d) => d.aliases?.includes(name));
    if (exact) return { def: exact, args };
    const prefixed = defs.filter((d) => d.name.startsWith(name) || d.aliases?.some((a) => a.startsWith(name)));
    if (prefixed.length) return { def: prefixed[0], args };
    const near = nearest(name, defs.flatMap((d) => [d.name, ...(d.aliases ?? [])]), 2);
    return { error: near.length ? t('commands.unknown_suggest', { name, suggestions: near.map((x) => `/${x}`).join(` ${t('commands.or')} `) }) : t('commands.unknown', { name }) };
  }

  /** Completions for the autocomplete menu: commands whose name starts with the typed prefix. */
  complete(prefix: string, surface: Surface): CommandDef[] {
    const p = prefix.replace(/^\//, '').toLowerCase();
    return this.list(surface).filter((d) => d.name.startsWith(p) || d.aliases?.some((a) => a.startsWith(p)));
  }
}

/** Runs a command line against a registry. Returns null when `input` is not a slash command. */
export async function runCommand(registry: CommandRegistry, input: string, ctx: CommandContext): Promise<CommandResult | null> {
  if (!input.trim().startsWith('/')) return null;
  const r = registry.resolve(input, ctx.surface);
  if ('error' in r) return { output: r.error };
  if (ctx.session.busy && !r.def.midTurn) return { output: `/${r.def.name} cannot run while the agent is working. Wait, or /stop first.` };
  try {
    return await r.def.run(ctx, r.args);
  } catch (e) {
    return { output: `/${r.def.name} failed: ${(e as Error).message}` };
  }
}
