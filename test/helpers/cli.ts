// Runs the real `hermes` binary as a subprocess, in a throwaway HERMES_HOME.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'hermes.mjs');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function tempHome(prefix = 'hermes-home-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A throwaway HERMES_HOME whose config.yaml points at an OpenAI-compatible endpoint (the fake LLM). */
export function homeWithModel(baseUrl: string, extraYaml = ''): string {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: test-model\n  api_key: test-key\n${extraYaml}`);
  return home;
}

/** Environment for a test run: nothing of the developer's keys or HERMES_* leaks in. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // TZ too: a test's idea of "today" and the binary's must be the same day.
  for (const k of ['PATH', 'LANG', 'TERM', 'TMPDIR', 'USER', 'SHELL', 'TZ']) if (process.env[k]) env[k] = process.env[k];
  env.HOME = home;
  env.HERMES_HOME = home;
  // `npm test` runs against the bundle in dist/; a test file run on its own uses the sources.
  if (!process.env.HERMES_TEST_BUNDLE) env.HERMES_FROM_SOURCE = '1';
  return { ...env, ...extra };
}

export function hermes(
  args: string[],
  opts: { home: string; env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } ,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? opts.home,
      env: cleanEnv(opts.home, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hermes ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 90_000); // generous: a loaded 2-core CI machine is slow, a hang still fails
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
