// `hermes dashboard [--port 9119] [--host 127.0.0.1] [--no-open]`, `hermes serve`: start the web
// dashboard (src/dashboard/server.ts), print its link, stay up until Ctrl+C / SIGTERM.
// A taken port prints `BACKEND_PORT_IN_USE port=<p>` on stdout and exits 75 (as Hermes does), so
// launchers can try another port.
import { spawn } from 'node:child_process';
import pkg from '../../package.json' with { type: 'json' };
import { CliError } from './errors.ts';
import { loadContext } from './context.ts';

interface DashOpts {
  port?: string;
  host?: string;
  open?: boolean;
  insecure?: boolean;
}

export const DEFAULT_PORT = 9119;

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(`(Could not open a browser; open the link above yourself.)\n`));
    child.unref();
  } catch {
    /* no browser here: the link is printed */
  }
}

async function start(o: DashOpts, open: boolean): Promise<void> {
  const port = o.port === undefined ? DEFAULT_PORT : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port needs a port number (got "${o.port}").`, 2);
  const host = o.host ?? '127.0.0.1';
  // The environment before .env is loaded: chats started from the page load .env themselves.
  const env = { ...process.env };
  const ctx = loadContext();
  if (o.insecure) process.stderr.write('--insecure is ignored: a dashboard on another address than loopback always needs a login.\n');
  const { startDashboard, PortInUseError, DashboardError } = await import('../dashboard/server.ts');
  const { CHAT_ARGS } = await import('../dashboard/chat.ts');
  let d;
  try {
    d = await startDashboard({ home: ctx.home, host, port, version: pkg.version, env, chatArgs: CHAT_ARGS });
  } catch (e) {
    if (e instanceof PortInUseError) {
      process.stdout.write(`BACKEND_PORT_IN_USE port=${e.port}\n`);
      process.stderr.write(`hermes: port ${e.port} is in use (another dashboard?). Use --port to pick another.\n`);
      process.exit(75);
    }
    if (e instanceof DashboardError) throw new CliError(e.message);
    throw e;
  }
  process.stdout.write(`Hermes dashboard: ${d.loginUrl}\n`);
  process.stdout.write(d.loginUrl === d.url ? 'Sign in with the dashboard.basic_auth login. Ctrl+C stops.\n' : 'The link carries a session token for this run only; keep it to yourself. Ctrl+C stops.\n');
  if (open) openBrowser(d.loginUrl);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.once('SIGHUP', stop);
  });
  await d.close();
  process.exit(0);
}

export async function dashboard(o: DashOpts): Promise<void> {
  await start(o, o.open !== false);
}

export async function serve(o: DashOpts): Promise<void> {
  await start(o, false);
}

export async function hashPassword(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const pw = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (!pw) throw new CliError('Give the password on stdin: printf %s "$PASSWORD" | hermes dashboard hash-password', 2);
  const { hashPassword: hash } = await import('../dashboard/auth.ts');
  process.stdout.write(`${hash(pw)}\n`);
}
