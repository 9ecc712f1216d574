// test-timeout: 120
// Output floods stay bounded everywhere a command's output is collected (issue 29 item 5, after
// issue 38's foreground bound): the persistent local shell keeps a head and tail of a command's
// output (as a one-shot command does) and says how much it left out, and a background job flooding
// it between commands costs nothing; the background process registry keeps its bounded tail with
// the count of what it dropped, and the last line is there. Each in its own Node process, whose
// heap is measured.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const src = (p: string) => JSON.stringify(new URL(`../../src/${p}`, import.meta.url).pathname);

/** Runs an ES module in a fresh Node and returns what it printed last (JSON). */
function runModule(code: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 100_000, env: { ...process.env, HERMES_SANDBOX: 'off' } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

const MB = 1024 * 1024;

describe('output bounds', () => {
  it('the persistent local shell keeps the head and tail of a flood, and the next command is clean', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bounds-'));
    const r = runModule(`
      import { localPersistentBackend } from ${src('tools/env/local-shell.ts')};
      const b = localPersistentBackend({ cwd: ${JSON.stringify(dir)}, env: process.env });
      const sig = () => new AbortController().signal;
      let peak = 0;
      const iv = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
      const base = process.memoryUsage().heapUsed;
      await b.exec('cd /tmp', { timeoutMs: 20000, signal: sig() });
      const flood = await b.exec("echo FIRST; head -c ${60 * MB} /dev/zero | tr '\\\\0' y; echo; echo LAST; (exit 3)", { timeoutMs: 60000, signal: sig() });
      // A job left running writes between commands: nothing keeps it.
      await b.exec("(head -c ${20 * MB} /dev/zero | tr '\\\\0' z; echo) &", { timeoutMs: 20000, signal: sig() });
      await new Promise((r) => setTimeout(r, 1500));
      const next = await b.exec('echo next; pwd', { timeoutMs: 20000, signal: sig() });
      clearInterval(iv);
      await b.close();
      console.log(JSON.stringify({ len: flood.output.length, dropped: flood.dropped, code: flood.exitCode,
        head: flood.output.slice(0, 6), tail: flood.output.slice(-5), next: next.output.slice(0, 200), growthMb: (peak - base) / 1048576 }));
    `);
    assert.equal(r.code, 3);
    assert.equal(r.head, 'FIRST\n');
    assert.equal(r.tail, 'LAST\n');
    assert.ok((r.len as number) <= 4 * MB + 16384 + 10, `kept ${r.len}`);
    assert.equal((r.len as number) + (r.dropped as number), 60 * MB + 'FIRST\n\nLAST\n'.length);
    assert.match(r.next as string, /^next\n\/tmp\n?$/);
    assert.ok((r.growthMb as number) < 120, `heap grew by ${r.growthMb} MB`);
  });

  it('the background registry keeps a bounded tail and counts what it dropped', () => {
    const home = mkdtempSync(join(tmpdir(), 'bounds-home-'));
    const r = runModule(`
      import { ProcessRegistry, MAX_OUTPUT_CHARS } from ${src('tools/process-registry.ts')};
      import { LocalBackend } from ${src('tools/env/local.ts')};
      const reg = new ProcessRegistry(${JSON.stringify(home)});
      const t = performance.now();
      const p = await reg.spawn(new LocalBackend({ cwd: '/tmp', env: process.env }), "head -c ${40 * MB} /dev/zero | tr '\\\\0' y; echo; echo LAST", { cwd: '/tmp', pty: false, taskId: 't' });
      await p.ended;
      console.log(JSON.stringify({ len: p.output.length, dropped: p.dropped, max: MAX_OUTPUT_CHARS, tail: p.output.slice(-5), code: p.exitCode, s: (performance.now() - t) / 1000 }));
    `);
    assert.equal(r.code, 0);
    assert.equal(r.tail, 'LAST\n');
    assert.ok((r.len as number) <= 2 * (r.max as number), `kept ${r.len}`);
    assert.equal((r.len as number) + (r.dropped as number), 40 * MB + 'LAST\n\n'.length);
  });
});
