// A browser someone already runs, reached over the Chrome DevTools Protocol (`/browser connect`,
// BROWSER_CDP_URL or browser.cdp_url): its own context (logins, cookies) is used, the tools work in
// a tab of their own, and closing only closes that tab and disconnects.
import type { Page } from 'playwright-core';
import { cdpEndpoint, chromiumType, redactCdpUrl, type OpenBrowser, type OpenOptions } from './types.ts';

export async function connectCdp(endpoint: string, label: OpenBrowser['backend'], features: string[], release?: () => Promise<void>, timeoutMs = 30_000): Promise<OpenBrowser> {
  const chromium = await chromiumType();
  let browser;
  try {
    browser = await chromium.connectOverCDP(cdpEndpoint(endpoint), { timeout: timeoutMs });
  } catch (e) {
    await release?.().catch(() => undefined);
    throw new Error(`Could not connect to the browser at ${redactCdpUrl(endpoint)}: ${(e as Error).message.split('\n')[0]}`);
  }
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const ours = new Set<Page>();
  context.on('page', (p) => ours.add(p));
  const first = await context.newPage();
  ours.add(first);
  return {
    backend: label,
    context,
    proxy: null,
    features,
    async close() {
      for (const p of ours) await p.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await release?.().catch(() => undefined);
    },
  };
}

export async function openCdp(o: OpenOptions): Promise<OpenBrowser> {
  return connectCdp(o.settings.cdpUrl, 'cdp', ['cdp_override'], undefined, o.settings.actionTimeoutMs);
}
