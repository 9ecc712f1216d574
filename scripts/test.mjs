// `npm test`: runs every test file in its own `node --test` process, several at a time (most tests
// wait on I/O: child processes, loopback servers, tmux), longest first, with a time limit per file.
// Prints a line per finished file, what is still running every 30 s, and at the end the failures
// with their output, the slowest files and the totals. A file that runs past its limit is killed
// with everything it started (its process group) and counted as failed, so a run never hangs (on a
// crowded machine, a file gets twice its limit). A file ends with its last test: what a
// library left running after it (a timer, a socket) does not hold it open.
//
//   node scripts/test.mjs [filter…] [--jobs N] [--timeout SECONDS] [--cpu] [--alone] [--root DIR]
//
// Small unit files run several to a process (see groupable below); --alone runs every file in a
// process of its own.
//
// --cpu (needs /usr/bin/time) also measures the CPU seconds each file used, its child processes
// included, and lists the costliest files: what to look at when the whole run is slow.
//
// A filter keeps the files whose path contains it. A file may raise its own limit with a first-lines
// comment `// test-timeout: <seconds>`. Durations of the last run are kept in .tmp/test-durations.json
// (falling back to test/durations.json, committed) to start the longest files first.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, globSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
// --root: another tree's test/ folder (the runner's own test uses it).
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? args.splice(rootAt, 2)[1] : join(dirname(fileURLToPath(import.meta.url)), '..');
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`test: ${name} needs a positive number`);
    process.exit(2);
  }
  return v;
};
const cores = availableParallelism();
const jobs = option('--jobs', Number(process.env.HERMES_TEST_JOBS) || Math.max(2, cores * 2));
const defaultLimit = option('--timeout', Number(process.env.HERMES_TEST_FILE_TIMEOUT) || 240);
const cpuAt = args.indexOf('--cpu');
if (cpuAt >= 0) args.splice(cpuAt, 1);
const measureCpu = cpuAt >= 0 && existsSync('/usr/bin/time');
const aloneAt = args.indexOf('--alone');
if (aloneAt >= 0) args.splice(aloneAt, 1);
const filters = args;

const all = globSync('test/**/*.test.ts', { cwd: root }).sort();
const files = filters.length ? all.filter((f) => filters.some((x) => f.includes(x))) : all;
if (!files.length) {
  console.error(`test: no test file matches ${filters.join(' ')}`);
  process.exit(2);
}

const DURATIONS = join(root, '.tmp', 'test-durations.json');
const readJson = (p) => {
  try {
    return JSON.parse(readFileSync(p, 'utf8'));
  } catch {
    return {};
  }
};
const known = { ...readJson(join(root, 'test', 'durations.json')), ...readJson(DURATIONS) };
// Longest first, so the slowest files do not start last and leave the other workers idle.
const queue = [...files].sort((a, b) => (known[b] ?? 30) - (known[a] ?? 30));

function limitOf(file) {
  const head = readFileSync(join(root, file), 'utf8').slice(0, 2000);
  const m = /^\/\/\s*test-timeout:\s*(\d+)/m.exec(head);
  return m ? Number(m[1]) : defaultLimit;
}

// The files' environment: ours without node:test's own marker (set when this runner itself runs
// under node:test), which would make each file report in the runner-to-runner wire format.
const childEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', NODE_COMPILE_CACHE: join(root, '.tmp', 'node-compile-cache') };
delete childEnv.NODE_TEST_CONTEXT;
// Bash reads ~/.bashrc even when not interactive if its stdin is a socket (what Node's piped stdio is)
// and the shell level is below 2, as for a shell run by sshd. Run from a terminal, the tests' shells
// are deeper than that; started with SHLVL unset or 0 (by a service or an agent), every `bash -c` a
// test starts read the user's ~/.bashrc: on a machine whose .bashrc runs `pyenv init`, half a CPU
// second per shell, and a minute each while a killed shell had left pyenv's rehash lock behind.
if (!(Number(childEnv.SHLVL) >= 1)) childEnv.SHLVL = '1';
mkdirSync(join(root, '.tmp'), { recursive: true });

const fmt = (ms) => `${(ms / 1000).toFixed(1)} s`;
const started = Date.now();
const running = new Map();
/** Files given a second period because the machine was busy when their limit came. */
const stretched = new Set();
const results = [];
let done = 0;
const width = String(files.length).length;

function summaryOf(out) {
  const n = (k) => {
    const m = new RegExp(`^ℹ ${k} (\\d+)$`, 'm').exec(out);
    return m ? Number(m[1]) : 0;
  };
  return { tests: n('tests'), pass: n('pass'), fail: n('fail') + n('cancelled'), skipped: n('skipped') + n('todo') };
}

/**
 * Runs `node --test` on `list` (one file, or a group of small ones) in its own process group, killed
 * at `limit` seconds (twice that on a crowded machine).
 */
