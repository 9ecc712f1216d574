// What `hermes dump` and `hermes debug share` (and /debug) report: a plain-text summary of the setup
// in Python Hermes's dump format, and a debug bundle (the dump plus the tail of each log), secrets
// redacted. Values of keys are never printed; `--show-keys` shows only their first and last 4
// characters.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { arch, release, type as osType } from 'node:os';
import { basename, dirname, join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { redactSecrets } from '../policy/redact.ts';
import { defaultConfig, type HermesConfig } from '../state/defaults.ts';
import { readEnvFile } from '../state/env.ts';
import { defaultHermesRoot, packageRoot, paths } from '../state/paths.ts';
import { countSkills } from '../state/skills.ts';

const API_KEYS: [string, string][] = [
  ['OPENROUTER_API_KEY', 'openrouter'],
  ['OPENAI_API_KEY', 'openai'],
  ['ANTHROPIC_API_KEY', 'anthropic'],
  ['ANTHROPIC_TOKEN', 'anthropic_token'],
  ['NOUS_API_KEY', 'nous'],
  ['GOOGLE_API_KEY', 'google/gemini'],
  ['GEMINI_API_KEY', 'gemini'],
  ['GLM_API_KEY', 'glm/zai'],
  ['ZAI_API_KEY', 'zai'],
  ['KIMI_API_KEY', 'kimi'],
  ['MINIMAX_API_KEY', 'minimax'],
  ['DEEPSEEK_API_KEY', 'deepseek'],
  ['DASHSCOPE_API_KEY', 'dashscope'],
  ['HF_TOKEN', 'huggingface'],
  ['NVIDIA_API_KEY', 'nvidia'],
  ['AI_GATEWAY_API_KEY', 'ai_gateway'],
  ['OPENCODE_ZEN_API_KEY', 'opencode_zen'],
  ['OPENCODE_GO_API_KEY', 'opencode_go'],
  ['KILOCODE_API_KEY', 'kilocode'],
  ['FIRECRAWL_API_KEY', 'firecrawl'],
  ['TAVILY_API_KEY', 'tavily'],
  ['PERPLEXITY_API_KEY', 'perplexity'],
  ['BROWSERBASE_API_KEY', 'browserbase'],
  ['FAL_KEY', 'fal'],
  ['ELEVENLABS_API_KEY', 'elevenlabs'],
  ['GITHUB_TOKEN', 'github'],
];

const PLATFORM_ENV: [string, string][] = [
  ['telegram', 'TELEGRAM_BOT_TOKEN'],
  ['discord', 'DISCORD_BOT_TOKEN'],
  ['slack', 'SLACK_BOT_TOKEN'],
  ['whatsapp', 'WHATSAPP_ENABLED'],
  ['signal', 'SIGNAL_HTTP_URL'],
  ['email', 'EMAIL_ADDRESS'],
  ['sms', 'TWILIO_ACCOUNT_SID'],
  ['matrix', 'MATRIX_HOMESERVER_URL'],
  ['mattermost', 'MATTERMOST_URL'],
  ['homeassistant', 'HASS_TOKEN'],
];

const INTERESTING: [string, string][] = [
  ['agent', 'max_turns'],
  ['agent', 'gateway_timeout'],
  ['agent', 'tool_use_enforcement'],
  ['terminal', 'backend'],
  ['terminal', 'docker_image'],
  ['terminal', 'persistent_shell'],
  ['compression', 'enabled'],
  ['compression', 'threshold'],
  ['display', 'streaming'],
  ['display', 'skin'],
  ['display', 'show_reasoning'],
  ['approvals', 'mode'],
  ['checkpoints', 'enabled'],
];

/** First and last four characters of a secret (what `--show-keys` shows). */
export function peekSecret(v: string): string {
  return v.length >= 12 ? `${v.slice(0, 4)}...${v.slice(-4)}` : '***';
}

function git(root: string, args: string[]): string {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', timeout: 5000 });
  return r.status === 0 ? (r.stdout ?? '').trim() : '';
}

export function versionLine(): string {
  let root = '';
  try {
    root = packageRoot();
  } catch {
    /* unknown layout */
  }
  const commit = root && existsSync(join(root, '.git')) ? git(root, ['rev-parse', '--short=8', 'HEAD']) : '';
  const date = commit ? git(root, ['log', '-1', '--format=%cd', '--date=short', 'HEAD']) : '';
  return `${pkg.version} [${commit || 'npm'}]${date ? ` (${date})` : ''}`;
}

function displayHome(home: string): string {
  const h = process.env.HOME;
  return h && (home === join(h, '.hermes') || home.startsWith(`${h}/`)) ? `~${home.slice(h.length)}` : home;
}

function profileName(home: string, env: NodeJS.ProcessEnv): string {
  return basename(dirname(home)) === 'profiles' && dirname(dirname(home)) === defaultHermesRoot(env) ? basename(home) : 'default';
}

function pooledProviders(home: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    const data = JSON.parse(readFileSync(paths.auth(home), 'utf8')) as { credential_pool?: Record<string, unknown> };
    for (const [provider, entries] of Object.entries(data.credential_pool ?? {})) {
      if (!Array.isArray(entries)) continue;
      const kinds = new Set(
        entries
          .filter((e) => e && typeof e === 'object' && typeof (e as { access_token?: unknown }).access_token === 'string' && String((e as { access_token: string }).access_token).trim())
          .map((e) => (String((e as { auth_type?: string }).auth_type ?? '').startsWith('oauth') ? 'oauth' : 'auth pool')),
      );
      if (kinds.size) out.set(provider, `set (${[...kinds].sort().join(', ')})`);
    }
  } catch {
    /* no auth.json */
  }
  return out;
}

