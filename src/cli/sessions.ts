// `hermes sessions …`: the saved conversations, in HERMES_HOME/state.db or PostgreSQL (state.backend).
import { createWriteStream } from 'node:fs';
import { messageText } from '../agent/repair.ts';
import { formatTokenSummary, summarizeTokens } from '../llm/token-summary.ts';
import type { SessionRow } from '../state/db.ts';
import type { SessionListItem } from '../state/db-rows.ts';
import { expandHome } from '../state/paths.ts';
import type { ListOptions, SessionStore } from '../state/store/index.ts';
import { openStore } from './store-open.ts';
import { loadContext } from './context.ts';
import { CliError, confirmOrRefuse } from './errors.ts';

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

/** Runs `fn` on the configured session store (state.db, or PostgreSQL), closing it afterwards. */
export async function withStore<T>(fn: (db: SessionStore, home: string) => T | Promise<T>): Promise<T> {
  const ctx = loadContext();
  const db = await openStore(ctx);
  try {
    return await fn(db, ctx.home);
  } finally {
    await db.close();
  }
}

export function when(t: number | null): string {
  if (t === null || t === undefined) return '-';
  const d = new Date(t * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${name} expects a positive whole number, got "${v}".`, 2);
  return n;
}

async function resolveOrFail(db: SessionStore, key: string): Promise<SessionRow> {
  const id = await db.resolveSession(key);
  const row = id ? await db.getSession(id) : null;
  if (!row) throw new CliError(`No session matches "${key}". List them with \`hermes sessions list\` (an id, a unique id prefix or a title works).`);
  return row;
}

function printRows(rows: SessionListItem[], filter: ListOptions): void {
  out(`${'ID'.padEnd(22)}  ${'LAST ACTIVE'.padEnd(16)}  ${'MSGS'.padStart(5)}  ${'SOURCE'.padEnd(9)}  TITLE / FIRST MESSAGE`);
  for (const r of rows) {
    const label = r.title ?? (r.preview ? `“${r.preview}${r.preview.length >= 63 ? '…' : ''}”` : '(empty)');
    const flags = `${r.archived && filter.archived === 'include' ? '  [archived]' : ''}${r.parent_session_id ? `  ↳ continues ${r.parent_session_id}` : ''}`;
    out(`${r.id.padEnd(22)}  ${when(r.last_active).padEnd(16)}  ${String(r.message_count).padStart(5)}  ${r.source.padEnd(9)}  ${label}${flags}`);
  }
}

const confirm = (question: string, yes: boolean | undefined) => confirmOrRefuse(question, yes, { nothing: 'nothing was deleted' });

/** `--workspace <needle>`: the session's workspace (git repository top, else its folder) contains it, or is named it. */
function inWorkspace(r: { git_repo_root: string | null; cwd: string | null }, needle: string): boolean {
  const ws = (r.git_repo_root || r.cwd || '').replace(/\/+$/, '');
  if (!ws) return false;
  const n = expandHome(needle).replace(/\/+$/, '');
  return ws.includes(n) || ws.split(/[\\/]/).pop() === n;
}

