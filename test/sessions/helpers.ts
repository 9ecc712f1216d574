// A Session wired to scripted streams (main model and auxiliary tasks) in a throwaway HERMES_HOME.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/types.ts';
import type { LlmClient, ProviderRuntime } from '../../src/llm/index.ts';
import type { StreamFn } from '../../src/llm/types.ts';
import { Session, type SessionOptions } from '../../src/session/session.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { defaultConfig, type HermesConfig } from '../../src/state/defaults.ts';
import { scripted, type ScriptStep } from '../helpers/scripted-stream.ts';
import type { StreamRequest } from '../../src/llm/types.ts';

/** Reports usage the way a provider would: prompt tokens ≈ the request's size (4 chars a token). */
export function withRealisticUsage(stream: StreamFn): StreamFn {
  return (req) => {
    const s = stream(req);
    const size = Math.ceil((req.system.length + JSON.stringify(req.messages).length + JSON.stringify(req.tools).length) / 4);
    const result = s.result.bind(s);
    s.result = async () => {
      const r = await result();
      return { ...r, usage: { ...r.usage, input_tokens: size } };
    };
    return s;
  };
}

export function fakeClient(stream: StreamFn, model = 'test/model'): LlmClient {
  const active = {
    provider: 'fake',
    apiMode: 'chat_completions',
    baseUrl: 'http://127.0.0.1:1/v1',
    apiKey: 'k',
    keys: ['k'],
    model,
    source: 'test',
    extraHeaders: {},
    quirks: {},
    isCustom: true,
  } as unknown as ProviderRuntime;
  return { stream, beginTurn() {}, active, switchTo() {} } as LlmClient;
}

export interface Harness {
  home: string;
  cwd: string;
  db: SessionDB;
  session: Session;
  events: AgentEvent[];
  requests: StreamRequest[];
  aux: Record<string, StreamRequest[]>;
}

export type Step = ScriptStep | ((req: StreamRequest) => ScriptStep);

export function harness(
  opts: {
    steps?: Step[];
    aux?: Record<string, Step[] | ((req: StreamRequest) => ScriptStep)>;
    config?: (c: HermesConfig) => void;
    session?: Partial<SessionOptions>;
    home?: string;
    db?: SessionDB;
  } = {},
): Harness {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'hermes-sess-'));
  const cwd = join(home, 'project');
  mkdirSync(cwd, { recursive: true });
  const config = defaultConfig();
  config.toolsets = ['memory', 'session_search', 'skills', 'todo'];
  opts.config?.(config);
  const main = scripted(opts.steps ?? []);
  const aux: Record<string, StreamRequest[]> = {};
  const auxStreams = new Map<string, StreamFn>();
  for (const [task, steps] of Object.entries(opts.aux ?? {})) {
    const s = typeof steps === 'function' ? scripted(new Array(50).fill(steps)) : scripted(steps);
    aux[task] = s.requests;
    auxStreams.set(task, s.stream);
  }
  const db = opts.db ?? SessionDB.open(join(home, 'state.db'));
  const session = new Session({
    home,
    config,
    env: { HOME: home },
    cwd,
    platform: 'cli',
    interactive: false,
    llm: fakeClient(withRealisticUsage(main.stream)),
    store: new SqliteSessionStore(db),
    auxStream: (task) => auxStreams.get(task) ?? null,
    now: () => Date.UTC(2026, 4, 10, 12, 0, 0),
    ...opts.session,
  });
  const events: AgentEvent[] = [];
  session.on((e) => events.push(e));
  return { home, cwd, db, session, events, requests: main.requests, aux };
}
