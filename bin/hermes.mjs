#!/usr/bin/env node
// Launcher for the `hermes` command. Must stay parsable by Node 20: when the node on PATH is
// older than 22 it re-executes itself under the Node 24 that `npm install` provisioned.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);

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
  const r = spawnSync(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
} else {
  const mod = await import('node:module');
  if (mod.enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { mod.enableCompileCache(); } catch { /* read-only cache dir: run without it */ }
  }
  const bundle = join(root, 'dist', 'hermes.mjs');
  const entry = !process.env.HERMES_FROM_SOURCE && existsSync(bundle) ? bundle : join(root, 'src', 'cli', 'main.ts');
  await import(pathToFileURL(entry).href);
}
