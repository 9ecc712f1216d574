// `npm run bench`: runs every benchmark and prints one table. `npm run bench -- <filter>` runs
// only the benchmarks whose module name contains <filter>.
//
// Every row measures what users run: the bundle, built once here (BENCH_NO_BUILD=1 skips it). The
// test helpers run hermes from the TypeScript sources unless HERMES_TEST_BUNDLE is set, so it is set
// for the whole run; and every process a module starts is checked: one that runs the sources
// (HERMES_FROM_SOURCE in its environment, or src/cli/main.ts) turns that module's table into a
// FAILED row naming the command.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { median, nodeBaselineMs, type Bench, type BenchRow } from './lib.ts';

process.env.HERMES_TEST_BUNDLE = '1';
delete process.env.HERMES_FROM_SOURCE;

const sourceRuns: string[] = [];
type Spawner = (...a: unknown[]) => unknown;
function watch(name: 'spawn' | 'spawnSync' | 'execFile' | 'execFileSync' | 'fork') {
  const cp = childProcess as unknown as Record<string, Spawner>;
  const original = cp[name];
  cp[name] = function (this: unknown, ...a: unknown[]) {
    const args = Array.isArray(a[1]) ? (a[1] as unknown[]).map(String) : [];
    const opts = (Array.isArray(a[1]) ? a[2] : a[1]) as { env?: NodeJS.ProcessEnv } | undefined;
    const env = opts && typeof opts === 'object' && opts.env ? opts.env : process.env;
    if (env.HERMES_FROM_SOURCE || args.some((x) => /(^|\/)src\/cli\/main\.ts$/.test(x))) sourceRuns.push([String(a[0]), ...args].join(' ').slice(0, 160));
    return original.apply(this, a);
  };
}
for (const n of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork'] as const) watch(n);
syncBuiltinESMExports();

if (!process.env.BENCH_NO_BUILD) {
  const b = childProcess.spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (b.status !== 0) {
    process.stderr.write('bench: the build failed; nothing was measured.\n');
    process.exit(1);
  }
}

const MODULES: Record<string, () => Promise<{ default: Bench }>> = {
  core: () => import('./core.ts'),
  cache: () => import('./cache.ts'),
  mcp: () => import('./mcp.ts'),
  state: () => import('./state.ts'),
  tools: () => import('./tools.ts'),
  sandbox: () => import('./sandbox.ts'),
  cli: () => import('./cli.ts'),
  tui: () => import('./tui.ts'),
  cron: () => import('./cron.ts'),
  kanban: () => import('./kanban.ts'),
  gateway: () => import('./gateway.ts'),
  'api-server': () => import('./api-server.ts'),
  platforms: () => import('./platforms.ts'),
  textcalls: () => import('./textcalls.ts'),
  compat: () => import('./compat.ts'),
  codex: () => import('./codex.ts'),
  maintenance: () => import('./maintenance.ts'),
  media: () => import('./media.ts'),
  dashboard: () => import('./dashboard.ts'),
  history: () => import('./history.ts'),
  memory: () => import('./memory.ts'),
  prompt: () => import('./prompt.ts'),
  postgres: () => import('./postgres.ts'),
};

const filter = process.argv[2];
const rows: (BenchRow & { module: string })[] = [];
// The yardstick every time row is divided by: bare `node -e 0`, measured in this run (before the
// modules and again after them, the median of both), so a loaded machine scales both alike.
const baseBefore = nodeBaselineMs(15);
for (const [name, load] of Object.entries(MODULES)) {
  if (filter && !name.includes(filter)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  sourceRuns.length = 0;
  try {
    const bench = (await load()).default;
    const got = await bench();
    if (sourceRuns.length) rows.push({ module: name, name: 'FAILED', value: NaN, unit: '', ok: false, note: `ran hermes from the sources, not the bundle: ${sourceRuns[0]}` });
    else for (const r of got) rows.push({ ...r, module: name });
  } catch (e) {
    rows.push({ module: name, name: 'FAILED', value: NaN, unit: '', note: (e as Error).message });
  }
}

const base = median([baseBefore, nodeBaselineMs(15)]);
rows.unshift({ module: 'run', name: 'node -e 0 (the yardstick of the × node column)', value: base, unit: 'ms', note: 'median of 15 before the modules and 15 after' });
/** A row's value over `node -e 0`: time rows only (ms, ms/iter, ms/MB…; µs scaled). */
const ratio = (r: BenchRow) => {
  if (Number.isNaN(r.value)) return '';
  if (/^ms\b/.test(r.unit)) return `${(r.value / base).toFixed(2)}×`;
  if (/^µs\b/.test(r.unit)) return `${(r.value / 1000 / base).toFixed(3)}×`;
  if (r.unit === 's') return `${((r.value * 1000) / base).toFixed(1)}×`;
  return '—'; // not a time (MB, msg/s, %…)
};
const fmt = (v: number) => (Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const table = rows.map((r) => [r.module, r.name, `${fmt(r.value)} ${r.unit}`, ratio(r), r.target ?? '', r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS', r.note ?? '']);
const head = ['module', 'benchmark', 'value', '× node', 'target', '', 'note'];
const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
console.log(line(head));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table) console.log(line(row));
