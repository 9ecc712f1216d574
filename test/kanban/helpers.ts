// Kanban test set-up: a HERMES_HOME (and profile homes) whose model is the fake LLM, and a scripted
// worker: on "work kanban task <id>" it calls kanban_show, kanban_heartbeat, then kanban_complete with
// a summary naming its task and every parent result it was handed ("done:<title>(<parents>)").
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermes, tempHome, type RunResult } from '../helpers/cli.ts';
import type { FakeLlm, FakeReply, RecordedRequest } from '../helpers/fake-llm.ts';

export function modelYaml(llm: FakeLlm): string {
  return `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  default: fake-model\n  api_key: test-key\n  api_mode: chat_completions\nagent:\n  api_max_retries: 0\n`;
}

/** A home for the board plus profile homes (profiles/<name>/) on the same fake LLM. */
export function kanbanHome(llm: FakeLlm, o: { profiles?: string[]; yaml?: string } = {}): string {
  const home = realpathSync(tempHome('hermes-kanban-'));
  writeFileSync(join(home, 'config.yaml'), modelYaml(llm) + (o.yaml ?? ''));
  for (const p of o.profiles ?? []) {
    mkdirSync(join(home, 'profiles', p), { recursive: true });
    writeFileSync(join(home, 'profiles', p, 'config.yaml'), modelYaml(llm));
  }
  return home;
}

export const kb = (home: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> => hermes(['kanban', ...args], { home, env, timeoutMs: 60_000 });

type Msg = { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] };

const userText = (req: RecordedRequest): string => {
  const m = (req.body.messages as Msg[]).find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
};

export interface WorkerScript {
  /** Task ids in the order their kanban_complete calls were made. */
  completions: string[];
  /** Tasks whose worker should hang in its first model call (never answered). */
  hang: Set<string>;
  /** Tool names each worker's first request offered, by task id. */
  tools: Map<string, string[]>;
}

/** Scripts every kanban worker; other requests (titles, reviews) get a plain answer. */
export function scriptWorkers(llm: FakeLlm, other: (req: RecordedRequest) => FakeReply = () => ({ text: 'ok' })): WorkerScript {
  const script: WorkerScript = { completions: [], hang: new Set(), tools: new Map() };
  llm.setHandler((req) => {
    const m = /^work kanban task (t_[0-9a-f]+)/.exec(userText(req));
    if (!m) return other(req);
    const id = m[1];
    const msgs = req.body.messages as Msg[];
    const toolResults = msgs.filter((x) => x.role === 'tool');
    if (!toolResults.length) {
      script.tools.set(id, ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name));
      if (script.hang.has(id)) return { hang: true };
      return { toolCalls: [{ name: 'kanban_show', arguments: {} }] };
    }
    if (toolResults.length === 1) return { toolCalls: [{ name: 'kanban_heartbeat', arguments: { note: 'working' } }] };
    if (toolResults.length === 2) {
      const shown = JSON.parse(String(toolResults[0].content)) as { task: { title: string }; worker_context: string };
      const inputs = [...shown.worker_context.matchAll(/done:([A-Za-z]+)/g)].map((x) => x[1]).sort();
      script.completions.push(id);
      return { toolCalls: [{ name: 'kanban_complete', arguments: { summary: `done:${shown.task.title}(${[...new Set(inputs)].join(',')})`, metadata: { by: id } } }] };
    }
    return { text: `Finished ${id}.` };
  });
  return script;
}
