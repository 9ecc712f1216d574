// The SSH backend against a real sshd on loopback (started here with throwaway keys).
import assert from 'node:assert/strict';
import processTool from '../../src/tools/defs/process.ts';
import terminal from '../../src/tools/defs/terminal.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { call, closeServices, makeCtx, makeServices } from './helpers.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { sshdUnavailable, startSshd, type TestSshd } from './sshd.ts';

const skip = sshdUnavailable();
if (skip) console.log(`# skipping SSH backend tests: ${skip}`);
const { describe, it, before, after } = gatedSuite(skip);

describe('terminal over SSH', () => {
  let sshd: TestSshd;
  let s: ToolSession;
  const sshEnv = () => ({
    TERMINAL_ENV: 'ssh',
    TERMINAL_SSH_HOST: '127.0.0.1',
    TERMINAL_SSH_PORT: String(sshd.port),
    TERMINAL_SSH_USER: sshd.user,
    TERMINAL_SSH_KEY: sshd.key,
  });

  before(async () => {
    sshd = await startSshd();
    s = makeServices();
    Object.assign(s.env, sshEnv());
  });
  after(async () => {
    if (s) await closeServices(s);
    sshd?.stop();
  });

  it('runs commands on the remote host', async () => {
    const r = await call(terminal, { command: 'echo "via:${SSH_CONNECTION%% *}"; whoami' }, s);
    assert.equal(r.json.exit_code, 0, r.raw);
    assert.match(r.json.output, /via:127\.0\.0\.1/);
    assert.match(r.json.output, new RegExp(sshd.user));
  });

  it('keeps one shell: cd and exports carry over', async () => {
    await call(terminal, { command: 'cd /tmp && export HERMES_T=kept' }, s);
    const r = await call(terminal, { command: 'pwd; echo $HERMES_T' }, s);
    assert.equal(r.json.output, '/tmp\nkept\n');
  });

  it('reports exit codes, stderr and workdir', async () => {
    const r = await call(terminal, { command: 'echo oops >&2; exit_now() { return 5; }; exit_now', workdir: '/' }, s);
    assert.equal(r.json.exit_code, 5);
    assert.match(r.json.output, /oops/);
    const pwd = await call(terminal, { command: 'pwd' }, s);
    assert.equal(pwd.json.output.trim(), '/', 'workdir changes the persistent shell directory');
    const bad = await call(terminal, { command: 'true', workdir: '/no/such/dir' }, s);
    assert.equal(bad.json.exit_code, 1);
    assert.match(bad.json.output, /does not exist/);
  });

  it('kills a command that times out and keeps the shell usable', async () => {
    const r = await call(terminal, { command: 'sleep 30', timeout: 1 }, s);
    assert.equal(r.json.exit_code, 124);
    assert.match(r.json.error, /timed out/);
    const after = await call(terminal, { command: 'echo alive; pwd' }, s);
    assert.match(after.json.output, /alive/);
  });

  it('survives `exit` in a command with a note', async () => {
    const r = await call(terminal, { command: 'exit 9' }, s);
    assert.equal(r.json.exit_code, 9);
    assert.match(r.json.note, /fresh shell/);
    const again = await call(terminal, { command: 'echo back' }, s);
    assert.equal(again.json.output, 'back\n');
  });

  it('runs pty commands', async () => {
    const r = await call(terminal, { command: 'test -t 1 && echo tty-yes', pty: true }, s);
    assert.match(r.json.output, /tty-yes/);
  });

  it('still asks before dangerous commands', async () => {
    const r = await call(terminal, { command: 'rm -rf /tmp/hermes-nothing-here' }, s);
    assert.equal(r.json.status, 'denied');
  });

  it('manages background processes on the remote host', async () => {
    const start = await call(terminal, { command: 'echo up; read line; echo "got $line"; sleep 60', background: true }, s);
    const id = start.json.session_id;
    assert.ok(start.json.pid > 0, 'remote pid is known');
    await call(processTool, { action: 'submit', session_id: id, data: 'ping' }, s);
    let out = '';
    for (let i = 0; i < 100 && !out.includes('got ping'); i++) {
      out += (await call(processTool, { action: 'poll', session_id: id }, s)).json.new_output;
      if (!out.includes('got ping')) await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(out, /up\ngot ping/);
    const ps1 = await call(terminal, { command: `kill -0 ${start.json.pid} && echo running` }, s);
    assert.match(ps1.json.output, /running/);
    const k = await call(processTool, { action: 'kill', session_id: id }, s);
    assert.equal(k.json.status, 'killed');
    const ps2 = await call(terminal, { command: `kill -0 ${start.json.pid} 2>/dev/null && echo still || echo gone` }, s);
    assert.match(ps2.json.output, /gone/, 'the remote process is gone, not just the ssh client');
    const fin = await call(terminal, { command: 'echo done; exit 3', background: true }, s);
    const w = await call(processTool, { action: 'wait', session_id: fin.json.session_id, timeout: 20 }, s);
    assert.equal(w.json.exit_code, 3);
    assert.match(w.json.output, /done/);
  });

  it('starts background commands without re-running the rc file first', async () => {
    // sshd's shell sources ~/.bashrc once; a second sourcing in the command's own bash held its first
    // output back for as long as the rc file took (seconds with pyenv hooks).
    const bg = await call(terminal, { command: 'echo "rc=$HERMES_RC_SOURCED"; echo "home=$HOME"', background: true }, s);
    const w = await call(processTool, { action: 'wait', session_id: bg.json.session_id, timeout: 20 }, s);
    assert.equal(w.json.exit_code, 0, w.raw);
    assert.match(w.json.output, new RegExp(`home=${sshd.home}`));
    assert.match(w.json.output, /rc=1\n/, 'the rc file ran once, in the shell sshd started');
    const log = await call(processTool, { action: 'log', session_id: bg.json.session_id }, s);
    assert.match(log.raw, /rc=1\b/);
  });

  it('interrupts a running remote command', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const r = await call(terminal, { command: 'sleep 30' }, s, makeCtx({ signal: ac.signal }));
    assert.equal(r.json.exit_code, 130);
  });

  it('explains connection failures', async () => {
    const bad = makeServices();
    Object.assign(bad.env, sshEnv(), { TERMINAL_SSH_KEY: `${sshd.dir}/host_key` });
    const r = await call(terminal, { command: 'true' }, bad);
    assert.equal(r.isError, true);
    assert.match(r.json.error, /permission denied/i);
    await closeServices(bad);
    const none = makeServices();
    Object.assign(none.env, { TERMINAL_ENV: 'ssh' });
    assert.match((await call(terminal, { command: 'true' }, none)).json.error, /TERMINAL_SSH_HOST/);
  });
});
