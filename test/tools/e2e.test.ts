// Tools end to end: the real `hermes chat -q` binary against the fake LLM. The model reads, patches
// and searches files, runs and manages background processes locally and over SSH, delegates, runs
// a script that calls tools — and a dangerous command without --yolo is refused with a reason while
// the file system stays untouched.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gatedSuite } from '../helpers/skip.ts';
import { isAlive } from '../../src/tools/env/child.ts';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { noPython } from './helpers.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { sshdUnavailable, startSshd, type TestSshd } from './sshd.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function setup(extra = ''): { home: string; work: string } {
  const home = homeWithModel(fake.openaiBaseUrl, extra);
  const work = join(home, 'work');
  mkdirSync(work);
  return { home, work };
}

/** The tool results the model was sent in a request (chat wire). */
function toolResults(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

const since = (n: number) => fake.requests.slice(n);

describe('tools through hermes chat -q', () => {
  it('reads, searches and patches files', async () => {
    const { home, work } = setup();
    mkdirSync(join(work, 'src'));
    writeFileSync(join(work, 'src', 'app.js'), 'function greet(name) {\n  return "Hello, " + name;\n}\n\nconsole.log(greet("world"));\n');
    writeFileSync(join(work, 'src', 'util.py'), 'def helper():\n    return 1\n');
    const n = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'search_files', arguments: { pattern: 'function greet', file_glob: '*.js' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.js' } }] },
      // Indentation lost on purpose: the fuzzy matcher and re-indenting handle it.
      { toolCalls: [{ name: 'patch', arguments: { path: 'src/app.js', old_string: 'return "Hello, " + name;\n}', new_string: 'return `Hi, ${name}!`;\n}' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: `${JSON.stringify(process.execPath)} src/app.js` } }] },
      { text: 'Patched greet(); it now prints "Hi, world!".' },
    );
    const r = await hermes(['chat', '-q', 'change the greeting'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Patched greet\(\)/);
    assert.equal(readFileSync(join(work, 'src', 'app.js'), 'utf8'), 'function greet(name) {\n  return `Hi, ${name}!`;\n}\n\nconsole.log(greet("world"));\n');
    const reqs = since(n);
    const results = toolResults(reqs[4]);
    assert.match(results[0], /"path":"src\/app\.js","line":1/);
    assert.match(results[1], /1\|function greet\(name\) \{/);
    assert.match(results[2], /"success":true.*-  return \\"Hello, \\" \+ name;\\n\+  return `Hi, \$\{name\}!`;/);
    assert.match(results[3], /Hi, world!/);
  });

  it('runs and manages a background process', async () => {
    const { home, work } = setup();
    const n = fake.requests.length;
    let pid = 0;
    let id = '';
    fake.setHandler((req) => {
      const i = fake.requests.length - n;
      const last = toolResults(req).at(-1) ?? '';
      if (i === 1) return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo server-up; read cmd; echo "got:$cmd"; sleep 60', background: true } }] };
      if (i === 2) {
        const j = JSON.parse(last);
        id = j.session_id;
        pid = j.pid;
        return { toolCalls: [{ name: 'process', arguments: { action: 'submit', session_id: id, data: 'status' } }] };
      }
      if (i === 3) return { toolCalls: [{ name: 'process', arguments: { action: 'wait', session_id: id, timeout: 1 } }] };
      if (i === 4) return { toolCalls: [{ name: 'process', arguments: { action: 'list' } }] };
      if (i === 5) return { toolCalls: [{ name: 'process', arguments: { action: 'kill', session_id: id } }] };
      return { text: 'Started, talked to and stopped the server.' };
    });
    try {
      const r = await hermes(['chat', '-q', 'run the server'], { home, cwd: work });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /stopped the server/);
      const reqs = since(n);
      assert.match(toolResults(reqs[3]).at(-1)!, /"status":"timeout".*server-up\\ngot:status/);
      assert.match(toolResults(reqs[4]).at(-1)!, new RegExp(`"session_id":"${id}".*"status":"running"`));
      assert.match(toolResults(reqs[5]).at(-1)!, /"status":"killed"/);
      assert.ok(pid > 0 && !isAlive(pid), 'the process is gone');
      assert.deepEqual(JSON.parse(readFileSync(join(home, 'processes.json'), 'utf8')), []);
    } finally {
      fake.setHandler(null);
    }
  });

  it('background processes die with the session', async () => {
    const { home, work } = setup();
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 300', background: true } }] }, { text: 'left it running' });
    const r = await hermes(['chat', '-q', 'start something'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const pid = JSON.parse(toolResults(since(n)[1])[0]).pid;
    assert.ok(!isAlive(pid), 'closing the one-shot session stopped it');
  });

  it('delegates to a subagent that only returns its summary', async () => {
    const { home, work } = setup();
    writeFileSync(join(work, 'inventory.csv'), 'item,qty\nbolts,120\nnuts,75\n');
    const n = fake.requests.length;
    fake.setHandler((req) => {
      const isChild = /focused subagent/.test(JSON.stringify(req.body.messages[0]));
      const results = toolResults(req);
      if (isChild) {
        if (!results.length) return { toolCalls: [{ name: 'read_file', arguments: { path: 'inventory.csv' } }] };
        return { text: 'Summary: bolts 120, nuts 75 (total 195). Read inventory.csv; changed nothing.' };
      }
      if (!results.length) return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Total the quantities in inventory.csv', context: 'CSV in the working directory' } }] };
      return { text: 'The subagent says the total is 195.' };
    });
    try {
      const r = await hermes(['chat', '-q', 'how many parts?'], { home, cwd: work });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /total is 195/);
      const reqs = since(n);
      const child = reqs.filter((q) => /focused subagent/.test(JSON.stringify(q.body.messages[0])));
      assert.equal(child.length, 2);
      const childTools = (child[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name);
      for (const blocked of ['delegate_task', 'clarify', 'execute_code']) assert.ok(!childTools.includes(blocked), blocked);
      assert.ok(childTools.includes('read_file'));
      const parentLast = reqs.at(-1)!;
      const result = toolResults(parentLast).at(-1)!;
      assert.match(result, /Summary: bolts 120, nuts 75/);
      assert.doesNotMatch(JSON.stringify(parentLast.body.messages), /bolts,120/, 'the file content stayed in the child');
    } finally {
      fake.setHandler(null);
    }
  });

  it('runs a script that calls tools (execute_code)', async () => {
    const { home, work } = setup();
    for (let i = 1; i <= 5; i++) writeFileSync(join(work, `log${i}.txt`), `ERROR x\n`.repeat(i) + 'ok\n');
    const code = noPython
      ? [
          "import { search_files, terminal } from 'hermes_tools';",
          "const res = await search_files('ERROR', { output_mode: 'count' });",
          'const total = Object.values(res.counts).reduce((a, b) => a + b, 0);',
          "const who = (await terminal('whoami')).output.trim();",
          'console.log(`${total} errors in ${Object.keys(res.counts).length} files; ran as ${who}`);',
        ].join('\n')
      : [
          'from hermes_tools import search_files, terminal',
          'res = search_files("ERROR", output_mode="count")',
          'total = sum(res["counts"].values())',
          'who = terminal("whoami")["output"].strip()',
          'print(f"{total} errors in {len(res[\'counts\'])} files; ran as {who}")',
        ].join('\n');
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'execute_code', arguments: { code, language: noPython ? 'javascript' : 'python' } }] }, { text: '15 errors.' });
    const r = await hermes(['chat', '-q', 'count errors'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(toolResults(since(n)[1])[0]);
    assert.equal(res.status, 'success');
    assert.match(res.output, /^15 errors in 5 files; ran as \w+/);
    assert.equal(res.tool_calls_made, 2);
  });

  it('refuses a dangerous command without --yolo, with the reason, and touches nothing', async () => {
    const { home, work } = setup();
    mkdirSync(join(work, 'data'));
    writeFileSync(join(work, 'data', 'precious.db'), 'important');
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf data' } }] }, { text: 'I was not allowed to delete data/.' });
    const r = await hermes(['chat', '-q', 'clean up'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(work, 'data', 'precious.db')), 'nothing was deleted');
    const result = JSON.parse(toolResults(since(n)[1])[0]);
    assert.equal(result.status, 'denied');
    assert.match(result.error, /needs approval \(recursive delete\) and nobody is here to approve it/);
    assert.match(r.stdout, /not allowed/);

    // --yolo lets it run; the hardline block stays.
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf data' } }, { name: 'terminal', arguments: { command: 'sudo rm -rf /' } }] }, { text: 'done' });
    const m = fake.requests.length;
    const y = await hermes(['chat', '--yolo', '-q', 'clean up'], { home, cwd: work });
    assert.equal(y.code, 0, y.stderr);
    assert.ok(!existsSync(join(work, 'data')));
    const [ok, blocked] = toolResults(since(m)[1]).map((x) => JSON.parse(x));
    assert.equal(ok.exit_code, 0);
    assert.equal(blocked.status, 'blocked');
    assert.match(blocked.error, /never allowed, even with --yolo/);
  });
});

const noSsh = sshdUnavailable();
if (noSsh) console.log(`# skipping end-to-end SSH tests: ${noSsh}`);

const ssh = gatedSuite(noSsh);
ssh.describe('tools over SSH through hermes chat -q', () => {
  let sshd: TestSshd;
  ssh.before(async () => {
    sshd = await startSshd();
  });
  ssh.after(() => sshd?.stop());

  ssh.it('runs commands and manages a background process on the SSH host', async () => {
    const { home, work } = setup();
    const env = { TERMINAL_ENV: 'ssh', TERMINAL_SSH_HOST: '127.0.0.1', TERMINAL_SSH_PORT: String(sshd.port), TERMINAL_SSH_USER: sshd.user, TERMINAL_SSH_KEY: sshd.key };
    const n = fake.requests.length;
    let id = '';
    fake.setHandler((req) => {
      const i = fake.requests.length - n;
      const last = toolResults(req).at(-1) ?? '';
      if (i === 1) return { toolCalls: [{ name: 'terminal', arguments: { command: 'cd /tmp && echo "on:${SSH_CONNECTION%% *}"' } }] };
      if (i === 2) return { toolCalls: [{ name: 'terminal', arguments: { command: 'pwd' } }] };
      if (i === 3) return { toolCalls: [{ name: 'terminal', arguments: { command: 'for i in 1 2 3; do echo tick$i; done; exit 7', background: true } }] };
      if (i === 4) {
        id = JSON.parse(last).session_id;
        return { toolCalls: [{ name: 'process', arguments: { action: 'wait', session_id: id, timeout: 20 } }] };
      }
      return { text: 'done over ssh' };
    });
    try {
      const r = await hermes(['chat', '-q', 'use the remote box'], { home, cwd: work, env });
      assert.equal(r.code, 0, r.stderr);
      const reqs = since(n);
      assert.match(toolResults(reqs[1]).at(-1)!, /on:127\.0\.0\.1/);
      assert.match(toolResults(reqs[2]).at(-1)!, /"output":"\/tmp\\n"/, 'the persistent shell kept the cd');
      const w = JSON.parse(toolResults(reqs[4]).at(-1)!);
      assert.equal(w.status, 'exited');
      assert.equal(w.exit_code, 7);
      assert.match(w.output, /tick1\ntick2\ntick3/);
      assert.match(w.backend, /^ssh /);
    } finally {
      fake.setHandler(null);
    }
  });
});

describe('approval prompt in a terminal (real PTY)', () => {
  /** Runs hermes in a pseudo-terminal, answering the approval prompt with `answer`. */
  async function inPty(args: string[], home: string, cwd: string, answer: string): Promise<{ screen: string; code: number }> {
    const pty = await import('@lydell/node-pty');
    const { BIN, cleanEnv } = await import('../helpers/cli.ts');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(cleanEnv(home))) if (v !== undefined) env[k] = v;
    const p = pty.spawn(process.execPath, [BIN, ...args], { cwd, env, cols: 120, rows: 40 });
    let screen = '';
    let answered = false;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        p.kill();
        reject(new Error(`timed out; screen:\n${screen}`));
      }, 30_000);
      p.onData((d) => {
        screen += d;
        if (!answered && /\[d\]eny · Enter = deny: /.test(screen)) {
          answered = true;
          p.write(answer); // one key, no Enter
        }
      });
      p.onExit(({ exitCode }) => {
        clearTimeout(t);
        resolve({ screen, code: exitCode });
      });
    });
  }

  it('asks, and runs the command only when the person approves it', async () => {
    const { home, work } = setup();
    mkdirSync(join(work, 'old'));
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -r old' } }] }, { text: 'Refused, as you wished.' });
    const denied = await inPty(['chat', '-q', 'remove old'], home, work, 'd');
    assert.equal(denied.code, 0, denied.screen);
    assert.match(denied.screen, /Dangerous command \(recursive delete\):\s+rm -r old/);
    assert.ok(existsSync(join(work, 'old')), 'denied: still there');
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -r old' } }] }, { text: 'Removed.' });
    const once = await inPty(['chat', '-q', 'remove old'], home, work, 'o');
    assert.equal(once.code, 0, once.screen);
    assert.ok(!existsSync(join(work, 'old')), 'approved once: removed');
    assert.match(once.screen, /Enter = deny: approved once/);
    assert.match(once.screen, /Removed\./);
  });
});
