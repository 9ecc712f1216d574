import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AgentRequest } from '../../src/agent/types.ts';
import { dotenvNamesSlot } from '../../src/tools/env/settings.ts';
import { isAlive } from '../../src/tools/env/child.ts';
import processTool from '../../src/tools/defs/process.ts';
import { ProcessRegistry } from '../../src/tools/process-registry.ts';
import { sudoWithStdin } from '../../src/tools/impl/terminal.ts';
import terminal, { capOutput } from '../../src/tools/defs/terminal.ts';
import { call, closeServices, makeCtx, makeServices, tmp } from './helpers.ts';

const services = makeServices();
after(() => closeServices(services));

describe('terminal (local)', () => {
  it('runs in the session directory and returns output and exit code', async () => {
    writeFileSync(join(services.cwd, 'marker.txt'), 'x');
    const r = await call(terminal, { command: 'ls; echo err >&2; exit 3' }, services);
    assert.match(r.json.output, /marker\.txt/);
    assert.match(r.json.output, /err/);
    assert.equal(r.json.exit_code, 3);
    assert.equal(r.json.error, null);
  });

  it('honours workdir and reports a missing one', async () => {
    const d = tmp();
    const r = await call(terminal, { command: 'pwd', workdir: d }, services);
    assert.equal(r.json.output.trim(), d);
    const bad = await call(terminal, { command: 'pwd', workdir: join(d, 'nope') }, services);
    assert.equal(bad.isError, true);
    assert.match(bad.json.error, /does not exist/);
  });

  it('kills the command on timeout and says so', async () => {
    const r = await call(terminal, { command: 'echo started; sleep 30', timeout: 1 }, services);
    assert.equal(r.isError, true);
    assert.equal(r.json.exit_code, 124);
    assert.match(r.json.error, /timed out after 1s/);
    assert.match(r.json.output, /started/);
  });

  it('stops on interrupt', async () => {
    const ac = new AbortController();
    const p = call(terminal, { command: 'sleep 30' }, services, makeCtx({ signal: ac.signal }));
    setTimeout(() => ac.abort(), 200);
    const r = await p;
    assert.equal(r.json.exit_code, 130);
    assert.match(r.json.error, /interrupted/);
  });

  it('does not hang on a command that backgrounds a child holding stdout', async () => {
    const r = await call(terminal, { command: 'sleep 3 & echo launched' }, services);
    assert.match(r.json.output, /launched/);
    assert.equal(r.json.exit_code, 0);
  });

  it('filters Hermes secrets out of the environment unless passed through', async () => {
    const s = makeServices({ env: { ...services.env, OPENAI_API_KEY: 'sk-test-000', MY_TOKEN: 'tok', PLAIN: 'visible' } });
    s.slots.set(dotenvNamesSlot, ['PLAIN_FROM_DOTENV']);
    const r = await call(terminal, { command: 'echo "[$OPENAI_API_KEY][$MY_TOKEN][$PLAIN]"' }, s);
    assert.match(r.json.output, /\[\]\[\]\[visible\]/);
    const s2 = makeServices({ env: { ...services.env, MY_TOKEN: 'tok123' } });
    s2.config.terminal.env_passthrough = ['MY_TOKEN'];
    const r2 = await call(terminal, { command: 'echo "[$MY_TOKEN]"' }, s2);
    assert.match(r2.json.output, /\[tok123\]/);
  });

  it('caps long output head and tail', async () => {
    const s = makeServices();
    s.config.tool_output.max_bytes = 2000;
    const r = await call(terminal, { command: 'seq 1 5000' }, s);
    assert.ok(r.json.output.length < 2200);
    assert.match(r.json.output, /^1\n2\n/);
    assert.match(r.json.output, /5000\n?$/);
    assert.match(r.json.output, /characters of output omitted/);
    assert.equal(capOutput('abc', 10), 'abc');
  });

  it('redacts secrets in output', async () => {
    const r = await call(terminal, { command: 'echo "key is sk-proj-abcdefghijklmnopqrstuvwxyz012345"' }, services);
    assert.doesNotMatch(r.raw, /abcdefghijklmnopqrstuvwxyz012345/);
  });

  it('runs interactive programs in a pty', async () => {
    const r = await call(terminal, { command: 'test -t 0 && echo is-a-tty', pty: true }, services);
    assert.match(r.json.output, /is-a-tty/);
    assert.doesNotMatch(r.json.output, /\r/);
  });

  it('rewrites sudo to read its password from stdin', () => {
    assert.equal(sudoWithStdin('sudo apt update && sudo ls'), "sudo -S -p '' apt update && sudo -S -p '' ls");
    assert.equal(sudoWithStdin('echo sudo'), 'echo sudo');
  });
});

