// HERMES_HOME/logs/codex-app-server.log: codex's stderr and the runtime's own notes, timestamped,
// secrets redacted, capped at 5 MB (one backup kept).
import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../../policy/redact.ts';

const MAX_BYTES = 5 * 1024 * 1024;

export function codexLogPath(home: string): string {
  return join(home, 'logs', 'codex-app-server.log');
}

export function codexLog(home: string): (line: string) => void {
  const path = codexLogPath(home);
  let size = -1;
  return (line) => {
    try {
      if (size < 0) {
        mkdirSync(join(home, 'logs'), { recursive: true, mode: 0o700 });
        size = existsSync(path) ? statSync(path).size : 0;
      }
      const text = `${new Date().toISOString()} ${redactSecrets(line.replace(/\x1b\[[0-9;]*m/g, ''))}\n`;
      if (size + text.length > MAX_BYTES) {
        renameSync(path, `${path}.1`);
        size = 0;
      }
      appendFileSync(path, text, { mode: 0o600 });
      size += Buffer.byteLength(text);
    } catch {
      /* logging never breaks a turn */
    }
  };
}
