import { runGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram } from '../helpers/fake-telegram.ts';
import { gatewayHome } from './helpers.ts';
const llm = await startFakeLlm({ defaultReply: { text: 'ok, noted.' } });
const tg = await startFakeTelegram({ record: false, retain: false });
const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOW_ALL_USERS: 'true' }, yaml: `  agent_cache:\n    max_size: ${process.env.CACHE ?? 128}\n` });
const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false });
while (tg.pollers() === 0) await new Promise(r => setTimeout(r, 20));
const CH = 200, TOTAL = Number(process.env.N ?? 6000);
let answered = 0, issued = 0; let done!: () => void; const fin = new Promise<void>(r => done = r);
const send = (c: number) => { if (issued >= TOTAL) return; issued++; tg.userMessage({ chatId: c, text: `hello ${issued}` }); };
const t0 = performance.now();
tg.onCall(async (c) => { if (c.method !== "sendMessage") return; answered++; llm.requests.length = 0;
  if (answered % 1000 === 0) { global.gc!(); if (process.env.SNAP && (answered === 1000 || answered === 4000)) (await import('node:v8')).writeHeapSnapshot(`/tmp/gwsnap-${answered}.heapsnapshot`); const m = process.memoryUsage(); console.log(answered, 'rss', (m.rss/1e6).toFixed(0), 'heap', (m.heapUsed/1e6).toFixed(1), 'ext', (m.external/1e6).toFixed(1), 'ab', (m.arrayBuffers/1e6).toFixed(1), 'rate', (answered/((performance.now()-t0)/1000)).toFixed(0)); }
  if (answered >= TOTAL) done(); else send(Number(c.params.chat_id)); });
for (let i = 0; i < CH; i++) send(20000 + i);
await fin;
await gw.shutdown(); await tg.close(); await llm.close();
