// The two halves of a browser sign-in a CLI owns: the loopback listener the authorization server
// redirects to (127.0.0.1 only, one redirect with the expected `state`, then closed; a deadline), and
// opening the authorization URL in the person's browser ($BROWSER first, as other CLIs do).
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackResult {
  code: string;
  iss?: string;
}

export interface CallbackServer {
  port: number;
  /** Resolves with the code of the first redirect carrying `state`; rejects on an error redirect or the deadline. */
  wait(state: string, timeoutMs: number): Promise<CallbackResult>;
  close(): void;
}

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;margin:3em"><h2>${title}</h2><p>${text}</p></body></html>`;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Listens on 127.0.0.1:`port` (0: a free port) for `GET <path>?code=…&state=…`. */
export async function startCallbackServer(port = 0, path = '/callback'): Promise<CallbackServer> {
  let expected: string | null = null;
  let settle: { resolve: (r: CallbackResult) => void; reject: (e: Error) => void } | null = null;
  let early: { code?: string; state?: string; error?: string; iss?: string } | null = null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const q = { code: url.searchParams.get('code') ?? undefined, state: url.searchParams.get('state') ?? undefined, error: url.searchParams.get('error') ?? undefined, iss: url.searchParams.get('iss') ?? undefined };
    if (expected === null) early = q;
    else if (q.state !== expected) {
      // Not our flow (a stale tab, or a forged redirect): refused, and the listener keeps waiting.
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('Authorization failed', 'This sign-in link does not belong to the login Hermes is waiting for. Start again from Hermes.'));
      return;
    }
    const ok = !!q.code && !q.error;
    res
      .writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
      .end(ok ? page('Authorization successful', 'You can close this tab and return to Hermes.') : page('Authorization failed', `Error: ${esc(q.error ?? 'no code in the redirect')}`));
    if (expected !== null) deliver(q);
  });
  const deliver = (q: { code?: string; error?: string; iss?: string; state?: string }) => {
    if (!settle) return;
    const s = settle;
    settle = null;
    close();
    if (q.code && !q.error) s.resolve({ code: q.code, iss: q.iss });
    else s.reject(new Error(`the authorization server refused: ${q.error ?? 'no code in the redirect'}`));
  };
  const close = () => {
    server.close();
    server.closeAllConnections?.();
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new Error(`the OAuth callback port ${port} is in use; close the other login or set a free oauth.redirect_port`) : e),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  server.unref(); // held for a sign-in that may never be needed: no reason to stay alive
  return {
    port: (server.address() as AddressInfo).port,
    wait(state: string, timeoutMs: number) {
      expected = state;
      server.ref(); // a sign-in under way keeps the process alive until it ends or times out
      return new Promise<CallbackResult>((resolve, reject) => {
        const timer = setTimeout(() => {
          settle = null;
          close();
          reject(new Error(`no authorization arrived within ${Math.round(timeoutMs / 1000)}s (finish the sign-in in the browser, or raise oauth.timeout)`));
        }, timeoutMs);
        timer.unref?.();
        settle = {
          resolve: (r) => (clearTimeout(timer), resolve(r)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        };
        const e = early;
        early = null;
        if (e && e.state === state) deliver(e);
      });
    },
    close,
  };
}

/** Whether a browser can plausibly be opened here (a local display, or $BROWSER). */
export function canOpenBrowser(env: NodeJS.ProcessEnv): boolean {
  if (env.BROWSER) return true;
  if (env.SSH_CLIENT || env.SSH_TTY) return false;
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return !!(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * Opens `url` in the person's browser: each command of $BROWSER (colon-separated, `%s` standing for
 * the URL, else it is appended) in turn, else the platform's opener. Returns whether one started.
 */
export async function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const commands: [string, string[]][] = [];
  for (const entry of (env.BROWSER ?? '').split(':').map((s) => s.trim()).filter(Boolean)) {
    const words = entry.split(/\s+/);
    const args = words.slice(1).map((w) => w.replace(/%s/g, url));
    if (!entry.includes('%s')) args.push(url);
    commands.push([words[0], args]);
  }
  if (!commands.length && canOpenBrowser(env)) {
    if (process.platform === 'darwin') commands.push(['open', [url]]);
    else if (process.platform === 'win32') commands.push(['rundll32', ['url.dll,FileProtocolHandler', url]]);
    else commands.push(['xdg-open', [url]]);
  }
  for (const [cmd, args] of commands) {
    const started = await new Promise<boolean>((resolve) => {
      try {
        const child = spawn(cmd, args, { stdio: 'ignore', detached: true, env });
        child.once('error', () => resolve(false));
        child.once('spawn', () => {
          child.unref();
          resolve(true);
        });
      } catch {
        resolve(false);
      }
    });
    if (started) return true;
  }
  return false;
}
