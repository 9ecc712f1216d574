// Benchmarks of the Hermes 0.18/0.19 compatibility parts: PDF text extraction (web_extract), the
// watch-pattern scanner over process output, the bundled-skills manifest hash, session_search
// scrolling in a long session, and the per-tool-call cost of sub-directory rule discovery.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallContext } from '../src/agent/types.ts';
import { SubdirHints, hintNames } from '../src/session/subdir-hints.ts';
import { DEFAULT_MD_NAMES } from '../src/state/context-files.ts';
import { SessionDB } from '../src/state/db.ts';
import { SqliteSessionStore } from '../src/state/store/sqlite.ts';
import { defaultConfig } from '../src/state/defaults.ts';
import { packageRoot } from '../src/state/paths.ts';
import { bundledSkillHash } from '../src/state/skills-bundled.ts';
import { discoverSkills } from '../src/state/skills.ts';
import { Watcher } from '../src/tools/process-notify.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import sessionSearch from '../src/tools/defs/session-search.ts';
import { pdfToText } from '../src/tools/web/pdf.ts';
import { makePdf } from '../test/helpers/pdf.ts';
import { timeIt, type Bench, type BenchRow } from './lib.ts';
import { Slots } from '../src/state/slots.ts';

const ctx: ToolCallContext = { callId: 'b', signal: new AbortController().signal, ask: async () => ({ answer: null, source: 'no_responder' }) as never, progress: () => {} };

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const root = mkdtempSync(join(tmpdir(), 'hermes-bench-compat-'));
  try {
    // PDF: 20 pages of 40 lines each.
    const pages = Array.from({ length: 20 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}: the quick brown fox jumps over the lazy dog.`).join('\n'));
    const pdf = makePdf(pages, 'Bench');
    const t0 = process.hrtime.bigint();
    const first = await pdfToText(pdf);
    const cold = Number(process.hrtime.bigint() - t0) / 1e6;
    const warm = await timeIt(5, () => pdfToText(pdf));
    rows.push({ name: 'web_extract PDF → text, 20 pages (first, incl. loading unpdf)', value: cold, unit: 'ms', target: '≤ 1500 ms', ok: cold <= 1500, note: `${(pdf.length / 1024).toFixed(0)} KB, ${first.content.length.toLocaleString('en-US')} chars` });
    rows.push({ name: 'web_extract PDF → text, 20 pages (warm)', value: warm, unit: 'ms', target: '≤ 300 ms', ok: warm <= 300 });

    // Watch patterns: 10 MB of output, 3 patterns, a match every 10k lines.
    const chunk = Array.from({ length: 10_000 }, (_, i) => (i === 5000 ? 'Server listening on :8080' : `log line ${i} with some ordinary request details`)).join('\n') + '\n';
    const proc = { id: 'p', command: 'server', status: 'running', exitCode: null, output: '' };
    const mb = (chunk.length * 20) / 1e6;
    let now = 0;
    // Patterns that almost never match: every line is checked against all of them (the common case).
    const scan = await timeIt(3, () => {
      const w = new Watcher(['listening on :9999', 'Traceback (most recent', 'FATAL']);
      for (let i = 0; i < 20; i++) w.feed(proc, chunk, (now += 20_000));
    });
    rows.push({ name: 'watch_patterns scan of process output', value: mb / (scan / 1000), unit: 'MB/s', target: '≥ 50 MB/s', ok: mb / (scan / 1000) >= 50, note: `${mb.toFixed(0)} MB in ${scan.toFixed(0)} ms` });

    // Bundled skills: Hermes's MD5 over every shipped skill, and a first sync into an empty home.
    const bundled = join(packageRoot(), 'skills');
    const hashMs = await timeIt(5, () => {
      for (const cat of ['devops', 'hermes', 'productivity', 'software-development']) bundledSkillHash(join(bundled, cat));
    });
    rows.push({ name: 'bundled skills: MD5 of all shipped skills', value: hashMs, unit: 'ms', target: '≤ 50 ms', ok: hashMs <= 50 });
    const listMs = await timeIt(3, () => discoverSkills(mkdtempSync(join(root, 'home-'))));
    rows.push({ name: 'bundled skills: first listing in an empty home (read in place)', value: listMs, unit: 'ms', target: '≤ 200 ms', ok: listMs <= 200 });

    // session_search scroll in a 10k-message session.
    const home = join(root, 'h');
    mkdirSync(home);
    const db = SessionDB.open(join(home, 'state.db'));
    db.createSession({ id: 'long', source: 'cli' });
    for (let i = 0; i < 10_000; i++) db.appendMessage('long', { role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${'words '.repeat(30)}` });
    const services = { home, config: defaultConfig(), env: {}, cwd: home, platform: 'cli', sessionId: 'other', taskId: 'b', slots: new Slots(), yolo: false, sessionDb: new SqliteSessionStore(db) };
    const tool = new ToolRegistry().bind(sessionSearch, services);
    const mid = (db.getMessageRows('long')[5000] as { id: number }).id;
    const scroll = await timeIt(5, () => tool.execute({ session_id: 'long', around_message_id: mid, window: 10 }, ctx));
    rows.push({ name: 'session_search scroll, 10k-message session', value: scroll, unit: 'ms', target: '≤ 150 ms', ok: scroll <= 150 });
    db.close();

    // Sub-directory discovery: the cost added to a tool call that touches known directories.
    const proj = join(root, 'proj');
    mkdirSync(join(proj, 'a', 'b'), { recursive: true });
    writeFileSync(join(proj, 'a', 'AGENTS.md'), 'rules');
    const hints = new SubdirHints(proj, hintNames(DEFAULT_MD_NAMES));
    hints.check('read_file', { path: 'a/b/x.ts' });
    const n = 2000;
    const per = (await timeIt(3, () => {
      for (let i = 0; i < n; i++) hints.check('terminal', { command: 'cat a/b/x.ts ./a/y.md && ls -la a' });
    })) / n;
    rows.push({ name: 'sub-directory rule discovery per tool call (seen dirs)', value: per * 1000, unit: 'µs', target: '≤ 100 µs', ok: per * 1000 <= 100 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
};

export default bench;
