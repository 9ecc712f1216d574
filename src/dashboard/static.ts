// The web app's files (built by scripts/build.mjs into dist/web/), read once and kept in memory,
// and the two small pages the server writes itself: the sign-in page and the "not built" page.
// No inline scripts anywhere: the CSP allows scripts from this origin only.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { createHash } from 'node:crypto';

export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

/** Files under `dir` by URL path (`/assets/app.js`); empty when the app is not built. */
export function loadStatic(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  const walk = (d: string, prefix: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, `${prefix}${e.name}/`);
      else if (TYPES[extname(e.name)]) {
        const body = readFileSync(p);
        files.set(`/${prefix}${e.name}`, { body, type: TYPES[extname(e.name)], etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 16)}"` });
      }
    }
  };
  walk(dir, '');
  return files;
}

/**
 * A file inside `root` named by a URL path, or null when it escapes `root` or does not exist. Links
 * are followed to their end, and that end must be inside `root` too (a plugin's `dist/x.json` linked
 * to ~/.hermes/.env is not served). The path returned is the resolved one, so it is what is read.
 */
export function safeFile(root: string, urlPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath).replace(/^\/+/, '');
  } catch {
    return null;
  }
  const full = normalize(join(root, rel));
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  if (!existsSync(full) || !statSync(full).isFile() || !TYPES[extname(full)]) return null;
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(full);
    realRoot = realpathSync(root);
  } catch {
    return null;
  }
  if (!real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) return null;
  return real;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, inner: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><link rel="stylesheet" href="/assets/login.css"></head><body><main class="card"><h1>⚕ Hermes</h1>${inner}</main></body></html>`;
}

/** Sign-in: the session token (loopback) or a username and password (a remote bind). */
export function loginPage(o: { password: boolean; error?: string }): string {
  const err = o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : '';
  if (o.password)
    return page(
      'Sign in — Hermes',
      `<p>This dashboard is protected by a password.</p>${err}<form method="post" action="/auth/login"><label>Username <input name="username" autocomplete="username" required></label><label>Password <input name="password" type="password" autocomplete="current-password" required></label><button type="submit">Sign in</button></form>`,
    );
  return page(
    'Sign in — Hermes',
    `<p>Open the link <code>hermes dashboard</code> printed in your terminal: it carries this run's session token.</p>${err}<form method="post" action="/auth/login"><label>Or paste the token <input name="token" type="password" autocomplete="off" required></label><button type="submit">Open the dashboard</button></form>`,
  );
}

export function notBuiltPage(dir: string): string {
  return page('Hermes dashboard', `<p>The web app is not built (${esc(dir)} is missing). Run <code>npm run build</code> in the Hermes folder, then reload.</p>`);
}

export const LOGIN_CSS = `body{margin:0;min-height:100vh;display:grid;place-items:center;background:#0f1419;color:#e6e1cf;font:15px/1.5 system-ui,sans-serif}
.card{background:#151b23;border:1px solid #2a3340;border-radius:10px;padding:28px 32px;max-width:420px}
h1{margin:0 0 12px;font-size:22px;color:#e6b450}label{display:block;margin:12px 0 4px}input{display:block;width:100%;box-sizing:border-box;margin-top:4px;padding:8px;border-radius:6px;border:1px solid #2a3340;background:#0f1419;color:inherit}
button{margin-top:16px;padding:8px 16px;border:0;border-radius:6px;background:#e6b450;color:#0f1419;font-weight:600;cursor:pointer}.error{color:#f07178}code{background:#0f1419;padding:1px 4px;border-radius:4px}`;
