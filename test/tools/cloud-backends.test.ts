// The cloud backends through their official SDKs against local fakes of their APIs (Daytona,
// Vercel Sandbox) and the managed-Modal gateway, plus Singularity/Apptainer through a stand-in
// binary (and the real one where it is installed): commands keep cwd and exports, file tools act in
// the sandbox, background processes report, and the sandbox is stopped / snapshotted at the end.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseWrapped, wrapCommand } from '../../src/tools/env/sandbox.ts';
import { findSingularity, instanceStartArgs } from '../../src/tools/env/singularity.ts';
import processTool from '../../src/tools/defs/process.ts';
import readFile from '../../src/tools/defs/read-file.ts';
import searchFiles from '../../src/tools/defs/search-files.ts';
import terminal from '../../src/tools/defs/terminal.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import writeFile from '../../src/tools/defs/write-file.ts';
import { startFakeDaytona, startFakeModalGateway, startFakeVercel, type FakeSandboxApi } from '../helpers/fake-sandboxes.ts';
import { call, closeServices, makeServices, tmp } from './helpers.ts';

/** The same checks for every sandbox backend. */
async function exercise(s: ToolSession, sandboxDir: () => string): Promise<void> {
  const a = await call(terminal, { command: 'mkdir -p proj && cd proj && export HERMES_SB=kept && echo started' }, s);
  assert.equal(a.json.exit_code, 0, a.raw);
  assert.equal(a.json.output, 'started\n');
  const b = await call(terminal, { command: 'pwd; echo "$HERMES_SB"; echo oops >&2; exit 3' }, s);
  assert.equal(b.json.exit_code, 3, b.raw);
  assert.equal(b.json.output, `${join(sandboxDir(), 'proj')}\nkept\noops\n`);
  const w = await call(writeFile, { path: 'notes.md', content: '# inside the sandbox\n' }, s);
  assert.equal(w.isError, false, w.raw);
  assert.equal(readFileSync(join(sandboxDir(), 'proj', 'notes.md'), 'utf8'), '# inside the sandbox\n');
  const r = await call(readFile, { path: '~/proj/notes.md' }, s);
  assert.equal(r.json.content, '1|# inside the sandbox');
  const f = await call(searchFiles, { pattern: 'sandbox' }, s);
  assert.equal(f.json.total_count, 1, f.raw);
  const bg = await call(terminal, { command: 'echo bg-start; sleep 0.3; echo bg-done; exit 4', background: true }, s);
  assert.ok(bg.json.session_id, bg.raw);
  const wait = await call(processTool, { action: 'wait', session_id: bg.json.session_id, timeout: 20 }, s);
  assert.equal(wait.json.exit_code, 4, wait.raw);
  assert.match(wait.json.output, /bg-start\nbg-done/);
}

describe('sandbox command wrapper', () => {
  it('restores exports and cwd, saves them after, and marks the final directory', () => {
    const sc = wrapCommand('cd /tmp', { cwd: '/work', envFile: '/tmp/e', marker: 'm1' });
    assert.match(sc, /\. '\/tmp\/e'/);
    assert.match(sc, /cd -- '\/work'/);
    assert.match(sc, /export -p > '\/tmp\/e'/);
    assert.deepEqual(parseWrapped('out\n\n__HERMES_CWD__/tmp\n'), { output: 'out\n', cwd: '/tmp' });
  });
});