export function list(opts: { source?: string; limit?: string; json?: boolean; archived?: boolean; includeArchived?: boolean; workspace?: string }): Promise<void> {
  const limit = positiveInt(opts.limit, '--limit', 20);
  if (opts.archived && opts.includeArchived) throw new CliError('Use either --archived (only archived sessions) or --include-archived (all), not both.', 2);
  const filter: ListOptions = { source: opts.source, archived: opts.archived ? 'only' : opts.includeArchived ? 'include' : 'hide' };
  return withStore(async (db) => {
    if (opts.workspace !== undefined) {
      const rows = (await db.listSessions({ ...filter, limit: 1_000_000 })).filter((r) => inWorkspace(r, opts.workspace!));
      if (opts.json) return out(JSON.stringify(rows.slice(0, limit).map(({ system_prompt: _s, ...r }) => r), null, 2));
      if (!rows.length) return out(`No sessions in a workspace matching “${opts.workspace}”.`);
      printRows(rows.slice(0, limit), filter);
      if (rows.length > limit) out(`(${limit} of ${rows.length}; --limit shows more)`);
      return;
    }
    const rows = await db.listSessions({ ...filter, limit });
    if (opts.json) return out(JSON.stringify(rows.map(({ system_prompt: _s, ...r }) => r), null, 2));
    const hidden = filter.archived === 'hide' ? await db.countSessions({ ...filter, archived: 'only' }) : 0;
    const hiddenNote = hidden ? ` (${hidden} archived session${hidden === 1 ? ' is' : 's are'} hidden; --archived lists ${hidden === 1 ? 'it' : 'them'})` : '';
    if (!rows.length) {
      if (opts.archived) return out(`No archived sessions${opts.source ? ` from ${opts.source}` : ''}.`);
      return out((opts.source ? `No ${opts.source} sessions saved.` : 'No sessions saved yet. Start one with `hermes chat`.') + hiddenNote);
    }
    printRows(rows, filter);
    const total = await db.countSessions(filter);
    if (total > rows.length) out(`(${rows.length} of ${total}; --limit shows more)`);
    if (hiddenNote) out(hiddenNote.trim());
  });
}

export function show(key: string, opts: { json?: boolean }): Promise<void> {
  return withStore(async (db) => {
    const s = await resolveOrFail(db, key);
    const msgs = await db.getTranscript(s.id);
    if (opts.json) return out(JSON.stringify({ ...s, messages: msgs }, null, 2));
    out(`Session   ${s.id}${s.title ? `  “${s.title}”` : ''}${s.archived ? '  [archived]' : ''}`);
    out(`Source    ${s.source}${s.model ? ` · model ${s.model}` : ''}${s.billing_provider ? ` via ${s.billing_provider}` : ''}`);
    out(`Started   ${when(s.started_at)}${s.ended_at ? ` · ended ${when(s.ended_at)} (${s.end_reason ?? 'ended'})` : ' · active'}`);
    if (s.parent_session_id) out(`Continues ${s.parent_session_id}`);
    for (const c of (await db.descendants(s.id)).slice(0, 3)) out(`Continued in ${c.id}${c.title ? ` “${c.title}”` : ''}`);
    out(
      `Usage     ${s.message_count} messages · ${s.tool_call_count} tool calls · ${s.api_call_count} API calls · ${s.input_tokens.toLocaleString('en-US')} in / ${s.output_tokens.toLocaleString('en-US')} out tokens${s.estimated_cost_usd !== null ? ` · ~$${s.estimated_cost_usd.toFixed(4)}` : ''}`,
    );
    if (s.cwd) out(`Directory ${s.cwd}`);
    out('');
    for (const m of msgs) {
      const text = messageText(m.content).trim();
      if (m.role === 'user') out(`you: ${text}`);
      else if (m.role === 'assistant') {
        if (text) out(`hermes: ${text}`);
        for (const c of m.tool_calls ?? []) out(`  ↳ ${c.function.name}(${c.function.arguments.length > 160 ? `${c.function.arguments.slice(0, 157)}…` : c.function.arguments})`);
      } else if (m.role === 'tool') out(`  ← ${m.tool_name ?? 'tool'}: ${text.length > 200 ? `${text.slice(0, 197).replace(/\s+/g, ' ')}…` : text.replace(/\s+/g, ' ')}`);
    }
  });
}

