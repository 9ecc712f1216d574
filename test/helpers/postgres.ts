// A throwaway PostgreSQL cluster for tests and benchmarks: Debian's server binaries
// (/usr/lib/postgresql/<v>/bin), initdb into a temp directory, pg_ctl on a free loopback port with
// trust auth (loopback only, test data only). PostgreSQL refuses to run as root, so under root the
// cluster runs as the `postgres` system user (the Debian package creates it) through runuser.
// `startPostgres()` returns null with a reason when the binaries or that user are missing.
// A watchdog (a detached child) stops the server and removes its files when the test process is
// gone, however it ended (SIGKILL, a crash): no server is left behind.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PgCluster {
  /** postgres://hermes@127.0.0.1:<port>/hermes */
  url: string;
  port: number;
  /** A fresh, empty database on this cluster; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * Restarts the server as a crash would (`pg_ctl restart -m immediate`: every connection is cut,
   * every advisory lock released). With `downMs` it stays down that long between stop and start.
   */
  restart(opts?: { downMs?: number }): Promise<void>;
  stop(): void;
}

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function userIds(name: string): { uid: number; gid: number } | null {
  const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) return null;
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Why PostgreSQL tests cannot run here, or null when they can. */
export function postgresUnavailable(): string | null {
  if (!binDir()) return 'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)';
  if (process.getuid?.() === 0 && !userIds('postgres')) return 'running as root and there is no `postgres` user to run the server as';
  return null;
}

/** Waits for the test process (argv[1]) to disappear, then stops the server and removes its directory. */
const WATCHDOG = `
const [parent, dir, cmd] = process.argv.slice(1);
const { execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const alive = () => { try { process.kill(Number(parent), 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const t = setInterval(() => {
  if (alive()) return;
  clearInterval(t);
  const [file, ...args] = JSON.parse(cmd);
  try { execFileSync(file, args, { stdio: 'ignore', cwd: dir }); } catch {}
  rmSync(dir, { recursive: true, force: true });
}, 500);
`;

/**
 * A fresh data directory at `data`: a copy of a template made once per machine and server version
 * (initdb costs seconds of CPU; a copy of its result, a fraction of that; every cluster is still its
 * own). The first caller runs initdb and keeps a copy as the template; a template that is being
 * written by another process is never seen half-made (it appears by rename).
 */
function initData(bin: string, data: string, run: (cmd: string, args: string[]) => unknown): void {
  const initdb = ['-U', 'hermes', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'];
  const key = createHash('sha256').update(`${bin} ${initdb.join(' ')}`).digest('hex').slice(0, 12);
  const template = join(tmpdir(), `hermes-pg-template-${key}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(template, 'PG_VERSION'))) {
    try {
      // cp -a keeps the owner (the postgres user, under root) and the modes initdb set.
      execFileSync('cp', ['-a', template, data], { stdio: 'pipe' });
      return;
    } catch {
      rmSync(data, { recursive: true, force: true });
    }
  }
  run('initdb', ['-D', data, ...initdb]);
  const partial = `${template}.${process.pid}`;
  try {
    execFileSync('cp', ['-a', data, partial], { stdio: 'pipe' });
    renameSync(partial, template);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another process made it first
  }
}

export async function startPostgres(opts: { settings?: Record<string, string> } = {}): Promise<PgCluster | null> {
  const why = postgresUnavailable();
  if (why) return null;
  const bin = binDir()!;
  const root = process.getuid?.() === 0;
  const owner = root ? userIds('postgres')! : null;
  const dir = mkdtempSync(join(tmpdir(), 'hermes-pg-'));
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (cmd: string, args: string[]) =>
    owner ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { stdio: 'pipe', cwd: dir }) : execFileSync(join(bin, cmd), args, { stdio: 'pipe', cwd: dir });
  initData(bin, data, run);
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '200',
    ...opts.settings,
  };
  const o = Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
  run('pg_ctl', ['-D', data, '-o', o, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  const stopArgs = ['-D', data, '-m', 'immediate', '-w', 'stop'];
  const stopCmd = owner ? ['runuser', '-u', 'postgres', '--', join(bin, 'pg_ctl'), ...stopArgs] : [join(bin, 'pg_ctl'), ...stopArgs];
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), dir, JSON.stringify(stopCmd)], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (watchdog.pid) process.kill(watchdog.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const runAsync = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [file, argv] = owner ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args];
      const c = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
      let err = '';
      c.stderr!.on('data', (d) => (err += d));
      c.on('error', reject);
      c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${err}`))));
    });
  const restart = async ({ downMs = 0 }: { downMs?: number } = {}) => {
    if (stopped) throw new Error('the server was stopped');
    if (!downMs) return runAsync('pg_ctl', ['-D', data, '-o', o, '-l', join(dir, 'server.log'), '-m', 'immediate', '-w', '-t', '60', 'restart']);
    await runAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    await new Promise((r) => setTimeout(r, downMs));
    await runAsync('pg_ctl', ['-D', data, '-o', o, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  };
  const url = `postgres://hermes@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop,
    restart,
    async createDatabase(name: string) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return `postgres://hermes@127.0.0.1:${port}/${name}`;
    },
  };
}