describe('daytona backend (official SDK, local fake API)', () => {
  let api: FakeSandboxApi;
  before(async () => {
    api = await startFakeDaytona();
  });
  after(() => api.close());

  it('runs in a sandbox created with Hermes’s name, labels and resources; stops it (persistent) and resumes it', async () => {
    const s = makeServices({ taskId: 'task-dt' });
    Object.assign(s.env, { TERMINAL_ENV: 'daytona', DAYTONA_API_KEY: 'dt-key', DAYTONA_API_URL: `${api.url}/api`, DAYTONA_TARGET: 'us', TERMINAL_CONTAINER_MEMORY: '2048' });
    await exercise(s, () => api.dirs.get('sb1')!);
    const create = api.calls.find((c) => c.method === 'POST' && c.path === '/api/sandbox')!;
    assert.equal(create.body.name, 'hermes-task-dt');
    assert.equal(create.body.labels.hermes_task_id, 'task-dt');
    assert.deepEqual([create.body.cpu, create.body.memory, create.body.disk], [1, 2, 10], 'memory in GiB, disk capped at 10');
    assert.equal(create.body.autoStopInterval, 0);
    await closeServices(s);
    assert.equal(api.state.get('sb1'), 'stopped', 'persistent: stopped, not deleted');
    const again = makeServices({ taskId: 'task-dt' });
    Object.assign(again.env, { TERMINAL_ENV: 'daytona', DAYTONA_API_KEY: 'dt-key', DAYTONA_API_URL: `${api.url}/api`, DAYTONA_TARGET: 'us' });
    const r = await call(terminal, { command: 'cat proj/notes.md' }, again);
    assert.equal(r.json.output, '# inside the sandbox\n', 'the same sandbox came back with its files');
    assert.equal(api.calls.filter((c) => c.method === 'POST' && c.path === '/api/sandbox').length, 1);
    await closeServices(again);
  });

  it('stops an idle sandbox after TERMINAL_LIFETIME_SECONDS and brings it back on the next command', async () => {
    const s = makeServices({ taskId: 'task-idle' });
    Object.assign(s.env, { TERMINAL_ENV: 'daytona', DAYTONA_API_KEY: 'dt-key', DAYTONA_API_URL: `${api.url}/api`, DAYTONA_TARGET: 'us', TERMINAL_LIFETIME_SECONDS: '1' });
    await call(terminal, { command: 'echo hi > kept.txt' }, s);
    const id = [...api.state.keys()].at(-1)!;
    for (let i = 0; i < 100 && api.state.get(id) !== 'stopped'; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(api.state.get(id), 'stopped', 'idle cleanup stopped the sandbox');
    const r = await call(terminal, { command: 'cat kept.txt' }, s);
    assert.equal(r.json.output, 'hi\n');
    assert.equal(api.state.get(id), 'started');
    await closeServices(s);
  });

  it('deletes the sandbox when container_persistent is off, and explains a missing key', async () => {
    const s = makeServices({ taskId: 'task-eph' });
    Object.assign(s.env, { TERMINAL_ENV: 'daytona', DAYTONA_API_KEY: 'dt-key', DAYTONA_API_URL: `${api.url}/api`, DAYTONA_TARGET: 'us', TERMINAL_CONTAINER_PERSISTENT: 'false' });
    await call(terminal, { command: 'true' }, s);
    await closeServices(s);
    assert.ok([...api.state.values()].includes('destroyed'));
    const none = makeServices();
    none.env.TERMINAL_ENV = 'daytona';
    const r = await call(terminal, { command: 'true' }, none);
    assert.match(r.json.error, /DAYTONA_API_KEY/);
  });
});

describe('vercel_sandbox backend (official SDK, local fake API)', () => {
  let api: FakeSandboxApi;
  before(async () => {
    api = await startFakeVercel();
  });
  after(() => api.close());

  it('runs commands, snapshots the filesystem at the end and restores it for the same task', async () => {
    const env = { TERMINAL_ENV: 'vercel_sandbox', VERCEL_TOKEN: 'vt', VERCEL_PROJECT_ID: 'prj', VERCEL_TEAM_ID: 'team', VERCEL_SANDBOX_API_BASE_URL: api.url };
    const s = makeServices({ taskId: 'task-vc' });
    Object.assign(s.env, env);
    await exercise(s, () => api.dirs.get('sess1')!);
    const create = api.calls.find((c) => c.path.startsWith('/v2/sandboxes') && c.method === 'POST')!;
    assert.equal(create.body.runtime, 'node24');
    await closeServices(s);
    const store = JSON.parse(readFileSync(join(s.home, 'vercel_sandbox_snapshots.json'), 'utf8'));
    assert.equal(store['task-vc'], 'snap-sess1');
    const again = makeServices({ taskId: 'task-vc', home: s.home });
    Object.assign(again.env, env);
    const r = await call(terminal, { command: 'cat proj/notes.md' }, again);
    assert.equal(r.json.output, '# inside the sandbox\n');
    assert.equal(api.calls.filter((c) => c.path.split('?')[0] === '/v2/sandboxes').at(-1)!.body.source.snapshotId, 'snap-sess1');
    await closeServices(again);
  });

  it('refuses an unsupported runtime and a custom disk size with a clear message', async () => {
    const s = makeServices();
    Object.assign(s.env, { TERMINAL_ENV: 'vercel_sandbox', VERCEL_TOKEN: 'vt', VERCEL_PROJECT_ID: 'p', VERCEL_TEAM_ID: 't', TERMINAL_VERCEL_RUNTIME: 'ruby3' });
    assert.match((await call(terminal, { command: 'true' }, s)).json.error, /node24, node22, python3\.13/);
    const d = makeServices();
    Object.assign(d.env, { TERMINAL_ENV: 'vercel_sandbox', TERMINAL_CONTAINER_DISK: '1000' });
    assert.match((await call(terminal, { command: 'true' }, d)).json.error, /no configurable disk size/);
  });
});

describe('modal backend (managed gateway HTTP API, local fake)', () => {
  let api: FakeSandboxApi;
  before(async () => {
    api = await startFakeModalGateway('gw-token');
  });
  after(() => api.close());

  it('creates the sandbox with Hermes’s resources, runs commands, terminates with a snapshot', async () => {
    const s = makeServices({ taskId: 'task-mo' });
    Object.assign(s.env, { TERMINAL_ENV: 'modal', MODAL_GATEWAY_URL: api.url, TOOL_GATEWAY_USER_TOKEN: 'gw-token', TERMINAL_CONTAINER_CPU: '2' });
    await exercise(s, () => api.dirs.get('mo-1')!);
    const create = api.calls.find((c) => c.path === '/v1/sandboxes')!;
    assert.equal(create.body.cpu, 2);
    assert.equal(create.body.memoryMiB, 5120);
    assert.equal(create.body.logicalKey, 'task-mo');
    assert.equal(create.body.persistentFilesystem, true);
    await closeServices(s);
    assert.equal(api.state.get('mo-1'), 'snapshotted');
  });

  it('direct mode says why it is not available here and what to use', async () => {
    const s = makeServices();
    Object.assign(s.env, { TERMINAL_ENV: 'modal', TERMINAL_MODAL_MODE: 'direct' });
    assert.match((await call(terminal, { command: 'true' }, s)).json.error, /gRPC[\s\S]*managed mode/);
  });
});

describe('singularity backend', () => {
  it('builds hardened instance arguments with resources and a persistent overlay', () => {
    const a = instanceStartArgs({ image: 'x.sif', name: 'hermes_t', dir: '/s', home: '/h', taskId: 't', persistent: true, cpu: 2, memoryMb: 4096, binds: ['/data:/data:ro'] }, 'x.sif', '/s/overlay-t');
    assert.deepEqual(a, ['instance', 'start', '--containall', '--no-home', '--overlay', '/s/overlay-t', '--bind', '/data:/data:ro', '--memory', '4096M', '--cpus', '2', 'x.sif', 'hermes_t']);
  });

  it('runs through a stand-in apptainer: instance start, exec, stop; overlay recorded', async () => {
    const dir = tmp('fake-apptainer-');
    const bin = join(dir, 'apptainer');
    // `exec` runs in the instance's directory with it as HOME: --no-home keeps this machine's dotfiles out.
    writeFileSync(
      bin,
      `#!/bin/bash\nstate=${JSON.stringify(dir)}\ncase "$1" in\n  version) echo 1.3.0 ;;\n  instance) if [ "$2" = start ]; then shift 2; printf '%s\\n' "$@" > "$state/start-args"; for a; do last=$a; done; mkdir -p "$state/i-$last"; elif [ "$2" = stop ]; then echo "$3" >> "$state/stopped"; rm -rf "$state/i-$3"; fi ;;\n  exec) name=\${2#instance://}; shift 2; [ -d "$state/i-$name" ] || { echo "no instance $name" >&2; exit 255; }; cd "$state/i-$name"; HOME="$state/i-$name" exec "$@" ;;\nesac\n`,
    );
    chmodSync(bin, 0o755);
    const s = makeServices({ taskId: 'task-sg' });
    Object.assign(s.env, { TERMINAL_ENV: 'singularity', HERMES_SINGULARITY_BINARY: bin, TERMINAL_SINGULARITY_IMAGE: 'images/tool.sif' });
    const r1 = await call(terminal, { command: 'cd /tmp && export Z=1; echo in' }, s);
    assert.equal(r1.json.output, 'in\n', r1.raw);
    const r2 = await call(terminal, { command: 'pwd; echo $Z' }, s);
    assert.equal(r2.json.output, '/tmp\n1\n');
    const args = readFileSync(join(dir, 'start-args'), 'utf8').split('\n');
    assert.ok(args.includes('--containall') && args.includes('--no-home') && args.includes('--overlay'));
    assert.ok(args.includes('images/tool.sif'));
    await closeServices(s);
    assert.match(readFileSync(join(dir, 'stopped'), 'utf8'), /hermes_/);
    assert.ok(existsSync(join(s.home, 'singularity_snapshots.json')));
  });

  const real = findSingularity(process.env);
  const skip = real ? false : 'neither apptainer nor singularity is installed (Debian bookworm packages neither)';
  if (skip) console.log(`# skipping the real Singularity/Apptainer test: ${skip}`);
  it('runs a command in a real Apptainer instance', { skip }, async () => {
    const s = makeServices();
    Object.assign(s.env, { TERMINAL_ENV: 'singularity', TERMINAL_CONTAINER_PERSISTENT: 'false' });
    const r = await call(terminal, { command: 'cat /etc/os-release | head -1' }, s);
    assert.equal(r.json.exit_code, 0, r.raw);
    await closeServices(s);
  });
});
