// Binding tools against real services (temp HERMES_HOME and working directory) for tool tests.
import { accessSync, constants, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { AgentRequest, Answered, AnswerSource, ToolCallContext } from '../../src/agent/types.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { runSessionCleanup } from '../../src/tools/cleanup.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolDefinition, ToolSession } from '../../src/tools/types.ts';
import { Slots } from '../../src/state/slots.ts';

export function tmp(prefix = 'hermes-tool-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function makeServices(over: Partial<ToolSession> = {}): ToolSession {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' };
  return {
    home: tmp('hermes-home-'),
    config: defaultConfig(),
    env,
    cwd: tmp('hermes-cwd-'),
    platform: 'cli',
    sessionId: 'test-session',
    taskId: `task-${Math.random().toString(36).slice(2, 8)}`,
    slots: new Slots(),
    yolo: false,
    ...over,
  };
}

export type Answerer = (req: AgentRequest) => { answer: unknown; source?: AnswerSource };

export function makeCtx(o: { answer?: Answerer; signal?: AbortSignal; asked?: AgentRequest[]; progress?: string[] } = {}): ToolCallContext {
  return {
    callId: `call_${Math.random().toString(36).slice(2, 8)}`,
    signal: o.signal ?? new AbortController().signal,
    ask: async <R extends AgentRequest>(req: R) => {
      o.asked?.push(req);
      if (!o.answer) return { answer: (req.kind === 'approval' ? 'deny' : req.kind === 'clarify' ? '' : null) as never, source: 'no_responder' } as Answered<R>;
      const r = o.answer(req);
      return { answer: r.answer as never, source: r.source ?? 'person' } as Answered<R>;
    },
    progress: (t) => o.progress?.push(t),
  };
}

const registry = new ToolRegistry();

export interface CallResult {
  json: Record<string, any>;
  raw: string;
  isError: boolean;
  display?: unknown;
}

/** Runs a tool definition with args against services; parses its JSON result. */
export async function call(def: ToolDefinition<any>, args: Record<string, unknown>, services: ToolSession, ctx: ToolCallContext = makeCtx()): Promise<CallResult> {
  const tool = registry.bind(def, services);
  const out = await tool.execute(args, ctx);
  let json: Record<string, any>;
  try {
    json = JSON.parse(out.content);
  } catch {
    json = { _text: out.content };
  }
  return { json, raw: out.content, isError: !!out.isError, display: out.display };
}

export async function closeServices(s: ToolSession): Promise<void> {
  await runSessionCleanup(s);
}

/** Whether an executable `name` is on PATH (found without running it). */
export function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      if (dir) {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      }
    } catch {
      /* not in this directory */
    }
  }
  return false;
}

/**
 * Why Python tests cannot run here (python3 missing), or null. Looked up on PATH rather than run: a
 * version manager's shim (pyenv) costs half a CPU second per start, in each of the files importing this.
 */
export const noPython: string | null = onPath('python3') ? null : 'python3 is not installed';
if (noPython) console.log(`# skipping Python tests: ${noPython}`);
