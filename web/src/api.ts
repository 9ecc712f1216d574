// The dashboard's API client: JSON in and out, the session cookie rides along, and errors carry
// the server's "what went wrong" and "what to do" so pages can show both.
export class ApiError extends Error {
  status: number;
  fix?: string;
  errors?: Record<string, string>;
  constructor(message: string, status: number, fix?: string, errors?: Record<string, string>) {
    super(message);
    this.status = status;
    this.fix = fix;
    this.errors = errors;
  }
}

export async function api<T>(path: string, o: { method?: string; body?: unknown } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: o.method ?? 'GET',
      credentials: 'same-origin',
      headers: o.body !== undefined ? { 'Content-Type': 'application/json' } : undefined,
      body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
    });
  } catch {
    throw new ApiError('The dashboard server does not answer.', 0, 'Is `hermes dashboard` still running? Start it again and reload.');
  }
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    if (res.status === 401) window.location.assign('/');
    throw new ApiError(String(data.error ?? res.statusText), res.status, data.fix as string | undefined, data.errors as Record<string, string> | undefined);
  }
  return data as T;
}

export const put = <T>(path: string, body: unknown) => api<T>(path, { method: 'PUT', body });
export const post = <T>(path: string, body: unknown = {}) => api<T>(path, { method: 'POST', body });
export const del = <T>(path: string) => api<T>(path, { method: 'DELETE' });
export const patch = <T>(path: string, body: unknown) => api<T>(path, { method: 'PATCH', body });

export function ago(unixSeconds: number | null | undefined): string {
  if (!unixSeconds) return '—';
  const s = Date.now() / 1000 - unixSeconds;
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 86400 * 7) return `${Math.floor(s / 86400)} d ago`;
  return new Date(unixSeconds * 1000).toLocaleDateString();
}

export function when(unixSeconds: number | null | undefined): string {
  if (!unixSeconds) return '—';
  return new Date(unixSeconds * 1000).toLocaleString();
}

export const num = (n: number) => Math.round(n).toLocaleString('en-US');
export const usd = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v === 0 ? '$0.00' : v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`);

/** What `/api/status` answers (the server's type). */
export type { StatusResponse as Status } from '../../src/dashboard/api-types.ts';