function cronSummary(home: string): string {
  const f = join(home, 'cron', 'jobs.json');
  if (!existsSync(f)) return '0';
  try {
    const jobs = (JSON.parse(readFileSync(f, 'utf8')) as { jobs?: { enabled?: boolean }[] }).jobs ?? [];
    return `${jobs.filter((j) => j.enabled !== false).length} active / ${jobs.length} total`;
  } catch {
    return '(error reading)';
  }
}

function gatewayLine(home: string): string {
  const p = join(home, 'gateway.pid');
  if (!existsSync(p)) return 'stopped';
  try {
    const raw = readFileSync(p, 'utf8').trim();
    const pid = raw.startsWith('{') ? Number((JSON.parse(raw) as { pid?: number }).pid) : Number(raw);
    process.kill(pid, 0);
    return `running (pid ${pid})`;
  } catch {
    return 'stopped';
  }
}

function maskDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskDeep);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, /key|token|secret|password/i.test(k) && x ? '***' : maskDeep(x)]));
  return v;
}

/** The `hermes dump` text. */
export function buildDump(o: { home: string; config: HermesConfig; env: NodeJS.ProcessEnv; showKeys?: boolean }): string {
  const { home, config, env } = o;
  const dotenv = readEnvFile(paths.env(home));
  const pooled = pooledProviders(home);
  const keyLines = API_KEYS.map(([name, label]) => {
    const v = env[name] ?? '';
    let shown = v ? (o.showKeys ? peekSecret(v) : 'set') : 'not set';
    if (!v && pooled.has(label)) shown = pooled.get(label)!;
    if (v && !dotenv.get(name)) shown += ' (shell only — not in .env; the gateway service may not see it)';
    return `  ${label.padEnd(20)} ${shown}`;
  });
  for (const [p, label] of pooled) if (!API_KEYS.some(([, l]) => l === p)) keyLines.push(`  ${`pool:${p}`.padEnd(20)} ${label}`);
  const defaults = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
  const cfg = config as unknown as Record<string, Record<string, unknown>>;
  const overrides: string[] = [];
  for (const [section, key] of INTERESTING) {
    const v = cfg[section]?.[key];
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(defaults[section]?.[key])) overrides.push(`  ${section}.${key}: ${String(v)}`);
  }
  if (JSON.stringify(config.toolsets) !== JSON.stringify(defaultConfig().toolsets)) overrides.push(`  toolsets: ${JSON.stringify(config.toolsets)}`);
  if (config.fallback_providers?.length) overrides.push(`  fallback_providers: ${redactSecrets(JSON.stringify(maskDeep(config.fallback_providers)))}`);
  const platforms = PLATFORM_ENV.filter(([, v]) => env[v]).map(([p]) => p);
  const terminalEnv = (env.TERMINAL_ENV ?? '').trim().toLowerCase();
  const backend = terminalEnv && terminalEnv !== config.terminal.backend ? `${terminalEnv}  (TERMINAL_ENV overrides config.yaml terminal.backend=${config.terminal.backend})` : config.terminal.backend;
  const lines = [
    '--- hermes dump ---',
    `version:          ${versionLine()}`,
    `os:               ${osType()} ${release()} ${arch()}`,
    `node:             ${process.versions.node}`,
    `openai_sdk:       ${(pkg.dependencies as Record<string, string>).openai ?? 'not installed'}`,
    `profile:          ${profileName(home, env)}`,
    `hermes_home:      ${displayHome(home)}`,
    `model:            ${config.model.default || '(not set)'}`,
    `provider:         ${config.model.provider && config.model.provider !== 'auto' ? config.model.provider : '(auto)'}`,
    `terminal:         ${backend}`,
    '',
    'api_keys:',
    ...keyLines,
    '',
    'features:',
    `  toolsets:           ${(config.toolsets ?? []).join(', ') || '(default)'}`,
    `  mcp_servers:        ${Object.keys(config.mcp_servers ?? {}).length}`,
    `  memory_provider:    ${config.memory?.provider || 'built-in'}`,
    `  gateway:            ${gatewayLine(home)}`,
    `  platforms:          ${platforms.length ? platforms.join(', ') : 'none'}`,
    `  cron_jobs:          ${cronSummary(home)}`,
    `  skills:             ${countSkills([paths.skills(home)])}`,
  ];
  if (overrides.length) lines.push('', 'config_overrides:', ...overrides);
  lines.push('--- end dump ---');
  return lines.join('\n');
}

