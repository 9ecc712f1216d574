// The Docker backend: the `docker run` argument builder (unit), the transport's lifecycle against a
// stand-in `docker` program (run/exec/rm on this machine), and — where a Docker engine exists — the
// real thing end to end.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gatedSuite } from '../helpers/skip.ts';
import { dockerRunArgs, type DockerOptions } from '../../src/tools/env/docker.ts';
import processTool from '../../src/tools/defs/process.ts';
import terminal from '../../src/tools/defs/terminal.ts';
import { call, closeServices, makeServices, tmp } from './helpers.ts';

const opts = (over: Partial<DockerOptions> = {}): DockerOptions => ({
  image: 'img:1',
  name: 'hermes-t',
  taskDir: '/h/sandboxes/docker/t',
  persistent: true,
  cpu: 2,
  memoryMb: 4096,
  shmSize: '1g',
  network: true,
  volumes: [],
  forwardEnv: [],
  ...over,
});

describe('dockerRunArgs', () => {
  it('hardens the container', () => {
    const a = dockerRunArgs(opts()).join(' ');
    for (const f of [
      '--cap-drop ALL',
      '--cap-add DAC_OVERRIDE',
      '--cap-add CHOWN',
      '--cap-add FOWNER',
      '--security-opt no-new-privileges',
      '--pids-limit 256',
      '--tmpfs /tmp:rw,nosuid,size=512m',
      '--tmpfs /var/tmp:rw,noexec,nosuid,size=256m',
      '--cpus 2',
      '--memory 4096m',
      '--shm-size 1g',
    ])
      assert.ok(a.includes(f), f);
    assert.match(a, /^run -d --name hermes-t /);
    assert.match(a, /-w \/workspace img:1 sleep infinity$/);
  });
  it('mounts the persistent workspace and home, extra volumes, and no network when asked', () => {
    const a = dockerRunArgs(opts({ network: false, volumes: ['/data:/data:ro'] }));
    const s = a.join(' ');
    assert.ok(s.includes('-v /h/sandboxes/docker/t/workspace:/workspace'));
    assert.ok(s.includes('-v /h/sandboxes/docker/t/home:/root'));
    assert.ok(s.includes('-v /data:/data:ro'));
    assert.ok(s.includes('--network none'));
    assert.ok(!dockerRunArgs(opts({ persistent: false })).join(' ').includes('/workspace:/workspace'));
  });
  it('forwards variables by name only (values never on the command line)', () => {
    const a = dockerRunArgs(opts({ forwardEnv: ['GITHUB_TOKEN'] }));
    const i = a.indexOf('-e');
    assert.equal(a[i + 1], 'GITHUB_TOKEN');
    assert.ok(!a.some((x) => x.includes('=') && x.startsWith('GITHUB_TOKEN')));
  });
});

describe('docker backend through a stand-in docker program', () => {
  // `docker run -d` records the arguments; `docker exec [-i] [-t] NAME bash -c SCRIPT` runs the
  // script here in a per-container directory (its HOME too: a container's login shell never reads this
  // machine's dotfiles); `docker rm -f` removes the record.
  const dir = tmp('fake-docker-');
  const bin = join(dir, 'docker');
  writeFileSync(
    bin,
    `#!/bin/bash
state=${JSON.stringify(dir)}
cmd=$1; shift
case "$cmd" in
  run) printf '%s\\n' "$@" > "$state/run-args"; name=""; while [ $# -gt 0 ]; do [ "$1" = --name ] && name=$2; shift; done; mkdir -p "$state/c-$name"; echo 0123456789ab ;;
  exec) while [[ "$1" == -* ]]; do shift; done; name=$1; shift; [ -d "$state/c-$name" ] || { echo "Error: No such container: $name" >&2; exit 1; }; cd "$state/c-$name"; HOME="$state/c-$name" exec "$@" ;;
  rm) while [[ "$1" == -* ]]; do shift; done; rm -rf "$state/c-$1"; echo "$1" >> "$state/removed" ;;
  *) echo "fake docker: $cmd not supported" >&2; exit 1 ;;
esac
`,
  );
  chmodSync(bin, 0o755);

  it('starts the sandbox, keeps one shell, runs background processes, removes the container on close', async () => {
    const s = makeServices();
    Object.assign(s.env, { TERMINAL_ENV: 'docker', HERMES_DOCKER_BINARY: bin, FORWARD_ME: 'value' });
    s.config.terminal.docker_forward_env = ['FORWARD_ME', 'NOT_SET'];
    const r1 = await call(terminal, { command: 'export A=1; echo $A; pwd' }, s);
    assert.equal(r1.json.exit_code, 0, r1.raw);
    assert.match(r1.json.output, /^1\n/);
    const args = readFileSync(join(dir, 'run-args'), 'utf8').split('\n');
    assert.ok(args.includes('--cap-drop') && args.includes('no-new-privileges'));
    assert.ok(args.includes('FORWARD_ME') && !args.includes('NOT_SET'));
    const r2 = await call(terminal, { command: 'echo ${A}2' }, s);
    assert.equal(r2.json.output, '12\n');
    const bg = await call(terminal, { command: 'echo bg-out; exit 2', background: true }, s);
    const w = await call(processTool, { action: 'wait', session_id: bg.json.session_id, timeout: 10 }, s);
    assert.equal(w.json.exit_code, 2);
    assert.match(w.json.output, /bg-out/);
    // Containers skip the dangerous-pattern prompt; hardline blocks still apply.
    const rm = await call(terminal, { command: 'mkdir -p d && rm -rf d && echo removed' }, s);
    assert.match(rm.json.output, /removed/);
    const hard = await call(terminal, { command: 'rm -rf /' }, s);
    assert.equal(hard.json.status, 'blocked');
    await closeServices(s);
    assert.match(readFileSync(join(dir, 'removed'), 'utf8'), /hermes-/);
  });

  it('explains a missing engine', async () => {
    const s = makeServices();
    Object.assign(s.env, { TERMINAL_ENV: 'docker', HERMES_DOCKER_BINARY: join(dir, 'no-such-docker') });
    const r = await call(terminal, { command: 'true' }, s);
    assert.equal(r.isError, true);
    assert.match(r.json.error, /needs a running Docker engine/);
  });
});

const engine = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 10_000 });
const noEngine = engine.status !== 0 ? `no Docker engine is running (${(engine.stderr || engine.error?.message || '').trim().split('\n')[0] || 'docker not found'})` : null;
const image = process.env.HERMES_TEST_DOCKER_IMAGE || 'debian:stable-slim';
const noImage = !noEngine && spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status !== 0 ? `image ${image} is not present locally (set HERMES_TEST_DOCKER_IMAGE)` : null;
const skipReason = noEngine ?? noImage;
if (skipReason) console.log(`# skipping Docker end-to-end tests: ${skipReason}`);

const real = gatedSuite(skipReason);
real.describe('docker backend end to end (real engine)', () => {
  real.it('runs commands in a hardened container with a persistent workspace', async () => {
    const s = makeServices();
    s.env.TERMINAL_ENV = 'docker';
    s.config.terminal.docker_image = image;
    const r = await call(terminal, { command: 'cd /workspace && echo hi > f.txt && cat /proc/1/status | grep -i capeff' }, s);
    assert.equal(r.json.exit_code, 0, r.raw);
    await closeServices(s);
    const ws = join(s.home, 'sandboxes', 'docker', s.taskId.replace(/[^A-Za-z0-9_.-]/g, '_'), 'workspace', 'f.txt');
    assert.ok(existsSync(ws), 'the workspace survives the container');
  });
});
