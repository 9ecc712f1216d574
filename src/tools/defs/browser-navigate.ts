// browser_navigate: open a URL in the session's browser (starting it on the first call) and return
// the page's compact snapshot. The URL, every redirect hop and every request the page makes pass
// the SSRF rules and the website blocklist.
import type { Zod } from '../zod.ts';
import { browserTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    url: z.string().min(1).describe("The URL to navigate to (e.g., 'https://example.com')"),
  });

const BOT_PATTERNS = ['access denied', 'access to this page has been denied', 'blocked', 'bot detected', 'verification required', 'please verify', 'are you a robot', 'captcha', 'cloudflare', 'ddos protection', 'checking your browser', 'just a moment', 'attention required'];
const AUTH_URL = ['/login', '/log-in', '/signin', '/sign-in', '/sign_in', '/auth/login', '/users/sign_in', '/accounts/login', '/account/login', '/oauth/authorize', '/saml/sso', 'openid', 'okta.com', 'auth0.com', 'login.microsoftonline.com', 'accounts.google.com', 'github.com/login'];
const AUTH_TITLE = ['sign in', 'sign-in', 'log in', 'log-in', 'login', 'authenticate', 'authentication required', 'you must be logged in', 'please log in', 'session expired'];

const AUTH_HINT =
  'This page looks like a sign-in wall. The browser runs in its own profile and does not share cookies with the user’s browser, so logged-in pages redirect to a login screen. Suggest to the user: (1) /browser connect to attach Hermes to their running Chrome (started with --remote-debugging-port=9222) so their logins are used; (2) for GitHub, the `gh` CLI through the terminal tool. Do not type credentials into the form unless the user gave them for that purpose.';

export default browserTool({
  name: 'browser_navigate',
  emoji: '🌐',
  description:
    "Navigate to a URL in the browser. Starts the browser session and loads the page. Must be called before other browser tools. For simple information retrieval, prefer web_search or web_extract (faster, cheaper); for plain-text endpoints (.md, .txt, .json, raw files, APIs) prefer web_extract or curl in the terminal. Use the browser to interact with pages (click, fill forms, JavaScript-rendered content). Returns a compact snapshot of the page with element refs (@e1, @e2, …) — no need to call browser_snapshot right after navigating. If the response has 'auth_wall_warning', the page redirected to a login; relay the suggestions to the user instead of typing credentials.",
  schema,
  async run(a, ctx, c) {
    const s = ctx;
    const b = c.browserSession(s);
    let url = a.url.trim();
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && /^[\w-]+(\.[\w-]+)+(:\d+)?(\/|$)/.test(url)) url = `https://${url}`;
    const pre = await b.guard.check(url, { navigation: true });
    if (pre) return c.blockedResult(pre);
    let page;
    try {
      page = await b.page();
    } catch (e) {
      return c.failed(`Failed to start the browser: ${(e as Error).message}`);
    }
    const since = Date.now();
    let resp = null;
    try {
      resp = await page.goto(url, { waitUntil: 'domcontentloaded' });
      await page.waitForLoadState('load', { timeout: 5000 }).catch(() => undefined);
    } catch (e) {
      const refused = b.blockedSince(since)[0];
      if (refused) {
        await c.leave(page);
        return c.failed(`Blocked: the navigation reached an address that is not allowed. ${refused.message}`);
      }
      return c.failed(`Navigation failed: ${(e as Error).message.split('\n')[0]}`);
    }
    const refusal = c.proxyRefusal(resp);
    if (refusal) {
      await c.leave(page);
      return c.failed(`Blocked: redirect landed on an address that is not allowed. ${refusal}`);
    }
    const finalUrl = page.url();
    const hop = await c.blockedHop(b, resp, finalUrl);
    if (hop) {
      await c.leave(page);
      return c.failed(`Blocked: redirect landed on an address that is not allowed. ${hop.message}`);
    }
    const title = await page.title().catch(() => '');
    const out: Record<string, unknown> = { url: finalUrl, title };
    if (resp && resp.status() >= 400) out.status = resp.status();
    const lowTitle = title.toLowerCase();
    if (BOT_PATTERNS.some((p) => lowTitle.includes(p)))
      out.bot_detection_warning = `Page title '${title}' suggests bot detection. The site may have blocked this request; try other pages first, slow down, or use a cloud browser (Browserbase with advanced stealth).`;
    const lowUrl = finalUrl.toLowerCase();
    if (b.settings.backend !== 'cdp' && ((finalUrl !== url && AUTH_URL.some((f) => lowUrl.includes(f))) || AUTH_TITLE.some((f) => lowTitle.includes(f)))) out.auth_wall_warning = AUTH_HINT;
    if (b.firstNavigation) {
      b.firstNavigation = false;
      out.stealth_features = b.features;
    }
    try {
      Object.assign(out, await c.snapshotOf(s, b, page, false));
    } catch {
      /* the page is loaded; the model can ask for a snapshot */
    }
    return c.done({ ...out, ...c.extras(b, since) });
  },
});
