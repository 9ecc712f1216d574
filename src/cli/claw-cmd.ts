// `hermes claw migrate`: an OpenClaw home (~/.openclaw, or the older ~/.clawdbot / ~/.moltbot) into
// Hermes, as Python Hermes's openclaw-migration does: the persona (SOUL.md), memories (MEMORY.md,
// USER.md, daily memory files) merged within Hermes's limits, workspace and shared skills under
// skills/openclaw-imports/, the default model, MCP servers, the exec-approval allowlist, messaging
// allowlists, and — only with --migrate-secrets — bot tokens and provider API keys. It always shows a
// preview first; applying needs confirmation (or --yes), takes a zip backup of HERMES_HOME first
// (hermes import restores it), and writes a report under migration/openclaw/<time>/.
// `hermes claw cleanup` renames the old directory to <name>.pre-migration.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { setConfigKey } from '../state/config.ts';
import { readEnvFile, updateEnvFile } from '../state/env.ts';
import { expandHome, hermesHome } from '../state/paths.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

const DIR_NAMES = ['.openclaw', '.clawdbot', '.moltbot'];
const DELIM = '\n§\n';
type Status = 'migrated' | 'archived' | 'skipped' | 'conflict' | 'error';

export interface Item {
  kind: string;
  source: string | null;
  destination: string | null;
  status: Status;
  reason: string;
  details?: Record<string, unknown>;
}

export interface MigrateOptions {
  source?: string;
  dryRun?: boolean;
  preset?: string;
  overwrite?: boolean;
  migrateSecrets?: boolean;
  backup?: boolean;
  workspaceTarget?: string;
  skillConflict?: string;
  yes?: boolean;
}

/** OpenClaw → Hermes wording in migrated text (`OpenClaw` → `Hermes`, `openclaw` → `hermes`). */
export function rebrand(text: string): string {
  return text.replace(/\b(open[\s-]?claw|clawdbot|moltbot)\b/gi, (m) => (m === m.toLowerCase() ? 'hermes' : 'Hermes'));
}

/** Markdown → memory entries: list items and paragraphs, each prefixed with its heading path. */
export function markdownEntries(text: string): string[] {
  const entries: string[] = [];
  const headings: string[] = [];
  let para: string[] = [];
  const ctx = () => headings.filter((h) => h && !/\b(MEMORY|USER|SOUL|AGENTS|TOOLS|IDENTITY)\.md\b/i.test(h)).join(' > ');
  const flush = () => {
    if (!para.length) return;
    const t = para.join(' ').trim();
    para = [];
    if (t) entries.push(ctx() ? `${ctx()}: ${t}` : t);
  };
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      headings.splice(h[1].length - 1);
      headings[h[1].length - 1] = h[2].trim();
      continue;
    }
    const li = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (li) {
      flush();
      const t = li[1].trim();
      if (t) entries.push(ctx() ? `${ctx()}: ${t}` : t);
      continue;
    }
    if (!line.trim()) flush();
    else para.push(line.trim());
  }
  flush();
  return entries;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

class Migrator {
  readonly items: Item[] = [];
  readonly src: string;
  readonly home: string;
  readonly o: MigrateOptions;
  readonly execute: boolean;
  readonly outDir: string;
  private readonly oc: Record<string, unknown>;
  private readonly ocEnv: Map<string, string>;

  constructor(src: string, home: string, o: MigrateOptions, execute: boolean, stamp: string) {
    this.src = src;
    this.home = home;
    this.o = o;
    this.execute = execute;
    this.outDir = join(home, 'migration', 'openclaw', stamp);
    this.oc = this.loadConfig();
    this.ocEnv = readEnvFile(join(src, '.env'));
  }

  private loadConfig(): Record<string, unknown> {
    for (const n of ['openclaw.json', 'clawdbot.json', 'moltbot.json']) {
      const p = join(this.src, n);
      if (!existsSync(p)) continue;
      try {
        // openclaw.json is JSON5 in places: tolerate comments and trailing commas.
        const text = readFileSync(p, 'utf8').replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1');
        const v = JSON.parse(text) as unknown;
        if (v && typeof v === 'object') return v as Record<string, unknown>;
      } catch {
        this.record('config', p, null, 'error', 'openclaw.json could not be read as JSON');
      }
    }
    return {};
  }

