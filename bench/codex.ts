// The codex app-server runtime's cost per turn: the same plain turns against the fake LLM, once
// driving bare `codex app-server` over JSON-RPC, once through a Hermes Session (projection, events,
// state.db writes, approvals wiring). The difference is what Hermes adds per turn.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodexAppServerClient } from '../src/runners/codex/transport.ts';
import { Session } from '../src/session/session.ts';
import { loadConfig } from '../src/state/config.ts';
import { SessionDB } from '../src/state/db.ts';
import { SqliteSessionStore } from '../src/state/store/sqlite.ts';
import { cleanEnv } from '../test/helpers/cli.ts';
import { CODEX_BIN, codexHermesConfig, codexMissing, makeCodexHome } from '../test/helpers/codex.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { median, type Bench, type BenchRow } from './lib.ts';

const TURNS = 15;
const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;

const bench: Bench = async () => {
  const missing = codexMissing();
  if (missing) return [{ name: 'codex-runtime overhead per turn', value: NaN, unit: 'ms', note: `skipped: ${missing}` }];
  const fake = await startFakeLlm({ defaultReply: { text: 'ok, done.' } });
  const codex = makeCodexHome(fake.openaiBaseUrl);
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-codex-'));
  const work = join(home, 'work');
  mkdirSync(work);
  const rows: BenchRow[] = [];
  try {
    const env = cleanEnv(home, codex.env);
    writeFileSync(join(home, 'config.yaml'), codexHermesConfig(fake.openaiBaseUrl));
    const db = SessionDB.open(join(home, 'state.db'));
    const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: work, platform: 'cli', interactive: false, store: new SqliteSessionStore(db), backgroundTasks: false });

    // Bare codex app-server with the same thread settings (Hermes's prompt as developer instructions).
    let t = process.hrtime.bigint();
    const { client } = await CodexAppServerClient.start({ bin: CODEX_BIN, env, cwd: work }, { name: 'bench', title: 'bench', version: '0' });
    const thread = await client.request('thread/start', { cwd: work, developerInstructions: session.system });
    const bareTurn = async () => {
      const done = new Promise<void>((resolve) => {
        const off = client.onNotification((n) => {
          if (n.method === 'turn/completed') {
            off();
            resolve();
          }
        });
      });
      await client.request('turn/start', { threadId: thread.thread.id, input: [{ type: 'text', text: 'hello', text_elements: [] }] });
      await done;
    };
    await bareTurn();
    const bareFirst = ms(t);
    t = process.hrtime.bigint();
    await session.prompt('hello');
    const hermesFirst = ms(t);

    // Interleaved, so both see the same machine load.
    const bare: number[] = [];
    const viaHermes: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      t = process.hrtime.bigint();
      await bareTurn();
      bare.push(ms(t));
      t = process.hrtime.bigint();
      await session.prompt('hello');
      viaHermes.push(ms(t));
    }
    await client.close();
    await session.close();
    db.close();

    const b = median(bare);
    const h = median(viaHermes);
    rows.push(
      { name: 'bare codex app-server turn (warm, median)', value: b, unit: 'ms', note: `${TURNS} plain turns, fake LLM` },
      { name: 'codex-runtime turn via Hermes (warm, median)', value: h, unit: 'ms', note: 'projection, events, state.db writes' },
      { name: 'codex-runtime overhead per turn', value: h - b, unit: 'ms', target: '≤ 25 ms', ok: h - b <= 25 },
      { name: 'first turn: bare spawn+thread+turn', value: bareFirst, unit: 'ms' },
      { name: 'first turn via Hermes (spawn, thread, MCP wait)', value: hermesFirst, unit: 'ms', note: 'includes `codex --version` check and persisting the thread id' },
    );
  } finally {
    codex.cleanup();
    rmSync(home, { recursive: true, force: true });
    await fake.close();
  }
  return rows;
};

export default bench;
