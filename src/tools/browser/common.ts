// What the browser tool handlers share: results in Hermes's shape ({success, …} / {success: false,
// error}), element refs, waiting for a page to settle, the snapshot the model reads, and the checks
// that refuse a page the browser should not have reached.
import type { Locator, Page, Response } from 'playwright-core';
import type { ToolOutcome } from '../../agent/types.ts';
import type { ToolSession } from '../types.ts';
import { browserSession, existingBrowserSession, type BrowserSession } from './manager.ts';
import { compactSnapshot, countRefs, truncateSnapshot } from './snapshot.ts';
import type { UrlBlock } from './url-policy.ts';

export const done = (value: Record<string, unknown>): string => JSON.stringify({ success: true, ...value });

export const failed = (error: string, extra: Record<string, unknown> = {}): ToolOutcome => ({
  content: JSON.stringify({ success: false, error, ...extra }),
  isError: true,
});

/** A blocked URL as Hermes reports it (`blocked_by_policy` for website-blocklist hits). */
export const blockedResult = (b: UrlBlock): ToolOutcome => failed(b.message, b.policy ? { blocked_by_policy: b.policy } : {});

/** The page of a browser that is already open (the tools other than browser_navigate need one). */
export async function openPage(s: ToolSession): Promise<{ b: BrowserSession; page: Page } | ToolOutcome> {
  const b = existingBrowserSession(s);
  const page = b?.existingPage();
  if (!b || !page) return failed('No page is open. Call browser_navigate first.');
  return { b, page };
}

export const isOutcome = (x: unknown): x is ToolOutcome => !!x && typeof x === 'object' && 'content' in x;

/** `@e5`, `e5`, `[ref=e5]` → the element; refs come from the latest snapshot. */
export async function byRef(page: Page, raw: string): Promise<Locator | string> {
  const ref = raw.trim().replace(/^\[?ref=/, '').replace(/\]$/, '').replace(/^@/, '');
  if (!/^[A-Za-z0-9_-]+$/.test(ref)) return `"${raw}" is not an element ref. Use a ref from the snapshot, like @e5.`;
  const loc = page.getByRef(ref);
  // An unknown or stale ref fails at once instead of waiting out the action timeout.
  if ((await loc.count().catch(() => 0)) === 0) return `Element @${ref} was not found on the page. The page may have changed: take a new browser_snapshot and use a ref from it.`;
  return loc;
}

/** Explains Playwright's failures in words the model can act on. */
export function actionError(what: string, ref: string, e: unknown): ToolOutcome {
  const msg = (e as Error).message ?? String(e);
  if (/ref .* not found|Unknown ref|no element|resolved to 0 elements|aria-ref/i.test(msg))
    return failed(`Element ${ref} was not found on the page. The page may have changed: take a new browser_snapshot and use a ref from it.`);
  if (/Timeout/i.test(msg)) return failed(`Timed out trying to ${what} ${ref}: ${msg.split('\n')[0]}. The element may be hidden, disabled or covered; take a new browser_snapshot.`);
  return failed(`Failed to ${what} ${ref}: ${msg.split('\n')[0]}`);
}

/** After an action that may navigate: wait (briefly) for the document to be ready. */
export async function settle(page: Page, ms = 3000): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout: ms }).catch(() => undefined);
}

export async function snapshotOf(s: ToolSession, b: BrowserSession, page: Page, full: boolean): Promise<{ snapshot: string; element_count: number }> {
  const raw = await page.ariaSnapshot({ mode: 'ai', timeout: b.settings.actionTimeoutMs });
  const view = full ? raw : compactSnapshot(raw);
  return { snapshot: truncateSnapshot(view, b.settings.snapshotThreshold, s.home), element_count: countRefs(raw) };
}

/** The refusal behind a main-document response served by the guard proxy, if it was one. */
export function proxyRefusal(resp: Response | null): string | null {
  const h = resp?.headers()['x-hermes-blocked'];
  if (!h) return null;
  try {
    return decodeURIComponent(h);
  } catch {
    return h;
  }
}

/**
 * Hops of a navigation the route check could not see (redirects are not intercepted): the first
 * one the URL policy refuses, checked after the fact for remote and cloud browsers.
 */
export async function blockedHop(b: BrowserSession, resp: Response | null, finalUrl: string): Promise<UrlBlock | null> {
  if (b.settings.backend === 'local') return null;
  const urls: string[] = [];
  for (let r = resp?.request() ?? null; r; r = r.redirectedFrom()) urls.push(r.url());
  urls.push(finalUrl);
  for (const u of urls) {
    const block = await b.guard.check(u);
    if (block) return block;
  }
  return null;
}

/** Leaves a page the browser must not stay on. */
export async function leave(page: Page): Promise<void> {
  await page.goto('about:blank', { timeout: 10_000 }).catch(() => undefined);
}

/** Things that happened during a call that the model should hear about (downloads, refused requests). */
export function extras(b: BrowserSession, since: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const dl = b.takeDownloads();
  if (dl.length) out.downloads = dl;
  const blocked = b.blockedSince(since);
  if (blocked.length) out.blocked_requests = blocked.slice(0, 5).map((x) => ({ url: x.url, reason: x.message }));
  return out;
}

export { browserSession, existingBrowserSession };
