// test-timeout: 180
// The sandboxed process server (issue 29: ≤ 5 ms sandbox cost per command). Through the real
// `hermes chat` and the fake LLM: the session's foreground commands are children of one process
// inside the sandbox (the same parent for every step), each with the environment Hermes chose
// (secrets filtered, the rest passed), its workdir, its exit code, its output (stdout and stderr),
// and a timeout kills it; the sandbox still refuses protected writes and explains them. In process:
// a policy change (what /sandbox does) restarts the server with the new policy, and a server that
// cannot start leaves commands on a bwrap of their own, still confined. A background
// notify_on_complete process runs confined too and its end comes back as a follow-up turn.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { isAlive } from '../../src/tools/env/child.ts';
import { LocalBackend } from '../../src/tools/env/local.ts';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--cap-drop', 'ALL', 'true'], { stdio: 'ignore' });
const noBwrap = process.platform !== 'linux' ? 'not Linux' : probe.error || probe.status !== 0 ? 'bubblewrap (bwrap) cannot create a sandbox here' : null;

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const toolResults = (req: RecordedRequest): Record<string, unknown>[] =>
  (req.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) as Record<string, unknown>);

describe('sandboxed process server: hermes chat', { skip: noBwrap ?? false }, () => {
  it('runs every foreground command under one sandboxed parent with its own env, cwd, exit code and timeout', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const work = join(home, 'work');
    mkdirSync(join(work, 'sub'), { recursive: true });
    const pidFile = join(work, 'sleeper.pid');
    const parent = 'echo "parent=$PPID comm=$(cat /proc/$PPID/comm)"';
    fake.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: `${parent}; [ -n "$OPENAI_API_KEY" ] && echo has-the-key || echo no-api-key; echo "mark=$SANDBOX_MARK"; echo to-stderr >&2; exit 7` } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: `${parent}; pwd`, workdir: 'sub' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: `echo $$ > ${pidFile}; exec sleep 30`, timeout: 1 } }] },
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: `kill -0 $(cat ${pidFile}) 2>/dev/null && echo sleeper-alive || echo sleeper-gone; ${parent}; echo x >> ${join(home, 'config.yaml')}` } },
        ],
      },
      { text: 'Done.' },
    );
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    const r = await hermes(['chat', '--yolo', '-q', 'go'], { home, cwd: work, env: { OPENAI_API_KEY: 'sk-proj-SERVERsecret0123456789abcdef', SANDBOX_MARK: 'passed-through' } });
    assert.equal(r.code, 0, r.stderr);
    const [a, b, c, d] = toolResults(fake.requests[fake.requests.length - 1]);
    const out = (x: Record<string, unknown>) => String(x.output);
    const parents = [a, b, d].map((x) => /parent=(\d+) comm=(\S+)/.exec(out(x))!);
    assert.ok(parents.every(Boolean), JSON.stringify([a, b, d]));
    // One parent for all of them: the server, a Node process (not a bwrap per command).
    assert.equal(new Set(parents.map((m) => m[1])).size, 1, JSON.stringify(parents.map((m) => m[0])));
    assert.match(parents[0][2], /node|MainThread/);
    assert.match(out(a), /no-api-key\nmark=passed-through/);
    assert.match(out(a), /to-stderr/);
    assert.equal(a.exit_code, 7);
    assert.match(out(b), new RegExp(`${join(work, 'sub')}$`, 'm'));
    assert.equal(c.exit_code, 124);
    assert.match(String(c.error), /timed out after 1s/);
    assert.match(out(d), /sleeper-gone/);
    assert.match(out(d), /Read-only file system/);
    assert.match(String(d.note), /OS sandbox.*refused a write.*config\.yaml: it is protected/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });
});