describe('approvals in terminal', () => {
  it('refuses a dangerous command when nobody can approve, and nothing happens', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'keep.txt'), 'data');
    const s = makeServices({ cwd: dir });
    const r = await call(terminal, { command: `rm -rf ${dir}` }, s);
    assert.equal(r.isError, true);
    assert.equal(r.json.status, 'denied');
    assert.match(r.json.error, /needs approval \(recursive delete\).*nobody is here to approve/);
    assert.ok(existsSync(join(dir, 'keep.txt')));
  });

  it('asks the person: once runs it, deny refuses it, session remembers, always persists', async () => {
    const asked: AgentRequest[] = [];
    const dir = tmp();
    const s = makeServices({ cwd: dir });
    mkdirSync(join(dir, 'a'));
    const once = await call(terminal, { command: 'rm -r a && echo gone' }, s, makeCtx({ asked, answer: () => ({ answer: 'once' }) }));
    assert.match(once.json.output, /gone/);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].kind, 'approval');
    mkdirSync(join(dir, 'b'));
    const denied = await call(terminal, { command: 'rm -r b' }, s, makeCtx({ answer: () => ({ answer: 'deny' }) }));
    assert.match(denied.json.error, /the user denied it/);
    assert.ok(existsSync(join(dir, 'b')));
    await call(terminal, { command: 'rm -r b' }, s, makeCtx({ answer: () => ({ answer: 'session' }) }));
    mkdirSync(join(dir, 'c'));
    const again: AgentRequest[] = [];
    await call(terminal, { command: 'rm -r c' }, s, makeCtx({ asked: again, answer: () => ({ answer: 'deny' }) }));
    assert.equal(again.length, 0, 'session approval covers the same pattern');
    assert.ok(!existsSync(join(dir, 'c')));
    const always = makeServices({ cwd: dir });
    mkdirSync(join(dir, 'd'));
    await call(terminal, { command: 'rm -r d' }, always, makeCtx({ answer: () => ({ answer: 'always' }) }));
    assert.match(readFileSync(join(always.home, 'config.yaml'), 'utf8'), /command_allowlist:[\s\S]*recursive delete/);
    assert.ok(always.config.command_allowlist.includes('recursive delete'));
  });

  it('timeout answers deny', async () => {
    const s = makeServices();
    const r = await call(terminal, { command: 'rm -r nothing' }, s, makeCtx({ answer: () => ({ answer: 'deny', source: 'timeout' }) }));
    assert.match(r.json.error, /timed out/);
  });

  it('--yolo skips the prompt but never hardline blocks or deny rules', async () => {
    const s = makeServices({ yolo: true });
    mkdirSync(join(s.cwd, 'x'));
    const ok = await call(terminal, { command: 'rm -r x && echo removed' }, s);
    assert.match(ok.json.output, /removed/);
    const hard = await call(terminal, { command: 'sudo rm -rf /' }, s);
    assert.equal(hard.json.status, 'blocked');
    assert.match(hard.json.error, /never allowed, even with --yolo/);
    s.config.approvals.deny = ['git push*'];
    const denied = await call(terminal, { command: 'bash -c "git push origin main"' }, s);
    assert.equal(denied.json.status, 'blocked');
    assert.match(denied.json.error, /approvals.deny rule "git push\*"/);
  });

  it('command_allowlist and approvals.single_query_mode: approve let commands through', async () => {
    const s = makeServices();
    s.config.command_allowlist = ['recursive delete'];
    mkdirSync(join(s.cwd, 'y'));
    assert.equal((await call(terminal, { command: 'rm -r y' }, s)).json.exit_code, 0);
    const q = makeServices();
    q.config.approvals.single_query_mode = 'approve';
    mkdirSync(join(q.cwd, 'z'));
    assert.equal((await call(terminal, { command: 'rm -r z' }, q)).json.exit_code, 0);
  });
});

