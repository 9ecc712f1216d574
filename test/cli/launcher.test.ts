// bin/hermes.mjs on a Node older than 22 runs the real hermes under the provisioned Node 24 as a
// child. A supervisor (systemd, Docker, a shell's `kill`) only knows the launcher's pid: its signals
// must reach the child, the child's exit must become the launcher's, and nothing may be left
// running (or holding a port) afterwards. Run with the system's old Node, as a user on Node 20 would.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import { freePort, portBusy } from '../helpers/net.ts';

function oldNode(): { path: string } | string {
  for (const p of [process.env.HERMES_TEST_OLD_NODE, '/usr/bin/node', '/usr/local/bin/node'].filter(Boolean) as string[]) {
    if (!existsSync(p)) continue;
    const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(v.split('.')[0]) < 22) return { path: p };
  }
  return 'no Node older than 22 on this machine (/usr/bin/node; or set HERMES_TEST_OLD_NODE)';
}
const old = oldNode();
const noOldNode = typeof old === 'string' ? old : null;
if (noOldNode) console.log(`# skipping launcher signal tests: ${noOldNode}`);
const OLD = typeof old === 'string' ? '' : old.path;



const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function gatewayHome(port: number): string {
  const home = tempHome();
  writeFileSync(join(home, '.env'), `API_SERVER_ENABLED=true\nAPI_SERVER_PORT=${port}\n`);
  return home;
}

interface Launched {
  launcher: ChildProcess;
  home: string;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The real gateway (the launcher's child), from gateway.pid. */
  childPid: number;
}

/** `hermes gateway run` through the launcher on the old Node, in its own session (no terminal), as under a supervisor. */
async function launchGateway(): Promise<Launched> {
  const port = await freePort();
  const home = gatewayHome(port);
  const launcher = spawn(OLD, [BIN, 'gateway', 'run'], { env: cleanEnv(home), cwd: home, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  launcher.stdout!.on('data', (d) => (out += d));
  launcher.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => launcher.on('exit', (code, signal) => r({ code, signal })));
  await until(`the API server on ${port}\n${out}`, () => /api_server: connected/.test(out));
  const info = JSON.parse(readFileSync(join(home, 'gateway.pid'), 'utf8')) as { pid: number };
  assert.notEqual(info.pid, launcher.pid, 'the gateway runs in a child of the launcher');
  assert.ok(await portBusy(port));
  return { launcher, home, port, output: () => out, exited, childPid: info.pid };
}

const { describe: gated, it: git } = gatedSuite(noOldNode);

gated('the Node 24 launcher under an old Node', () => {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    git(`${sig} to the launcher drains the real gateway; exit 0, port free, nothing left running`, async () => {
      const g = await launchGateway();
      process.kill(g.launcher.pid!, sig);
      const r = await g.exited;
      assert.deepEqual(r, { code: 0, signal: null }, g.output());
      assert.match(g.output(), new RegExp(`gateway(?:\\.run)?: ${sig}: draining`));
      assert.match(g.output(), /gateway(?:\.run)?: stopped/);
      assert.doesNotMatch(g.output(), /second interrupt/, 'the signal arrived once');
      assert.equal(alive(g.childPid), false);
      assert.equal(await portBusy(g.port), false, 'the port is free again');
    });
  }

  git('SIGHUP reaches the child; the launcher dies of the same signal', async () => {
    const g = await launchGateway();
    process.kill(g.launcher.pid!, 'SIGHUP');
    const r = await g.exited;
    assert.deepEqual(r, { code: null, signal: 'SIGHUP' }, g.output());
    await until('the child to exit', () => !alive(g.childPid));
    assert.equal(await portBusy(g.port), false);
  });

  git('a launcher killed outright (SIGKILL) does not leave the gateway running as an orphan', async () => {
    const g = await launchGateway();
    process.kill(g.launcher.pid!, 'SIGKILL');
    await g.exited;
    await until('the orphaned gateway to stop', async () => !alive(g.childPid) && !(await portBusy(g.port)));
    assert.match(readFileSync(join(g.home, 'logs', 'gateway.log'), 'utf8'), /gateway(?:\.run)?: SIGTERM: draining/);
  });

  git('exit codes pass through', async () => {
    const home = tempHome();
    const r = spawnSync(OLD, [BIN, 'config', 'set'], { env: cleanEnv(home), cwd: home, encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    const ok = spawnSync(OLD, [BIN, '--version'], { env: cleanEnv(home), cwd: home, encoding: 'utf8' });
    assert.equal(ok.status, 0);
    assert.match(ok.stdout, /^hermes \d/);
  });
});

const term = gatedSuite(noOldNode ?? tmuxAvailable());
term.describe('Ctrl+C at a terminal, through the launcher', () => {
  term.it('reaches the gateway once: it drains and exits 0 (a second interrupt would exit 130)', async () => {
    const port = await freePort();
    const home = gatewayHome(port);
    const t = startHermes(['gateway', 'run'], { home, node: OLD });
    try {
      await t.waitFor(/api_server: connected/, { timeoutMs: 30_000 });
      t.keys('C-c');
      assert.equal(await t.exitCode(30_000), 0, t.screen());
      assert.match(t.screen(), /gateway(?:\.run)?: SIGINT: draining/);
      assert.doesNotMatch(t.screen(), /second interrupt/);
      assert.equal(await portBusy(port), false);
    } finally {
      t.kill();
    }
  });
});
