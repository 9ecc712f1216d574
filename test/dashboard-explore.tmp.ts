import { homeWithModel } from './helpers/cli.ts';
import { launchChromium, seedCron, seedHome, seedLogs, startDashboardProcess } from './helpers/dashboard.ts';
import { startFakeLlm } from './helpers/fake-llm.ts';
const fake = await startFakeLlm();
fake.models = ['test-model', 'big-model', 'small-model'];
const home = homeWithModel(fake.openaiBaseUrl);
seedHome(home); await seedCron(home); seedLogs(home);
const d = await startDashboardProcess(home);
console.log(d.loginUrl);
const b = await launchChromium();
const page = await b.newPage({ viewport: { width: 1400, height: 900 } });
page.on('console', (m) => console.log('console:', m.type(), m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
await page.goto(d.loginUrl);
for (const t of ['', 'sessions', 'analytics', 'config', 'config/keys', 'config/settings', 'logs', 'cron', 'skills', 'gateway', 'chat']) {
  await page.goto(`${d.url}${t}`);
  await page.waitForTimeout(t === 'chat' ? 6000 : 1500);
  await page.screenshot({ path: `/tmp/dashx/${t.replace('/', '-') || 'status'}.png` });
}
await b.close(); await d.stop(); await fake.close();
