// ~/.codex/config.toml migration, run when the Codex runtime is enabled: Hermes's mcp_servers,
// a default permission profile and the `hermes-tools` MCP server (Hermes's web, vision and skills
// tools served to codex by `hermes mcp serve --tools-only`) go into one managed block between
// marker comments. Everything outside the block is the user's and is kept byte for byte; a re-run
// replaces only the block. The file is written atomically (temp file + rename). No TOML library:
// the block is generated, and the user's part is only scanned for a few keys.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../state/fsutil.ts';
import { HERMES_TOOLS_SERVER } from './approvals.ts';

export const BLOCK_BEGIN = '# >>> managed by hermes-agent (codex app-server runtime): this block is rewritten by /codex-runtime; edit outside it';
export const BLOCK_END = '# <<< end of hermes-agent managed block';
export const DEFAULT_PERMISSIONS = ':workspace';

const REF = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;
const HAS_REF = /\$\{(?:env:)?[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/;
const PURE_REF = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;
/** Hermes server keys the migration understands (everything else is reported as not migrated). */
const KNOWN = new Set(['command', 'args', 'env', 'cwd', 'url', 'headers', 'timeout', 'connect_timeout', 'enabled', 'transport', 'tools']);

// ---- TOML values -----------------------------------------------------------------------------

/** A TOML basic string: backslash first, then quotes and every control character. */
export function tomlString(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `"${out}"`;
}

export function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k);
}

