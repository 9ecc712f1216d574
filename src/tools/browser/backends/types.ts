// One interface for every place a browser comes from: a local Chromium, a remote CDP endpoint, a
// cloud browser service. The manager drives the context the same way whichever it is.
import type { BrowserContext } from 'playwright-core';
import type { ToolSession } from '../../types.ts';
import type { BrowserBackend, BrowserSettings } from '../config.ts';
import type { GuardProxy } from '../guard-proxy.ts';
import type { UrlGuard } from '../url-policy.ts';

export interface OpenBrowser {
  backend: BrowserBackend;
  context: BrowserContext;
  /** Local Chromium: the guard proxy sees every request. Others: requests are checked by route interception. */
  proxy: GuardProxy | null;
  /** Reported on the first navigation (Hermes's `stealth_features`). */
  features: string[];
  /** Ends the browser: closes a launched one, disconnects from (never closes) a remote one, releases a cloud session. */
  close(): Promise<void>;
}

export interface OpenOptions {
  services: ToolSession;
  settings: BrowserSettings;
  guard: UrlGuard;
}

/** playwright-core, loaded on first use. */
export async function chromiumType() {
  const { chromium } = await import('playwright-core');
  return chromium;
}

/** A CDP endpoint Playwright accepts: ws://…/devtools/browser/… as is, a bare ws://host:port as its HTTP discovery URL. */
export function cdpEndpoint(raw: string): string {
  const url = raw.trim();
  if (/\/devtools\/browser\//i.test(url)) return url;
  const m = /^(wss?):\/\/([^/]+)\/?$/i.exec(url);
  if (m) return `${m[1].toLowerCase() === 'wss' ? 'https' : 'http'}://${m[2]}`;
  return url;
}

/** Hides credentials a CDP URL may carry (cloud connect URLs embed API keys) for messages and logs. */
export function redactCdpUrl(raw: string): string {
  try {
    const u = new URL(raw);
    let changed = false;
    if (u.password) {
      u.password = '***';
      changed = true;
    }
    for (const k of [...u.searchParams.keys()])
      if (/key|token|secret|auth|sig/i.test(k)) {
        u.searchParams.set(k, '***');
        changed = true;
      }
    return changed ? u.toString() : raw;
  } catch {
    return raw.replace(/([?&][^=]*(?:key|token|secret)[^=]*=)[^&]+/gi, '$1***');
  }
}
