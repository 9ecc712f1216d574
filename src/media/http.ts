// Small helpers for the media providers' HTTP APIs: config strings, capped bodies, readable errors.

export const str = (v: unknown, dflt = ''): string => (typeof v === 'string' && v.trim() ? v.trim() : dflt);

/** Reads an HTTP response body with a size cap (a broken or hostile endpoint cannot fill the disk). */
export async function readCapped(r: Response, label: string, limit = 16 * 1024 * 1024): Promise<Buffer> {
  if (!r.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) {
    total += c.length;
    if (total > limit) throw new Error(`${label} response exceeds ${limit} bytes`);
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

/** An HTTP error from a speech API, with the API's own message when it sent one. */
export async function httpError(r: Response, label: string): Promise<Error> {
  let detail = '';
  try {
    const text = (await r.text()).slice(0, 500);
    try {
      const j = JSON.parse(text) as { error?: { message?: string } | string; detail?: { message?: string } | string; message?: string };
      const e = j.error ?? j.detail ?? j.message;
      detail = typeof e === 'string' ? e : (e?.message ?? text);
    } catch {
      detail = text;
    }
  } catch {
    /* no body */
  }
  const hint = r.status === 401 || r.status === 403 ? ' (check the API key)' : '';
  return new Error(`${label} returned HTTP ${r.status}${hint}${detail ? `: ${detail}` : ''}`);
}
