// The platform registry: every messaging platform (built in or from a plugin) is one
// `PlatformDefinition`. The gateway, the delivery router, `hermes send`, `hermes gateway setup`
// and `gateway status` only ever ask the registry, so a new platform is one file that exports its
// definition plus one line in `builtin.ts` (or one `registerPlatform` call from a plugin).
import { isObj, truthy } from '../platform-settings.ts';
import type { IdentityRule } from '../identity.ts';
import type { GatewayRunner } from '../runner.ts';
import type { PlatformAdapter } from '../types.ts';

type Obj = Record<string, unknown>;

/** What a platform's factory gets. `deps` is that platform's test seam (fake SDK factories, fetch…). */
export interface PlatformContext {
  env: NodeJS.ProcessEnv;
  config: Obj;
  home: string;
  log: (line: string) => void;
  /** The running gateway (service platforms such as the API server need it); absent for send-only use. */
  runner?: GatewayRunner;
  deps?: unknown;
}

/** One question of `hermes gateway setup`. Secrets are masked and go to .env; `config` keys go to config.yaml. */
export interface SetupField {
  /** The .env variable (or, with `config: true`, the config.yaml key) it sets. */
  key: string;
  prompt: string;
  secret?: boolean;
  optional?: boolean;
  placeholder?: string;
  /** Returns an error text for a bad value. */
  validate?: (value: string) => string | undefined;
  config?: boolean;
}

export interface SetupSpec {
  /** A line or two on where the credentials come from. */
  intro?: string;
  fields: SetupField[];
  /** What allowlist entries look like (the `{PLATFORM}_ALLOWED_USERS` question); omit for no allowlist question. */
  allowlistHint?: string;
}

export interface PlatformDefinition {
  /** The id used in config.yaml, env prefixes, delivery targets and session keys (`telegram`). */
  name: string;
  label: string;
  /** `chat` platforms talk to people; `service` ones (API server, webhooks) answer requests. */
  kind: 'chat' | 'service';
  /** The longest message the platform accepts, in characters. */
  maxMessageLength: number;
  /** Phone-number-shaped ids: hashed before the model sees them when `privacy.redact_pii` is on. */
  piiSafe?: boolean;
  /** Messages come from the platform itself, authenticated by its token (Home Assistant events): no allowlist or pairing. */
  trustedSource?: boolean;
  /**
   * How a plugin platform's allowlist entries compare with a sender (src/gateway/identity.ts): the
   * forms of an id, what an id looks like, and `handles: true` only when the platform guarantees
   * usernames unique (then `@name` entries match `userHandle`). Built-ins have theirs in identity.ts.
   */
  identity?: Partial<IdentityRule>;
  /** The prefix of its `{PREFIX}_ALLOWED_USERS`-style variables when not the upper-cased name (Hermes's QQ bot: `QQ`). */
  envPrefix?: string;
  /** The env variable of the home channel (default `{PLATFORM}_HOME_CHANNEL`). */
  homeEnv?: string;
  /** Whether the platform is configured (credentials present and not `enabled: false`). */
  configured(env: NodeJS.ProcessEnv, config: Obj): boolean;
  /** Builds the live adapter (imports the SDK lazily inside). */
  create(ctx: PlatformContext): Promise<PlatformAdapter>;
  /** A send-only client for deliveries without a running gateway (cron from the CLI, `hermes send`). */
  sender?(ctx: PlatformContext): Promise<PlatformAdapter | null>;
  setup?: SetupSpec;
  /** Checks credentials for the setup wizard; resolves to a short description (the bot's name). */
  probe?(env: NodeJS.ProcessEnv, config: Obj): Promise<string>;
  /** A short hint for the system prompt (formatting the platform renders). */
  promptHint?: string;
  /** Where a delivery target's rest (`platform:<rest>`) is one opaque chat id (phone numbers, Matrix ids with colons). */
  parseTarget?(rest: string): { chatId: string; threadId?: string } | null;
  /** What a chat id looks like, for errors (`an email address`). */
  targetHint?: string;
}

const platforms = new Map<string, PlatformDefinition>();
let builtinsLoaded = false;
let loadBuiltins: (() => PlatformDefinition[]) | null = null;

/** Called once by builtin.ts: the built-in definitions, registered before any plugin's. */
export function setBuiltins(fn: () => PlatformDefinition[]): void {
  loadBuiltins = fn;
}

function ensure(): void {
  if (builtinsLoaded || !loadBuiltins) return;
  builtinsLoaded = true;
  for (const d of loadBuiltins()) if (!platforms.has(d.name)) platforms.set(d.name, d);
}

/** Adds (or replaces) a platform. Plugins call this; a plugin may not take a built-in's name silently. */
export function registerPlatform(def: PlatformDefinition, o: { replace?: boolean } = {}): void {
  ensure();
  if (!/^[a-z][a-z0-9_]{1,31}$/.test(def.name)) throw new Error(`platform name "${def.name}" must be lower-case letters, digits and _`);
  if (platforms.has(def.name) && !o.replace) throw new Error(`platform "${def.name}" is already registered`);
  platforms.set(def.name, def);
}

export function unregisterPlatform(name: string): void {
  platforms.delete(name);
}

export function getPlatform(name: string): PlatformDefinition | undefined {
  ensure();
  return platforms.get(name);
}

export function listPlatforms(kind?: 'chat' | 'service'): PlatformDefinition[] {
  ensure();
  return [...platforms.values()].filter((p) => !kind || p.kind === kind);
}

export function platformNames(kind?: 'chat' | 'service'): string[] {
  return listPlatforms(kind).map((p) => p.name);
}

export function platformLabel(name: string): string {
  return getPlatform(name)?.label ?? name;
}


/** `enabled: false` under `platforms.<p>` or `<p>:` switches a configured platform off. */
export function switchedOff(name: string, config: Obj): boolean {
  const top = isObj(config[name]) ? (config[name] as Obj) : {};
  const block = isObj(config.platforms) && isObj((config.platforms as Obj)[name]) ? ((config.platforms as Obj)[name] as Obj) : {};
  const e = block.enabled ?? top.enabled;
  return e === false || (typeof e === 'string' && !truthy(e));
}

export function platformEnabled(name: string, config: Obj, env: NodeJS.ProcessEnv): boolean {
  const d = getPlatform(name);
  return !!d && definitionEnabled(d, config, env);
}

/** A definition's platform is configured and not switched off (a check that throws counts as not configured). */
export function definitionEnabled(d: Pick<PlatformDefinition, 'name' | 'configured'>, config: Obj, env: NodeJS.ProcessEnv): boolean {
  if (switchedOff(d.name, config)) return false;
  try {
    return d.configured(env, config);
  } catch {
    return false;
  }
}

export function enabledPlatforms(config: Obj, env: NodeJS.ProcessEnv): string[] {
  return platformNames().filter((p) => platformEnabled(p, config, env));
}
