// `hermes dashboard` / `hermes serve`: the HTTP server (Hono on node:http) with the web app, the
// JSON API (one file per tab under api/), and the Chat tab's WebSockets (/api/pty, /api/events).
//
// Safety, in order: the Host header must name this server (DNS rebinding); every /api route and
// WebSocket needs the session token (cookie, or a header for scripts); writes that ride on the
// cookie must come from the page's own origin (CSRF), with a JSON body; every response carries a
// strict CSP; nothing secret is ever sent (keys are masked, and only ever written).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Context, Hono } from 'hono';
import { authorized, csrfSafe, hostAllowed, isLoopbackHost, LoginLimiter, newToken, passwordLogin, remoteAddress, sameOrigin, sameSecret, sessionCookie, type Gate, type PasswordLogin } from './auth.ts';
import { ChatHub } from './chat.ts';
import { createContext, type DashboardContext } from './context.ts';
import { discoverPlugins, mountPluginApis, type PluginManifest } from './plugins.ts';
import { loadStatic, LOGIN_CSS, loginPage, notBuiltPage, safeFile, TYPES, type StaticFile } from './static.ts';
import { registerAnalytics } from './api/analytics.ts';
import { registerConfig } from './api/config.ts';
import { registerCron } from './api/cron.ts';
import { registerGateway } from './api/gateway.ts';
import { registerDelegations } from './api/delegations.ts';
import { registerLogs } from './api/logs.ts';
import { registerSessions } from './api/sessions.ts';
import { registerSkills } from './api/skills.ts';
import { registerStatus } from './api/status.ts';
import { loadConfig } from '../state/config.ts';
import { readEnvFile } from '../state/env.ts';
import { packageRoot, paths } from '../state/paths.ts';
import { extname } from 'node:path';
import { readFileSync } from 'node:fs';

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export class DashboardError extends Error {}
export class PortInUseError extends DashboardError {
  readonly port: number;
  constructor(port: number) {
    super(`port ${port} is in use`);
    this.port = port;
  }
}

export interface DashboardOptions {
  home: string;
  host: string;
  port: number;
  version: string;
  /** The environment to start from (children inherit it). */
  env: NodeJS.ProcessEnv;
  chatArgs: string[];
  /** Where the built web app is (default dist/web in the package). */
  webDir?: string;
}

export interface RunningDashboard {
  url: string;
  /** The URL with the session token (loopback binds), to open in a browser. */
  loginUrl: string;
  port: number;
  token: string;
  ctx: DashboardContext;
  close(): Promise<void>;
}