export function tomlValue(v: unknown): string {
  if (typeof v === 'string') return tomlString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} to TOML`);
    return String(v);
  }
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`).join(', ')} }`;
  throw new Error(`cannot write ${v === null ? 'null' : typeof v} to TOML`);
}

// ---- Hermes mcp_servers → codex mcp_servers --------------------------------------------------

export interface ServerTranslation {
  name: string;
  /** The codex table's keys and values, or null when the server could not be migrated. */
  table: Record<string, unknown> | null;
  /** What was left out and why (one line each). */
  notes: string[];
  /** Environment variables codex must pass through for this server. */
  envRefs: string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function translateServer(name: string, raw: unknown, env: NodeJS.ProcessEnv): ServerTranslation {
  const notes: string[] = [];
  const envRefs: string[] = [];
  if (!isObj(raw)) return { name, table: null, notes: ['not a mapping'], envRefs };
  const expand = (s: string) => s.replace(REF, (_m, n: string) => env[n] ?? '');
  const t: Record<string, unknown> = {};
  const command = typeof raw.command === 'string' ? raw.command.trim() : '';
  const url = typeof raw.url === 'string' ? raw.url.trim() : '';
  if (command && url) return { name, table: null, notes: ['has both command and url'], envRefs };
  if (!command && !url) return { name, table: null, notes: ['needs command or url'], envRefs };
  if (command) {
    t.command = expand(command);
    if (Array.isArray(raw.args)) t.args = raw.args.map((a) => expand(String(a)));
    if (isObj(raw.env)) {
      const literal: Record<string, string> = {};
      const passed: string[] = [];
      for (const [k, v] of Object.entries(raw.env)) {
        const s = String(v ?? '');
        const pure = PURE_REF.exec(s);
        if (pure && pure[1] === k) passed.push(k);
        else if (HAS_REF.test(s)) notes.push(`env ${k} comes from ${s}: codex passes variables only under their own name (rename it to ${k} in ~/.hermes/.env, or set it in config.toml yourself)`);
        else literal[k] = s;
      }
      if (Object.keys(literal).length) t.env = literal;
      if (passed.length) {
        t.env_vars = passed;
        envRefs.push(...passed);
      }
    }
    if (typeof raw.cwd === 'string' && raw.cwd.trim()) t.cwd = expand(raw.cwd.trim());
  } else {
    t.url = expand(url);
    const tr = typeof raw.transport === 'string' ? raw.transport.toLowerCase() : '';
    if (tr === 'sse') notes.push('transport sse: codex speaks Streamable HTTP only, so it connects to the URL that way');
    if (isObj(raw.headers)) {
      const literal: Record<string, string> = {};
      const fromEnv: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw.headers)) {
        const s = String(v ?? '');
        const bearer = /^Bearer\s+\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(s);
        const pure = PURE_REF.exec(s);
        if (k.toLowerCase() === 'authorization' && bearer) {
          t.bearer_token_env_var = bearer[1];
          envRefs.push(bearer[1]);
        } else if (pure) {
          fromEnv[k] = pure[1];
          envRefs.push(pure[1]);
        } else if (HAS_REF.test(s)) notes.push(`header ${k} mixes text with a \${VAR}: set it in config.toml yourself`);
        else literal[k] = s;
      }
      if (Object.keys(literal).length) t.http_headers = literal;
      if (Object.keys(fromEnv).length) t.env_http_headers = fromEnv;
    }
  }
  const secs = (v: unknown) => {
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isFinite(n) && n > 0 ? n : null;
  };
  if (raw.connect_timeout !== undefined && secs(raw.connect_timeout) !== null) t.startup_timeout_sec = secs(raw.connect_timeout);
  if (raw.timeout !== undefined && secs(raw.timeout) !== null) t.tool_timeout_sec = secs(raw.timeout);
  if (raw.enabled === false || raw.enabled === 'false') t.enabled = false;
  if (isObj(raw.tools)) {
    if (Array.isArray(raw.tools.include)) t.enabled_tools = raw.tools.include.map(String);
    if (Array.isArray(raw.tools.exclude) && raw.tools.exclude.length) t.disabled_tools = raw.tools.exclude.map(String);
    const other = Object.keys(raw.tools).filter((k) => !['include', 'exclude'].includes(k));
    if (other.length) notes.push(`tools.${other.join(', tools.')} not supported by codex`);
  }
  const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k));
  if (unknown.length) notes.push(`${unknown.join(', ')} not supported by codex`);
  return { name, table: t, notes, envRefs };
}

/** Variables codex must keep in its environment for the migrated servers. */
export function mcpEnvRefs(mcpServers: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  if (!isObj(mcpServers)) return [];
  return [...new Set(Object.entries(mcpServers).flatMap(([n, raw]) => translateServer(n, raw, env).envRefs))];
}

// ---- config.toml ---------------------------------------------------------------------------

export interface HermesToolsEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface MigrationInput {
  codexHome: string;
  mcpServers: unknown;
  env: NodeJS.ProcessEnv;
  /** The hermes-tools server entry, or null to leave it out. */
  hermesTools: HermesToolsEntry | null;
  /** default_permissions to write (null: leave codex's default). */
  defaultPermissions?: string | null;
  dryRun?: boolean;
}

export interface MigrationReport {
  path: string;
  /** Server names written into the block (hermes-tools included). */
  migrated: string[];
  /** Servers (or parts of them) left out, with why. */
  skipped: { server: string; reason: string }[];
  /** default_permissions: written by us, kept from the user's part, or not written. */
  permissions: 'written' | 'user' | 'none';
  /** The file's new text. */
  text: string;
  changed: boolean;
}

/** Splits a config into [user text before, the managed block, user text after]. */
export function splitManaged(text: string): { before: string; block: string | null; after: string } {
  const b = text.indexOf(BLOCK_BEGIN);
  if (b < 0) return { before: text, block: null, after: '' };
  const e = text.indexOf(BLOCK_END, b);
  if (e < 0) throw new Error(`config.toml has the "${BLOCK_BEGIN.slice(0, 40)}…" marker but no end marker; remove the partial block by hand, then enable the runtime again`);
  const lineStart = text.lastIndexOf('\n', b - 1) + 1;
  const endLine = text.indexOf('\n', e);
  return { before: text.slice(0, lineStart), block: text.slice(lineStart, endLine < 0 ? text.length : endLine + 1), after: endLine < 0 ? '' : text.slice(endLine + 1) };
}

/** The user's part without the managed block. */
export function stripManaged(text: string): string {
  const s = splitManaged(text);
  // The blank line placeBlock puts after the block goes with it, so a re-run is byte-identical.
  return s.before + (s.block !== null ? s.after.replace(/^\n/, '') : s.after);
}

function userTopLevelKeys(user: string): Set<string> {
  const keys = new Set<string>();
  for (const line of user.split('\n')) {
    if (/^\s*\[/.test(line)) break;
    const m = /^\s*([A-Za-z0-9_-]+)\s*=/.exec(line);
    if (m) keys.add(m[1]);
  }
  return keys;
}

function userServerNames(user: string): Set<string> {
  const names = new Set<string>();
  for (const m of user.matchAll(/^\s*\[\s*mcp_servers\s*\.\s*(?:"([^"]+)"|([A-Za-z0-9_-]+))\s*[\].]/gm)) names.add(m[1] ?? m[2]);
  return names;
}

export function renderBlock(top: Record<string, unknown>, servers: [string, Record<string, unknown>][]): string {
  const lines = [BLOCK_BEGIN];
  for (const [k, v] of Object.entries(top)) lines.push(`${tomlKey(k)} = ${tomlValue(v)}`);
  for (const [name, table] of servers) {
    lines.push('', `[mcp_servers.${tomlKey(name)}]`);
    for (const [k, v] of Object.entries(table)) lines.push(`${tomlKey(k)} = ${tomlValue(v)}`);
  }
  lines.push(BLOCK_END);
  return `${lines.join('\n')}\n`;
}

/** Puts the block where its top-level keys stay top-level: before the user's first table. */
function placeBlock(user: string, block: string): string {
  const m = /^[ \t]*\[/m.exec(user);
  if (!m) return user ? `${user.replace(/\n*$/, '\n\n')}${block}` : block;
  const head = user.slice(0, m.index);
  return `${head}${head && !head.endsWith('\n\n') ? (head.endsWith('\n') ? '\n' : '\n\n') : ''}${block}\n${user.slice(m.index)}`;
}

/**
 * Hermes's mcp_servers (plus the hermes-tools entry) as codex server tables, leaving out names the
 * user's own config.toml defines (`taken`) and reporting what could not be translated.
 */
export function codexServerTables(mcpServers: unknown, env: NodeJS.ProcessEnv, hermesTools: HermesToolsEntry | null, taken: Set<string>): { servers: [string, Record<string, unknown>][]; skipped: MigrationReport['skipped'] } {
  const skipped: MigrationReport['skipped'] = [];
  const servers: [string, Record<string, unknown>][] = [];
  if (isObj(mcpServers)) {
    for (const [name, raw] of Object.entries(mcpServers)) {
      if (name === HERMES_TOOLS_SERVER) {
        skipped.push({ server: name, reason: 'the name is reserved for Hermes’s own tools server' });
        continue;
      }
      if (taken.has(name)) {
        skipped.push({ server: name, reason: 'config.toml already defines it outside the managed block (yours is kept)' });
        continue;
      }
      const t = translateServer(name, raw, env);
      for (const n of t.notes) skipped.push({ server: name, reason: n });
      if (t.table) servers.push([name, t.table]);
    }
  }
  if (hermesTools && !taken.has(HERMES_TOOLS_SERVER)) servers.push([HERMES_TOOLS_SERVER, { command: hermesTools.command, args: hermesTools.args, env: hermesTools.env, startup_timeout_sec: 30, tool_timeout_sec: 300 }]);
  return { servers, skipped };
}

/** The user's part of CODEX_HOME/config.toml (the managed block left out): its top-level keys and server names. */
export function userCodexConfig(codexHome: string): { keys: Set<string>; servers: Set<string>; text: string } {
  const path = join(codexHome, 'config.toml');
  let user = '';
  try {
    user = existsSync(path) ? stripManaged(readFileSync(path, 'utf8')) : '';
  } catch {
    user = '';
  }
  return { keys: userTopLevelKeys(user), servers: userServerNames(user), text: user };
}

export function migrateCodexConfig(o: MigrationInput): MigrationReport {
  const path = join(o.codexHome, 'config.toml');
  const original = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const user = stripManaged(original);
  const taken = userServerNames(user);
  const { servers, skipped } = codexServerTables(o.mcpServers, o.env, o.hermesTools, taken);
  const top: Record<string, unknown> = {};
  let permissions: MigrationReport['permissions'] = 'none';
  const wanted = o.defaultPermissions === undefined ? DEFAULT_PERMISSIONS : o.defaultPermissions;
  if (wanted) {
    if (userTopLevelKeys(user).has('default_permissions')) permissions = 'user';
    else {
      top.default_permissions = wanted;
      permissions = 'written';
    }
  }
  const text = placeBlock(user, renderBlock(top, servers));
  const changed = text !== original;
  if (changed && !o.dryRun) writeAtomic(path, text);
  return { path, migrated: servers.map(([n]) => n), skipped, permissions, text, changed };
}

/** Removes the managed block (the user's part stays as it was). */
export function removeManagedBlock(codexHome: string): boolean {
  const path = join(codexHome, 'config.toml');
  if (!existsSync(path)) return false;
  const original = readFileSync(path, 'utf8');
  const s = splitManaged(original);
  if (s.block === null) return false;
  writeAtomic(path, s.after ? s.before + s.after.replace(/^\n/, '') : s.before.replace(/\n+$/, '\n'));
  return true;
}

/** Atomic (temp file + rename in the same directory), keeping the file's mode (0600 when new). */
export function writeAtomic(path: string, text: string): void {
  writeFileAtomic(path, text, existsSync(path) ? statSync(path).mode & 0o777 : 0o600);
}
