// auth.json `credential_pool.<provider>` entries as Hermes writes them (agent/credential_pool.py
// `PooledCredential.to_dict`): field order, priorities renumbered 0..n-1 in order, exhaustion state in
// `last_status*` fields (times in Unix seconds), unknown fields kept.
import { randomBytes } from 'node:crypto';
import { exhaustedTtlMs, type CredentialStatus } from '../llm/credentials.ts';
import { isObject, type AuthData, type Json, type JsonObject } from './store.ts';

export type PoolEntry = JsonObject;

/** PooledCredential's dataclass fields, in order (how Hermes serialises an entry). */
const FIELD_ORDER = [
  'id', 'label', 'auth_type', 'priority', 'source', 'access_token', 'refresh_token', 'last_status', 'last_status_at',
  'last_error_code', 'last_error_reason', 'last_error_message', 'last_error_reset_at', 'base_url', 'expires_at',
  'expires_at_ms', 'last_refresh', 'inference_base_url', 'agent_key', 'agent_key_expires_at', 'request_count',
];
const ALWAYS = new Set(['last_status', 'last_status_at', 'last_error_code', 'last_error_reason', 'last_error_message', 'last_error_reset_at']);

/** An entry in Hermes's field order; `null` optional fields left out, the status fields always present. */
export function orderEntry(e: PoolEntry): PoolEntry {
  const out: PoolEntry = {};
  for (const k of FIELD_ORDER) {
    const v = e[k];
    if (v !== undefined && (v !== null || ALWAYS.has(k))) out[k] = v;
    else if (ALWAYS.has(k)) out[k] = null;
  }
  for (const [k, v] of Object.entries(e)) if (!(k in out) && v !== undefined && v !== null) out[k] = v;
  return out;
}

