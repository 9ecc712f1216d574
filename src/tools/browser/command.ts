// What /browser does (src/commands/browser.ts is the registry entry): switch the session's browser
// tools to a CDP endpoint, back to the configured backend, or report on them.
import type { ToolSession } from '../types.ts';
import { redactCdpUrl } from './backends/types.ts';
import { browserSettings, browserUnavailable } from './config.ts';
import { browserSlot, existingBrowserSession } from './manager.ts';


/** The browser's DevTools endpoint answers: its browser name, or the reason it does not. */
async function probe(url: string): Promise<{ ok: true; browser: string } | { ok: false; why: string }> {
  let http = url.replace(/^ws(s?):\/\//i, 'http$1://').replace(/\/devtools\/browser\/.*$/, '').replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(http)) http = `http://${http}`;
  try {
    const r = await fetch(`${http}/json/version`, { signal: AbortSignal.timeout(5000) });
    if (!r.ok) return { ok: false, why: `HTTP ${r.status}` };
    const v = (await r.json()) as { Browser?: string };
    return { ok: true, browser: v.Browser ?? 'a browser' };
  } catch (e) {
    return { ok: false, why: (e as Error).cause ? String(((e as Error).cause as Error).message ?? (e as Error).cause) : (e as Error).message };
  }
}

async function dropBrowser(s: ToolSession): Promise<boolean> {
  const b = existingBrowserSession(s);
  s.slots.delete(browserSlot);
  return (await b?.close('switch')) ?? false;
}

export async function browserCommandAction(s: ToolSession, args: string, defaultUrl: string): Promise<string> {
  const [sub = 'status', ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (sub === 'connect') {
    const url = rest[0] || defaultUrl;
    const p = await probe(url);
    if (!p.ok)
      return `No browser answers at ${redactCdpUrl(url)} (${p.why}). Start Chrome with --remote-debugging-port=9222 (e.g. \`google-chrome --remote-debugging-port=9222\`), then run /browser connect again.`;
    s.env.BROWSER_CDP_URL = url;
    const closed = await dropBrowser(s);
    return `🌐 Browser tools now use ${p.browser} at ${redactCdpUrl(url)} (your logins and cookies apply).${closed ? ' The previous browser was closed.' : ''} /browser disconnect goes back to Hermes's own browser.`;
  }
  if (sub === 'disconnect') {
    if (!s.env.BROWSER_CDP_URL) return 'The browser tools are not connected to a browser of yours.';
    delete s.env.BROWSER_CDP_URL;
    await dropBrowser(s);
    const now = browserSettings(s);
    return `Disconnected. The browser tools use the ${now.backend === 'local' ? 'local Chromium' : now.backend} again (your browser keeps running).`;
  }
  if (sub === 'status') {
    const set = browserSettings(s);
    const b = existingBrowserSession(s);
    const lines = [`Backend: ${set.backend === 'cdp' ? `CDP ${redactCdpUrl(set.cdpUrl)}` : set.backend === 'local' ? `local Chromium (${set.executable ?? 'not found'}, ${set.headed ? 'headed' : 'headless'})` : set.backend}`];
    const why = browserUnavailable(s);
    if (why) lines.push(`Unavailable: ${why}`);
    const page = b?.isOpen ? b.existingPage() : null;
    lines.push(b?.isOpen ? `Open${page ? `: ${page.url()}` : ''} (closes after ${set.inactivitySecs}s idle)` : 'Not open (starts on the next browser_navigate)');
    return lines.join('\n');
  }
  return 'Usage: /browser [connect [url]|disconnect|status]';
}
