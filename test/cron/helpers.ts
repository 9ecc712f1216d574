// Shared set-up for cron tests: a HERMES_HOME whose model is the fake LLM, and readers for cron/.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CronJob } from '../../src/cron/jobs.ts';
import { tempHome } from '../helpers/cli.ts';
import type { FakeLlm, RecordedRequest } from '../helpers/fake-llm.ts';

/** A home whose config.yaml points at the fake LLM (chat completions). */
export function cronHome(fake: FakeLlm, extraYaml = ''): string {
  const home = tempHome('hermes-cron-');
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n  api_mode: chat_completions\n${extraYaml}`,
  );
  return home;
}

/** A minimal environment for in-process runs (no developer keys). */
export function testEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', ...extra };
}

export function readJobs(home: string): CronJob[] {
  return (JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: CronJob[] }).jobs;
}

export function outputFiles(home: string, id: string): string[] {
  try {
    return readdirSync(join(home, 'cron', 'output', id))
      .sort()
      .map((f) => join(home, 'cron', 'output', id, f));
  } catch {
    return [];
  }
}

/** The text of the last user message of a chat-completions request. */
export function userText(req: RecordedRequest): string {
  const msgs = (req.body.messages ?? []) as { role: string; content: unknown }[];
  const u = [...msgs].reverse().find((m) => m.role === 'user');
  return typeof u?.content === 'string' ? u.content : JSON.stringify(u?.content ?? '');
}

export function systemText(req: RecordedRequest): string {
  const msgs = (req.body.messages ?? []) as { role: string; content: unknown }[];
  const s = msgs.find((m) => m.role === 'system');
  return typeof s?.content === 'string' ? s.content : JSON.stringify(s?.content ?? '');
}

export function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
}
