// Which browser the browser tools drive, read from config.yaml and the environment. Light on
// purpose: the tool files import it at start-up (availability checks), playwright loads later.
import { existsSync } from 'node:fs';
import { findProgram } from '../../media/ffmpeg.ts';
import type { ToolSession } from '../types.ts';

export type BrowserBackend = 'local' | 'cdp' | 'browserbase' | 'browser-use';

export interface BrowserSettings {
  backend: BrowserBackend;
  /** CDP endpoint for `cdp` (ws:// or an http:// discovery URL). */
  cdpUrl: string;
  /** Chromium for `local`, or null when none was found. */
  executable: string | null;
  headed: boolean;
  /** Seconds without a browser call before the browser is closed (floor 30). */
  inactivitySecs: number;
  /** Milliseconds one browser action may take. */
  actionTimeoutMs: number;
  /** Snapshots longer than this are truncated (the full text is saved to a file). */
  snapshotThreshold: number;
  /** A named profile shared by every session, or '' for one profile per session. */
  profile: string;
}

type BrowserConfig = {
  cloud_provider?: unknown;
  cdp_url?: unknown;
  inactivity_timeout?: unknown;
  command_timeout?: unknown;
  snapshot_threshold?: unknown;
  headed?: unknown;
  profile?: unknown;
};

const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

/** BROWSER_EXECUTABLE_PATH (or Hermes's AGENT_BROWSER_EXECUTABLE_PATH), /usr/bin/chromium, then PATH. */
export function findChromium(env: NodeJS.ProcessEnv): string | null {
  const explicit = (env.BROWSER_EXECUTABLE_PATH || env.AGENT_BROWSER_EXECUTABLE_PATH || '').trim();
  if (explicit) return existsSync(explicit) ? explicit : findProgram(explicit, env);
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  for (const n of CHROMIUM_NAMES) {
    const p = findProgram(n, env);
    if (p) return p;
  }
  return null;
}

const num = (v: unknown, dflt: number) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : dflt);
const truthy = (v: unknown) => v === true || (typeof v === 'string' && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()));

function cloudProvider(s: ToolSession, cfg: BrowserConfig): BrowserBackend | null {
  const raw = String(cfg.cloud_provider ?? '').trim().toLowerCase().replace(/_/g, '-');
  if (raw === 'local') return null;
  if (raw === 'browserbase') return 'browserbase';
  if (raw === 'browser-use' || raw === 'browseruse') return 'browser-use';
  // Not chosen: Browser Use first, then Browserbase (Hermes's auto-detect order).
  if (!raw) {
    if (s.env.BROWSER_USE_API_KEY) return 'browser-use';
    if (s.env.BROWSERBASE_API_KEY && s.env.BROWSERBASE_PROJECT_ID) return 'browserbase';
  }
  return null;
}

export function browserSettings(s: ToolSession): BrowserSettings {
  const cfg = ((s.config as { browser?: BrowserConfig }).browser ?? {}) as BrowserConfig;
  // BROWSER_CDP_URL (set by /browser connect) wins over browser.cdp_url, which wins over a cloud provider.
  const cdpUrl = (s.env.BROWSER_CDP_URL || String(cfg.cdp_url ?? '')).trim();
  const backend: BrowserBackend = cdpUrl ? 'cdp' : (cloudProvider(s, cfg) ?? 'local');
  return {
    backend,
    cdpUrl,
    executable: backend === 'local' ? findChromium(s.env) : null,
    headed: truthy(cfg.headed) || truthy(s.env.AGENT_BROWSER_HEADED),
    inactivitySecs: Math.max(30, num(s.env.BROWSER_INACTIVITY_TIMEOUT ?? cfg.inactivity_timeout, 120)),
    actionTimeoutMs: Math.max(5, num(cfg.command_timeout, 30)) * 1000,
    snapshotThreshold: Math.max(1000, num(cfg.snapshot_threshold, 15_000)),
    profile: String(cfg.profile ?? '').trim(),
  };
}

/** Why the browser tools cannot run here, with what to do about it; null when they can. */
export function browserUnavailable(s: ToolSession): string | null {
  const b = browserSettings(s);
  if (b.backend === 'browserbase' && !(s.env.BROWSERBASE_API_KEY && s.env.BROWSERBASE_PROJECT_ID))
    return 'browser.cloud_provider is browserbase but BROWSERBASE_API_KEY and BROWSERBASE_PROJECT_ID are not both set';
  if (b.backend === 'browser-use' && !s.env.BROWSER_USE_API_KEY) return 'browser.cloud_provider is browser-use but BROWSER_USE_API_KEY is not set';
  if (b.backend === 'local' && !b.executable) {
    const explicit = s.env.BROWSER_EXECUTABLE_PATH || s.env.AGENT_BROWSER_EXECUTABLE_PATH;
    return explicit
      ? `BROWSER_EXECUTABLE_PATH points at ${explicit}, which does not exist`
      : 'no Chromium found: install it (`apt-get install chromium`), set BROWSER_EXECUTABLE_PATH, connect to a browser with /browser connect, or set BROWSERBASE_API_KEY/BROWSER_USE_API_KEY for a cloud browser';
  }
  return null;
}

export const browserAvailable = (s: ToolSession): boolean => browserUnavailable(s) === null;
