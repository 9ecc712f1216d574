// The dashboard as a person meets it: a seeded HERMES_HOME (sessions, cron jobs, logs), the real
// `hermes dashboard` process, and Debian's Chromium driven by playwright-core.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CronStore } from '../../src/cron/jobs.ts';
import { SessionDB } from '../../src/state/db.ts';
import { HermesLog } from '../../src/state/logs.ts';
import { BIN, cleanEnv } from './cli.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** Why browser tests cannot run here, or null when they can. */
export function chromiumMissing(): string | null {
  if (!existsSync(CHROMIUM)) return `Chromium is not installed (${CHROMIUM}); \`apt-get install chromium\` (.ci/run does)`;
  return null;
}

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

const DAY = 86_400;

/** Sessions over the last days (one with the word "pelican" in it), two cron jobs, and log lines. */
export function seedHome(home: string, o: { now?: number } = {}): { pelicanSession: string; jobs: string[] } {
  const now = o.now ?? Date.now() / 1000;
  const db = SessionDB.open(join(home, 'state.db'));
  const sessions: { id: string; source: string; model: string; daysAgo: number; title?: string; text: string; tool?: string }[] = [
    { id: '20260101_090000_aaaaaa', source: 'cli', model: 'anthropic/claude-sonnet-4', daysAgo: 0.1, title: 'Fix the build', text: 'why does npm test fail on CI?', tool: 'terminal' },
    { id: '20260101_090000_bbbbbb', source: 'telegram', model: 'openai/gpt-4.1', daysAgo: 1, title: 'Birding trip', text: 'where can I see a pelican near Lisbon tomorrow?', tool: 'web_search' },
    { id: '20260101_090000_cccccc', source: 'cli', model: 'anthropic/claude-sonnet-4', daysAgo: 2, text: 'summarise README.md', tool: 'read_file' },
    { id: '20260101_090000_dddddd', source: 'cron', model: 'openai/gpt-4.1', daysAgo: 3, title: 'Morning digest', text: 'daily digest of the inbox' },
    { id: '20260101_090000_eeeeee', source: 'cli', model: 'test-model', daysAgo: 5, text: 'rename the variables in util.ts', tool: 'patch' },
  ];
  // Reports count calendar days ("1 day" is today since local midnight): a session meant for today
  // is put after midnight however early it is (2.4 hours ago is yesterday at 01:00).
  const midnight = new Date(now * 1000);
  midnight.setHours(0, 0, 0, 0);
  const today = midnight.getTime() / 1000;
  for (const s of sessions) {
    const t = s.daysAgo < 1 ? Math.min(now - 1, Math.max(today + 1, now - s.daysAgo * DAY)) : now - s.daysAgo * DAY;
    db.createSession({ id: s.id, source: s.source, model: s.model, startedAt: t, title: s.title });
    db.appendMessage(s.id, { role: 'user', content: s.text, timestamp: t + 1 } as never);
    if (s.tool) {
      db.appendMessage(s.id, { role: 'assistant', content: '', tool_calls: [{ id: `call_${s.id}`, type: 'function', function: { name: s.tool, arguments: '{"x":1}' } }], timestamp: t + 2 } as never);
      db.appendMessage(s.id, { role: 'tool', content: `result of ${s.tool}`, tool_call_id: `call_${s.id}`, tool_name: s.tool, timestamp: t + 3 } as never);
    }
    db.appendMessage(s.id, { role: 'assistant', content: `Here is what I found about: ${s.text}`, reasoning: 'thinking it over', timestamp: t + 4 } as never);
    db.recordUsage(s.id, { usage: { input_tokens: 1200, output_tokens: 300, cache_read_tokens: 400, cache_write_tokens: 0, reasoning_tokens: 0 }, costUsd: 0.0123, apiCalls: 2 }, s.model, 'openrouter');
    db.endSession(s.id, 'cli_close');
  }
  db.close();
  return { pelicanSession: sessions[1].id, jobs: ['morning-digest', 'weekly-report'] };
}

export async function seedCron(home: string): Promise<void> {
  const store = new CronStore({ home, tz: 'UTC' });
  await store.create({ schedule: '0 9 * * *', prompt: 'Summarise my inbox and the news', name: 'morning-digest', deliver: 'local' });
  await store.create({ schedule: 'every monday 9am', prompt: 'Write the weekly report', name: 'weekly-report', deliver: 'local' });
}

export function seedLogs(home: string): void {
  const log = new HermesLog(home, {});
  log.write('INFO', 'agent.loop', 'seeded turn: 2 API call(s)', '20260101_090000_aaaaaa');
  log.write('WARNING', 'tools.terminal', 'terminal failed after 1.2s: exit 1', '20260101_090000_aaaaaa');
  log.write('INFO', 'cron.scheduler', 'ran job morning-digest');
  log.write('ERROR', 'agent.client', 'openrouter: 500 upstream error (retry 1/3 in 2.0s)');
}

export interface RunningDash {
  url: string;
  /** The link with the token. */
  loginUrl: string;
  token: string;
  origin: string;
  child: ChildProcess;
  stdout(): string;
  stop(): Promise<void>;
}

/** Starts `hermes dashboard --no-open` on a free port and waits for its link. */
export function startDashboardProcess(home: string, o: { env?: Record<string, string>; args?: string[]; cwd?: string } = {}): Promise<RunningDash> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dashboard', '--no-open', '--port', '0', ...(o.args ?? [])], {
      cwd: o.cwd ?? home,
      env: cleanEnv(home, { TERM: 'xterm-256color', ...o.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the dashboard did not start\nstdout: ${out}\nstderr: ${err}`));
    }, 60_000);
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /Hermes dashboard: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const loginUrl = m[1];
        const u = new URL(loginUrl);
        resolve({
          url: `${u.origin}/`,
          loginUrl,
          token: u.searchParams.get('token') ?? '',
          origin: u.origin,
          child,
          stdout: () => out,
          stop: () =>
            new Promise<void>((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the dashboard exited (${code})\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

export function screenshotDir(prefix = 'hermes-dash-shots-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