function runTests(list, limit, reporter) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    // Its own process group, so a timeout kills the servers and shells it started too.
    const cpuFile = measureCpu ? join(root, '.tmp', `cpu-${process.pid}-${list[0].replace(/\W/g, '_')}`) : null;
    // --test-force-exit: the file ends when its last test (and `after` hook) has, not when the last
    // timer a library left behind fires (an SDK's reconnect backoff or long-poll deadline kept files
    // alive for minutes after their tests had passed).
    const argv = [process.execPath, '--test', '--test-force-exit', '--test-isolation=none', `--test-reporter=${reporter}`, ...list];
    if (cpuFile) argv.unshift('/usr/bin/time', '-q', '-f', '%U %S', '-o', cpuFile);
    const child = spawn(argv[0], argv.slice(1), {
      cwd: root,
      // Node's compile cache (in childEnv) keeps the compiled, type-stripped sources between files and runs.
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    let late = false;
    const kill = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    // On a crowded machine (a load above two runnable processes per core: other work, or this run's
    // own files on a small machine), a file past its limit gets the same time once more before it is
    // killed: it is slow for want of CPU, not stuck. Still bounded: a hung file fails at twice its limit.
    let grace = true;
    let timer;
    const expire = () => {
      if (grace && loadavg()[0] > 2 * cores) {
        grace = false;
        late = true;
        timer = setTimeout(expire, limit * 1000);
        return;
      }
      timedOut = true;
      kill();
    };
    timer = setTimeout(expire, limit * 1000);
    for (const f of list) running.set(f, t0);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the file left behind (a server it never closed) goes with it.
      kill();
      stopOrphanTmux();
      for (const f of list) running.delete(f);
      let cpu = 0;
      if (cpuFile) {
        try {
          cpu = readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number).reduce((a, b) => a + b, 0);
          rmSync(cpuFile, { force: true });
        } catch {
          /* killed before it wrote */
        }
      }
      resolve({ code, signal, timedOut, late, out, cpu, ms: Date.now() - t0 });
    });
  });
}

async function runFile(file) {
  const limit = limitOf(file);
  const r = await runTests([file], limit, 'spec');
  if (r.late) stretched.add(file);
  const ok = r.code === 0 && !r.timedOut;
  const why = r.timedOut
    ? stretched.has(file)
      ? `timed out after ${2 * limit} s (twice its limit of ${limit} s: the machine was busy when the limit came)`
      : `timed out after ${limit} s (its limit; raise it with a \`// test-timeout: <seconds>\` comment only if the file really needs it)`
    : ok
      ? ''
      : `exited with ${r.signal ?? r.code}`;
  return { file, ms: r.ms, ok, why, out: r.out, cpu: r.cpu, ...summaryOf(r.out) };
}

// Small unit files run several to a process: a `node --test` process costs ~0.3 CPU seconds to
// start and load its imports, more than such a file's tests. Small: a few seconds at most last time,
// and no CLI runs, tmux, databases, own time limit, chdir, look at the modules its process loaded,
// or per-test hooks at the top level (a
// top-level beforeEach/afterEach would run around every test of the group; top-level before/after
// hooks are fine: they run once, all before the group's first test and after its last). The group
// reports each file on its own line (its tests' own time; --cpu shares the process's CPU out by that
// time). A group that fails in any way runs each of its files again alone, so a failure is reported,
// with its output, by the file's own run, and files that only fail together (one leaving state
// another trips on) are still judged alone.
const GROUP_MAX_KNOWN = 8;
const GROUP_MAX_FILES = 12;
const GROUP_MAX_SECONDS = 12;
const GROUP_LIMIT = 120;
const GROUP_REPORTER = join(dirname(fileURLToPath(import.meta.url)), 'test-group-reporter.mjs');
// A file that looks at what its process loaded (moduleLoadList) needs one of its own too.
// So does a file whose tests are defined in a module it imports (the gateway conformance suite):
// node:test names that module as their file.
const ALONE = /^(beforeEach|afterEach)\(|helpers\/(cli|tmux|postgres|chat-harness|codex|chromium|dashboard)\.ts|test-timeout:|process\.chdir\(|moduleLoadList|from '\.\/suite\.ts'/m;
function groupable(file) {
  if (aloneAt >= 0) return false;
  if (!((known[file] ?? Infinity) <= GROUP_MAX_KNOWN)) return false;
  return !ALONE.test(readFileSync(join(root, file), 'utf8'));
}

async function runGroup(list) {
  const r = await runTests(list, GROUP_LIMIT, GROUP_REPORTER);
  const per = new Map(list.map((f) => [f, { tests: 0, pass: 0, fail: 0, skipped: 0, ms: 0 }]));
  for (const l of r.out.split('\n')) {
    if (!l.startsWith('{"group":')) continue;
    const ev = JSON.parse(l).group;
    const s = per.get(relative(root, ev.file));
    // A test whose file is none of the group's: it cannot be told whose it is, so the files run alone.
    if (!s) return null;
    if (ev.nesting === 0) s.ms += ev.ms;
    if (ev.suite) continue;
    s.tests++;
    if (ev.skip) s.skipped++;
    else if (ev.ok) s.pass++;
    else s.fail++;
  }
  const ok = r.code === 0 && !r.timedOut && [...per.values()].every((s) => s.fail === 0);
  if (!ok) return null;
  const total = [...per.values()].reduce((a, s) => a + s.ms, 0) || 1;
  return list.map((file) => {
    const s = per.get(file);
    return { file, ms: s.ms, ok: true, why: '', out: '', cpu: (r.cpu * s.ms) / total, tests: s.tests, pass: s.pass, fail: 0, skipped: s.skipped };
  });
}

/**
 * tmux servers a test file started (test/helpers/tmux.ts names their sockets hermes-test-<pid>-<n>)
 * detach from its process group; those whose test process is gone are stopped here.
 */
function stopOrphanTmux() {
  const dir = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => /^hermes-test-\d+-\d+$/.test(n));
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(n.split('-')[2]);
    try {
      process.kill(pid, 0);
      continue;
    } catch {
      /* its test process is gone */
    }
    spawnSync('tmux', ['-L', n, 'kill-server'], { stdio: 'ignore', timeout: 5000 });
    rmSync(join(dir, n), { force: true });
  }
}