const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
const num = (v: Json | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** `credential_pool.<provider>` (the live array; created when `create`). */
export function poolArray(data: AuthData, provider: string, create = false): PoolEntry[] {
  if (!isObject(data.credential_pool)) {
    if (!create) return [];
    data.credential_pool = {};
  }
  const pools = data.credential_pool as JsonObject;
  if (!Array.isArray(pools[provider])) {
    if (!create) return [];
    pools[provider] = [];
  }
  return (pools[provider] as Json[]).filter(isObject) as PoolEntry[];
}

/** The entries of a provider's pool, in priority order. */
export function poolEntries(data: AuthData, provider: string): PoolEntry[] {
  return [...poolArray(data, provider)].sort((a, b) => (num(a.priority) ?? 0) - (num(b.priority) ?? 0));
}

/** Pool ids that have entries (sorted). */
export function poolProviders(data: AuthData): string[] {
  if (!isObject(data.credential_pool)) return [];
  return Object.keys(data.credential_pool)
    .filter((k) => poolArray(data, k).length)
    .sort();
}

function writePool(data: AuthData, provider: string, entries: PoolEntry[]): void {
  poolArray(data, provider, true);
  (data.credential_pool as JsonObject)[provider] = entries.map((e, i) => orderEntry({ ...e, priority: i }));
}

export function newEntryId(): string {
  return randomBytes(3).toString('hex');
}

/** Appends an entry after the others (Hermes assigns priorities in the order credentials are added). */
export function addPoolEntry(data: AuthData, provider: string, fields: PoolEntry): PoolEntry {
  const entries = poolEntries(data, provider);
  const entry = orderEntry({
    id: newEntryId(),
    last_status: null,
    last_status_at: null,
    last_error_code: null,
    last_error_reason: null,
    last_error_message: null,
    last_error_reset_at: null,
    request_count: 0,
    ...fields,
    priority: entries.length,
  });
  writePool(data, provider, [...entries, entry]);
  return entry;
}

/** Resolves `target` (1-based index, entry id, or exact label) in priority order. */
export function resolveTarget(entries: PoolEntry[], target: string | undefined): { index: number; entry: PoolEntry } | { error: string } {
  const t = (target ?? '').trim();
  if (!t) return { error: 'Name the credential: its number in `hermes auth list`, its id, or its label.' };
  if (/^\d+$/.test(t)) {
    const i = Number(t);
    if (i >= 1 && i <= entries.length) return { index: i, entry: entries[i - 1] };
  }
  const byId = entries.findIndex((e) => e.id === t);
  if (byId >= 0) return { index: byId + 1, entry: entries[byId] };
  const byLabel = entries.filter((e) => e.label === t);
  if (byLabel.length === 1) return { index: entries.indexOf(byLabel[0]) + 1, entry: byLabel[0] };
  if (byLabel.length > 1) return { error: `Several credentials are labelled "${t}"; use the number or the id instead.` };
  return { error: `No credential matching "${t}" (there ${entries.length === 1 ? 'is 1 credential' : `are ${entries.length} credentials`}).` };
}

export function removePoolEntry(data: AuthData, provider: string, id: string): PoolEntry | null {
  const entries = poolEntries(data, provider);
  const i = entries.findIndex((e) => e.id === id);
  if (i < 0) return null;
  const [gone] = entries.splice(i, 1);
  if (entries.length) writePool(data, provider, entries);
  else delete (data.credential_pool as JsonObject)[provider];
  return gone;
}

/** Moves an entry to position `priority` (clamped) and renumbers; returns the moved entry. */
export function movePoolEntry(data: AuthData, provider: string, id: string, priority: number): PoolEntry | null {
  const entries = poolEntries(data, provider);
  const i = entries.findIndex((e) => e.id === id);
  if (i < 0) return null;
  const [entry] = entries.splice(i, 1);
  const at = Math.max(0, Math.min(entries.length, Math.trunc(priority)));
  entries.splice(at, 0, entry);
  writePool(data, provider, entries);
  return poolEntries(data, provider)[at];
}

const CLEARED = { last_status: null, last_status_at: null, last_error_code: null, last_error_reason: null, last_error_message: null, last_error_reset_at: null };

/** Clears the exhaustion state of one entry (or all, without `id`); returns how many were reset. */
export function resetPoolStatus(data: AuthData, provider: string, id?: string): number {
  const arr = poolArray(data, provider);
  let n = 0;
  for (const e of arr) {
    if (id && e.id !== id) continue;
    Object.assign(e, CLEARED);
    n++;
  }
  return n;
}

/** Writes a credential's exhaustion state into its entry (by id). */
export function setPoolStatus(data: AuthData, provider: string, id: string, st: CredentialStatus): boolean {
  const e = poolArray(data, provider).find((x) => x.id === id);
  if (!e) return false;
  e.last_status = st.lastStatus;
  e.last_status_at = st.lastStatusAt;
  e.last_error_code = st.lastErrorCode;
  e.last_error_reason = st.lastErrorReason;
  e.last_error_message = st.lastErrorMessage;
  e.last_error_reset_at = st.lastErrorResetAt;
  return true;
}

/** An entry's exhaustion state (Hermes stores `last_status_at` as epoch seconds, sometimes ISO). */
export function entryStatus(e: PoolEntry): CredentialStatus {
  const time = (v: Json | undefined): number | null => {
    if (typeof v === 'number') return v > 1e12 ? v / 1000 : v;
    if (typeof v === 'string' && v.trim()) {
      const n = Number(v);
      if (Number.isFinite(n)) return n > 1e12 ? n / 1000 : n;
      const t = Date.parse(v);
      return Number.isFinite(t) ? t / 1000 : null;
    }
    return null;
  };
  const st = str(e.last_status);
  return {
    lastStatus: st === 'exhausted' || st === 'dead' || st === 'ok' ? st : null,
    lastStatusAt: time(e.last_status_at),
    lastErrorCode: num(e.last_error_code),
    lastErrorReason: str(e.last_error_reason) || null,
    lastErrorMessage: str(e.last_error_message) || null,
    lastErrorResetAt: time(e.last_error_reset_at),
  };
}

/** ` rate-limited (429) (42m 10s left)` etc. for `hermes auth list`, as Hermes words it; '' when usable. */
export function formatExhausted(st: CredentialStatus, now = Date.now(), sole = false): string {
  if (st.lastStatus === 'dead') return ' dead (re-auth required)';
  if (st.lastStatus !== 'exhausted') return '';
  const code = st.lastErrorCode;
  const reason = (st.lastErrorReason ?? '').toLowerCase();
  const msg = (st.lastErrorMessage ?? '').toLowerCase();
  let label = 'exhausted';
  let window = true;
  if (code === 429 || /rate_limit|usage_limit|quota|exhausted/.test(reason) || /rate limit|usage limit|quota|too many requests/.test(msg)) label = 'rate-limited';
  else if (code === 401 || code === 403 || /invalid_token|invalid_grant|unauthorized|forbidden|auth/.test(reason) || /unauthorized|forbidden|expired|revoked|invalid token|authentication/.test(msg)) {
    label = 'auth failed';
    window = false;
  }
  const head = ` ${label}${st.lastErrorReason ? ` ${st.lastErrorReason}` : ''}${code ? ` (${code})` : ''}`;
  if (!window) return `${head} (re-auth may be required)`;
  const until = st.lastErrorResetAt ? st.lastErrorResetAt * 1000 : st.lastStatusAt ? st.lastStatusAt * 1000 + exhaustedTtlMs(code, { sole, billing: reason === 'billing' }) : null;
  if (until === null) return head;
  let left = Math.max(0, Math.ceil((until - now) / 1000));
  if (left <= 0) return `${head} (ready to retry)`;
  const parts: [number, string][] = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    parts.push([Math.floor(left / size), unit]);
    left %= size;
  }
  const first = parts.findIndex(([v], i) => v > 0 || i === 3);
  return `${head} (${parts.slice(first, first + 2).map(([v, u]) => `${v}${u}`).join(' ')} left)`;
}
