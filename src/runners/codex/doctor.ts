// `hermes doctor`: the Codex app-server runtime's check. It looks at what the next turn will really
// use — the binary, CODEX_HOME as codex sees it, the endpoint and key (or codex's own login), the
// model and the permissions — through the same derivation the runner makes (derive.ts), and every
// fix it prints is a command that does what it says.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import type { HermesConfig } from '../../state/defaults.ts';
import { CODEX_PROVIDERS, configuredRuntime, requestedProvider } from '../select.ts';
import { codexHome, codexHomeProblem, codexStatus, codexTmpdir } from './binary.ts';
import { deriveCodexConfig, HERMES_KEY_ENV, type HermesEndpoint } from './derive.ts';
import { codexSettings } from './runner.ts';

export interface CodexCheckResult {
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
  repair?: () => string;
}

export interface CodexCheckInput {
  config: HermesConfig | null;
  env: NodeJS.ProcessEnv;
  /** HERMES_HOME. */
  home: string;
  /** The working directory a turn would start in. */
  cwd: string;
  /** Hermes's resolved endpoint for the configured provider, or why it could not be resolved. */
  endpoint: HermesEndpoint | { error: string } | null;
}

const quote = (s: string) => (/^[\w./~:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function checkCodexRuntime(i: CodexCheckInput): CodexCheckResult {
  const { config, env } = i;
  if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
  if (configuredRuntime(config) !== 'codex_app_server') return { status: 'skip', detail: 'not in use (model.openai_runtime: auto); `hermes config set model.openai_runtime codex_app_server` or /codex-runtime on turns it on' };
  const provider = requestedProvider(config);
  if (!CODEX_PROVIDERS.includes(provider))
    return {
      status: 'warn',
      detail: `model.openai_runtime is codex_app_server, but provider "${provider || 'auto'}" keeps the Hermes loop (codex serves openai and openai-codex)`,
      fix: 'choose provider openai or openai-codex with `hermes model`, or turn the runtime off: `hermes config set model.openai_runtime auto`',
    };
  const settings = codexSettings(config);
  const st = codexStatus(settings.path, env);
  if (!st.ok) return { status: 'fail', detail: st.problem!.split('. ')[0], fix: st.problem!.split('. ').slice(1).join('. ') || 'install the Codex CLI' };
  const home = codexHome(settings.home, env);
  const tmp = codexHomeProblem(home, codexTmpdir(env));
  const homeFrom = settings.home.trim() ? 'codex.home' : env.CODEX_HOME?.trim() ? 'CODEX_HOME' : 'the default';
  if (tmp)
    return {
      status: 'fail',
      detail: tmp,
      fix: homeFrom === 'codex.home' ? 'point codex.home elsewhere: `hermes config set codex.home ~/.codex`' : homeFrom === 'CODEX_HOME' ? 'unset CODEX_HOME or set it to a directory outside the temporary directory (e.g. ~/.codex)' : 'set codex.home outside it: `hermes config set codex.home /var/lib/codex` (any directory outside the temporary directory)',
    };
  if (homeFrom !== 'the default' && !existsSync(home))
    return { status: 'fail', detail: `CODEX_HOME ${home} (from ${homeFrom}) does not exist, and codex refuses to start without it`, fix: `\`mkdir -p ${quote(home)}\` (or \`hermes doctor --fix\`)`, repair: () => (mkdirSync(home, { recursive: true, mode: 0o700 }), `created ${home}`) };

  // Without Hermes credentials the session still runs codex turns, on codex's own login.
  const endpoint: HermesEndpoint | null =
    i.endpoint && !('error' in i.endpoint)
      ? i.endpoint
      : provider === 'openai'
        ? { provider, model: String(config.model.default ?? ''), baseUrl: String(config.model.base_url || env.OPENAI_BASE_URL || ''), apiKey: '' }
        : null;
  const d = deriveCodexConfig({ config, env, home: i.home, cwd: i.cwd, yolo: false, endpoint, codexHome: home, codexModel: settings.model });
  const facts = `codex ${st.version}; model ${d.model ?? "codex's default"} via ${d.describe.endpoint}; permissions: ${d.describe.permissions.replace(`the working directory ${i.cwd}`, 'the working directory')} (with --yolo nothing asks); CODEX_HOME ${home}`;
  if (!d.env[HERMES_KEY_ENV]) {
    // Codex's own login: ask codex whether it has one.
    const r = spawnSync(st.path!, ['login', 'status'], { encoding: 'utf8', env: { ...env, CODEX_HOME: home }, timeout: 15_000 });
    if (r.status !== 0) {
      const prefix = homeFrom === 'the default' ? '' : `CODEX_HOME=${quote(home)} `;
      const login = `\`${prefix}${quote(st.path!)} login\``;
      return {
        status: 'fail',
        detail: `${facts}; codex is not logged in (${`${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').pop() || `exit ${r.status}`})`,
        fix: provider === 'openai' ? `give Hermes an OpenAI key (\`hermes config set OPENAI_API_KEY sk-…\`; the runtime passes it to codex), or log codex in: ${login}` : login,
      };
    }
  }
  if (d.skipped.length) return { status: 'warn', detail: `${facts}; not passed to codex: ${d.skipped.map((s) => `${s.server} (${s.reason})`).join('; ')}`, fix: 'adjust those mcp_servers entries in config.yaml' };
  return { status: 'ok', detail: `${facts}; MCP servers: ${d.describe.mcp}` };
}
