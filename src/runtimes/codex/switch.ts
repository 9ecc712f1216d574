// `/codex-runtime [auto|codex_app_server|on|off]`: shows or sets model.openai_runtime (config.yaml and
// the running config), gated on a usable codex CLI, and migrates ~/.codex/config.toml on enable.
// Shared by every surface through the command registry; the session picks its runner per turn.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { setConfigKey } from '../../state/config.ts';
import type { HermesConfig } from '../../state/defaults.ts';
import { packageRoot } from '../../state/paths.ts';
import { CODEX_PROVIDERS, configuredRuntime } from '../select.ts';
import { codexHome, codexHomeProblem, codexStatus } from './binary.ts';
import { migrateCodexConfig, type HermesToolsEntry, type MigrationReport } from './migrate.ts';
import { codexSettings } from './runner.ts';

export type RuntimeValue = 'auto' | 'codex_app_server';

export function parseRuntimeArg(args: string): { value: RuntimeValue | null } | { error: string } {
  const a = args.trim().toLowerCase();
  if (!a) return { value: null };
  if (['auto', 'off', 'default', 'hermes', 'loop'].includes(a)) return { value: 'auto' };
  if (['codex_app_server', 'codex-app-server', 'on', 'codex', 'app-server'].includes(a)) return { value: 'codex_app_server' };
  return { error: `Unknown runtime "${args.trim()}". Usage: /codex-runtime [auto|codex_app_server|on|off]` };
}

/** How codex reaches Hermes's own tools: `hermes mcp serve --tools-only` with this HERMES_HOME. */
export function hermesToolsEntry(home: string, env: NodeJS.ProcessEnv): HermesToolsEntry {
  const e: Record<string, string> = { HERMES_HOME: home };
  if (env.HERMES_FROM_SOURCE) e.HERMES_FROM_SOURCE = env.HERMES_FROM_SOURCE;
  return { command: process.execPath, args: [join(packageRoot(), 'bin', 'hermes.mjs'), 'mcp', 'serve', '--tools-only'], env: e };
}

export function describeMigration(r: MigrationReport): string[] {
  const lines = [`Updated ${r.path}: ${r.migrated.length ? `MCP servers ${r.migrated.join(', ')}` : 'no MCP servers'}${r.permissions === 'written' ? ', default_permissions = ":workspace"' : r.permissions === 'user' ? ' (your default_permissions kept)' : ''}.`];
  for (const s of r.skipped) lines.push(`  not migrated: ${s.server}: ${s.reason}`);
  return lines;
}

export interface SwitchInput {
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  /** The provider the session uses now. */
  provider: string;
  args: string;
}

export interface SwitchResult {
  output: string;
  /** The setting changed (the surface may rebuild its session). */
  changed: boolean;
}

export function applyCodexRuntime(i: SwitchInput): SwitchResult {
  const parsed = parseRuntimeArg(i.args);
  if ('error' in parsed) return { output: parsed.error, changed: false };
  const settings = codexSettings(i.config);
  const current = configuredRuntime(i.config);
  const eligible = CODEX_PROVIDERS.includes(i.provider);
  const home = codexHome(settings.home, i.env);
  if (parsed.value === null) {
    const st = codexStatus(settings.path, i.env);
    const lines = [
      `Runtime: ${current === 'codex_app_server' ? (eligible ? 'codex app-server (turns run inside codex)' : `codex_app_server is set, but provider ${i.provider} keeps the Hermes loop (codex serves openai and openai-codex only)`) : 'Hermes agent loop (auto)'}`,
      `Codex CLI: ${st.ok ? `${st.version} at ${st.path}` : st.problem}`,
      `CODEX_HOME: ${home}`,
      'Set with /codex-runtime codex_app_server (or on) and /codex-runtime auto (or off).',
    ];
    return { output: lines.join('\n'), changed: false };
  }
  if (parsed.value === current) return { output: `The runtime is already ${current === 'auto' ? 'auto (the Hermes agent loop)' : 'codex_app_server'}.`, changed: false };
  const lines: string[] = [];
  if (parsed.value === 'codex_app_server') {
    const st = codexStatus(settings.path, i.env, { fresh: true });
    if (!st.ok) return { output: `Cannot enable the codex app-server runtime: ${st.problem}`, changed: false };
    const tmpProblem = codexHomeProblem(home, tmpdir());
    if (tmpProblem) lines.push(`⚠ ${tmpProblem}`);
    try {
      lines.push(...describeMigration(migrateCodexConfig({ codexHome: home, mcpServers: i.config.mcp_servers, env: i.env, hermesTools: hermesToolsEntry(i.home, i.env) })));
    } catch (e) {
      lines.push(`⚠ ${join(home, 'config.toml')} was not updated (${(e as Error).message}); the runtime is enabled anyway, so check codex's MCP servers yourself.`);
    }
    lines.unshift(`Runtime: codex app-server (codex ${st.version}). From the next turn, codex runs the turns; Hermes keeps sessions, memory, skills and approvals.`);
    if (!eligible) lines.push(`Note: provider ${i.provider} keeps the Hermes loop; the codex runtime applies with provider openai or openai-codex.`);
  } else lines.push('Runtime: auto (the Hermes agent loop) from the next turn.');
  (i.config.model as { openai_runtime?: string }).openai_runtime = parsed.value;
  try {
    setConfigKey(i.home, 'model.openai_runtime', parsed.value);
  } catch (e) {
    lines.push(`⚠ Could not save it to config.yaml (${(e as Error).message}): this applies until Hermes restarts.`);
  }
  return { output: lines.join('\n'), changed: true };
}
