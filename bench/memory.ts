// Memory-provider and backend overheads: what an active provider's recall adds to each turn (Mem0
// against a local fake of its API, Holographic on a 1,000-fact SQLite store), and a command on the
// local persistent shell against a fresh `bash -c` per command.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mem0 from '../src/memory/providers/mem0.ts';
import holographic from '../src/memory/providers/holographic.ts';
import { defaultConfig } from '../src/state/defaults.ts';
import { MemoryStore } from '../src/state/memory.ts';
import { BuiltinMemoryProvider, MemoryManager } from '../src/state/memory-provider.ts';
import { LocalBackend } from '../src/tools/env/local.ts';
import { localPersistentBackend } from '../src/tools/env/local-shell.ts';
import { startFakeMemory } from '../test/helpers/fake-memory.ts';
import { timeIt, type Bench, type BenchRow } from './lib.ts';


function manager(home: string): MemoryManager {
  return new MemoryManager(new BuiltinMemoryProvider(new MemoryStore(join(home, 'memories'))));
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const config = defaultConfig();

  const fake = await startFakeMemory();
  try {
    const home = mkdtempSync(join(tmpdir(), 'bench-mem-'));
    const m = manager(home);
    m.addProvider(mem0.create({ home, env: { MEM0_API_KEY: 'k', MEM0_HOST: fake.url }, config }));
    const ms = await timeIt(50, () => m.recall('what tea does the user drink?', 's'));
    rows.push({ name: 'recall per turn: mem0 (local fake API)', value: ms, unit: 'ms', target: '≤ 20 ms', ok: ms <= 20, note: 'one HTTP round trip on loopback + fencing' });
  } finally {
    await fake.close();
  }

  const home = mkdtempSync(join(tmpdir(), 'bench-holo-'));
  const holo = holographic.create({ home, env: {}, config });
  for (let i = 0; i < 1000; i++) await holo.handleToolCall!('fact_store', { action: 'add', content: `Fact ${i}: project Alpha${i % 37} uses tool Beta${i % 11} for task ${i}` });
  const m = manager(home);
  m.addProvider(holo);
  const hm = await timeIt(50, () => m.recall('which tool does project Alpha12 use?', 's'));
  rows.push({ name: 'recall per turn: holographic (1,000 facts)', value: hm, unit: 'ms', target: '≤ 10 ms', ok: hm <= 10, note: 'SQLite FTS5, no service' });
  await m.shutdown();

  const cwd = mkdtempSync(join(tmpdir(), 'bench-shell-'));
  const env = { PATH: process.env.PATH, HOME: cwd };
  const opts = { timeoutMs: 10_000, signal: new AbortController().signal };
  const fresh = new LocalBackend({ cwd, env });
  const f = await timeIt(40, () => fresh.exec('echo hi', opts));
  const persistent = localPersistentBackend({ cwd, env });
  const p = await timeIt(40, () => persistent.exec('echo hi', opts));
  await persistent.close();
  rows.push({ name: 'terminal command: fresh bash -c', value: f, unit: 'ms' });
  rows.push({ name: 'terminal command: persistent local shell', value: p, unit: 'ms', note: `${(f / p).toFixed(1)}× the fresh shell's speed` });
  return rows;
};

export default bench;
