// `hermes tools`: which toolsets each platform gets, kept where Hermes keeps it
// (config.yaml `platform_toolsets.<platform>`: the enabled toolset names, sorted; MCP server names
// and other entries the picker does not show are preserved). `hermes tools` on a terminal opens a
// picker; `list`, `enable`, `disable` and `--summary` work in scripts.
import { setConfigKey } from '../state/config.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { HERMES_CORE_TOOLSETS, OPT_IN_TOOLSETS, PLATFORM_TOOLSETS } from '../tools/toolsets.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

export const TOOLSET_LABELS: Record<string, string> = {
  terminal: '💻 Terminal & processes',
  file: '📁 File read/write/patch/search',
  web: '🌐 Web search & extraction',
  browser: '🧭 Browser automation',
  vision: '👁 Vision (image analysis)',
  image_gen: '🎨 Image generation',
  tts: '🔊 Text to speech',
  skills: '📚 Skills',
  memory: '🧠 Memory',
  todo: '📋 Task planning',
  session_search: '🔎 Session search',
  clarify: '❓ Clarifying questions',
  code_execution: '🐍 Code execution',
  delegation: '👥 Subagents (delegate_task)',
  cronjob: '⏰ Scheduled tasks',
  messaging: '💬 Cross-platform messaging',
  homeassistant: '🏠 Home Assistant',
  kanban: '🗂 Kanban board (opt-in)',
};

export const CONFIGURABLE = [...HERMES_CORE_TOOLSETS, ...OPT_IN_TOOLSETS];
export const PLATFORMS = ['cli', 'telegram', 'discord', 'slack', 'email', 'webhook', 'api_server', 'cron', 'acp'];

function defaultToolset(platform: string): string {
  const key = `hermes-${platform.replace(/_/g, '-')}`;
  return PLATFORM_TOOLSETS[key] ? key : 'hermes-gateway';
}

function expand(name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  if (CONFIGURABLE.includes(name)) return [name];
  const group = PLATFORM_TOOLSETS[name];
  return group ? group.flatMap((g) => expand(g, seen)) : [];
}

/** The configurable toolsets a platform has on now (config.yaml, else its default). */
export function enabledToolsets(config: HermesConfig, platform: string): Set<string> {
  const pt: Record<string, unknown> = config.platform_toolsets ?? {};
  const raw = Array.isArray(pt[platform]) ? (pt[platform] as unknown[]).map(String) : platform === 'cli' && config.toolsets?.length ? config.toolsets : [defaultToolset(platform)];
  const on = new Set(raw.flatMap((n) => (n === 'all' || n === '*' ? HERMES_CORE_TOOLSETS : expand(n))));
  for (const d of config.agent.disabled_toolsets ?? []) on.delete(d);
  return on;
}

/** Writes the platform's toolsets: the chosen configurable ones, plus entries the picker does not manage. */
export function saveToolsets(home: string, config: HermesConfig, platform: string, enabled: Set<string>): string[] {
  const pt: Record<string, unknown> = config.platform_toolsets ?? {};
  const existing = Array.isArray(pt[platform]) ? (pt[platform] as unknown[]).map(String) : [];
  const keep = existing.filter((e) => !CONFIGURABLE.includes(e) && !PLATFORM_TOOLSETS[e] && e !== 'no_mcp');
  const list = [...[...enabled].filter((t) => CONFIGURABLE.includes(t)).sort(), ...keep];
  setConfigKey(home, `platform_toolsets.${platform}`, list);
  return list;
}

function checkPlatform(p: string): string {
  const n = p.trim().toLowerCase();
  if (!/^[a-z][a-z0-9_-]*$/.test(n)) throw new CliError(`"${p}" is not a platform name. Platforms: ${PLATFORMS.join(', ')}.`, 2);
  return n;
}

