// Media benchmarks: a browser action in real headless Chromium (cold start + navigate, then
// navigate + snapshot on a warm browser, against a page on loopback), and Edge TTS over its
// protocol against the local fake (the client's own cost, no network).
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallContext } from '../src/agent/types.ts';
import { defaultConfig } from '../src/state/defaults.ts';
import { findChromium } from '../src/tools/browser/config.ts';
import browserNavigate from '../src/tools/defs/browser-navigate.ts';
import browserSnapshot from '../src/tools/defs/browser-snapshot.ts';
import { runSessionCleanup } from '../src/tools/cleanup.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import type { ToolDefinition, ToolSession } from '../src/tools/types.ts';
import { speak } from '../src/media/tts/index.ts';
import { startFakeEdge } from '../test/helpers/fake-tts.ts';
import { median, type Bench, type BenchRow } from './lib.ts';
import { Slots } from '../src/state/slots.ts';

const ctx: ToolCallContext = { callId: 'bench', signal: new AbortController().signal, ask: async () => ({ answer: 'deny', source: 'no_responder' }) as never, progress: () => {} };
const reg = new ToolRegistry();
const run = async (def: ToolDefinition<any>, args: Record<string, unknown>, s: ToolSession) => JSON.parse((await reg.bind(def, s).execute(args, ctx)).content);

const PAGE = `<!doctype html><title>Bench</title><h1>Items</h1><ul>${Array.from({ length: 200 }, (_, i) => `<li><a href="/i/${i}">Item ${i}</a> <button>Buy ${i}</button></li>`).join('')}</ul><form><input name=q><button>Search</button></form>`;

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  if (findChromium(process.env)) {
    const server = createServer((_q, r) => {
      r.writeHead(200, { 'content-type': 'text/html' });
      r.end(PAGE);
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const config = defaultConfig();
    config.security.allow_private_urls = true;
    const s: ToolSession = { home: mkdtempSync(join(tmpdir(), 'hermes-bench-')), config, env: { PATH: process.env.PATH }, cwd: tmpdir(), platform: 'cli', sessionId: 'b', taskId: 'bench', slots: new Slots(), yolo: false };
    try {
      let t = process.hrtime.bigint();
      await run(browserNavigate, { url }, s);
      rows.push({ name: 'browser: first navigate (Chromium start + page + snapshot)', value: Number(process.hrtime.bigint() - t) / 1e6, unit: 'ms' });
      const nav: number[] = [];
      const snap: number[] = [];
      for (let i = 0; i < 10; i++) {
        t = process.hrtime.bigint();
        const r = await run(browserNavigate, { url }, s);
        nav.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (!r.success) throw new Error(r.error);
        t = process.hrtime.bigint();
        await run(browserSnapshot, {}, s);
        snap.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      rows.push({ name: 'browser: navigate + compact snapshot (warm, 400 refs)', value: median(nav), unit: 'ms' });
      rows.push({ name: 'browser: browser_snapshot (warm)', value: median(snap), unit: 'ms' });
    } finally {
      await runSessionCleanup(s);
      server.close();
    }
  } else rows.push({ name: 'browser', value: NaN, unit: '', note: 'Chromium not installed' });

  const edge = await startFakeEdge(Buffer.alloc(24_000, 0xff));
  try {
    const config = { ...defaultConfig(), tts: { provider: 'edge', edge: { endpoint: edge.endpoint } } };
    const home = mkdtempSync(join(tmpdir(), 'hermes-bench-'));
    const xs: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = process.hrtime.bigint();
      await speak({ text: 'A short reply to speak aloud.', home, env: { PATH: '/nonexistent' }, config, platform: 'cli' });
      xs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    rows.push({ name: 'tts: Edge protocol round trip (local fake, one chunk)', value: median(xs), unit: 'ms' });
  } finally {
    await edge.close();
  }
  return rows;
};

export default bench;
