// What every command starts from: HERMES_HOME, .env loaded, config.yaml parsed and checked.
import { localeFrom, setLocale, t } from '../i18n/index.ts';
import { existsSync } from 'node:fs';
import { ConfigError, formatProblem, loadConfig, type LoadedConfig } from '../state/config.ts';
import { defaultConfig } from '../state/defaults.ts';
import { loadEnvFile, secureEnvFile } from '../state/env.ts';
import { ensureHome, hermesHome, paths } from '../state/paths.ts';
import { CliError } from './errors.ts';

export interface CliContext {
  home: string;
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  /** Names that came from HERMES_HOME/.env. */
  dotenvNames: string[];
}

/**
 * Loads HERMES_HOME/.env into process.env and config.yaml over the defaults.
 * `strict`: type problems in config.yaml are fatal (commands that run the agent), with file and line.
 */
export function loadContext(opts: { strict?: boolean } = {}): CliContext {
  const home = ensureHome(hermesHome());
  const envPath = paths.env(home);
  secureEnvFile(envPath);
  const vars = loadEnvFile(envPath, process.env);
  let loaded: LoadedConfig;
  // --ignore-user-config / --safe-mode: the built-in defaults; .env credentials still count.
  if (ignoreUserConfig(process.env)) {
    const path = paths.config(home);
    return { home, loaded: { config: defaultConfig(), user: {}, path, exists: existsSync(path), problems: [], lineOf: () => undefined }, env: process.env, dotenvNames: [...vars.keys()] };
  }
  // HERMES_LANGUAGE applies even when config.yaml cannot be read (its own problem is then reported).
  setLocale(localeFrom(undefined, process.env));
  try {
    loaded = loadConfig(home, process.env);
  } catch (e) {
    if (e instanceof ConfigError) throw Object.assign(new CliError(e.message), { i18n: e.i18n });
    throw e;
  }
  setLocale(localeFrom(loaded.config, process.env));
  if (opts.strict && loaded.problems.length) {
    const p = loaded.problems[0];
    const more = loaded.problems.length > 1 ? t('config.more_problems', { count: loaded.problems.length - 1 }) : '';
    throw new CliError(t('config.fix_hint', { problem: formatProblem(p, loaded.path), more }));
  }
  return { home, loaded, env: process.env, dotenvNames: [...vars.keys()] };
}

export function ignoreUserConfig(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true', 'yes'].includes((env.HERMES_IGNORE_USER_CONFIG ?? '').toLowerCase()) || ['1', 'true', 'yes'].includes((env.HERMES_SAFE_MODE ?? '').toLowerCase());
}
