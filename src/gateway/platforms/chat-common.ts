// Small pieces the app-credential platforms share (DingTalk, Feishu, WeCom, QQ…): a cached access
// token that refreshes itself a minute before it expires, and list settings that may come from an
// env variable (comma-separated, or JSON / one per line for patterns) or a config.yaml list.
import { splitList } from '../auth.ts';

export class TokenCache {
  private value: { token: string; until: number } | null = null;
  private pending: Promise<string> | null = null;
  private readonly fetchToken: () => Promise<{ token: string; ttlMs: number }>;

  constructor(fetchToken: () => Promise<{ token: string; ttlMs: number }>) {
    this.fetchToken = fetchToken;
  }

  async get(): Promise<string> {
    if (this.value && Date.now() < this.value.until) return this.value.token;
    this.pending ??= this.fetchToken()
      .then(({ token, ttlMs }) => {
        this.value = { token, until: Date.now() + Math.max(0, ttlMs - 60_000) };
        return token;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  clear(): void {
    this.value = null;
  }
}

/** A list setting: the env value wins; `patterns` env values may be a JSON array or one per line. */
export function listSetting(envValue: string | undefined, cfg: unknown, patterns = false): string[] {
  if (envValue !== undefined && envValue.trim() !== '') {
    const raw = envValue.trim();
    if (patterns) {
      try {
        const j = JSON.parse(raw) as unknown;
        if (Array.isArray(j)) return j.map(String).filter(Boolean);
      } catch {
        // not JSON: lines, then commas
      }
      const lines = raw.split('\n').map((l) => l.trim()).filter(Boolean);
      return lines.length > 1 ? lines : splitList(raw);
    }
    return splitList(raw);
  }
  if (Array.isArray(cfg)) return cfg.map(String).filter(Boolean);
  if (typeof cfg === 'string' && cfg.trim()) return patterns ? [cfg.trim()] : splitList(cfg);
  return [];
}
