// `/codex-runtime [auto|codex_app_server|on|off]`: shows or sets model.openai_runtime (config.yaml and
// the running config), gated on a usable codex CLI, and writes Hermes's block into
// ~/.codex/config.toml on enable (so a plain `codex` sees Hermes's MCP servers too; the runtime itself
// passes everything per thread, see derive.ts). `on` when it is already on refreshes that block.
// Shared by every surface through the command registry; the session picks its runner per turn.
import { join } from 'node:path';
import { setConfigKey } from '../../state/config.ts';
import type { HermesConfig } from '../../state/defaults.ts';
import { CODEX_PROVIDERS, configuredRuntime } from '../select.ts';
import { codexHome, codexHomeProblem, codexStatus, codexTmpdir } from './binary.ts';
import { deriveCodexConfig, hermesToolsEntry, type HermesEndpoint } from './derive.ts';
import { migrateCodexConfig, type MigrationReport } from './migrate.ts';
import { codexSettings } from './runner.ts';

export { hermesToolsEntry };

export type RuntimeValue = 'auto' | 'codex_app_server';

export function parseRuntimeArg(args: string): { value: RuntimeValue | null } | { error: string } {
  const a = args.trim().toLowerCase();
  if (!a) return { value: null };
  if (['auto', 'off', 'default', 'hermes', 'loop'].includes(a)) return { value: 'auto' };
  if (['codex_app_server', 'codex-app-server', 'on', 'codex', 'app-server'].includes(a)) return { value: 'codex_app_server' };
  return { error: `Unknown runtime "${args.trim()}". Usage: /codex-runtime [auto|codex_app_server|on|off]` };
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
  /** The session's resolved endpoint, working directory and approval mode (what the next turn uses). */
  endpoint?: HermesEndpoint | null;
  cwd?: string;
  yolo?: boolean;
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
      ...(current === 'codex_app_server' && eligible ? nextTurnLines(i, home) : []),
      'Set with /codex-runtime codex_app_server (or on) and /codex-runtime auto (or off).',
    ];
    return { output: lines.join('\n'), changed: false };
  }
  if (parsed.value === 'auto' && current === 'auto') return { output: 'The runtime is already auto (the Hermes agent loop).', changed: false };
  const lines: string[] = [];
  if (parsed.value === 'codex_app_server') {
    const st = codexStatus(settings.path, i.env, { fresh: true });
    if (!st.ok) return { output: `Cannot enable the codex app-server runtime: ${st.problem}`, changed: false };
    const tmpProblem = codexHomeProblem(home, codexTmpdir(i.env));
    if (tmpProblem) lines.push(`⚠ ${tmpProblem}`);
    try {
      lines.push(...describeMigration(migrateCodexConfig({ codexHome: home, mcpServers: i.config.mcp_servers, env: i.env, hermesTools: hermesToolsEntry(i.home, i.env) })));
    } catch (e) {
      lines.push(`⚠ ${join(home, 'config.toml')} was not updated (${(e as Error).message}); the runtime passes Hermes's MCP servers to codex anyway.`);
    }
    lines.unshift(
      current === 'codex_app_server'
        ? `Runtime: already codex app-server (codex ${st.version}); Hermes's block in config.toml is refreshed and the next turn starts codex with the settings below.`
        : `Runtime: codex app-server (codex ${st.version}). From the next turn, codex runs the turns; Hermes keeps sessions, memory, skills and approvals.`,
    );
    if (eligible) lines.push(...nextTurnLines(i, home));
    else lines.push(`Note: provider ${i.provider} keeps the Hermes loop; the codex runtime applies with provider openai or openai-codex.`);
    if (current === 'codex_app_server') return { output: lines.join('\n'), changed: true };
  } else lines.push('Runtime: auto (the Hermes agent loop) from the next turn.');
  (i.config.model as { openai_runtime?: string }).openai_runtime = parsed.value;
  try {
    setConfigKey(i.home, 'model.openai_runtime', parsed.value);
  } catch (e) {
    lines.push(`⚠ Could not save it to config.yaml (${(e as Error).message}): this applies until Hermes restarts.`);
  }
  return { output: lines.join('\n'), changed: true };
}

/** What the next codex turn uses (the same derivation the runner makes). */
function nextTurnLines(i: SwitchInput, home: string): string[] {
  const d = deriveCodexConfig({ config: i.config, env: i.env, home: i.home, cwd: i.cwd ?? process.cwd(), yolo: !!i.yolo, endpoint: i.endpoint ?? null, codexHome: home, codexModel: codexSettings(i.config).model });
  return [`Model: ${d.model ?? "codex's default"} · ${d.describe.endpoint}`, `Permissions: ${d.describe.permissions}`, `MCP servers: ${d.describe.mcp}`];
}
