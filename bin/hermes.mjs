#!/usr/bin/env node
// Launcher for the `hermes` command. Must stay parsable by Node 20: when the node on PATH is
// older than 22 it runs itself again under the Node 24 that `npm install` provisioned, as a child
// that stands in for this process: signals sent to the launcher reach the child, and the child's
// exit (code or signal) becomes the launcher's. Node before 22.15 cannot exec in place.
import { createRequire } from 'node:module';

// Required, not imported: an ES-module import of node:fs builds its namespace from every property,
// which loads fs/promises (and readline with it) on every start, `hermes --version` included.
const require = createRequire(import.meta.url);
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { fileURLToPath, pathToFileURL } = require('node:url');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);

// Signals forwarded to the child. SIGUSR1 stays Node's (it starts the inspector).
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGWINCH'];
// Signals a terminal sends to its whole foreground process group (which holds the child too).
const FROM_TERMINAL = new Set(['SIGINT', 'SIGQUIT', 'SIGWINCH']);

/** Linux: whether this process group is the foreground group of a controlling terminal. */
function inTerminalForeground() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[2]) > 0 && Number(f[5]) === Number(f[2]); // pgrp === tpgid
  } catch {
    return !!process.stdin.isTTY;
  }
}

async function relaunch(node24) {
  // Imported here: child_process (with net, streams and dgram) is not needed when no relaunch happens.
  const { spawn } = await import('node:child_process');
  const child = spawn(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, HERMES_LAUNCHER_PID: String(process.pid) },
  });
  const handlers = new Map();
  for (const sig of FORWARDED) {
    const h = () => {
      // A key typed at the terminal (Ctrl+C, Ctrl+\) already reached the child, which shares our
      // process group; forwarding it would deliver it twice.
      if (FROM_TERMINAL.has(sig) && inTerminalForeground()) return;
      try {
        child.kill(sig);
      } catch {
        /* already gone */
      }
    };
    handlers.set(sig, h);
    process.on(sig, h);
  }
  child.on('error', (e) => {
    process.stderr.write(`hermes: could not start ${node24}: ${e.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const [sig, h] of handlers) process.off(sig, h);
    if (signal) {
      // Die of the same signal, so a supervisor sees what happened to the real process.
      try {
        process.kill(process.pid, signal);
      } catch {
        /* fall through to an exit code */
      }
      setTimeout(() => process.exit(128 + (osSignal(signal) ?? 1)), 100).unref();
      return;
    }
    process.exit(code ?? 1);
  });
}

function osSignal(name) {
  return { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR2: 12, SIGTERM: 15 }[name];
}

if (major < 22) {
  let node24;
  try {
    node24 = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    const local = join(root, 'node_modules', '.bin', 'node');
    node24 = existsSync(local) ? local : null;
  }
  if (!node24) {
    process.stderr.write(
      `hermes: needs Node >= 22 (found ${process.version}). Run \`npm ci\` in ${root} to provision Node 24, or install Node 22+.\n`,
    );
    process.exit(1);
  }
  await relaunch(node24);
} else {
  const launcher = Number(process.env.HERMES_LAUNCHER_PID);
  if (launcher) {
    // Started by the launcher above: if it is killed outright (SIGKILL), do not live on as an orphan.
    delete process.env.HERMES_LAUNCHER_PID;
    setInterval(() => {
      if (process.ppid !== launcher) process.kill(process.pid, 'SIGTERM');
    }, 1000).unref();
  }
  const mod = await import('node:module');
  if (mod.enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { mod.enableCompileCache(); } catch { /* read-only cache dir: run without it */ }
  }
  const bundle = join(root, 'dist', 'hermes.mjs');
  const useBundle = !process.env.HERMES_FROM_SOURCE && existsSync(bundle);
  // `hermes --version` (answered by the entry itself, src/cli/main.ts) loads no chunk: no hooks.
  const a = process.argv.slice(2);
  const versionOnly = a.length === 1 && ['--version', '-V', 'version'].includes(a[0]);
  if (useBundle && mod.registerHooks && !versionOnly) {
    // The bundle's chunks import each other as `./chunk-….mjs`: resolved here by URL alone, which
    // spares each of the one-shot's ~75 chunks the default resolver's stat, realpath and format lookup.
    const dist = pathToFileURL(join(root, 'dist')).href + '/';
    const CHUNK = /^\.\/(chunks\/)?[\w-]+\.mjs$/;
    // Node's compile cache keeps what V8 compiled when a module was compiled: its top level only, so
    // every run compiled each function it called again (about 70 M instructions of the one-shot).
    // The bundle's chunks are compiled with V8's lazy compilation off, so their cache holds all of
    // their functions; everything else (Node's own modules with their built-in cache, packages,
    // plugins) is compiled as usual. The choice is by URL, so a chunk is always compiled the same way
    // and its cache stays valid whichever command loads it first. Only with a compile cache: without
    // one, compiling every function on every run would cost more than it saves.
    // (Left alone when the user chose V8's laziness: `node --no-lazy`, NODE_OPTIONS.)
    const userChoice = /--(no-)?lazy\b/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
    const v8 = mod.getCompileCacheDir?.() && !userChoice ? process.getBuiltinModule('node:v8') : null;
    let eager = false;
    const compileEagerly = (on) => {
      if (on === eager) return;
      eager = on;
      v8.setFlagsFromString(on ? '--no-lazy' : '--lazy');
    };
    const asUsual = () => compileEagerly(false);
    // The OpenAI SDK's chunk (1 MB, loaded by every model call) stays lazy: a turn calls a sliver of
    // it, and reading a cache with all of its functions compiled cost more than compiling that
    // sliver (chat -q: ~7% less CPU, measured alternating 30 runs each).
    const VENDOR = /\/chunks\/openai-[\w-]+\.mjs$/;
    mod.registerHooks({
      resolve(specifier, context, next) {
        if (CHUNK.test(specifier) && context.parentURL?.startsWith(dist)) return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true };
        return next(specifier, context);
      },
      // Called before each module is compiled (Node's own modules too, as `node:…`).
      load(url, context, next) {
        if (v8) {
          const ours = url.startsWith(dist) && !VENDOR.test(url);
          compileEagerly(ours);
          // Back to lazy once this module graph is compiled, before any of it runs.
          if (ours) queueMicrotask(asUsual);
        }
        return next(url, context);
      },
    });
  }
  const entry = useBundle ? bundle : join(root, 'src', 'cli', 'main.ts');
  await import(pathToFileURL(entry).href);
}
