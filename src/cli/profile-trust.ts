// What an imported profile brings that changes what Hermes trusts: secrets and sign-ins (.env,
// auth.json), settings that let commands run unasked (approvals off, unattended approvals, a
// command allowlist, subagent auto-approve, hook auto-accept), things that run programs (config
// `hooks:`, hooks/, plugins/, enabled plugins, MCP servers, exec quick commands, cron jobs and
// scripts, pre-approved shell hooks) and a lowered guard (secret redaction off, private URLs
// allowed). `hermes profile import` lists them and applies them only after a yes (or --trust);
// otherwise each is left out (`drop`) and the rest is imported.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';

export interface TrustItem {
  /** What it is, as a person reads it (`.env`, `approvals.mode: off`, `hooks/`). */
  what: string;
  /** Why it matters, in a few words. */
  why: string;
}

const FILES: [string, string][] = [
  ['.env', 'secrets and environment (HERMES_YOLO_MODE, HERMES_ACCEPT_HOOKS…)'],
  ['auth.json', 'sign-ins and API keys'],
  ['.anthropic_oauth.json', 'a Claude sign-in'],
  ['shell-hooks-allowlist.json', 'shell hooks approved in advance'],
];
const DIRS: [string, string][] = [
  ['hooks', 'gateway hooks: code that runs on events'],
  ['plugins', 'plugins: code Hermes loads'],
  ['scripts', 'scripts cron jobs run'],
  ['cron', 'scheduled jobs'],
];

const nonEmptyDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory() && readdirSync(p).length > 0;
  } catch {
    return false;
  }
};

const truthy = (v: unknown) => v === true || ['1', 'true', 'yes', 'on'].includes(String(v ?? '').trim().toLowerCase());
const filled = (v: unknown) => (isSeq(v) || isMap(v) ? v.items.length > 0 : Array.isArray(v) ? v.length > 0 : !!v && typeof v === 'object' ? Object.keys(v).length > 0 : false);

/** The config.yaml settings that change trust: [path, shown as, why, is it set to a trusting value]. */
function configChecks(doc: Document): { path: string[]; what: string; why: string }[] {
  const found: { path: string[]; what: string; why: string }[] = [];
  const get = (path: string[]) => doc.getIn(path, true) as unknown;
  const val = (path: string[]) => {
    const v = doc.getIn(path);
    return v && typeof v === 'object' && 'toJSON' in v ? (v as { toJSON(): unknown }).toJSON() : v;
  };
  const mode = String(val(['approvals', 'mode']) ?? '').toLowerCase();
  if (mode === 'off' || mode === 'yolo') found.push({ path: ['approvals', 'mode'], what: `approvals.mode: ${mode}`, why: 'dangerous commands run without asking' });
  for (const k of ['cron_mode', 'single_query_mode', 'unattended_mode']) {
    const v = val(['approvals', k]);
    if (v !== undefined && v !== null && String(v).toLowerCase() !== 'deny') found.push({ path: ['approvals', k], what: `approvals.${k}: ${String(v)}`, why: 'dangerous commands run when nobody is there to ask' });
  }
  if (filled(get(['command_allowlist']))) found.push({ path: ['command_allowlist'], what: 'command_allowlist', why: 'dangerous commands allowed for good' });
  if (truthy(val(['terminal', 'subagent_auto_approve']))) found.push({ path: ['terminal', 'subagent_auto_approve'], what: 'terminal.subagent_auto_approve: true', why: 'subagents run dangerous commands unasked' });
  if (filled(get(['hooks']))) found.push({ path: ['hooks'], what: 'hooks: (shell hooks)', why: 'commands that run on events' });
  if (truthy(val(['hooks_auto_accept']))) found.push({ path: ['hooks_auto_accept'], what: 'hooks_auto_accept: true', why: 'shell hooks run without consent' });
  if (filled(get(['plugins', 'enabled']))) found.push({ path: ['plugins', 'enabled'], what: 'plugins.enabled', why: 'plugins switched on' });
  if (filled(get(['mcp_servers']))) found.push({ path: ['mcp_servers'], what: 'mcp_servers', why: 'programs started as MCP servers' });
  const qc = val(['quick_commands']);
  if (qc && typeof qc === 'object' && Object.values(qc as Record<string, { type?: string }>).some((c) => c?.type === 'exec')) found.push({ path: ['quick_commands'], what: 'quick_commands (exec)', why: 'shell commands run from chat' });
  const redact = val(['security', 'redact_secrets']);
  if (redact !== undefined && !truthy(redact) && String(redact).toLowerCase() !== '') found.push({ path: ['security', 'redact_secrets'], what: `security.redact_secrets: ${String(redact)}`, why: 'secrets shown unmasked' });
  if (truthy(val(['security', 'allow_private_urls']))) found.push({ path: ['security', 'allow_private_urls'], what: 'security.allow_private_urls: true', why: 'web tools may reach the local network' });
  return found;
}

function configDoc(dir: string): Document | null {
  const file = join(dir, 'config.yaml');
  if (!existsSync(file)) return null;
  try {
    const doc = parseDocument(readFileSync(file, 'utf8'), { uniqueKeys: false });
    return doc.errors.length ? null : doc;
  } catch {
    return null;
  }
}

/** Everything in the profile folder `dir` that changes trust. */
export function trustItems(dir: string): TrustItem[] {
  const items: TrustItem[] = [];
  for (const [f, why] of FILES) if (existsSync(join(dir, f))) items.push({ what: f, why });
  for (const [d, why] of DIRS) if (nonEmptyDir(join(dir, d))) items.push({ what: `${d}/`, why });
  const doc = configDoc(dir);
  if (doc) for (const c of configChecks(doc)) items.push({ what: c.what, why: c.why });
  else if (existsSync(join(dir, 'config.yaml'))) items.push({ what: 'config.yaml (unreadable)', why: 'its settings cannot be checked' });
  return items;
}

/**
 * Leaves every trust item out of the profile folder `dir`: the files and folders go (folders
 * Hermes expects come back empty), the settings are removed from config.yaml (their safe defaults
 * apply). An unreadable config.yaml goes too.
 */
export function dropTrust(dir: string): void {
  for (const [f] of FILES) rmSync(join(dir, f), { force: true });
  for (const [d] of DIRS) {
    if (!nonEmptyDir(join(dir, d))) continue;
    rmSync(join(dir, d), { recursive: true, force: true });
  }
  const file = join(dir, 'config.yaml');
  const doc = configDoc(dir);
  if (!doc) {
    rmSync(file, { force: true });
    return;
  }
  const checks = configChecks(doc);
  if (!checks.length) return;
  for (const c of checks) doc.deleteIn(c.path);
  writeFileSync(file, doc.toString(), { mode: 0o600 });
}
