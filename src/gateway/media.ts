// Attachments that arrive with messages: downloaded (with a size cap) into HERMES_HOME's caches,
// as Hermes does (`image_cache/`, `audio_cache/`, `cache/documents/`), so the agent can open them.
// Caps: `gateway.max_attachment_mb` (default 20; images for vision are further capped by the runner).
import { mkdirSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { InboundAttachment } from './types.ts';

export const DEFAULT_MAX_ATTACHMENT_MB = 20;

export function attachmentCapBytes(config: Record<string, unknown>): number {
  const g = config.gateway as { max_attachment_mb?: unknown } | undefined;
  const mb = Number(g?.max_attachment_mb);
  return (Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_MAX_ATTACHMENT_MB) * 1024 * 1024;
}

const DIRS: Record<InboundAttachment['kind'], string> = { image: 'image_cache', audio: 'audio_cache', video: join('cache', 'video'), document: join('cache', 'documents') };

export function kindOf(mimeType: string | undefined, fileName?: string): InboundAttachment['kind'] {
  const m = (mimeType ?? '').toLowerCase();
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('audio/')) return 'audio';
  if (m.startsWith('video/')) return 'video';
  const ext = extname(fileName ?? '').toLowerCase();
  if (['.png', '.jpg', '.jpeg', '.gif', '.webp', '.heic', '.heif', '.avif'].includes(ext)) return 'image';
  if (['.ogg', '.oga', '.opus', '.mp3', '.m4a', '.wav'].includes(ext)) return 'audio';
  return 'document';
}

const EXT: Record<string, string> = { 'image/jpeg': '.jpg', 'image/png': '.png', 'image/gif': '.gif', 'image/webp': '.webp', 'image/heic': '.heic', 'image/heif': '.heif', 'image/avif': '.avif', 'audio/ogg': '.ogg', 'audio/mpeg': '.mp3', 'audio/mp4': '.m4a', 'video/mp4': '.mp4', 'application/pdf': '.pdf' };

const MIME: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic', heif: 'image/heif', avif: 'image/avif', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg', mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav', mp4: 'video/mp4', pdf: 'application/pdf' };

/** The MIME type of a file we send, from its extension (application/octet-stream when unknown). */
export function mimeOf(path: string): string {
  return MIME[extname(path).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

/** Writes bytes into the cache for their kind; the name is made safe and unique. */
export function saveAttachment(home: string, a: { kind: InboundAttachment['kind']; bytes: Buffer; mimeType?: string; fileName?: string; id?: string }): string {
  const dir = join(home, DIRS[a.kind]);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const base = (a.fileName ?? '').replace(/[^\w.-]+/g, '_').replace(/^\.+/, '').slice(-80);
  const ext = base && extname(base) ? '' : (EXT[(a.mimeType ?? '').toLowerCase()] ?? '');
  const stem = `${(a.id ?? Date.now().toString(36)).replace(/[^\w-]+/g, '_').slice(0, 40)}${base ? `-${base}` : ''}${ext}`;
  const path = join(dir, stem);
  writeFileSync(path, a.bytes, { mode: 0o600 });
  return path;
}

/**
 * Downloads a platform-hosted file (the URL comes from the platform's API, not from a person) with a
 * size cap: refused from Content-Length when it says so, else cut off while reading.
 */
export async function fetchCapped(url: string, maxBytes: number, init: RequestInit = {}, fetchFn: typeof fetch = fetch): Promise<{ bytes: Buffer; mimeType?: string } | { tooLarge: number }> {
  const r = await fetchFn(url, init);
  if (!r.ok) throw new Error(`download failed: HTTP ${r.status}`);
  const declared = Number(r.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await r.body?.cancel().catch(() => undefined);
    return { tooLarge: declared };
  }
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) {
    n += c.length;
    if (n > maxBytes) return { tooLarge: n };
    parts.push(Buffer.from(c));
  }
  return { bytes: Buffer.concat(parts), mimeType: r.headers.get('content-type')?.split(';')[0] || undefined };
}

/** Downloads and saves one attachment; a file over the cap becomes a `tooLarge` note instead. */
export async function downloadAttachment(home: string, config: Record<string, unknown>, o: { url: string; kind?: InboundAttachment['kind']; mimeType?: string; fileName?: string; id?: string; headers?: Record<string, string>; fetch?: typeof fetch; voice?: boolean }): Promise<InboundAttachment> {
  const got = await fetchCapped(o.url, attachmentCapBytes(config), { headers: o.headers }, o.fetch);
  const mimeType = o.mimeType ?? ('bytes' in got ? got.mimeType : undefined);
  const kind = o.kind ?? kindOf(mimeType, o.fileName);
  if ('tooLarge' in got) return { kind, mimeType, fileName: o.fileName, tooLarge: got.tooLarge, voice: o.voice };
  return { kind, mimeType, fileName: o.fileName, voice: o.voice, path: saveAttachment(home, { kind, bytes: got.bytes, mimeType, fileName: o.fileName, id: o.id }) };
}
