// Gateway test set-up: a throwaway HERMES_HOME whose config points at the fake LLM, and an
// environment object for the gateway (never the developer's).
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/state/config.ts';
import type { FakeLlm, FakeReply } from '../helpers/fake-llm.ts';
import type { HermesConfig } from '../../src/state/defaults.ts';
import { ensureHome } from '../../src/state/paths.ts';

export interface TestHome {
  home: string;
  env: NodeJS.ProcessEnv;
  config: HermesConfig;
}

export function gatewayHome(o: { llmUrl: string; env?: Record<string, string>; yaml?: string }): TestHome {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-gw-')));
  ensureHome(home);
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: custom\n  base_url: ${o.llmUrl}\n  default: fake-model\n  api_key: test-key\nagent:\n  api_max_retries: 0\n${o.yaml ?? ''}`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    HERMES_HOME: home,
    MESSAGING_CWD: home,
    HERMES_GATEWAY_CONNECT_TIMEOUT: '10',
    HERMES_RESTART_DRAIN_TIMEOUT: '20',
    ...o.env,
  };
  const config = loadConfig(home, env).config;
  return { home, env, config };
}

/** Resolves when `fn` returns truthy (polled; for state that has no event to wait on). */
export async function until<T>(fn: () => T | undefined | null | false, timeoutMs = 10_000, label = 'condition', everyMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * For gateways in another process (background tasks on): title requests get a title from here, so
 * they never take a reply queued for a conversation. Queue turn replies with the returned enqueue.
 */
export function routeTitles(llm: FakeLlm): { enqueue(...r: FakeReply[]): void } {
  const queue: FakeReply[] = [];
  llm.setHandler((req) => {
    const first = req.body?.messages?.[0]?.content;
    if (typeof first === 'string' && first.startsWith('You name conversations')) return { text: 'A test conversation' };
    return queue.shift() ?? { text: 'ok' };
  });
  return { enqueue: (...r) => void queue.push(...r) };
}
