// Browserbase (https://browserbase.com): a cloud Chromium per session, created over its REST API
// (BROWSERBASE_API_KEY, BROWSERBASE_PROJECT_ID; BROWSERBASE_BASE_URL for another endpoint) and
// driven over the CDP URL it hands back. The session is released when the browser closes.
import { connectCdp } from './cdp.ts';
import type { OpenBrowser, OpenOptions } from './types.ts';

const truthy = (v: string | undefined, dflt: boolean) => (v === undefined || v === '' ? dflt : !['0', 'false', 'no', 'off'].includes(v.trim().toLowerCase()));

export async function openBrowserbase(o: OpenOptions): Promise<OpenBrowser> {
  const env = o.services.env;
  const key = env.BROWSERBASE_API_KEY;
  const project = env.BROWSERBASE_PROJECT_ID;
  if (!key || !project) throw new Error('Browserbase needs BROWSERBASE_API_KEY and BROWSERBASE_PROJECT_ID.');
  const base = (env.BROWSERBASE_BASE_URL || 'https://api.browserbase.com').replace(/\/+$/, '');
  const headers = { 'content-type': 'application/json', 'x-bb-api-key': key };
  const body: Record<string, unknown> = { projectId: project };
  const proxies = truthy(env.BROWSERBASE_PROXIES, true);
  const keepAlive = truthy(env.BROWSERBASE_KEEP_ALIVE, true);
  if (keepAlive) body.keepAlive = true;
  if (proxies) body.proxies = true;
  if (truthy(env.BROWSERBASE_ADVANCED_STEALTH, false)) body.browserSettings = { advancedStealth: true };
  const timeout = Number(env.BROWSERBASE_SESSION_TIMEOUT);
  if (Number.isInteger(timeout) && timeout > 0) body.timeout = timeout;
  const create = () => fetch(`${base}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  let r = await create();
  // 402: a paid feature is not in the plan; retry without keepAlive, then without proxies (as Hermes).
  if (r.status === 402 && body.keepAlive) {
    delete body.keepAlive;
    r = await create();
  }
  if (r.status === 402 && body.proxies) {
    delete body.proxies;
    r = await create();
  }
  if (!r.ok) throw new Error(`Failed to create a Browserbase session: HTTP ${r.status} ${(await r.text()).slice(0, 300)}`);
  const data = (await r.json()) as { id?: string; connectUrl?: string };
  if (!data.id || !data.connectUrl) throw new Error('Browserbase answered without a session id or connectUrl.');
  const features = ['basic_stealth', ...(body.proxies ? ['proxies'] : []), ...(body.keepAlive ? ['keep_alive'] : []), ...(body.browserSettings ? ['advanced_stealth'] : [])];
  const release = async () => {
    await fetch(`${base}/v1/sessions/${encodeURIComponent(data.id!)}`, { method: 'POST', headers, body: JSON.stringify({ projectId: project, status: 'REQUEST_RELEASE' }), signal: AbortSignal.timeout(10_000) });
  };
  return connectCdp(data.connectUrl, 'browserbase', features, release, o.settings.actionTimeoutMs);
}