describe('process tool (local background processes)', () => {
  it('starts, polls, reads logs, writes input, waits, and kills', async () => {
    const s = makeServices();
    const start = await call(terminal, { command: 'echo ready; read name; echo "hello $name"; sleep 30', background: true }, s);
    const id = start.json.session_id as string;
    assert.match(id, /^proc_[0-9a-f]{12}$/);
    assert.ok(start.json.pid > 0);
    const w1 = await call(processTool, { action: 'wait', session_id: id, timeout: 1 }, s);
    assert.equal(w1.json.status, 'timeout');
    const sub = await call(processTool, { action: 'submit', session_id: id, data: 'world' }, s);
    assert.equal(sub.json.status, 'ok');
    // poll until the greeting arrives (event-free: the process answers within its own time)
    let seen = '';
    for (let i = 0; i < 50 && !seen.includes('hello world'); i++) {
      const p = await call(processTool, { action: 'poll', session_id: id }, s);
      seen += p.json.new_output;
      if (!seen.includes('hello world')) await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(seen, /ready\nhello world/);
    const log = await call(processTool, { action: 'log', session_id: id }, s);
    assert.equal(log.json.total_lines, 2);
    const list = await call(processTool, { action: 'list' }, s);
    assert.ok(list.json.processes.some((p: any) => p.session_id === id && p.status === 'running'));
    const cp = JSON.parse(readFileSync(join(s.home, 'processes.json'), 'utf8'));
    assert.ok(cp.some((e: any) => e.session_id === id && e.owner_pid === process.pid));
    const k = await call(processTool, { action: 'kill', session_id: id }, s);
    assert.equal(k.json.status, 'killed');
    assert.ok(!isAlive(start.json.pid));
    const cp2 = JSON.parse(readFileSync(join(s.home, 'processes.json'), 'utf8'));
    assert.ok(!cp2.some((e: any) => e.session_id === id), 'killed processes leave the checkpoint');
  });

  it('wait returns the exit code and output; returns early on interrupt', async () => {
    const s = makeServices();
    const a = await call(terminal, { command: 'echo done-now; exit 4', background: true }, s);
    const w = await call(processTool, { action: 'wait', session_id: a.json.session_id, timeout: 10 }, s);
    assert.equal(w.json.status, 'exited');
    assert.equal(w.json.exit_code, 4);
    assert.match(w.json.output, /done-now/);
    const b = await call(terminal, { command: 'sleep 30', background: true }, s);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const wi = await call(processTool, { action: 'wait', session_id: b.json.session_id, timeout: 60 }, s, makeCtx({ signal: ac.signal }));
    assert.equal(wi.json.status, 'interrupted');
    await closeServices(s);
    assert.ok(!isAlive(b.json.pid), 'closing the session kills its background processes');
  });

  it('log pages by lines', async () => {
    const s = makeServices();
    const a = await call(terminal, { command: 'seq 1 500', background: true }, s);
    await call(processTool, { action: 'wait', session_id: a.json.session_id }, s);
    const tail = await call(processTool, { action: 'log', session_id: a.json.session_id, limit: 3 }, s);
    assert.equal(tail.json.output, '498\n499\n500');
    const page = await call(processTool, { action: 'log', session_id: a.json.session_id, offset: 10, limit: 2 }, s);
    assert.equal(page.json.output, '11\n12');
    assert.equal(page.json.total_lines, 500);
  });

  it('runs a background program in a pty and talks to it', async () => {
    const s = makeServices();
    const a = await call(terminal, { command: `${JSON.stringify(process.execPath)} -i`, background: true, pty: true }, s);
    await call(processTool, { action: 'submit', session_id: a.json.session_id, data: '6*7' }, s);
    let out = '';
    for (let i = 0; i < 100 && !out.includes('42'); i++) {
      out += (await call(processTool, { action: 'poll', session_id: a.json.session_id }, s)).json.new_output;
      if (!out.includes('42')) await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(out, /42/);
    await call(processTool, { action: 'kill', session_id: a.json.session_id }, s);
  });

  it('errors clearly on unknown ids and missing arguments', async () => {
    const s = makeServices();
    assert.match((await call(processTool, { action: 'poll', session_id: 'proc_nope' }, s)).json.error, /No process with id/);
    assert.match((await call(processTool, { action: 'poll' }, s)).json.error, /needs session_id/);
  });

  it('reports orphans left by a crashed Hermes, and can kill them', async () => {
    const home = tmp('hermes-home-');
    // A separate Node process starts a background process, then dies without cleaning up.
    const script = `
      import { processRegistry } from ${JSON.stringify(new URL('../../src/tools/process-registry.ts', import.meta.url).pathname)};
      import { LocalBackend } from ${JSON.stringify(new URL('../../src/tools/env/local.ts', import.meta.url).pathname)};
      const reg = processRegistry(${JSON.stringify(home)});
      const p = await reg.spawn(new LocalBackend({ cwd: '/tmp', env: process.env }), 'sleep 60', { cwd: '/tmp', pty: false, taskId: 't' });
      const q = await reg.spawn(new LocalBackend({ cwd: '/tmp', env: process.env }), 'sleep 0.1', { cwd: '/tmp', pty: false, taskId: 't' });
      console.log(JSON.stringify({ pid: p.pid, id: p.id, q: q.id }));
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((r) => child.on('close', r));
    const info = JSON.parse(out.trim());
    assert.ok(isAlive(info.pid), 'the orphan survives its Hermes');
    await new Promise((r) => setTimeout(r, 300)); // let the short one finish
    const reg = new ProcessRegistry(home);
    const orphan = reg.get(info.id)!;
    assert.equal(orphan.status, 'orphaned');
    assert.match(orphan.note ?? '', /exited unexpectedly/);
    assert.equal(reg.get(info.q)!.status, 'lost');
    assert.match(reg.orphanNotice() ?? '', /2 background process\(es\) from an earlier Hermes run.*1 possibly still running/);
    assert.equal(reg.orphanNotice(), null, 'said once');
    await reg.kill(orphan);
    assert.ok(!isAlive(info.pid));
    assert.equal(orphan.status, 'killed');
    const cp = JSON.parse(readFileSync(join(home, 'processes.json'), 'utf8'));
    assert.deepEqual(cp, []);
  });
});

describe('sudo', () => {
  it('inside the OS sandbox, sudo is refused with the way out, and no password is asked', { skip: process.platform !== 'linux' }, async () => {
    const s = makeServices({ env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    const { sessionSandbox } = await import('../../src/tools/env/index.ts');
    if (!sessionSandbox(s).active) return void console.log('# no sandbox here: skipped');
    const asked: import('../../src/agent/types.ts').AgentRequest[] = [];
    const r = await call(terminal, { command: 'sudo true' }, s, makeCtx({ asked, answer: () => ({ answer: 'x' }) }));
    assert.match(r.json.error, /sudo cannot work inside the OS sandbox.*unsandboxed: true/);
    assert.equal(asked.length, 0);
  });

  // A stand-in sudo: `-n` fails (a password is needed); `-S` reads the password from stdin.
  const bin = tmp('fake-sudo-');
  writeFileSync(
    join(bin, 'sudo'),
    `#!/bin/bash
if [ "$1" = -n ]; then echo "sudo: a password is required" >&2; exit 1; fi
if [ "$1" = -S ]; then shift; [ "$1" = -p ] && shift 2; read -r pw; [ "$pw" = "letmein" ] && { "$@"; exit $?; }; echo "sudo: wrong password" >&2; exit 1; fi
echo "sudo: a terminal is required to read the password" >&2; exit 1
`,
    { mode: 0o755 },
  );
  // The password flow is for unsandboxed runs (inside the OS sandbox sudo gains nothing: see below).
  const withSudo = (extra: Record<string, string> = {}) => makeServices({ env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME, HERMES_SANDBOX: 'off', ...extra } });

  it('feeds SUDO_PASSWORD on stdin', async () => {
    const r = await call(terminal, { command: 'sudo echo elevated' }, withSudo({ SUDO_PASSWORD: 'letmein' }));
    assert.equal(r.json.output, 'elevated\n');
    assert.equal(r.json.exit_code, 0);
  });

  it('asks the person for the password (kept for the session only) when none is set', async () => {
    const s = withSudo();
    const asked: AgentRequest[] = [];
    const r = await call(terminal, { command: 'sudo echo ok' }, s, makeCtx({ asked, answer: () => ({ answer: 'letmein' }) }));
    assert.equal(r.json.output, 'ok\n');
    assert.equal(asked[0].kind, 'secret');
    const again: AgentRequest[] = [];
    await call(terminal, { command: 'sudo echo again' }, s, makeCtx({ asked: again }));
    assert.equal(again.length, 0, 'remembered for the session');
    assert.ok(!existsSync(join(s.home, '.env')), 'never written to disk');
  });

  it('explains what to do when nobody can give a password', async () => {
    const r = await call(terminal, { command: 'sudo echo nope' }, withSudo());
    assert.match(r.json.error, /sudo needs a password.*SUDO_PASSWORD/);
  });
});

describe('local shell environment', () => {
  it('foreground and background commands see the same environment (no rc file sourced)', async () => {
    const s = makeServices();
    const home = tmp('hermes-rc-home-');
    writeFileSync(join(home, '.bashrc'), 'export FROM_BASHRC=yes\n');
    s.env.HOME = home;
    const fg = await call(terminal, { command: 'echo "rc=${FROM_BASHRC:-no}"' }, s);
    assert.match(fg.json.output, /rc=no/);
    const bg = await call(terminal, { command: 'echo "rc=${FROM_BASHRC:-no}"', background: true }, s);
    const w = await call(processTool, { action: 'wait', session_id: bg.json.session_id, timeout: 10 }, s);
    assert.match(w.json.output, /rc=no/);
    await closeServices(s);
  });
});
