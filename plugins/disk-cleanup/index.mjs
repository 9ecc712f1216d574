// disk-cleanup: tracks the scratch files Hermes sessions create under HERMES_HOME (test_*, *.test.*,
// tmp_*, cron output) and deletes them on their schedule. See README.md for the rules.
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const DAY = 86_400_000;
const MAX_AGE = { test: 0, temp: 7 * DAY, 'cron-output': 14 * DAY };
const PROTECTED = new Set(['logs', 'memories', 'sessions', 'skills', 'plugins', 'profiles', 'workspace', 'projects', 'plans', 'home', 'backups', 'kanban', 'skins', 'themes', 'patches', 'disk-cleanup']);
const CONFIG_FILES = new Set(['config.yaml', '.env', 'auth.json', 'SOUL.md', 'state.db', 'kanban.db']);
const WATCHED_TOOLS = new Set(['write_file', 'patch', 'terminal']);

export function register(ctx) {
  const home = (() => {
    try {
      return realpathSync(ctx.hermes_home);
    } catch {
      return resolve(ctx.hermes_home);
    }
  })();
  const stateDir = join(home, 'disk-cleanup');
  const stateFile = join(stateDir, 'tracked.json');
  const before = new Map(); // tool_call_id → paths that existed before the call
  let trackedThisTurn = 0;

  const log = (line) => {
    try {
      mkdirSync(stateDir, { recursive: true });
      appendFileSync(join(stateDir, 'cleanup.log'), `${new Date().toISOString()} ${line}\n`);
    } catch {
      /* logging never breaks a tool call */
    }
  };
  const load = () => {
    try {
      const v = JSON.parse(readFileSync(stateFile, 'utf8'));
      return Array.isArray(v.files) ? v : { files: [] };
    } catch {
      return { files: [] };
    }
  };
  const save = (state) => {
    mkdirSync(stateDir, { recursive: true });
    const tmp = `${stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(state, null, 2));
    if (existsSync(stateFile)) writeFileSync(`${stateFile}.bak`, readFileSync(stateFile));
    renameSync(tmp, stateFile);
  };

  /** Inside HERMES_HOME (or /tmp/hermes-*), outside the protected folders and files. */
  const safe = (p) => {
    let real;
    try {
      real = realpathSync(p);
    } catch {
      real = resolve(p);
    }
    if (/^\/mnt\/[a-z]\//.test(real)) return false;
    const rel = relative(home, real);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return !PROTECTED.has(rel.split(sep)[0]) && !CONFIG_FILES.has(rel);
    if (!rel) return false;
    // Hermes's scratch folders outside the home (a home under /tmp/hermes-* is judged above).
    return /^\/tmp\/hermes-[^/]+\//.test(real);
  };
  const categoryOf = (p) => {
    const rel = relative(home, p);
    if (rel.split(sep).slice(0, 2).join('/') === 'cron/output') return 'cron-output';
    const b = basename(p);
    if (/^test_/.test(b) || /\.test\./.test(b)) return 'test';
    if (/^tmp_/.test(b)) return 'temp';
    return null;
  };
  const candidates = (tool, args) => {
    const out = [];
    if (tool === 'write_file' || tool === 'patch') {
      if (typeof args?.path === 'string') out.push(args.path);
      if (typeof args?.patch === 'string') for (const m of args.patch.matchAll(/^\*\*\* (?:Add|Update) File: (.+)$/gm)) out.push(m[1].trim());
    } else if (tool === 'terminal' && typeof args?.command === 'string') {
      for (const tok of args.command.split(/[\s;|&<>()'"`]+/)) if (/[/.]/.test(tok) && /(^|\/)(test_|tmp_)|\.test\./.test(tok)) out.push(tok);
    }
    return out.map((p) => (p.startsWith('~/') ? join(process.env.HOME ?? '', p.slice(2)) : resolve(typeof args?.workdir === 'string' ? args.workdir : process.cwd(), p)));
  };
  const track = (path, category, why) => {
    const state = load();
    if (state.files.some((f) => f.path === path)) return false;
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      /* gone already */
    }
    state.files.push({ path, category, tracked_at: new Date().toISOString(), size });
    save(state);
    log(`TRACKED ${category} ${path} (${why})`);
    return true;
  };

  /** Removes what is due; returns what was (or, dry, would be) deleted. */
  const cleanup = ({ dry = false } = {}) => {
    const state = load();
    const now = Date.now();
    const kept = [];
    const deleted = [];
    for (const f of state.files) {
      const due = now - Date.parse(f.tracked_at) >= (MAX_AGE[f.category] ?? Infinity);
      if (!due) {
        kept.push(f);
        continue;
      }
      if (!existsSync(f.path)) {
        log(`SKIPPED ${f.path} (already gone)`);
        continue;
      }
      if (!safe(f.path) || statSync(f.path).isDirectory()) {
        log(`SKIPPED ${f.path} (not a file this plugin may delete)`);
        continue;
      }
      deleted.push(f);
      if (dry) continue;
      unlinkSync(f.path);
      log(`DELETED ${f.category} ${f.path}`);
      // Folders the deletion emptied go too, up to HERMES_HOME (never a protected one).
      for (let d = dirname(f.path); d !== home && safe(d) && relative(home, d) && !relative(home, d).startsWith('..'); d = dirname(d)) {
        try {
          if (readdirSync(d).length) break;
          rmdirSync(d);
        } catch {
          break;
        }
      }
    }
    if (!dry) save({ ...state, files: kept });
    return deleted;
  };

  ctx.register_hook('pre_tool_call', ({ tool_name, args, tool_call_id }) => {
    if (!WATCHED_TOOLS.has(tool_name)) return null;
    before.set(tool_call_id ?? '', new Set(candidates(tool_name, args).filter((p) => existsSync(p))));
    return null;
  });
  ctx.register_hook('post_tool_call', ({ tool_name, args, tool_call_id }) => {
    if (!WATCHED_TOOLS.has(tool_name)) return;
    const existed = before.get(tool_call_id ?? '') ?? new Set();
    before.delete(tool_call_id ?? '');
    for (const p of candidates(tool_name, args)) {
      if (existed.has(p) || !existsSync(p) || !safe(p)) continue;
      const category = categoryOf(p);
      if (category && track(p, category, `created by ${tool_name}`) && category === 'test') trackedThisTurn++;
    }
  });
  ctx.register_hook('on_session_end', () => {
    if (!trackedThisTurn) return;
    trackedThisTurn = 0;
    cleanup();
  });

  const human = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);
  ctx.register_command(
    'disk-cleanup',
    (raw) => {
      const [sub = 'status', ...rest] = String(raw ?? '').trim().split(/\s+/).filter(Boolean);
      if (sub === 'status') {
        const files = load().files;
        if (!files.length) return 'disk-cleanup: nothing tracked.';
        const by = {};
        for (const f of files) by[f.category] = (by[f.category] ?? 0) + 1;
        const largest = [...files].sort((a, b) => b.size - a.size).slice(0, 10).map((f) => `  ${human(f.size).padStart(9)}  ${f.path}`);
        return [`disk-cleanup: ${files.length} tracked (${Object.entries(by).map(([k, v]) => `${v} ${k}`).join(', ')})`, ...largest].join('\n');
      }
      if (sub === 'dry-run' || sub === 'quick') {
        const d = cleanup({ dry: sub === 'dry-run' });
        if (!d.length) return 'disk-cleanup: nothing is due.';
        return [`disk-cleanup: ${sub === 'dry-run' ? 'would delete' : 'deleted'} ${d.length} file(s):`, ...d.map((f) => `  ${f.category}  ${f.path}`)].join('\n');
      }
      if (sub === 'track') {
        const [p, category] = rest;
        if (!p || !(category in MAX_AGE)) return 'Usage: /disk-cleanup track <path> <test|temp|cron-output>';
        const abs = resolve(p);
        if (!existsSync(abs)) return `disk-cleanup: ${abs} does not exist.`;
        if (!safe(abs)) return `disk-cleanup: ${abs} is outside what this plugin may clean (HERMES_HOME, /tmp/hermes-*; not logs, memories, sessions, skills…).`;
        return track(abs, category, 'tracked by hand') ? `disk-cleanup: tracking ${abs} as ${category}.` : `disk-cleanup: ${abs} is already tracked.`;
      }
      if (sub === 'forget') {
        const abs = resolve(rest[0] ?? '');
        const state = load();
        const left = state.files.filter((f) => f.path !== abs);
        if (left.length === state.files.length) return `disk-cleanup: ${abs} is not tracked.`;
        save({ ...state, files: left });
        return `disk-cleanup: forgot ${abs}.`;
      }
      return 'Usage: /disk-cleanup [status | dry-run | quick | track <path> <category> | forget <path>]';
    },
    'clean up the scratch files sessions created (status, dry-run, quick, track, forget)',
  );
}
