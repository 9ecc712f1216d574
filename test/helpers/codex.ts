// The real Codex CLI (the @openai/codex devDependency) pointed at the fake LLM: a CODEX_HOME with a
// custom Responses provider, and a Hermes config that hands turns to `codex app-server`.
// CODEX_HOME lives under the worktree, not /tmp: codex refuses to create its Linux sandbox helper
// under a temporary directory, and every command then fails with `bwrap: execvp codex-linux-sandbox`.
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
 * A CODEX_HOME whose config.toml sends codex to the fake LLM. Plugins and apps are off so codex
 * makes no network lookups of its own. `extra` is appended (user content for migration tests).
 */
export function makeCodexHome(openaiBaseUrl: string, extra = ''): CodexHome {
  const base = join(ROOT, '.codex-test-homes');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'home-'));
  writeFileSync(
    join(dir, 'config.toml'),
    [
      `model = "${CODEX_MODEL}"`,
      'model_provider = "fake"',
      'approval_policy = "on-request"',
      '',
      '[model_providers.fake]',
      'name = "Fake LLM"',
      `base_url = "${openaiBaseUrl}"`,
      'wire_api = "responses"',
      'env_key = "FAKE_CODEX_KEY"',
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
    env: { CODEX_HOME: dir, FAKE_CODEX_KEY: 'fake-codex-key', OPENAI_API_KEY: 'sk-test-hermes' },
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
