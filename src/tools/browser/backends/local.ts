// The local backend: Chromium (Debian's /usr/bin/chromium, or BROWSER_EXECUTABLE_PATH) launched by
// playwright-core with a persistent profile under HERMES_HOME, headless unless browser.headed, and
// every request routed through the guard proxy.
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGuardProxy } from '../guard-proxy.ts';
import { chromiumType, type OpenBrowser, type OpenOptions } from './types.ts';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--no-default-browser-check',
];

const PROFILE_TTL_MS = 7 * 24 * 3600 * 1000;
const MARK = '.hermes-last-used';

export function profilesRoot(home: string): string {
  return join(home, 'browser', 'profiles');
}

/** The session's profile (`session-<id>`), or a named one shared by every session (browser.profile). */
export function profileDir(home: string, name: string, taskId: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'default';
  return join(profilesRoot(home), name ? safe(name) : `session-${safe(taskId)}`);
}

/** Per-session profiles unused for a week are removed (named profiles are kept). */
export function pruneProfiles(home: string, keep: string, now = Date.now()): void {
  const root = profilesRoot(home);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const n of names) {
    const dir = join(root, n);
    if (!n.startsWith('session-') || dir === keep) continue;
    try {
      const used = statSync(join(dir, MARK)).mtimeMs;
      if (now - used > PROFILE_TTL_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      try {
        if (now - statSync(dir).mtimeMs > PROFILE_TTL_MS) rmSync(dir, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
    }
  }
}

export async function openLocal(o: OpenOptions): Promise<OpenBrowser> {
  const { services: s, settings } = o;
  if (!settings.executable) throw new Error('No Chromium found. Install it (`apt-get install chromium`) or set BROWSER_EXECUTABLE_PATH.');
  const dir = profileDir(s.home, settings.profile, s.taskId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mark = join(dir, MARK);
  writeFileSync(mark, '');
  const now = new Date();
  utimesSync(mark, now, now);
  pruneProfiles(s.home, dir);
  const proxy = await startGuardProxy(o.guard);
  const chromium = await chromiumType();
  try {
    const context = await chromium.launchPersistentContext(dir, {
      executablePath: settings.executable,
      headless: !settings.headed,
      args: CHROMIUM_FLAGS,
      proxy: { server: proxy.server, username: proxy.username, password: proxy.password },
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
      timeout: Math.max(settings.actionTimeoutMs, 60_000),
    });
    return {
      backend: 'local',
      context,
      proxy,
      features: ['local'],
      async close() {
        await context.close().catch(() => undefined);
        await proxy.close();
      },
    };
  } catch (e) {
    await proxy.close();
    const msg = (e as Error).message;
    if (/ProcessSingleton|SingletonLock|profile.*in use/i.test(msg))
      throw new Error(`The browser profile ${dir} is in use by another browser. Close it, or use another browser.profile.`);
    throw new Error(`Could not start Chromium (${settings.executable}): ${msg.split('\n')[0]}`);
  }
}
