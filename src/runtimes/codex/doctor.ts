// `hermes doctor`: the Codex app-server runtime's check (binary, version, CODEX_HOME, config.toml).
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HermesConfig } from '../../state/defaults.ts';
import { CODEX_PROVIDERS, configuredRuntime, requestedProvider } from '../select.ts';
import { codexHome, codexHomeProblem, codexStatus } from './binary.ts';
import { BLOCK_BEGIN } from './migrate.ts';
import { codexSettings } from './runner.ts';

export interface CodexCheckResult {
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

export function checkCodexRuntime(config: HermesConfig | null, env: NodeJS.ProcessEnv): CodexCheckResult {
  if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
  if (configuredRuntime(config) !== 'codex_app_server') return { status: 'skip', detail: 'not in use (model.openai_runtime: auto); /codex-runtime on turns it on' };
  const settings = codexSettings(config);
  const st = codexStatus(settings.path, env);
  if (!st.ok) return { status: 'fail', detail: st.problem!.split('. ')[0], fix: st.problem!.split('. ').slice(1).join('. ') || 'install the Codex CLI' };
  const home = codexHome(settings.home, env);
  const tmp = codexHomeProblem(home, tmpdir());
  if (tmp) return { status: 'fail', detail: tmp, fix: 'set CODEX_HOME (or codex.home in config.yaml) to a directory outside the temporary directory, e.g. ~/.codex' };
  const provider = requestedProvider(config);
  if (!CODEX_PROVIDERS.includes(provider))
    return { status: 'warn', detail: `model.openai_runtime is codex_app_server, but provider "${provider || 'auto'}" keeps the Hermes loop`, fix: 'use provider openai or openai-codex (`hermes model`), or `/codex-runtime auto`' };
  const toml = join(home, 'config.toml');
  const migrated = existsSync(toml) && readFileSync(toml, 'utf8').includes(BLOCK_BEGIN);
  if (!migrated) return { status: 'warn', detail: `codex ${st.version}; ${toml} has no Hermes block (no hermes-tools, no MCP servers)`, fix: 'run /codex-runtime on once to migrate it' };
  return { status: 'ok', detail: `codex ${st.version} at ${st.path}; CODEX_HOME ${home}` };
}
