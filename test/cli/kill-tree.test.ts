// Killing `hermes` kills its tool processes: a real one-shot runs a background command and a
// foreground one, each leaving a grandchild `sleep`; after SIGTERM to hermes none of them survives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../src/tools/env/child.ts';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

async function waitFor<T>(what: string, get: () => T | null, ms = 60_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = get();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const pidIn = (f: string) => () => (existsSync(f) && /^\d+\n$/.test(readFileSync(f, 'utf8')) ? Number(readFileSync(f, 'utf8')) : null);

describe('killing hermes', () => {
  for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} ends its tool processes (background and foreground trees)`, async () => {
      const home = tempHome('hermes-kill-');
      writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n`);
      fake.enqueue(
        { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 600 & echo $! > bg.pid; wait', background: true } }] },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 600 & echo $! > fg.pid; wait', timeout: 170 } }] },
        { text: 'never reached' },
      );
      // Work in a folder of its own: the home's top level is sealed by the OS sandbox (it holds protected files).
      const work = join(home, 'work');
      mkdirSync(work);
      const child = spawn(process.execPath, [BIN, 'chat', '-q', 'start things'], { cwd: work, env: cleanEnv(home), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
      try {
        const bg = await waitFor('the background sleep', pidIn(join(work, 'bg.pid')));
        const fg = await waitFor('the foreground sleep', pidIn(join(work, 'fg.pid')));
        assert.ok(isAlive(bg) && isAlive(fg), 'both trees run before the kill');
        child.kill(sig);
        const how = await exited;
        assert.ok(how === sig || typeof how === 'number', `hermes ended (${how}): ${stderr}`);
        await waitFor('the tool processes to end', () => (!isAlive(bg) && !isAlive(fg) ? true : null), 10_000);
      } finally {
        child.kill('SIGKILL');
        for (const f of ['bg.pid', 'fg.pid']) {
          const p = pidIn(join(work, f))();
          if (p && isAlive(p)) process.kill(p, 'SIGKILL');
        }
      }
    });
  }
});