function line(r) {
  done++;
  const mark = r.ok ? '✔' : '✖';
  const counts = `${r.pass}/${r.tests} passed${r.skipped ? `, ${r.skipped} skipped` : ''}${r.fail ? `, ${r.fail} failed` : ''}`;
  const cpu = measureCpu ? `, cpu ${r.cpu.toFixed(1)} s` : '';
  const late = r.ok && stretched.has(r.file) ? '  (past its limit: the machine was busy)' : '';
  process.stdout.write(`[${String(done).padStart(width)}/${files.length}] ${mark} ${r.file}  ${counts}  ${fmt(r.ms)}${cpu}${r.ok ? late : `  — ${r.why}`}\n`);
}

const ticker = setInterval(() => {
  if (!running.size) return;
  const now = Date.now();
  const list = [...running].map(([f, t]) => `${relative('test', f)} ${Math.round((now - t) / 1000)} s`).join(', ');
  process.stdout.write(`  … ${fmt(now - started)} elapsed; running: ${list}\n`);
}, 30_000);

process.stdout.write(`test: ${files.length} files, ${jobs} at a time, ${defaultLimit} s limit per file\n`);
// The small files, packed into groups (shortest last in the queue: they fill the gaps at the end).
{
  const small = queue.filter(groupable);
  for (const f of small) queue.splice(queue.indexOf(f), 1);
  let group = [];
  let secs = 0;
  for (const f of small) {
    if (group.length && (group.length >= GROUP_MAX_FILES || secs + known[f] > GROUP_MAX_SECONDS)) {
      queue.push(group);
      group = [];
      secs = 0;
    }
    group.push(f);
    secs += known[f];
  }
  if (group.length) queue.push(group);
}
const finish = (r) => {
  results.push(r);
  line(r);
};
async function worker() {
  for (let f = queue.shift(); f; f = queue.shift()) {
    if (typeof f === 'string' || f.length === 1) {
      finish(await runFile(typeof f === 'string' ? f : f[0]));
      continue;
    }
    const rs = await runGroup(f);
    if (rs) rs.forEach(finish);
    else {
      process.stdout.write(`  … ${f.length} small files run together did not all pass, or could not be told apart (${f.map((x) => relative('test', x)).join(', ')}): each runs again alone\n`);
      for (const file of f) finish(await runFile(file));
    }
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
clearInterval(ticker);

const failed = results.filter((r) => !r.ok);
for (const r of failed) {
  process.stdout.write(`\n━━━━ ✖ ${r.file} (${r.why}) ━━━━\n${r.out.trimEnd()}\n`);
}
const total = results.reduce((a, r) => ({ tests: a.tests + r.tests, pass: a.pass + r.pass, fail: a.fail + r.fail, skipped: a.skipped + r.skipped }), { tests: 0, pass: 0, fail: 0, skipped: 0 });
const slow = [...results].sort((a, b) => b.ms - a.ms).slice(0, 8);
process.stdout.write(`\nslowest: ${slow.map((r) => `${relative('test', r.file)} ${fmt(r.ms)}`).join(', ')}\n`);
if (measureCpu) {
  const cpuTotal = results.reduce((a, r) => a + r.cpu, 0);
  const top = [...results].sort((a, b) => b.cpu - a.cpu).slice(0, 25);
  process.stdout.write(`cpu: ${cpuTotal.toFixed(0)} s in all; costliest: ${top.map((r) => `${relative('test', r.file)} ${r.cpu.toFixed(1)}`).join(', ')}\n`);
}
process.stdout.write(
  `test: ${files.length} files, ${total.tests} tests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped; ${failed.length} file(s) failed; ${fmt(Date.now() - started)}\n`,
);
if (failed.length) process.stdout.write(`failed: ${failed.map((r) => r.file).join(' ')}\n`);

try {
  mkdirSync(dirname(DURATIONS), { recursive: true });
  const merged = existsSync(DURATIONS) ? readJson(DURATIONS) : {};
  for (const r of results) merged[r.file] = Math.round(r.ms / 100) / 10;
  writeFileSync(DURATIONS, JSON.stringify(merged, null, 1));
} catch {
  /* a read-only checkout: no durations kept */
}
process.exit(failed.length ? 1 : 0);
