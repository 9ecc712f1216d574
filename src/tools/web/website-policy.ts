// Loads `security.website_blocklist` for a session: the rules in config.yaml plus those in its
// `shared_files` (one rule a line, `#` comments; relative paths are under HERMES_HOME). Shared
// files are re-read at most every 30 s, so edits take effect without a restart. A bad file is
// skipped with a warning (it must not disable the web tools).
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { checkWebsite, normalizeRule, type WebsiteBlock, type WebsitePolicy, type WebsiteRule } from '../../policy/website.ts';
import type { ToolSession } from '../types.ts';

const TTL_MS = 30_000;
const fileCache = new Map<string, { at: number; mtimeMs: number; rules: string[] }>();

function fileRules(path: string): string[] {
  const hit = fileCache.get(path);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.rules;
  let rules: string[] = [];
  let mtimeMs = -1;
  try {
    mtimeMs = statSync(path).mtimeMs;
    rules = hit && hit.mtimeMs === mtimeMs ? hit.rules : readFileSync(path, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).map(normalizeRule).filter((r): r is string => !!r);
  } catch (e) {
    if (!hit) process.emitWarning(`website_blocklist: skipping shared file ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  fileCache.set(path, { at: Date.now(), mtimeMs, rules });
  return rules;
}

export function websitePolicy(s: ToolSession): WebsitePolicy {
  const cfg = (s.config.security as { website_blocklist?: { enabled?: unknown; domains?: unknown; shared_files?: unknown } } | undefined)?.website_blocklist;
  if (!cfg || cfg.enabled !== true) return { enabled: false, rules: [] };
  const rules: WebsiteRule[] = [];
  const seen = new Set<string>();
  const push = (pattern: string, source: string) => {
    if (seen.has(`${pattern}\0${source}`)) return;
    seen.add(`${pattern}\0${source}`);
    rules.push({ pattern, source });
  };
  for (const d of Array.isArray(cfg.domains) ? cfg.domains : []) {
    const r = normalizeRule(d);
    if (r) push(r, 'config');
  }
  for (const f of Array.isArray(cfg.shared_files) ? cfg.shared_files : []) {
    if (typeof f !== 'string' || !f.trim()) continue;
    const raw = f.trim().replace(/^~(?=\/|$)/, s.env.HOME || homedir());
    const path = isAbsolute(raw) ? raw : join(s.home, raw);
    for (const r of fileRules(path)) push(r, path);
  }
  return { enabled: true, rules };
}

/** The block for `url` under this session's policy, or null. */
export function websiteBlocked(s: ToolSession, url: string): WebsiteBlock | null {
  return checkWebsite(url, websitePolicy(s));
}
