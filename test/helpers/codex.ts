// The real Codex CLI (the @openai/codex devDependency) pointed at the fake LLM through Hermes's own
// endpoint (config.yaml model.base_url; the runtime hands it to codex as a model provider), and a
// CODEX_HOME whose own config.toml names a dead provider, so a turn that reached codex's own
// settings instead of Hermes's would fail.
// Codex refuses to create its Linux sandbox helper under its temporary directory ($TMPDIR, else
// /tmp) and every command then fails with `bwrap: execvp codex-linux-sandbox`: the homes live under
// the clone and codex gets a TMPDIR beside them, so the tests behave the same wherever the clone is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.ts';

export const CODEX_BIN = join(ROOT, 'node_modules', '.bin', 'codex');

let missing: string | null | undefined;

/** Why codex tests cannot run here (no devDependency, or no binary for this platform), or null. */
export function codexMissing(): string | null {
  if (missing !== undefined) return missing;
  if (!existsSync(CODEX_BIN)) return (missing = 'the @openai/codex devDependency is not installed (npm ci)');
  const r = spawnSync(CODEX_BIN, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return (missing = r.status === 0 ? null : `\`codex --version\` failed here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]})`);
}

/** A model slug codex knows, so it offers its full tool set (apply_patch included); the fake serves any name. */
export const CODEX_MODEL = 'gpt-5.5';

export interface CodexHome {
  dir: string;
  /** Environment for hermes (or codex) runs: CODEX_HOME and the keys the fake provider and Hermes read. */
  env: Record<string, string>;
  cleanup(): void;
}

/**
 * A CODEX_HOME for the tests: its config.toml is the user's own codex config, naming a provider on a
 * dead port with no retries (Hermes's endpoint must win), with plugins and apps off so codex makes
 * no network lookups of its own. `extra` is appended (user content for migration tests).
 */
export function makeCodexHome(_openaiBaseUrl?: string, extra = ''): CodexHome {
  const base = join(ROOT, '.codex-test-homes');
  const tmp = join(base, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const dir = mkdtempSync(join(base, 'home-'));
  writeFileSync(
    join(dir, 'config.toml'),
    [
      `model = "${CODEX_MODEL}"`,
      'model_provider = "fake"',
      '',
      '[model_providers.fake]',
      'name = "Not Hermes"',
      'base_url = "http://127.0.0.1:9/v1"',
      'wire_api = "responses"',
      'env_key = "FAKE_CODEX_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'apps = false',
      'tool_search = false',
      '',
      extra,
    ].join('\n'),
  );
  return {
    dir,
    env: { CODEX_HOME: dir, TMPDIR: tmp, FAKE_CODEX_KEY: 'not-hermes-key', OPENAI_API_KEY: 'sk-test-hermes' },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** config.yaml for a Hermes home whose turns run through codex. */
export function codexHermesConfig(openaiBaseUrl: string, extra = ''): string {
  return [
    'model:',
    '  provider: openai',
    `  default: ${CODEX_MODEL}`,
    `  base_url: ${openaiBaseUrl}`,
    '  openai_runtime: codex_app_server',
    'codex:',
    `  path: ${CODEX_BIN}`,
    extra,
  ].join('\n');
}
