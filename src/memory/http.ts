// The small HTTP client the hosted memory providers share: JSON in and out, a timeout on every
// call, errors that name the provider and the status (never the API key).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { readJsonStore, writeJsonStore } from '../state/json-store.ts';
export class ProviderHttpError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

export interface JsonRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  timeoutMs?: number;
}

export async function requestJson<T = unknown>(provider: string, baseUrl: string, path: string, o: JsonRequest = {}): Promise<T> {
  const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  let res: Response;
  try {
    res = await fetch(url, {
      method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
      headers: { accept: 'application/json', ...(o.body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
  } catch (e) {
    const err = e as Error;
    const why = err.name === 'TimeoutError' ? `no answer within ${Math.round((o.timeoutMs ?? 10_000) / 1000)} s` : ((err.cause as Error | undefined)?.message ?? err.message);
    throw new ProviderHttpError(`${provider}: cannot reach ${url.origin} (${why})`, 0);
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = text.slice(0, 200);
    try {
      const j = JSON.parse(text) as Record<string, unknown>;
      detail = String(j.error ?? j.message ?? j.detail ?? detail);
    } catch {
      /* not JSON */
    }
    const hint = res.status === 401 || res.status === 403 ? ' — check the API key' : '';
    throw new ProviderHttpError(`${provider}: ${o.method ?? 'request'} ${url.pathname} failed with HTTP ${res.status}${detail ? `: ${detail}` : ''}${hint}`, res.status);
  }
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}

/** A JSON config file in HERMES_HOME (absent or unreadable: empty). */
export const readJsonFile = readJsonStore;

/** Merges `values` into a JSON config file (written 0600: it may sit beside secrets). */
export function mergeJsonFile(path: string, values: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeJsonStore(path, { ...readJsonFile(path), ...values });
}

/** First non-empty string among the candidates. */
export function pick(...vals: unknown[]): string | undefined {
  for (const v of vals) if (typeof v === 'string' && v.trim()) return v.trim();
  else if (typeof v === 'number') return String(v);
  return undefined;
}
