// Which environment variables a spawned command may see.

/**
 * Credential-looking names: `…API_KEY`, `…_TOKEN`, `…_SECRET`, `…_SECRET_KEY`, `…_ACCESS_KEY`,
 * `…PASSWORD`/`…PASSWD`, `…_PWD` (MYSQL_PWD), `…CREDENTIAL(S)`, `…_PAT` (GH_PAT), anything with
 * PRIVATE_KEY in it, and names Hermes blocks that do not follow the pattern.
 */
const SECRET_NAME =
  /(API_KEY|APIKEY|_TOKEN|_SECRET|_SECRET_KEY|_ACCESS_KEY|PASSWORD|PASSWD|_PWD|CREDENTIALS?|_PAT)$|PRIVATE_KEY|^(AWS_SECRET_ACCESS_KEY|AWS_ACCESS_KEY_ID|AWS_SESSION_TOKEN|GH_PAT|MYSQL_PWD|PGPASSWORD|FAL_KEY|MODAL_TOKEN_ID|HASS_TOKEN)$/i;

/** A value that is a URL carrying a password (`scheme://user:pass@host…`, e.g. DATABASE_URL). */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]+@/i;

/** Whether a variable is a credential by its name or its value (exported so the sandbox and hooks can share it). */
export function isSecretEnv(name: string, value: string | undefined): boolean {
  return SECRET_NAME.test(name) || (value !== undefined && URL_WITH_PASSWORD.test(value.trim()));
}

/** Hermes's own variables that never reach a child (they steer Hermes, not the user's tools). */
const HERMES_INTERNAL = /^(HERMES_YOLO_MODE|HERMES_HOME)$/;

/**
 * The environment for a command the agent runs: the parent's, minus secret-looking variables
 * and everything loaded from HERMES_HOME/.env, except names listed in `passthrough`.
 */
export function filteredEnv(
  env: NodeJS.ProcessEnv,
  opts: { passthrough?: string[]; dotenvNames?: Iterable<string> } = {},
): NodeJS.ProcessEnv {
  const allow = new Set(opts.passthrough ?? []);
  const fromDotenv = new Set(opts.dotenvNames ?? []);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (!allow.has(k) && (isSecretEnv(k, v) || fromDotenv.has(k) || HERMES_INTERNAL.test(k))) continue;
    out[k] = v;
  }
  return out;
}

/** Name fragments that mark a variable as a credential for execute_code scripts. */
const CODE_SECRET = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PWD$|CREDENTIAL|AUTH|COOKIE|SESSION|_PAT$/i;
const CODE_KEEP_HERMES = new Set(['HERMES_HOME']);

/**
 * The environment of an execute_code script: stricter than the terminal's. Any variable whose
 * name looks like a credential is dropped (unless passed through), as are everything from
 * HERMES_HOME/.env and Hermes's own HERMES_* settings.
 */
export function codeExecEnv(env: NodeJS.ProcessEnv, opts: { passthrough?: string[]; dotenvNames?: Iterable<string> } = {}): NodeJS.ProcessEnv {
  const allow = new Set(opts.passthrough ?? []);
  const fromDotenv = new Set(opts.dotenvNames ?? []);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (allow.has(k)) {
      out[k] = v;
      continue;
    }
    if (CODE_SECRET.test(k) || isSecretEnv(k, v) || fromDotenv.has(k)) continue;
    if (k.startsWith('HERMES_') && !CODE_KEEP_HERMES.has(k)) continue;
    out[k] = v;
  }
  return out;
}
