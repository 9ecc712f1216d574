// Logs tab: the tail of HERMES_HOME/logs/*.log with level/component/session/since filters, and the
// lines added since a byte offset (the page polls with it for a live tail). Lines are redacted when
// written; they are redacted again here in case a file came from elsewhere.
import type { Hono } from 'hono';
import { redactSecrets } from '../../policy/redact.ts';
import { listLogFiles, LogFilterError, logPath, makeFilters, readFrom, readTail } from '../../state/log-read.ts';
import { COMPONENT_PREFIXES, LOG_FILES } from '../../state/logs.ts';
import { fail, type DashboardContext } from '../context.ts';
import { existsSync, statSync } from 'node:fs';
import type { LogFilesResponse, LogPage } from '../api-types.ts';

export function registerLogs(app: Hono, ctx: DashboardContext): void {
  app.get('/api/logs/files', (c) => c.json({ files: listLogFiles(ctx.home), names: Object.keys(LOG_FILES), components: Object.keys(COMPONENT_PREFIXES) } satisfies LogFilesResponse));

  // ?file=agent&lines=200&level=&component=&session=&since=  (+ &from=<offset> for new lines only)
  app.get('/api/logs', (c) => {
    const q = c.req.query();
    const path = logPath(ctx.home, q.file || 'agent');
    if (!path) return fail(c, 400, `Unknown log "${q.file}". Choose one of: ${Object.keys(LOG_FILES).join(', ')}.`);
    let filters;
    try {
      filters = makeFilters({ level: q.level || undefined, component: q.component || undefined, session: q.session || undefined, since: q.since || undefined });
    } catch (e) {
      if (e instanceof LogFilterError) return fail(c, 400, e.message);
      throw e;
    }
    if (!existsSync(path)) return c.json({ file: path, exists: false, lines: [], size: 0 } satisfies LogPage);
    if (q.from !== undefined && q.from !== '') {
      const r = readFrom(path, Number(q.from) || 0, filters);
      return c.json({ file: path, exists: true, lines: r.lines.map(redactSecrets), size: r.size, rotated: r.rotated } satisfies LogPage);
    }
    const n = Math.min(Math.max(Number(q.lines) || 200, 1), 5000);
    const size = statSync(path).size;
    return c.json({ file: path, exists: true, lines: readTail(path, n, filters).map(redactSecrets), size } satisfies LogPage);
  });
}
