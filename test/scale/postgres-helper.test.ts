// The test PostgreSQL helper leaves nothing behind: when the process that started a server is
// SIGKILLed (no exit handler runs), its watchdog stops the server and removes its files.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { until } from '../gateway/helpers.ts';
import { postgresUnavailable } from '../helpers/postgres.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

describe('test PostgreSQL helper', { skip: skip ?? false }, () => {
  it('the server dies with the process that started it, even on SIGKILL', { timeout: 120_000 }, async () => {
    const helper = join(import.meta.dirname, '..', 'helpers', 'postgres.ts');
    const script = `import { startPostgres } from ${JSON.stringify(helper)};\nconst c = await startPostgres();\nconsole.log(JSON.stringify({ port: c.port, url: c.url }));\nsetInterval(() => {}, 1000);\n`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    await until(() => out.includes('\n'), 60_000, 'the child to start PostgreSQL');
    const { port } = JSON.parse(out) as { port: number };
    assert.equal(await listening(port), true, 'the server is up while its parent lives');
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: `postgres://hermes@127.0.0.1:${port}/postgres` });
    await c.connect();
    const dir = String((await c.query('SHOW data_directory')).rows[0].data_directory);
    await c.end();
    child.kill('SIGKILL');
    // The watchdog checks every half second; wait (a bounded number of checks) for the port to close.
    let up = true;
    for (let i = 0; i < 120 && up; i++) {
      await new Promise((r) => setTimeout(r, 500));
      up = await listening(port);
    }
    assert.equal(up, false, 'the server stopped after its parent was killed');
    await until(() => !existsSync(dir), 30_000, 'the cluster directory to be removed');
  });
});
