// Reproduces the gateway's long-run p99 stalls without the gateway: 200 sessions in one state.db,
// each write batch the size of one event-loop tick of a busy gateway (two turns, four messages)
// committed through SessionDB.batch as src/gateway/group-commit.ts does. Prints the batch-time
// distribution and every batch over 20 ms. Seen on this machine, quiet, 15,000 batches: p50 0.2 ms,
// p99 7 ms, a few batches of 55–200 ms — with checkpoints on or off (NOCKPT=1), and with the FTS5
// triggers dropped too (no-FTS p50 0.06 ms, still up to 199 ms without checkpoints): so not the
// FTS5 merges alone; most likely SQLite's writes to the WAL file block in the kernel now and then
// (to be confirmed: `strace -T -e trace=pwrite64,write` on this script is the next step).
//   node bench/fts-stalls.ts [batches=15000]      NOCKPT=1: checkpoints not run
// Not part of `npm run bench` (no target yet; issue 22's note says what is left).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionDB } from '../src/state/db.ts';

const batches = Number(process.argv[2] ?? 15_000);
const dir = mkdtempSync(join(tmpdir(), 'hermes-fts-stalls-'));
const db = SessionDB.open(join(dir, 'state.db'));
if (process.env.NOCKPT) db.checkpointer = () => undefined;
const ids = Array.from({ length: 200 }, (_, i) => `s${i}`);
for (const id of ids) db.createSession({ id, source: 'telegram', model: 'm' });
const times: number[] = [];
const slow: string[] = [];
for (let tick = 0; tick < batches; tick++) {
  const t0 = performance.now();
  db.batch(() => {
    for (let k = 0; k < 2; k++) {
      const id = ids[(tick * 2 + k) % ids.length];
      db.appendMessages(id, [
        { role: 'user', content: `message ${tick}.${k}: how is the deploy going, any errors in ${Math.random().toString(36).slice(2)}?` },
        { role: 'assistant', content: `All green for ${tick}.${k}; the logs show ${Math.random().toString(36).slice(2)} and nothing else.` },
      ]);
    }
  });
  const ms = performance.now() - t0;
  times.push(ms);
  if (ms > 20) slow.push(`#${tick} ${ms.toFixed(0)} ms`);
}
db.close();
rmSync(dir, { recursive: true, force: true });
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(2);
console.log(`${batches} batches of 4 messages: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
console.log(`over 20 ms: ${slow.join(', ') || 'none'}`);
