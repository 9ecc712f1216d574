// `hermes logs [agent|errors|gateway|gui|list] [-n 50] [-f] [--level] [--session] [--since] [--component]`
import { follow, listLogFiles, LogFilterError, logPath, makeFilters, readTail } from '../state/log-read.ts';
import { LOG_FILES } from '../state/logs.ts';
import { hermesHome } from '../state/paths.ts';
import { CliError } from './errors.ts';

const out = (s: string) => process.stdout.write(s + '\n');

function size(n: number): string {
  if (n < 1024) return `${n}B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)}KB`;
  return `${(n / 1024 / 1024).toFixed(1)}MB`;
}

function age(ms: number, now = Date.now()): string {
  const s = (now - ms) / 1000;
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

export async function logs(name: string | undefined, o: { lines?: string; follow?: boolean; level?: string; session?: string; since?: string; component?: string }): Promise<void> {
  const home = hermesHome();
  const which = (name ?? 'agent').toLowerCase();
  if (which === 'list') {
    const files = listLogFiles(home);
    if (!files.length) {
      out(`No log files in ${home}/logs/ yet (they are written when Hermes runs).`);
      return;
    }
    out(`Log files in ${home}/logs/:\n`);
    for (const f of files) out(`  ${f.file.padEnd(22)} ${size(f.size).padStart(8)}  ${age(f.mtime)}`);
    return;
  }
  const path = logPath(home, which);
  if (!path) throw new CliError(`Unknown log "${name}". Available: ${[...Object.keys(LOG_FILES), 'list'].join(', ')}.`, 2);
  const n = o.lines === undefined ? 50 : Number(o.lines);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`-n needs a whole number of lines (got "${o.lines}").`, 2);
  let filters;
  try {
    filters = makeFilters(o);
  } catch (e) {
    if (e instanceof LogFilterError) throw new CliError(e.message, 2);
    throw e;
  }
  const { existsSync } = await import('node:fs');
  if (!existsSync(path)) throw new CliError(`Log file not found: ${path} (logs are written when Hermes runs; try \`hermes chat\` first).`);
  const parts = [
    filters.minLevel && `level>=${filters.minLevel}`,
    o.session && `session=${o.session}`,
    o.component && `component=${o.component}`,
    o.since && `since=${o.since}`,
  ].filter(Boolean);
  out(`--- ${path}${parts.length ? ` [${parts.join(', ')}]` : ''} (${o.follow ? 'Ctrl+C to stop' : `last ${n}`}) ---`);
  for (const line of readTail(path, n, filters)) out(line);
  if (!o.follow) return;
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await follow(path, filters, (lines) => lines.forEach(out), ac.signal);
  out('--- stopped ---');
}