export function search(words: string[], opts: { source?: string; role?: string; limit?: string; json?: boolean; includeArchived?: boolean }): Promise<void> {
  const query = words.join(' ').trim();
  if (!query) throw new CliError('Give something to search for: hermes sessions search <words>', 2);
  const limit = positiveInt(opts.limit, '--limit', 20);
  return withStore(async (db) => {
    const hits = await db.searchMessages(query, { source: opts.source, role: opts.role, limit, includeArchived: !!opts.includeArchived });
    if (opts.json) return out(JSON.stringify(hits, null, 2));
    if (!hits.length) return out(`No messages match “${query}”.`);
    for (const h of hits) {
      out(`${h.session_id}  ${when(h.timestamp)}  ${h.source}${h.title ? `  “${h.title}”` : ''}`);
      out(`  ${h.role}: ${h.snippet.replace(/\s+/g, ' ')}`);
    }
    out(`(${hits.length} result${hits.length === 1 ? '' : 's'}; open one with \`hermes sessions show <id>\`, continue it with \`hermes chat --resume <id>\`)`);
  });
}

export function exportSessions(output: string, opts: { sessionId?: string; source?: string }): Promise<void> {
  return withStore(async (db) => {
    const ids = opts.sessionId ? [(await resolveOrFail(db, opts.sessionId)).id] : await db.sessionIds(opts.source);
    const stream: NodeJS.WritableStream = output === '-' ? process.stdout : createWriteStream(output, { mode: 0o600 });
    let n = 0;
    for (const id of ids) {
      const s = await db.exportSession(id);
      if (!s) continue;
      if (!stream.write(`${JSON.stringify(s)}\n`)) await new Promise<void>((r) => stream.once('drain', () => r()));
      n++;
    }
    if (stream !== process.stdout) {
      await new Promise<void>((resolve, reject) => {
        stream.once('error', reject);
        stream.end(() => resolve());
      });
      process.stderr.write(`Exported ${n} session${n === 1 ? '' : 's'} to ${output}.\n`);
    }
  });
}

export function remove(key: string, opts: { yes?: boolean }): Promise<void> {
  return withStore(async (db) => {
    const s = await resolveOrFail(db, key);
    await confirm(`Delete session ${s.id}${s.title ? ` “${s.title}”` : ''} and its ${s.message_count} messages?`, opts.yes);
    await db.deleteSession(s.id);
    out(`Deleted ${s.id}.`);
  });
}

export function rename(key: string, words: string[]): Promise<void> {
  return withStore(async (db) => {
    const s = await resolveOrFail(db, key);
    try {
      await db.setTitle(s.id, words.join(' '));
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    const t = (await db.getSession(s.id))?.title;
    out(t ? `Renamed ${s.id} to “${t}”.` : `Cleared the title of ${s.id}.`);
  });
}

export function stats(opts: { json?: boolean }): Promise<void> {
  return withStore(async (db) => {
    const st = await db.stats();
    if (opts.json) return out(JSON.stringify({ path: db.location, backend: db.backend, ...st }, null, 2));
    const mb = (b: number) => `${(b / 1_048_576).toFixed(1)} MB`;
    out(`Database   ${db.location} (${mb(st.dbBytes)}${st.walBytes ? ` + ${mb(st.walBytes)} WAL` : ''}, schema v${st.schemaVersion})`);
    out(`Sessions   ${st.sessions.toLocaleString('en-US')}${Object.keys(st.bySource).length ? ` (${Object.entries(st.bySource).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}${st.archived ? `, ${st.archived} archived` : ''}`);
    out(`Messages   ${st.messages.toLocaleString('en-US')}`);
    // The one token definition (src/llm/token-summary.ts), as `hermes insights` and /usage.
    const tokens = summarizeTokens({ input: st.inputTokens, output: st.outputTokens, cacheRead: st.cacheReadTokens, cacheWrite: st.cacheWriteTokens, reasoning: st.reasoningTokens });
    out(`Tokens     ${formatTokenSummary(tokens)}`);
    if (st.costUsd) out(`Cost       ~$${st.costUsd.toFixed(2)} estimated`);
    if (st.oldest) out(`Span       ${when(st.oldest)} → ${when(st.newest)}`);
  });
}