/** Starts the server. Throws PortInUseError or DashboardError (with the fix) before listening. */
export async function startDashboard(o: DashboardOptions): Promise<RunningDashboard> {
  const fileEnv = { ...o.env };
  for (const [k, v] of readEnvFile(paths.env(o.home))) fileEnv[k] = v;
  const config: Record<string, unknown> = loadConfig(o.home, fileEnv).config;
  const dashCfg = (config.dashboard ?? {}) as Record<string, unknown>;
  const login: PasswordLogin | null = passwordLogin(config, fileEnv);
  const fixedToken = fileEnv.HERMES_DASHBOARD_SESSION_TOKEN || (typeof dashCfg.token === 'string' ? dashCfg.token : '');
  const loopback = isLoopbackHost(o.host);
  if (!loopback && !login && !fixedToken)
    throw new DashboardError(
      `Refusing to bind the dashboard to ${o.host}: anyone who can reach that address could read your sessions and change your keys. ` +
        'Set a login first (dashboard.basic_auth.username and password_hash in config.yaml; `hermes dashboard hash-password` makes the hash), ' +
        'or keep it on 127.0.0.1 and reach it over an SSH tunnel.',
    );
  const token = fixedToken || newToken();
  const ctx = createContext({ home: o.home, version: o.version, baseEnv: o.env, chatArgs: o.chatArgs, bin: join(packageRoot(), 'bin', 'hermes.mjs') });
  const hub = new ChatHub(ctx);
  const webDir = o.webDir ?? join(packageRoot(), 'dist', 'web');
  const files = loadStatic(webDir);
  const { plugins, problems } = discoverPlugins(o.home);

  const { Hono } = await import('hono');
  const app = new Hono();
  const gate: Gate = { token, host: o.host, port: o.port };
  const limiter = new LoginLimiter();

  app.use('*', async (c, next) => {
    if (!hostAllowed(gate, headersOf(c))) return c.text(`This server answers as http://${o.host}:${gate.port}/ only.`, 421);
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
  });

  app.use('/api/*', async (c, next) => {
    const h = headersOf(c);
    if (!authorized(gate, h)) return c.json({ error: 'Not signed in.', fix: 'Open the link `hermes dashboard` printed (it carries the session token).' }, 401);
    if (!csrfSafe(c.req.method, h)) return c.json({ error: 'Cross-origin request refused.', fix: 'Use the dashboard page itself, or send the token in an Authorization header.' }, 403);
    if (!['GET', 'HEAD', 'OPTIONS', 'DELETE'].includes(c.req.method) && !/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
      return c.json({ error: 'Send JSON (Content-Type: application/json).' }, 415);
    if (Number(c.req.header('content-length') ?? 0) > 2 * 1024 * 1024) return c.json({ error: 'Request body too large (2 MB at most).' }, 413);
    await next();
    c.header('Cache-Control', 'no-store');
  });

  registerStatus(app, ctx, { plugins: () => plugins, problems: () => problems, chats: () => hub.count });
  registerSessions(app, ctx);
  registerConfig(app, ctx);
  registerAnalytics(app, ctx);
  registerLogs(app, ctx);
  registerCron(app, ctx);
  registerSkills(app, ctx);
  registerGateway(app, ctx);
  registerDelegations(app, ctx);
  problems.push(...(await mountPluginApis(app, ctx, plugins)));
  app.get('/api/plugins', (c) => c.json({ plugins: plugins.map(({ dir: _d, ...p }) => p), problems }));
  app.all('/api/*', (c) => c.json({ error: `No API route ${c.req.method} ${c.req.path}.` }, 404));

  // ---- sign-in ----------------------------------------------------------------------------------
  app.post('/auth/login', async (c) => {
    const h = headersOf(c);
    if (!sameOrigin(h)) return c.text('Cross-origin sign-in refused.', 403);
    const addr = remoteAddress(incoming(c));
    if (!limiter.allow(addr)) return c.html(loginPage({ password: !!login, error: 'Too many attempts; wait a minute.' }), 429);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const ok = login ? String(form.username ?? '') === login.username && login.check(String(form.password ?? '')) : sameSecret(String(form.token ?? '').trim(), token);
    if (!ok) {
      limiter.fail(addr);
      ctx.log?.write('WARNING', 'hermes_cli.web_server', `failed sign-in from ${addr}`);
      return c.html(loginPage({ password: !!login, error: login ? 'Wrong username or password.' : 'That token is not this run’s.' }), 401);
    }
    c.header('Set-Cookie', sessionCookie(token));
    return c.redirect('/', 303);
  });
  app.post('/auth/logout', (c) => {
    if (!sameOrigin(headersOf(c))) return c.text('Cross-origin request refused.', 403);
    c.header('Set-Cookie', sessionCookie('', 0));
    return c.redirect('/', 303);
  });

  // ---- the app ------------------------------------------------------------------------------------
  const serveFile = (c: Context, f: StaticFile, cache: string) => {
    if (c.req.header('if-none-match') === f.etag) return c.body(null, 304);
    c.header('Content-Type', f.type);
    c.header('ETag', f.etag);
    c.header('Cache-Control', cache);
    return c.body(new Uint8Array(f.body));
  };
  app.get('/assets/login.css', (c) => {
    c.header('Content-Type', TYPES['.css']);
    return c.body(LOGIN_CSS);
  });
  app.get('/assets/*', (c) => {
    const f = files.get(c.req.path);
    return f ? serveFile(c, f, 'no-cache') : c.text('Not found', 404);
  });
  app.get('/plugins/:name/*', (c) => {
    if (!authorized(gate, headersOf(c))) return c.text('Not signed in.', 401);
    const p = plugins.find((x) => x.name === c.req.param('name'));
    const rel = c.req.path.slice(`/plugins/${c.req.param('name')}/`.length);
    const file = p ? safeFile(p.dir, rel) : null;
    if (!file) return c.text('Not found', 404);
    c.header('Content-Type', TYPES[extname(file)] ?? TYPES[extname(rel)] ?? 'application/octet-stream');
    c.header('Cache-Control', 'no-cache');
    return c.body(new Uint8Array(readFileSync(file)));
  });
  app.get('*', (c) => {
    const h = headersOf(c);
    const t = c.req.query('token');
    if (t !== undefined) {
      // The printed link: trade the token for the cookie, and drop it from the address bar.
      if (!sameSecret(t, token)) return c.html(loginPage({ password: !!login, error: 'That link is from another run of the dashboard (or mistyped). Use the one printed now.' }), 401);
      c.header('Set-Cookie', sessionCookie(token));
      const u = new URL(c.req.url);
      u.searchParams.delete('token');
      return c.redirect(`${u.pathname}${u.search}`, 303);
    }
    if (!authorized(gate, h)) return c.html(loginPage({ password: !!login }), 401);
    const index = files.get('/index.html');
    if (!index) return c.html(notBuiltPage(webDir), 503);
    return serveFile(c, index, 'no-cache');
  });

  app.onError((e, c) => {
    ctx.log?.write('ERROR', 'hermes_cli.web_server', `${c.req.method} ${c.req.path}: ${e.stack ?? e.message}`);
    return c.json({ error: `The server hit an error: ${e.message}`, fix: 'See the gui log under Logs.' }, 500);
  });

  const { getRequestListener } = await import('@hono/node-server');
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const server: Server = createServer(getRequestListener(app.fetch));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const refuse = (code: number, text: string) => {
      socket.end(`HTTP/1.1 ${code} ${text}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${text}\n`);
    };
    if (!hostAllowed(gate, req.headers)) return refuse(421, 'Misdirected Request');
    if (!authorized(gate, req.headers)) return refuse(401, 'Unauthorized');
    // A WebSocket from another site would carry our cookie: only the page's own origin may open one.
    if (!req.headers.origin || !sameOrigin(req.headers)) return refuse(403, 'Forbidden');
    if (url.pathname !== '/api/pty' && url.pathname !== '/api/events') return refuse(404, 'Not Found');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const open = url.pathname === '/api/pty' ? hub.openPty(ws, url.searchParams) : hub.openEvents(ws, url.searchParams);
      open.catch((e) => {
        ctx.log?.write('ERROR', 'hermes_cli.web_server', `${url.pathname}: ${(e as Error).message}`);
        ws.close(1011, 'server error');
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortInUseError(o.port) : e.code === 'EACCES' ? new DashboardError(`Not allowed to listen on port ${o.port}; pick one above 1024 with --port.`) : e));
    server.listen(o.port, o.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  gate.port = port;
  const shown = o.host.includes(':') ? `[${o.host}]` : o.host === '0.0.0.0' ? '127.0.0.1' : o.host;
  const url = `http://${shown}:${port}/`;
  ctx.log?.write('INFO', 'hermes_cli.web_server', `dashboard listening on http://${o.host}:${port}/ (${login ? 'password login' : 'session token'})`);
  return {
    url,
    loginUrl: login ? url : `${url}?token=${token}`,
    port,
    token,
    ctx,
    close: async () => {
      hub.closeAll();
      for (const ws of wss.clients) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      ctx.close();
    },
  };
}

function incoming(c: Context): IncomingMessage {
  return (c.env as { incoming: IncomingMessage }).incoming;
}

function headersOf(c: Context): IncomingMessage['headers'] {
  return incoming(c).headers;
}

export type { Hono, PluginManifest };
