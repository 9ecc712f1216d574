// Issue 38 item 7: a terminal output flood is read as it comes and kept as a bounded head and tail.
// The real `hermes chat -q` runs a command printing 300 MB; the hermes process stays under 150 MB
// RSS (sampled from /proc while it runs) and the model gets the head, the tail and a note saying
// how much was left out. (2 GB and the read rate: `npm run bench -- terminal`.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OutputKeeper } from '../../src/tools/env/child.ts';
import { BIN, cleanEnv, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const rssKb = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

describe('OutputKeeper', () => {
  it('keeps exactly the head and the tail and counts what it dropped, however the chunks fall', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const head = 1 + Math.floor(rnd() * 20);
      const tail = 1 + Math.floor(rnd() * 30);
      const k = new OutputKeeper(head, tail);
      let all = '';
      const n = Math.floor(rnd() * 12);
      for (let i = 0; i < n; i++) {
        const c = Array.from({ length: Math.floor(rnd() * 40) }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join('');
        k.push(c);
        all += c;
      }
      const t = k.text();
      if (all.length <= head + tail) assert.equal(t, all);
      else assert.equal(t, all.slice(0, head) + all.slice(-tail));
      assert.equal(t.length + k.dropped, all.length);
    }
  });
});

describe('terminal output flood', { skip: process.platform !== 'linux' ? 'needs /proc' : false }, () => {
  it('300 MB of output: hermes stays under 150 MB RSS; the model gets head, tail and the amount left out', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const work = join(home, 'work');
    mkdirSync(work);
    const cmd = "echo FIRST-LINE; head -c 300000000 /dev/zero | tr '\\0' 'y' | fold -w 100; echo; echo LAST-LINE";
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: cmd, timeout: 300 } }] }, { text: 'Done.' });
    const child = spawn(process.execPath, [BIN, 'chat', '--yolo', '-q', 'flood'], { cwd: work, env: cleanEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKb(child.pid!))), 50);
    const code = await new Promise<number | null>((r) => child.on('close', r));
    clearInterval(sampler);
    assert.equal(code, 0, stderr);
    const msgs = fake.requests[fake.requests.length - 1].body.messages as { role: string; content: string }[];
    const out = msgs.find((m) => m.role === 'tool')!.content;
    assert.match(out, /FIRST-LINE/);
    assert.match(out, /LAST-LINE/);
    const omitted = Number(/\[… ([\d,]+) characters of output omitted …\]/.exec(out)?.[1].replace(/,/g, ''));
    assert.ok(omitted > 290_000_000, `omitted count ${omitted}`);
    assert.ok(peak > 0, 'sampled the process');
    assert.ok(peak < 150 * 1024, `peak RSS ${Math.round(peak / 1024)} MB`);
    console.log(`# peak RSS of hermes during a 300 MB flood: ${Math.round(peak / 1024)} MB`);
  });
});
