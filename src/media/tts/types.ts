// A text-to-speech provider: one file each (edge.ts, openai.ts, elevenlabs.ts), registered in
// index.ts; a plugin adds its own with registerTtsProvider().

/** `tts:` from config.yaml (provider sections are read by each provider). */
export type TtsConfig = Record<string, unknown> & { provider?: string; speed?: number };

export interface TtsRequest {
  text: string;
  /** Where the audio goes; its format is `format`. */
  outPath: string;
  /** mp3, or opus in an Ogg container (voice notes). Ask for opus only from providers with nativeOpus. */
  format: 'mp3' | 'opus';
  config: TtsConfig;
  env: NodeJS.ProcessEnv;
  /** 0.25–4.0; 1 is normal. */
  speed?: number;
  /** Voice-design guidance (tone, pacing…) for providers that take it. */
  instructions?: string;
  signal?: AbortSignal;
}

export interface TtsProvider {
  name: string;
  /** Writes Ogg/Opus itself when asked (no ffmpeg needed for voice notes). */
  nativeOpus: boolean;
  /** Longest text one request takes; longer text is split into chunks. */
  maxChars: number;
  /** Why the provider cannot run here (missing key…), or null. */
  unavailable(env: NodeJS.ProcessEnv, config: TtsConfig): string | null;
  synthesize(req: TtsRequest): Promise<void>;
}

/** The provider's own section of the tts config (`tts.<name>`). */
export function section(config: TtsConfig, name: string): Record<string, unknown> {
  const v = config[name];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

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
