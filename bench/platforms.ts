// Messaging-platform work that runs on every reply: splitting a long reply at a platform's limit
// (code fences closed and reopened), the Markdown conversions (Telegram HTML, Matrix HTML, WhatsApp,
// Slack mrkdwn), and streaming a 40 KB reply by edits through a no-op adapter (the cost the gateway
// adds per delta: buffering, re-chunking, the edit calls it decides to make).
import { chunkMessage } from '../src/gateway/chunk.ts';
import { toMatrixHtml, toSlackMrkdwn, toTelegramHtml, toWhatsApp } from '../src/gateway/markdown/serializers.ts';
import { StreamingReply } from '../src/gateway/stream-reply.ts';
import type { PlatformAdapter } from '../src/gateway/types.ts';
import { median, type Bench, type BenchRow } from './lib.ts';

function reply(kb: number): string {
  const para = 'Some **bold** text with `code` and a [link](https://example.com), sentence after sentence. ';
  const code = Array.from({ length: 40 }, (_, i) => `  const value${i} = compute(${i}); // line ${i}`).join('\n');
  let out = '';
  while (out.length < kb * 1024) out += `${para.repeat(6)}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n`;
  return out;
}

function time(fn: () => void, runs = 30): number {
  fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const text = reply(100);
  let chunks = 0;
  rows.push({ name: 'split a 100 KB reply at 4096 (Telegram)', value: time(() => void (chunks = chunkMessage(text, 4096).length)), unit: 'ms', note: `${chunks} messages` });
  rows.push({ name: 'split a 100 KB reply at 2000 (Discord)', value: time(() => void chunkMessage(text, 2000)), unit: 'ms' });
  const part = text.slice(0, 4000);
  rows.push({ name: 'Markdown → Telegram HTML, 4 KB', value: time(() => void toTelegramHtml(part), 200) * 1000, unit: 'µs' });
  rows.push({ name: 'Markdown → Matrix HTML, 4 KB', value: time(() => void toMatrixHtml(part), 200) * 1000, unit: 'µs' });
  rows.push({ name: 'Markdown → WhatsApp, 4 KB', value: time(() => void toWhatsApp(part), 200) * 1000, unit: 'µs' });
  rows.push({ name: 'Markdown → Slack mrkdwn, 4 KB', value: time(() => void toSlackMrkdwn(part), 200) * 1000, unit: 'µs' });

  // Streaming: 40 KB in 8-character deltas (5,000 deltas) with edits every 20 ms to a no-op adapter.
  const long = reply(40);
  let sends = 0;
  let edits = 0;
  const adapter: PlatformAdapter = {
    name: 'telegram',
    maxMessageLength: 4096,
    supportsButtons: false,
    connect: async () => undefined,
    disconnect: async () => undefined,
    send: async () => ({ ok: true, messageId: String(++sends) }),
    edit: async (_c, id) => (edits++, { ok: true, messageId: id }),
  };
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const s = new StreamingReply(adapter, { platform: 'telegram', chatId: '1', chatType: 'dm' }, { settings: { enabled: true, intervalMs: 20, threshold: 40, cursor: ' ▉' }, redact: true, log: () => undefined });
  for (let i = 0; i < long.length; i += 8) {
    s.push(long.slice(i, i + 8));
    if (i % 800 === 0) await new Promise((r) => setTimeout(r, 2));
  }
  await s.finish(long);
  const cpu = process.cpuUsage(cpu0);
  rows.push({ name: 'stream a 40 KB reply by edits (5,000 deltas)', value: (cpu.user + cpu.system) / 1000, unit: 'ms CPU', note: `${sends} messages, ${edits} edits in ${Math.round(performance.now() - started)} ms wall` });
  return rows;
};

export default bench;
