// A real headless Chromium with its DevTools endpoint on loopback, standing in for a browser a user
// runs (`/browser connect`) or one a cloud service hands out.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from '../../src/tools/browser/config.ts';

export interface CdpChromium {
  /** ws://127.0.0.1:<port>/devtools/browser/<id> */
  wsUrl: string;
  /** http://127.0.0.1:<port> (the discovery endpoint) */
  httpUrl: string;
  proc: ChildProcess;
  close(): Promise<void>;
}

export async function startCdpChromium(): Promise<CdpChromium> {
  const exe = findChromium(process.env);
  if (!exe) throw new Error('no chromium');
  const dir = mkdtempSync(join(tmpdir(), 'hermes-cdp-'));
  const proc = spawn(exe, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error(`chromium did not start: ${buf}`)), 60_000);
    proc.stderr!.on('data', (d) => {
      buf += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(buf);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    proc.once('exit', (c) => reject(new Error(`chromium exited (${c}): ${buf}`)));
  });
  const httpUrl = `http://${new URL(wsUrl).host}`;
  return {
    wsUrl,
    httpUrl,
    proc,
    async close() {
      if (proc.exitCode === null) {
        const gone = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
