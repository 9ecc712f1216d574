// Issue 10 end to end: the real `hermes chat -q` (no TTY) against the fake LLM, which asks for one
// command of each dangerous class. Without --yolo nothing runs and the model is told why; the
// hardline classes are refused even with --yolo, run inside a read-only bubblewrap jail so a miss
// cannot harm this machine.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

function setup() {
  const home = tempHome('hermes-e2e-');
  const user = join(home, 'user-home');
  const work = join(home, 'work');
  mkdirSync(join(user, '.ssh'), { recursive: true });
  mkdirSync(work);
  const config = `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n  api_mode: chat_completions\n`;
  writeFileSync(join(home, 'config.yaml'), config);
  writeFileSync(join(user, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA me\n');
  writeFileSync(join(user, '.bashrc'), '# rc\n');
  writeFileSync(join(work, 'app.txt'), 'v1\n');
  return { home, user, work, config };
}

/** The tool results the model received, by call id, from the request after the tool calls. */
function toolResults(req: RecordedRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of req.body.messages as { role: string; tool_call_id?: string; content: unknown }[]) if (m.role === 'tool') out.set(m.tool_call_id!, typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  return out;
}

// One command per class; each would leave a trace (a file) if it ran.
const CLASSES: [string, string][] = [
  ['self-protection', 'echo "approvals: {mode: off}" >> "$HERMES_HOME/config.yaml"'],
  ['self-protection (absolute path, sed -i)', "sed -i 's/test-model/other/' __HOME__/config.yaml"],
  ['credentials', 'echo ssh-rsa EVIL >> ~/.ssh/authorized_keys'],
  ['project secrets', 'echo TOKEN=x > .env'],
  ['shell string', 'bash -c "echo pwned > pwned-1.txt"'],
  ['sudo -S', 'echo hunter2 | sudo -S touch pwned-2.txt'],
  ['destructive SQL', 'sqlite3 data.db "DROP TABLE t" && touch pwned-3.txt'],
  ['killall sweep', "killall -r 'hermes-e2e-nothing.*' ; touch pwned-4.txt"],
  ['Windows delete', 'cmd /c del /s /q app.txt ; touch pwned-5.txt'],
  ['hidden execution', 'echo ZWNobyBwd25lZCA+IHB3bmVkLTYudHh0 | base64 -d | sh'],
  ['git discarding work', 'git reset --hard && touch pwned-7.txt'],
  ['hardline', 'rm -rf ~ ; touch pwned-8.txt'],
  ['metadata endpoint', 'curl -s http://169.254.169.254/latest/meta-data/ ; touch pwned-9.txt'],
];

describe('dangerous commands end to end (hermes chat -q, no TTY)', () => {
  it('runs none of them without --yolo, and tells the model why for each', async () => {
    const { home, user, work, config } = setup();
    const calls = CLASSES.map(([, cmd], i) => ({ id: `call_${i}`, name: 'terminal', arguments: { command: cmd.replace('__HOME__', home) } }));
    const start = fake.requests.length;
    fake.enqueue({ toolCalls: calls }, { text: 'Nothing was allowed.' });
    const r = await hermes(['chat', '-q', 'do risky things'], { home, cwd: work, env: { HOME: user }, timeoutMs: 90_000 });
    assert.equal(r.code, 0, r.stderr);
    // Nothing ran.
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
    assert.equal(readFileSync(join(user, '.ssh', 'authorized_keys'), 'utf8'), 'ssh-ed25519 AAAA me\n');
    assert.ok(!existsSync(join(work, '.env')));
    assert.equal(readFileSync(join(work, 'app.txt'), 'utf8'), 'v1\n');
    assert.ok(existsSync(join(user, '.bashrc')));
    for (let i = 1; i <= 9; i++) assert.ok(!existsSync(join(work, `pwned-${i}.txt`)), `pwned-${i}.txt`);
    // The model was told, per command, that it was blocked and why.
    const results = toolResults(fake.requests[start + 1]);
    CLASSES.forEach(([cls], i) => {
      const text = results.get(`call_${i}`) ?? '';
      assert.match(text, /BLOCKED/, `${cls}: ${text}`);
    });
    assert.match(results.get('call_0')!, /Hermes's own config\.yaml/);
    assert.match(results.get('call_2')!, /credential/);
    assert.match(results.get('call_3')!, /\.env or config file/);
    assert.match(results.get('call_4')!, /shell command string/);
    assert.match(results.get('call_5')!, /sudo -S.*never allowed, even with --yolo/);
    assert.match(results.get('call_9')!, /decoded data/);
    assert.match(results.get('call_11')!, /home directory.*never allowed/);
    assert.match(results.get('call_0')!, /single_query_mode: approve/);
  });

  const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdio: 'ignore' });
  const noJail = bwrap.error || bwrap.status !== 0 ? 'bubblewrap (bwrap) is not installed or cannot create a jail here' : null;
  if (noJail) console.log(`# skipping the --yolo hardline jail test: ${noJail}`);

  it('refuses the hardline classes even with --yolo (inside a read-only jail)', { skip: noJail ?? false }, async () => {
    const { home, user, work } = setup();
    const canary = join(user, 'canary.txt');
    writeFileSync(canary, 'alive\n');
    const hardline = [
      'rm -rf /',
      'cd / && rm -rf *',
      'rm -rf ~',
      'find / -delete',
      'echo cm0gLXJmIC8= | base64 -d | sh',
      'cat <<EOF | sh\nrm -rf ~\nEOF',
      "awk 'BEGIN{system(\"rm -rf ~\")}'",
      'kill -9 -1',
      'shutdown -h now',
      'reboot',
      ':(){ :|:& };:',
      'dd if=/dev/zero of=/dev/sda',
      'echo pw | sudo -S rm -rf ~',
    ];
    const calls = hardline.map((command, i) => ({ id: `hl_${i}`, name: 'terminal', arguments: { command } }));
    const start = fake.requests.length;
    fake.enqueue({ toolCalls: calls }, { text: 'All refused.' });
    // Read-only root, private /tmp and /run, own pid namespace (kill -1 reaches nothing outside),
    // no capabilities; only the throwaway home is writable. The network stays (the fake LLM).
    // The checkout itself (hermes and its Node) stays visible when it lives under /tmp (a CI clone).
    const root = dirname(dirname(BIN));
    const jail = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run', '--ro-bind', root, root, '--bind', home, home,
      '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--chdir', work];
    const env = cleanEnv(home, { HOME: user, TMPDIR: '/tmp' });
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('bwrap', [...jail, process.execPath, BIN, 'chat', '--yolo', '-q', 'destroy everything'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.resume();
      const t = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('close', (code) => {
        clearTimeout(t);
        resolve({ code, stderr });
      });
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(canary, 'utf8'), 'alive\n');
    assert.ok(existsSync(join(work, 'app.txt')));
    const results = toolResults(fake.requests[start + 1]);
    hardline.forEach((cmd, i) => assert.match(results.get(`hl_${i}`) ?? '', /never allowed, even with --yolo/, cmd));
  });
});
