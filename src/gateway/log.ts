// HERMES_HOME/logs/gateway.log: timestamped lines, secrets redacted, rotated by size
// (logging.max_size_mb × logging.backup_count, as Hermes's RotatingFileHandler).
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../policy/redact.ts';

export interface GatewayLog {
  (line: string): void;
  path: string;
}

export function gatewayLogPath(home: string): string {
  return join(home, 'logs', 'gateway.log');
}

export function createGatewayLog(home: string, opts: { maxMb?: number; backups?: number; echo?: (line: string) => void } = {}): GatewayLog {
  const path = gatewayLogPath(home);
  mkdirSync(join(home, 'logs'), { recursive: true, mode: 0o700 });
  const max = Math.max(0.01, opts.maxMb ?? 5) * 1024 * 1024;
  const backups = Math.max(0, opts.backups ?? 3);
  let written = existsSync(path) ? statSync(path).size : 0;
  const rotate = () => {
    if (backups === 0) rmSync(path, { force: true });
    else {
      rmSync(`${path}.${backups}`, { force: true });
      for (let i = backups - 1; i >= 1; i--) if (existsSync(`${path}.${i}`)) renameSync(`${path}.${i}`, `${path}.${i + 1}`);
      if (existsSync(path)) renameSync(path, `${path}.1`);
    }
    written = 0;
  };
  const log = ((line: string) => {
    const text = `${new Date().toISOString()} ${redactSecrets(line)}\n`;
    try {
      if (written + text.length > max) rotate();
      appendFileSync(path, text, { mode: 0o600 });
      written += Buffer.byteLength(text);
    } catch {
      /* logging must never take the gateway down */
    }
    opts.echo?.(text);
  }) as GatewayLog;
  log.path = path;
  return log;
}