export function summary(): void {
  const ctx = loadContext();
  const pt = ctx.loaded.config.platform_toolsets ?? {};
  const platforms = [...new Set([...PLATFORMS, ...Object.keys(pt)])];
  for (const p of platforms) {
    const on = [...enabledToolsets(ctx.loaded.config, p)].sort();
    out(`${p.padEnd(11)} ${String(on.length).padStart(2)} toolsets${Array.isArray(pt[p]) ? '' : ' (default)'}: ${on.join(', ') || 'none'}`);
  }
}

export function list(opts: { platform?: string }): void {
  const ctx = loadContext();
  const platform = checkPlatform(opts.platform ?? 'cli');
  const on = enabledToolsets(ctx.loaded.config, platform);
  out(`Toolsets for ${platform}:`);
  for (const t of CONFIGURABLE) out(`  ${on.has(t) ? '●' : '○'} ${t.padEnd(16)} ${TOOLSET_LABELS[t] ?? ''}`);
  const mcp = Object.keys(ctx.loaded.config.mcp_servers ?? {});
  if (mcp.length) out(`  MCP servers (on unless the list says no_mcp): ${mcp.join(', ')}`);
  out('● enabled  ○ disabled · change with: hermes tools enable|disable <toolset…> [--platform <name>]');
}

function change(names: string[], opts: { platform?: string }, on: boolean): void {
  const ctx = loadContext();
  const platform = checkPlatform(opts.platform ?? 'cli');
  const unknown = names.filter((n) => !CONFIGURABLE.includes(n));
  if (unknown.length) throw new CliError(`Unknown toolset(s): ${unknown.join(', ')}. Toolsets: ${CONFIGURABLE.join(', ')}.`, 2);
  const set = enabledToolsets(ctx.loaded.config, platform);
  for (const n of names) {
    if (on) set.add(n);
    else set.delete(n);
  }
  const saved = saveToolsets(ctx.home, ctx.loaded.config, platform, set);
  out(`${on ? 'Enabled' : 'Disabled'} ${names.join(', ')} for ${platform}. platform_toolsets.${platform}: ${saved.join(', ') || '(none)'}`);
  const disabled = (ctx.loaded.config.agent.disabled_toolsets ?? []).filter((d) => names.includes(d));
  if (on && disabled.length) out(`Note: agent.disabled_toolsets still turns off ${disabled.join(', ')} everywhere (hermes config set agent.disabled_toolsets …).`);
}

export const enable = (names: string[], opts: { platform?: string }) => change(names, opts, true);
export const disable = (names: string[], opts: { platform?: string }) => change(names, opts, false);

/** `hermes tools`: a picker on a terminal, the summary elsewhere. */
export async function tools(opts: { summary?: boolean }): Promise<void> {
  if (opts.summary || !process.stdin.isTTY || !process.stdout.isTTY) {
    summary();
    if (!opts.summary) out('\n(Run `hermes tools` in a terminal for the picker, or use: hermes tools list|enable|disable.)');
    return;
  }
  const ctx = loadContext();
  const p = await import('@clack/prompts');
  p.intro('Tools per platform');
  const platform = await p.select({ message: 'Which platform?', options: PLATFORMS.map((x) => ({ value: x, label: x, hint: `${enabledToolsets(ctx.loaded.config, x).size} on` })) });
  if (p.isCancel(platform)) return p.cancel('Nothing changed.');
  const current = enabledToolsets(ctx.loaded.config, platform);
  const chosen = await p.multiselect({
    message: `Toolsets for ${platform} (space toggles, enter saves)`,
    options: CONFIGURABLE.map((t) => ({ value: t, label: TOOLSET_LABELS[t] ?? t, hint: t })),
    initialValues: [...current],
    required: false,
  });
  if (p.isCancel(chosen)) return p.cancel('Nothing changed.');
  const saved = saveToolsets(ctx.home, ctx.loaded.config, platform, new Set(chosen));
  p.outro(`Saved platform_toolsets.${platform}: ${saved.join(', ') || '(none)'} — new sessions use it.`);
}
