// The gateway's log: HERMES_HOME/logs/gateway.log (and agent.log / errors.log), in Hermes's line
// format (src/state/logs.ts). Gateway code logs plain `component: message` lines; the component
// becomes the logger name (`telegram: …` → `gateway.platforms.telegram`) and lines that report a
// failure are WARNINGs (so they also reach errors.log), unless the caller gives a level.
import { formatLogLine, hermesLog, type LogLevel } from '../state/logs.ts';
import { join } from 'node:path';

export interface GatewayLog {
  (line: string, level?: LogLevel): void;
  path: string;
}

export function gatewayLogPath(home: string): string {
  return join(home, 'logs', 'gateway.log');
}

const PLATFORM_PREFIXES = new Set(['telegram', 'discord', 'slack', 'email', 'webhook', 'api_server', 'api-server', 'whatsapp', 'signal', 'matrix', 'mattermost', 'sms', 'homeassistant', 'irc', 'bluebubbles', 'teams', 'google_chat', 'line']);
const FAILURE = /\b(failed|fails|cannot|could not|can't|error|refused|timed out|crashed|gave up)\b/i;

/** `telegram: update failed: …` → logger name and message. */
export function gatewayRecord(line: string): { name: string; message: string } {
  const m = /^([a-z][a-z0-9_-]{1,30}): (.*)$/s.exec(line);
  if (!m) return { name: 'gateway.run', message: line };
  const [, prefix, rest] = m;
  if (prefix === 'gateway') return { name: 'gateway.run', message: rest };
  if (PLATFORM_PREFIXES.has(prefix)) return { name: `gateway.platforms.${prefix.replace(/-/g, '_')}`, message: rest };
  return { name: `gateway.${prefix.replace(/-/g, '_')}`, message: rest };
}

export function createGatewayLog(home: string, opts: { maxMb?: number; backups?: number; level?: string; echo?: (line: string) => void } = {}): GatewayLog {
  const files = hermesLog(home, { level: opts.level, maxSizeMb: opts.maxMb, backupCount: opts.backups })?.enable('gateway') ?? null;
  const log = ((line: string, level?: LogLevel) => {
    const { name, message } = gatewayRecord(line);
    const lvl: LogLevel = level ?? (FAILURE.test(message) ? 'WARNING' : 'INFO');
    files?.write(lvl, name, message);
    opts.echo?.(formatLogLine(lvl, name, message));
  }) as GatewayLog;
  log.path = gatewayLogPath(home);
  return log;
}