describe('background commands in the sandbox', { skip: noBwrap ?? false }, () => {
  it('a notify_on_complete process runs confined and its end is reported as a follow-up turn', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const work = join(home, 'work');
    mkdirSync(work);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    const command = `sleep 0.5; echo x >> ${join(home, 'config.yaml')} || echo bg-refused; echo bg-made > bg.txt; echo bg-done`;
    const lastUser = (req: RecordedRequest) =>
      String((req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').at(-1)?.content ?? '');
    fake.setHandler((req) => {
      if (lastUser(req).startsWith('[IMPORTANT: Background process')) return { text: 'The job ended.' };
      if ((req.body.messages as { role: string }[]).at(-1)?.role === 'tool') return { text: 'Started it.' };
      return { toolCalls: [{ name: 'terminal', arguments: { command, background: true, notify_on_complete: true } }] };
    });
    const n = fake.requests.length;
    try {
      const r = await hermes(['chat', '--yolo', '-q', 'run the job'], { home, cwd: work });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Started it\.[\s\S]*The job ended\./);
    } finally {
      fake.setHandler(null);
    }
    const follow = fake.requests.slice(n).map(lastUser).find((u) => u.startsWith('[IMPORTANT'))!;
    // The refusal is on stderr, the echoes on stdout: only each stream's own order is fixed.
    assert.match(follow, /completed normally \(exit code 0\)[\s\S]*Read-only file system/);
    assert.match(follow, /completed normally \(exit code 0\)[\s\S]*bg-refused[\s\S]*bg-done/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
    assert.equal(readFileSync(join(work, 'bg.txt'), 'utf8'), 'bg-made\n');
  });
});

describe('sandboxed process server: policy changes and fallback', { skip: noBwrap ?? false }, () => {
  const base = mkdtempSync(join(tmpdir(), 'sbx-server-'));
  const work = join(base, 'work');
  mkdirSync(work);
  mkdirSync(join(base, '.hermes'));
  const protectedFile = join(base, '.hermes', 'config.yaml');
  const env = { ...process.env, HOME: base };
  const sig = () => new AbortController().signal;
  const sandbox = (mode: 'workspace-write' | 'read-only', e: NodeJS.ProcessEnv = env) => makeSandbox({ config: { terminal: { sandbox: { mode } } }, env: e, hermesHome: join(base, '.hermes'), cwd: work });

  it('a changed policy restarts the server: the next command runs under the new one', async () => {
    let current: Sandbox = sandbox('workspace-write');
    const b = new LocalBackend({ cwd: work, env, sandbox: () => current });
    try {
      const cmd = 'echo "parent=$PPID"; touch made.txt && echo made';
      const one = await b.exec(cmd, { timeoutMs: 20_000, signal: sig() });
      assert.match(one.output, /made/);
      const again = await b.exec(cmd, { timeoutMs: 20_000, signal: sig() });
      const p1 = /parent=(\d+)/.exec(one.output)![1];
      assert.equal(/parent=(\d+)/.exec(again.output)![1], p1, 'the same server for the same policy');
      // stdin reaches the command; output comes back byte for byte across frames (multi-byte
      // characters split between chunks included).
      assert.equal((await b.exec('cat', { stdin: 'from stdin\n', timeoutMs: 20_000, signal: sig() })).output, 'from stdin\n');
      const big = await b.exec("for i in $(seq 1 10000); do printf 'é€𝄞%05d\\n' $i; done", { timeoutMs: 20_000, signal: sig() });
      assert.equal(big.output, Array.from({ length: 10000 }, (_, i) => `é€𝄞${String(i + 1).padStart(5, '0')}\n`).join(''));
      assert.equal(/parent=(\d+)/.exec((await b.exec(cmd, { timeoutMs: 20_000, signal: sig() })).output)![1], p1);
      current = sandbox('read-only');
      const ro = await b.exec('echo "parent=$PPID"; touch made2.txt && echo made2', { timeoutMs: 20_000, signal: sig() });
      assert.match(ro.output, /Read-only file system/);
      assert.ok(!existsSync(join(work, 'made2.txt')));
      assert.notEqual(/parent=(\d+)/.exec(ro.output)![1], p1);
      // The old server ends once it has nothing to run.
      for (let i = 0; i < 50 && isAlive(Number(p1)); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(!isAlive(Number(p1)), 'the old server exited');
    } finally {
      await b.close();
    }
  });

  it('a command cannot write on the server\'s channels to Hermes (socket pairs: /proc cannot reopen them)', async () => {
    const b = new LocalBackend({ cwd: work, env, sandbox: sandbox('workspace-write') });
    try {
      const forged = await b.exec("printf 'garbage, not a frame' > /proc/$PPID/fd/1; printf 'x' > /proc/$PPID/fd/0; echo \"parent=$PPID\"", { timeoutMs: 20_000, signal: sig() });
      assert.match(forged.output, /fd\/1: No such device or address[\s\S]*fd\/0: No such device or address/);
      const next = await b.exec('echo "parent=$PPID"; echo still-fine', { timeoutMs: 20_000, signal: sig() });
      assert.match(next.output, /still-fine/);
      assert.equal(/parent=(\d+)/.exec(next.output)![1], /parent=(\d+)/.exec(forged.output)![1]);
    } finally {
      await b.close();
    }
  });

  it('when the server cannot start, a command gets a bwrap of its own and is still confined', async () => {
    // A bwrap that works, except for the server's start (the only call with --die-with-parent).
    const bin = join(base, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'bwrap'), `#!/bin/sh\ncase "$*" in *--die-with-parent*) echo no server >&2; exit 1;; esac\nexec ${probe.error ? 'bwrap' : spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim()} "$@"\n`);
    chmodSync(join(bin, 'bwrap'), 0o755);
    const e = { ...env, HERMES_SANDBOX_BWRAP: join(bin, 'bwrap') };
    const sb = sandbox('workspace-write', e);
    assert.ok(sb.active, sb.availability.reason);
    const b = new LocalBackend({ cwd: work, env: e, sandbox: sb });
    try {
      const r = await b.exec(`echo "parent=$(cat /proc/$PPID/comm)"; touch ok.txt && echo ok; touch ${protectedFile}`, { timeoutMs: 20_000, signal: sig() });
      assert.match(r.output, /ok/);
      assert.match(r.output, /Read-only file system/);
      assert.doesNotMatch(r.output, /parent=node/);
      assert.ok(!existsSync(protectedFile));
    } finally {
      await b.close();
    }
  });
});
