// The gateway's WAL checkpoints run on a worker thread, on a connection of its own: a checkpoint
// copies the WAL's pages into state.db and fsyncs it, which on a busy disk can block for hundreds
// of milliseconds — every chat's event loop with it, when run on the main thread. A checkpoint
// asked for while one runs is run once more after it (never more than one at a time). PASSIVE,
// as SessionDB's own: it never blocks readers or writers.
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
// Node 22 warns that node:sqlite is experimental: not in the gateway's log.
const emit = process.emitWarning;
process.emitWarning = (w, ...rest) => (/sqlite/i.test(String(w && w.message || w)) ? undefined : emit.call(process, w, ...rest));
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path, { timeout: 1000 });
parentPort.on('message', () => {
  try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch { /* busy: the next one will do */ }
  parentPort.postMessage(0);
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private running = false;
  private again = false;
  private broken = false;
  private readonly fallback: () => void;

  /** `fallback` checkpoints on this thread, if the worker cannot run. */
  constructor(path: string, fallback: () => void) {
    this.fallback = fallback;
    this.worker = new Worker(WORKER, { eval: true, workerData: { path } });
    this.worker.on('message', () => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.run();
      }
    });
    this.worker.on('error', () => {
      this.broken = true;
      this.running = false;
    });
    // (After the listeners: adding one refs the worker again.) It never keeps the gateway alive.
    this.worker.unref();
  }

  run(): void {
    if (this.broken) return this.fallback();
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.worker.postMessage(0);
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