  record(kind: string, source: string | null, destination: string | null, status: Status, reason = '', details?: Record<string, unknown>): void {
    this.items.push({ kind, source, destination, status, reason, ...(details ? { details } : {}) });
  }

  private get<T>(...path: string[]): T | undefined {
    let v: unknown = this.oc;
    for (const k of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    return v as T | undefined;
  }

  /** A file in the workspace (workspace/, workspace-main/, or agents.defaults.workspace). */
  private workspaceFile(rel: string): string | null {
    const custom = this.get<string>('agents', 'defaults', 'workspace');
    const dirs = ['workspace', 'workspace-main', 'workspace-assistant', 'workspace.default'].map((d) => join(this.src, d));
    if (custom) dirs.push(resolve(expandHome(custom)));
    for (const d of dirs) if (existsSync(join(d, rel))) return join(d, rel);
    return null;
  }

  private backupItem(path: string): void {
    if (!this.execute || !existsSync(path)) return;
    const dest = join(this.outDir, 'backups', path.replace(/^\/+/, ''));
    mkdirSync(join(dest, '..'), { recursive: true });
    cpSync(path, dest, { recursive: true });
  }

  copyFile(kind: string, from: string | null, to: string, transform?: (t: string) => string): void {
    if (!from) return this.record(kind, null, to, 'skipped', 'Source file not found');
    const text = readFileSync(from, 'utf8');
    const next = transform ? transform(text) : text;
    if (existsSync(to)) {
      if (readFileSync(to, 'utf8') === next) return this.record(kind, from, to, 'skipped', 'Already the same');
      if (!this.o.overwrite) return this.record(kind, from, to, 'conflict', 'Target exists and overwrite is disabled');
    }
    if (this.execute) {
      this.backupItem(to);
      mkdirSync(join(to, '..'), { recursive: true });
      writeFileSync(to, next);
    }
    this.record(kind, from, to, 'migrated', this.execute ? '' : 'Would copy');
  }

  mergeMemory(kind: string, from: string[], to: string, limit: number): void {
    const sources = from.filter(existsSync);
    if (!sources.length) return this.record(kind, null, to, 'skipped', 'Source file not found');
    const incoming = sources.flatMap((f) => markdownEntries(readFileSync(f, 'utf8'))).map(rebrand);
    if (!incoming.length) return this.record(kind, sources[0], to, 'skipped', 'No importable entries found');
    const existing = existsSync(to)
      ? readFileSync(to, 'utf8')
          .split(/\n\u00a7\n/)
          .map((e) => e.trim())
          .filter(Boolean)
      : [];
    const seen = new Set(existing.map(norm));
    const merged = [...existing];
    const overflow: string[] = [];
    let added = 0;
    for (const e of incoming) {
      if (seen.has(norm(e))) continue;
      seen.add(norm(e));
      if ([...merged, e].join(DELIM).length > limit) overflow.push(e);
      else {
        merged.push(e);
        added++;
      }
    }
    const details = { added_entries: added, overflowed_entries: overflow.length, char_limit: limit };
    if (!added && !overflow.length) return this.record(kind, sources[0], to, 'skipped', 'No new entries to import', details);
    if (this.execute) {
      this.backupItem(to);
      mkdirSync(join(to, '..'), { recursive: true });
      writeFileSync(to, `${merged.join(DELIM)}\n`);
      if (overflow.length) {
        mkdirSync(join(this.outDir, 'overflow'), { recursive: true });
        writeFileSync(join(this.outDir, 'overflow', `${kind}.md`), `${overflow.map((e) => `- ${e}`).join('\n')}\n`);
      }
    }
    this.record(kind, sources.join(', '), to, 'migrated', this.execute ? (overflow.length ? `${overflow.length} entries did not fit the ${limit}-character limit: see overflow/${kind}.md` : '') : 'Would merge entries', details);
  }

  copySkills(kind: string, root: string | null): void {
    if (!root || !existsSync(root)) return this.record(kind, null, null, 'skipped', 'No skills folder');
    const dest = join(this.home, 'skills', 'openclaw-imports');
    let n = 0;
    for (const name of readdirSync(root)) {
      const dir = join(root, name);
      if (!statSync(dir).isDirectory() || !existsSync(join(dir, 'SKILL.md'))) continue;
      n++;
      let target = join(dest, name);
      if (existsSync(target)) {
        const mode = this.o.skillConflict ?? 'skip';
        if (mode === 'skip') {
          this.record(kind, dir, target, 'conflict', 'A skill with this name exists (--skill-conflict overwrite|rename)');
          continue;
        }
        if (mode === 'rename') {
          let i = 1;
          do target = join(dest, `${name}-imported${i > 1 ? `-${i}` : ''}`);
          while (existsSync(target) && ++i);
        } else this.backupItem(target);
      }
      if (this.execute) {
        mkdirSync(dest, { recursive: true });
        cpSync(dir, target, { recursive: true, force: true, filter: (p) => !/(^|\/)(\.git|node_modules|__pycache__)$/.test(p) });
      }
      this.record(kind, dir, target, 'migrated', this.execute ? '' : 'Would copy skill');
    }
    if (!n) this.record(kind, root, null, 'skipped', 'No skills found');
    if (this.execute && n && !existsSync(join(dest, 'DESCRIPTION.md'))) writeFileSync(join(dest, 'DESCRIPTION.md'), '---\ndescription: Skills migrated from an OpenClaw workspace.\n---\n');
  }

  mergeEnv(kind: string, adds: Record<string, string>, secret: boolean): void {
    const envPath = join(this.home, '.env');
    const cur = readEnvFile(envPath);
    const added: string[] = [];
    const conflicts: string[] = [];
    const write: Record<string, string> = {};
    for (const [k, v] of Object.entries(adds)) {
      if (cur.get(k) === v) continue;
      if (cur.get(k) && !this.o.overwrite) conflicts.push(k);
      else {
        write[k] = v;
        added.push(k);
      }
    }
    if (!added.length) return this.record(kind, join(this.src, 'openclaw.json'), envPath, conflicts.length ? 'conflict' : 'skipped', conflicts.length ? `.env already has different values for ${conflicts.join(', ')}` : 'All values already present');
    if (this.execute) {
      this.backupItem(envPath);
      updateEnvFile(envPath, write);
    }
    this.record(kind, join(this.src, 'openclaw.json'), envPath, 'migrated', this.execute ? '' : 'Would add to .env', { keys: added, conflicting_keys: conflicts, sensitive: secret });
  }

  private secret(v: unknown): string | null {
    if (typeof v === 'string') {
      const m = /^\$\{(\w+)\}$/.exec(v.trim());
      return m ? this.ocEnv.get(m[1])?.trim() || process.env[m[1]]?.trim() || null : v.trim() || null;
    }
    if (v && typeof v === 'object' && (v as { source?: string }).source === 'env') {
      const id = String((v as { id?: string }).id ?? '');
      return this.ocEnv.get(id)?.trim() || null;
    }
    return null;
  }

  private channel(name: string, field: string): unknown {
    const ch = this.get<Record<string, unknown>>('channels', name);
    if (!ch) return undefined;
    return ch[field] ?? (ch.accounts as Record<string, Record<string, unknown>> | undefined)?.default?.[field];
  }

  private list(v: unknown): string | null {
    return Array.isArray(v) && v.length ? v.map((x) => String(x).trim()).filter(Boolean).join(',') : null;
  }

  messaging(): void {
    const adds: Record<string, string> = {};
    const tg = join(this.src, 'credentials', 'telegram-default-allowFrom.json');
    if (existsSync(tg)) {
      try {
        const users = this.list((JSON.parse(readFileSync(tg, 'utf8')) as { allowFrom?: unknown }).allowFrom);
        if (users) adds.TELEGRAM_ALLOWED_USERS = users;
      } catch {
        this.record('messaging-settings', tg, null, 'error', 'Invalid JSON in the Telegram allowlist file');
      }
    }
    for (const [ch, env] of [['discord', 'DISCORD_ALLOWED_USERS'], ['slack', 'SLACK_ALLOWED_USERS'], ['whatsapp', 'WHATSAPP_ALLOWED_USERS'], ['signal', 'SIGNAL_ALLOWED_USERS']] as const) {
      const users = this.list(this.channel(ch, 'allowFrom'));
      if (users) adds[env] = users;
    }
    if (Object.keys(adds).length) this.mergeEnv('messaging-settings', adds, false);
    else this.record('messaging-settings', null, null, 'skipped', 'No allowlists found');
  }

  secrets(): void {
    if (!this.o.migrateSecrets) {
      this.record('provider-keys', join(this.src, 'openclaw.json'), null, 'skipped', 'Secret migration is off. Re-run with --migrate-secrets to import bot tokens and API keys.');
      return;
    }
    const adds: Record<string, string> = {};
    const tokens: [string, string, string][] = [
      ['telegram', 'botToken', 'TELEGRAM_BOT_TOKEN'],
      ['discord', 'token', 'DISCORD_BOT_TOKEN'],
      ['slack', 'botToken', 'SLACK_BOT_TOKEN'],
      ['slack', 'appToken', 'SLACK_APP_TOKEN'],
    ];
    for (const [ch, f, env] of tokens) {
      const v = this.secret(this.channel(ch, f));
      if (v) adds[env] = v;
    }
    const providers = this.get<Record<string, Record<string, unknown>>>('models', 'providers') ?? {};
    for (const [name, p] of Object.entries(providers)) {
      const key = this.secret(p?.apiKey);
      if (!key) continue;
      const url = String(p.baseUrl ?? '').toLowerCase();
      const env = url.includes('openrouter') || name.toLowerCase() === 'openrouter' ? 'OPENROUTER_API_KEY' : url.includes('anthropic') || p.api === 'anthropic-messages' ? 'ANTHROPIC_API_KEY' : url.includes('openai.com') || name.toLowerCase().includes('openai') ? 'OPENAI_API_KEY' : null;
      if (env) adds[env] ??= key;
    }
    for (const k of ['OPENROUTER_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'ELEVENLABS_API_KEY', 'TELEGRAM_BOT_TOKEN', 'DEEPSEEK_API_KEY', 'GEMINI_API_KEY', 'ZAI_API_KEY', 'MINIMAX_API_KEY']) {
      const v = this.ocEnv.get(k)?.trim() || (this.get<Record<string, unknown>>('env')?.[k] as string | undefined)?.trim();
      if (v && !adds[k]) adds[k] = v;
    }
    if (Object.keys(adds).length) this.mergeEnv('provider-keys', adds, true);
    else this.record('provider-keys', null, null, 'skipped', 'No tokens or provider API keys found');
  }

  /** Reads config.yaml; `edit` returns the keys to set (or null); they are written keeping comments. */
  private editConfig(kind: string, edit: (cfg: Record<string, unknown>, set: (key: string, value: unknown) => void) => string | null): void {
    const path = join(this.home, 'config.yaml');
    const cfg = existsSync(path) ? ((parseYaml(readFileSync(path, 'utf8')) as Record<string, unknown>) ?? {}) : {};
    const sets: [string, unknown][] = [];
    const reason = edit(cfg, (k, v) => sets.push([k, v]));
    if (reason === null) return;
    if (this.execute) {
      this.backupItem(path);
      for (const [k, v] of sets) setConfigKey(this.home, k, v);
    }
    this.record(kind, join(this.src, 'openclaw.json'), path, 'migrated', this.execute ? reason : `Would ${reason}`);
  }

  model(): void {
    const raw = this.get<unknown>('agents', 'defaults', 'model');
    let model = typeof raw === 'object' && raw ? String((raw as { primary?: string }).primary ?? '') : typeof raw === 'string' ? raw : '';
    if (!model.trim()) return this.record('model-config', null, null, 'skipped', 'No default model in openclaw.json');
    const catalog = this.get<Record<string, unknown>>('agents', 'defaults', 'models') ?? {};
    for (const [id, e] of Object.entries(catalog)) if ((e as { alias?: string })?.alias === model || e === model) model = id;
    this.editConfig('model-config', (cfg, set) => {
      const cur = cfg.model;
      const curName = typeof cur === 'string' ? cur : (cur as { default?: string } | undefined)?.default;
      if (curName === model) {
        this.record('model-config', null, null, 'skipped', 'Model already set to the same value');
        return null;
      }
      if (curName && !this.o.overwrite) {
        this.record('model-config', null, null, 'conflict', `Model already set (${curName}) and overwrite is disabled`);
        return null;
      }
      set('model.default', model);
      return `set model.default to ${model}`;
    });
  }

  mcp(): void {
    const servers = this.get<Record<string, Record<string, unknown>>>('mcp', 'servers');
    if (!servers || !Object.keys(servers).length) return this.record('mcp-servers', null, null, 'skipped', 'No MCP servers in openclaw.json');
    this.editConfig('mcp-servers', (cfg, set) => {
      const existing = (cfg.mcp_servers ?? {}) as Record<string, unknown>;
      const added: string[] = [];
      for (const [name, s] of Object.entries(servers)) {
        if (!s || typeof s !== 'object') continue;
        if (existing[name] && !this.o.overwrite) {
          this.record('mcp-servers', `mcp.servers.${name}`, `mcp_servers.${name}`, 'conflict', 'An MCP server with this name exists');
          continue;
        }
        const entry: Record<string, unknown> = {};
        if (s.command) {
          entry.command = s.command;
          if (Array.isArray(s.args)) entry.args = s.args;
          if (s.env && typeof s.env === 'object') entry.env = s.env;
          if (s.cwd) entry.cwd = s.cwd;
        } else if (s.url) {
          entry.url = s.url;
          if (s.headers && typeof s.headers === 'object') entry.headers = s.headers;
        } else continue;
        if (s.enabled === false || s.disabled === true) entry.enabled = false;
        set(`mcp_servers.${name.replace(/\./g, '\\.')}`, entry);
        added.push(name);
      }
      if (!added.length) return null;
      return `add MCP server(s): ${added.join(', ')}`;
    });
  }

  allowlist(): void {
    const path = join(this.src, 'exec-approvals.json');
    if (!existsSync(path)) return this.record('command-allowlist', null, null, 'skipped', 'No exec-approvals.json');
    let patterns: string[] = [];
    try {
      const agents = (JSON.parse(readFileSync(path, 'utf8')) as { agents?: Record<string, { allowlist?: { pattern?: string }[] }> }).agents ?? {};
      patterns = [...new Set(Object.values(agents).flatMap((a) => (a?.allowlist ?? []).map((e) => e?.pattern).filter((p): p is string => !!p)))].sort();
    } catch {
      return this.record('command-allowlist', path, null, 'error', 'Invalid JSON');
    }
    if (!patterns.length) return this.record('command-allowlist', path, null, 'skipped', 'No allowlist patterns');
    this.editConfig('command-allowlist', (cfg, set) => {
      const cur = Array.isArray(cfg.command_allowlist) ? (cfg.command_allowlist as string[]) : [];
      const added = patterns.filter((p) => !cur.includes(p));
      if (!added.length) {
        this.record('command-allowlist', path, null, 'skipped', 'All patterns already present');
        return null;
      }
      set('command_allowlist', [...new Set([...cur, ...patterns])].sort());
      return `add ${added.length} command_allowlist pattern(s)`;
    });
  }

  archive(): void {
    const docs = ['IDENTITY.md', 'TOOLS.md', 'HEARTBEAT.md', 'BOOTSTRAP.md'];
    let any = false;
    for (const d of docs) {
      const f = this.workspaceFile(d);
      if (!f) continue;
      any = true;
      const dest = join(this.outDir, 'archive', basename(f));
      if (this.execute) {
        mkdirSync(join(dest, '..'), { recursive: true });
        cpSync(f, dest);
      }
      this.record('archive', f, dest, 'archived', 'No Hermes equivalent: kept for you to review');
    }
    if (!any) this.record('archive', null, null, 'skipped', 'No unmapped docs');
  }

  run(): Item[] {
    const presetFull = (this.o.preset ?? 'full') === 'full';
    const cfg = loadContext().loaded.config;
    this.copyFile('soul', this.workspaceFile('SOUL.md'), join(this.home, 'SOUL.md'), rebrand);
    if (this.o.workspaceTarget) this.copyFile('workspace-agents', this.workspaceFile('AGENTS.md'), join(resolve(expandHome(this.o.workspaceTarget)), 'AGENTS.md'), rebrand);
    else this.record('workspace-agents', this.workspaceFile('AGENTS.md'), null, 'skipped', 'No --workspace-target given');
    const memDir = this.workspaceFile('memory');
    const daily = memDir && statSync(memDir).isDirectory() ? readdirSync(memDir).filter((f) => /^\d{4}-\d{2}-\d{2}.*\.md$/.test(f)).sort().map((f) => join(memDir, f)) : [];
    this.mergeMemory('memory', [this.workspaceFile('MEMORY.md'), ...daily].filter((x): x is string => !!x), join(this.home, 'memories', 'MEMORY.md'), cfg.memory.memory_char_limit ?? 2200);
    this.mergeMemory('user-profile', [this.workspaceFile('USER.md')].filter((x): x is string => !!x), join(this.home, 'memories', 'USER.md'), cfg.memory.user_char_limit ?? 1375);
    this.copySkills('skills', this.workspaceFile('skills'));
    this.copySkills('shared-skills', join(this.src, 'skills'));
    this.messaging();
    this.secrets();
    this.model();
    this.allowlist();
    this.mcp();
    if (presetFull || this.o.preset === 'user-data') this.archive();
    return this.items;
  }
}

function findSource(explicit?: string): string {
  if (explicit) return resolve(expandHome(explicit));
  for (const n of DIR_NAMES) if (existsSync(join(homedir(), n))) return join(homedir(), n);
  return join(homedir(), '.openclaw');
}

function summarize(items: Item[]): Record<Status, number> {
  const s: Record<Status, number> = { migrated: 0, archived: 0, skipped: 0, conflict: 0, error: 0 };
  for (const i of items) s[i.status]++;
  return s;
}

function show(items: Item[], verb: string): void {
  for (const i of items) {
    if (i.status === 'skipped' && /not found|No .* found|^No |not given/i.test(i.reason)) continue;
    const mark = { migrated: '✓', archived: '▣', skipped: '·', conflict: '!', error: '✗' }[i.status];
    const what = i.destination ?? i.source ?? '';
    out(`  ${mark} ${i.kind.padEnd(18)} ${i.status === 'migrated' ? verb : i.status}${what ? ` → ${what}` : ''}${i.reason && i.status !== 'migrated' ? ` (${i.reason})` : i.reason && i.status === 'migrated' && !/^Would/.test(i.reason) ? ` (${i.reason})` : ''}`);
  }
}

export async function migrate(o: MigrateOptions): Promise<void> {
  const src = findSource(o.source);
  if (!existsSync(src) || !statSync(src).isDirectory()) throw new CliError(`OpenClaw directory not found: ${src}. Point at it with --source <path>.`);
  if (o.preset && !['user-data', 'full'].includes(o.preset)) throw new CliError(`--preset is user-data or full, not "${o.preset}".`, 2);
  if (o.skillConflict && !['skip', 'overwrite', 'rename'].includes(o.skillConflict)) throw new CliError(`--skill-conflict is skip, overwrite or rename, not "${o.skillConflict}".`, 2);
  const home = hermesHome();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  out('⚕ Hermes — OpenClaw migration');
  out(`Source:    ${src}`);
  out(`Target:    ${home}`);
  out(`Preset:    ${o.preset ?? 'full'} · overwrite ${o.overwrite ? 'yes' : 'no (conflicts are reported)'} · secrets ${o.migrateSecrets ? 'yes' : 'no'}`);
  const preview = new Migrator(src, home, o, false, stamp).run();
  const ps = summarize(preview);
  out('\nPreview:');
  show(preview, 'would migrate');
  out(`\n${ps.migrated} to migrate, ${ps.archived} to archive, ${ps.conflict} conflict(s), ${ps.error} error(s).`);
  if (o.dryRun) return;
  if (!ps.migrated && !ps.archived) {
    out('Nothing to migrate.');
    return;
  }
  if (!o.yes) {
    if (!process.stdin.isTTY) throw new CliError('Applying the migration needs --yes when there is no terminal to ask (this was a preview; nothing changed).', 2);
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const a = (await rl.question('Apply the migration? [y/N] ')).trim().toLowerCase();
    rl.close();
    if (a !== 'y' && a !== 'yes') throw new CliError('Cancelled; nothing was changed.', 1);
  }
  if (o.backup !== false) {
    const { backup } = await import('./backup-cmd.ts');
    const dir = join(home, 'backups');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `pre-migration-${stamp}.zip`);
    await backup({ output: file, keep: '0' });
  }
  const m = new Migrator(src, home, o, true, stamp);
  const items = m.run();
  const s = summarize(items);
  mkdirSync(m.outDir, { recursive: true });
  writeFileSync(
    join(m.outDir, 'report.json'),
    `${JSON.stringify({ timestamp: stamp, mode: 'execute', source_root: src, target_root: home, preset: o.preset ?? 'full', migrate_secrets: !!o.migrateSecrets, summary: s, items: items.map((i) => ({ ...i, details: i.details?.sensitive ? { ...i.details, keys: i.details.keys } : i.details })) }, null, 2)}\n`,
  );
  out('\nApplied:');
  show(items, 'migrated');
  out(`\n${s.migrated} migrated, ${s.archived} archived, ${s.conflict} conflict(s), ${s.error} error(s). Report: ${join(m.outDir, 'report.json')}`);
  if (s.conflict) out('Re-run with --overwrite to replace conflicting targets (each is backed up first).');
  if (!o.migrateSecrets) out('Tokens and API keys were not copied; re-run with --migrate-secrets to import them.');
  out('Next: stop OpenClaw’s gateway if it still runs (one connection per bot token), then `hermes gateway run`. `hermes claw cleanup` archives the old folder.');
  if (s.error) process.exitCode = 1;
}

export async function cleanup(o: { source?: string; dryRun?: boolean; yes?: boolean }): Promise<void> {
  const dirs = o.source ? [resolve(expandHome(o.source))] : DIR_NAMES.map((n) => join(homedir(), n)).filter((d) => existsSync(d));
  const found = dirs.filter((d) => existsSync(d) && statSync(d).isDirectory());
  if (!found.length) {
    out('No OpenClaw directories found.');
    return;
  }
  for (const d of found) {
    let target = `${d}.pre-migration`;
    for (let i = 2; existsSync(target); i++) target = `${d}.pre-migration-${i}`;
    if (o.dryRun) {
      out(`Would rename ${d} → ${target}`);
      continue;
    }
    if (!o.yes) {
      if (!process.stdin.isTTY) throw new CliError(`Renaming ${d} needs --yes when there is no terminal to ask (nothing was changed).`, 2);
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const a = (await rl.question(`Rename ${d} → ${target}? [y/N] `)).trim().toLowerCase();
      rl.close();
      if (a !== 'y' && a !== 'yes') continue;
    }
    renameSync(d, target);
    out(`Archived ${d} → ${target}`);
  }
}