/** The last `n` lines of a file (reads at most the last 2 MB). */
export function tailLines(file: string, n: number): string[] {
  try {
    const size = statSync(file).size;
    const buf = readFileSync(file);
    const text = buf.subarray(Math.max(0, size - 2 * 1024 * 1024)).toString('utf8');
    return text.split('\n').filter((l, i, a) => i < a.length - 1 || l).slice(-n);
  } catch {
    return [];
  }
}

/** The debug bundle: the dump, then the tail of every log in HERMES_HOME/logs, secrets redacted. */
export function buildDebugReport(o: { home: string; config: HermesConfig; env: NodeJS.ProcessEnv; lines?: number; redact?: boolean }): string {
  const n = Math.max(1, o.lines ?? 200);
  const parts = [`Hermes debug report — ${new Date().toISOString()}`, '', buildDump({ home: o.home, config: o.config, env: o.env })];
  const logs = paths.logs(o.home);
  const files = existsSync(logs)
    ? readdirSync(logs)
        .filter((f) => /\.log(\.\d+)?$/.test(f) && !/\.\d+$/.test(f))
        .sort()
    : [];
  for (const f of files) {
    const tail = tailLines(join(logs, f), n);
    parts.push('', `--- ${f} (last ${tail.length} line(s)) ---`, ...tail);
  }
  if (!files.length) parts.push('', `(no log files in ${logs})`);
  const text = parts.join('\n');
  return o.redact === false ? text : redactSecrets(text);
}

/** The last `maxBytes` of a file, starting at a whole line ('' when missing or empty). */
function tailBytes(file: string, maxBytes: number): string {
  try {
    const buf = readFileSync(file);
    if (buf.length <= maxBytes) return buf.toString('utf8');
    let start = buf.length - maxBytes;
    if (buf[start - 1] !== 0x0a) {
      const nl = buf.indexOf(0x0a, start);
      start = nl < 0 ? buf.length : nl + 1;
    }
    return `[... log truncated — showing last ${(maxBytes / 1024).toFixed(1)} KB ...]\n${buf.subarray(start).toString('utf8')}`;
  } catch {
    return '';
  }
}

const REDACTION_BANNER = '[secrets redacted before upload]\n';

/**
 * What `debug share --nous` uploads, as Hermes labels it: `report` (the debug report) and each full
 * log (agent, gateway, errors, up to 512 KB each) with the dump in front, secrets redacted.
 */
export function buildShareBundle(o: { home: string; config: HermesConfig; env: NodeJS.ProcessEnv; lines?: number; redact?: boolean }): Record<string, string> {
  const redact = o.redact !== false;
  const banner = redact ? REDACTION_BANNER : '';
  const clean = (s: string) => (redact ? redactSecrets(s) : s);
  const dump = buildDump({ home: o.home, config: o.config, env: o.env });
  const bundle: Record<string, string> = { report: banner + buildDebugReport(o) };
  for (const name of ['agent', 'gateway', 'errors']) {
    const full = tailBytes(join(paths.logs(o.home), `${name}.log`), 512 * 1024);
    if (full) bundle[`${name}.log`] = banner + clean(`${dump}\n\n--- full ${name}.log ---\n${full}`);
  }
  return bundle;
}
