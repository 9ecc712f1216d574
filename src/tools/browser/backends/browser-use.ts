// Browser Use (https://browser-use.com): a cloud browser created over its REST API
// (BROWSER_USE_API_KEY; BROWSER_USE_BASE_URL for another endpoint), driven over the CDP URL it
// hands back, stopped when the browser closes.
import { connectCdp } from './cdp.ts';
import type { OpenBrowser, OpenOptions } from './types.ts';

export async function openBrowserUse(o: OpenOptions): Promise<OpenBrowser> {
  const env = o.services.env;
  const key = env.BROWSER_USE_API_KEY;
  if (!key) throw new Error('Browser Use needs BROWSER_USE_API_KEY.');
  const base = (env.BROWSER_USE_BASE_URL || 'https://api.browser-use.com/api/v3').replace(/\/+$/, '');
  const headers = { 'content-type': 'application/json', 'x-browser-use-api-key': key };
  const r = await fetch(`${base}/browsers`, { method: 'POST', headers, body: '{}', signal: AbortSignal.timeout(30_000) });
  if (!r.ok) throw new Error(`Failed to create a Browser Use session: HTTP ${r.status} ${(await r.text()).slice(0, 300)}`);
  const data = (await r.json()) as { id?: string; cdpUrl?: string; connectUrl?: string };
  const cdp = data.cdpUrl || data.connectUrl;
  if (!data.id || !cdp) throw new Error('Browser Use answered without a browser id or cdpUrl.');
  const release = async () => {
    await fetch(`${base}/browsers/${encodeURIComponent(data.id!)}`, { method: 'PATCH', headers, body: JSON.stringify({ action: 'stop' }), signal: AbortSignal.timeout(10_000) });
  };
  return connectCdp(cdp, 'browser-use', ['browser_use'], release, o.settings.actionTimeoutMs);
}
