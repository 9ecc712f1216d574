// `npm run bench`: runs every benchmark and prints one table. `npm run bench -- <filter>` runs
// only the benchmarks whose module name contains <filter>.
import type { Bench, BenchRow } from './lib.ts';

const MODULES: Record<string, () => Promise<{ default: Bench }>> = {
  core: () => import('./core.ts'),
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
  memory: () => import('./memory.ts'),
  prompt: () => import('./prompt.ts'),
  postgres: () => import('./postgres.ts'),
};

const filter = process.argv[2];
const rows: (BenchRow & { module: string })[] = [];
for (const [name, load] of Object.entries(MODULES)) {
  if (filter && !name.includes(filter)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  try {
    const bench = (await load()).default;
    for (const r of await bench()) rows.push({ ...r, module: name });
  } catch (e) {
    rows.push({ module: name, name: 'FAILED', value: NaN, unit: '', note: (e as Error).message });
  }
}

const fmt = (v: number) => (Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const table = rows.map((r) => [r.module, r.name, `${fmt(r.value)} ${r.unit}`, r.target ?? '', r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS', r.note ?? '']);
const head = ['module', 'benchmark', 'value', 'target', '', 'note'];
const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
console.log(line(head));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table) console.log(line(row));
