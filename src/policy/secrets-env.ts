// Which environment variables a spawned command may see.

const SECRET_NAME = /(API_KEY|_TOKEN|_SECRET|PASSWORD|PASSWD|CREDENTIAL|_PRIVATE_KEY)$|^(AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN)$/i;

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
    if (!allow.has(k) && (SECRET_NAME.test(k) || fromDotenv.has(k) || HERMES_INTERNAL.test(k))) continue;
    out[k] = v;
  }
  return out;
}

/** Name fragments that mark a variable as a credential for execute_code scripts. */
const CODE_SECRET = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;
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
    if (CODE_SECRET.test(k) || fromDotenv.has(k)) continue;
    if (k.startsWith('HERMES_') && !CODE_KEEP_HERMES.has(k)) continue;
    out[k] = v;
  }
  return out;
}
