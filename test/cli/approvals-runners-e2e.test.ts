// Issue 38 end to end: the real `hermes chat -q` (no TTY) against the fake LLM, which asks for one
// command per class — programs that run another command, the missing classes, the hardline forms
// hidden behind them. Without --yolo nothing runs and the model is told why for each; with --yolo
// the hardline ones are still refused. Runs inside a read-only bubblewrap jail (own pid namespace,
// no capabilities, only the throwaway folders writable), so a miss cannot harm this machine.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { askCases, hardlineCases, machineCases, world, type Case } from '../policy/e2e-cases.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdio: 'ignore' });
const noJail = bwrap.error || bwrap.status !== 0 ? 'bubblewrap (bwrap) is not installed or cannot create a jail here' : null;
if (noJail) console.log(`# skipping the runner end-to-end tests: ${noJail}`);

function setup() {
  const hh = tempHome('hermes-runners-');
  const config = `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n  api_mode: chat_completions\n`;
  const w = world(join(hh, 'user-home'), hh, config);
  const work = join(hh, 'work');
  mkdirSync(work);
  const canary = join(w.home, 'canary.txt');
  writeFileSync(canary, 'alive\n');
  return { w, work, canary };
}

/** The tool results the model received, by call id, from the request after the tool calls. */
function toolResults(req: RecordedRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of req.body.messages as { role: string; tool_call_id?: string; content: unknown }[]) if (m.role === 'tool') out.set(m.tool_call_id!, typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  return out;
}

/** `hermes chat -q` in the jail, the fake model sending `cases` as terminal calls in one turn. */
async function runJailed(w: ReturnType<typeof world>, work: string, cases: Case[], yolo: boolean): Promise<{ code: number | null; stderr: string; results: Map<string, string> }> {
  const calls = cases.map((c, i) => ({ id: `call_${i}`, name: 'terminal', arguments: { command: c.command } }));
  const start = fake.requests.length;
  fake.enqueue({ toolCalls: calls }, { text: 'Done.' });
  const root = dirname(dirname(BIN));
  const jail = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run', '--ro-bind', root, root, '--bind', w.hh, w.hh,
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--chdir', work];
  const env = cleanEnv(w.hh, { HOME: w.home, TMPDIR: '/tmp' });
  const args = [...jail, process.execPath, BIN, 'chat', ...(yolo ? ['--yolo'] : []), '-q', 'run these'];
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn('bwrap', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    const t = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stderr });
    });
  });
  const req = fake.requests[start + 1];
  return { ...r, results: req ? toolResults(req) : new Map() };
}

describe('programs that run another command, end to end (hermes chat -q, no TTY, in a jail)', { skip: noJail ?? false }, () => {
  it('runs none of them without --yolo, and tells the model, for each, that it was refused and why', async () => {
    const { w, work, canary } = setup();
    const cases = [...askCases(w), ...machineCases(w), ...hardlineCases(w)];
    const r = await runJailed(w, work, cases, false);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(w.traces(), []);
    assert.equal(readFileSync(canary, 'utf8'), 'alive\n');
    assert.ok(existsSync(w.hh));
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const text = r.results.get(`call_${i}`) ?? '(no result)';
      if (!/BLOCKED/.test(text) || !c.why.test(text)) wrong.push(`${c.cls}: ${c.command}\n  → ${text.slice(0, 300)}`);
    });
    assert.deepEqual(wrong, []);
    // Asked-about commands name the setting a person can change; the secret never reached the model.
    assert.match(r.results.get('call_0')!, /single_query_mode: approve/);
    assert.ok(![...r.results.values()].some((t) => t.includes(w.secret)));
  });

  it('refuses every hardline form hidden behind a runner even with --yolo', async () => {
    const { w, work, canary } = setup();
    const cases = hardlineCases(w);
    const r = await runJailed(w, work, cases, true);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(canary, 'utf8'), 'alive\n');
    assert.deepEqual(w.traces(), []);
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const text = r.results.get(`call_${i}`) ?? '(no result)';
      if (!c.why.test(text)) wrong.push(`${c.cls}: ${c.command}\n  → ${text.slice(0, 300)}`);
    });
    assert.deepEqual(wrong, []);
  });

  it('runs the same runner shapes when the command inside is harmless (the refusals are not the jail\'s)', async () => {
    const { w, work } = setup();
    const cases: Case[] = [
      { cls: 'env -S', command: `env -S 'touch ${w.home}/pwned-1'`, why: /"exit_code": ?0/ },
      { cls: 'git alias', command: `git -c alias.x='!touch ${w.home}/pwned-2' x`, why: /"exit_code": ?0/ },
    ];
    const r = await runJailed(w, work, cases, false);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(w.home, 'pwned-1')), r.results.get('call_0'));
    assert.ok(existsSync(join(w.home, 'pwned-2')), r.results.get('call_1'));
  });
});
