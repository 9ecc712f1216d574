// ffmpeg (and ffprobe) when they are installed: audio conversion for voice notes and resizing of
// large images. Everything that uses them has a path without them (and says what it cannot do).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const found = new Map<string, string | null>();

/** A program on PATH (or /usr/local/bin, /opt/homebrew/bin), or null. */
export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const key = `${name}\0${env.PATH ?? ''}`;
  if (found.has(key)) return found.get(key)!;
  let hit: string | null = null;
  for (const dir of [...(env.PATH ?? '').split(delimiter), '/usr/local/bin', '/opt/homebrew/bin']) {
    if (!dir) continue;
    const p = join(dir, name);
    if (existsSync(p)) {
      hit = p;
      break;
    }
  }
  found.set(key, hit);
  return hit;
}

export const ffmpegPath = (env?: NodeJS.ProcessEnv) => findProgram('ffmpeg', env);

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs a program to completion (binary stdout); rejects with its stderr's last lines on failure. */
export function run(file: string, args: string[], o: { input?: Buffer; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, timeout: o.timeoutMs ?? 120_000, signal: o.signal }, (err, stdout, stderr) => {
      const errText = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : String(stderr ?? '');
      if (err) {
        const tail = errText.trim().split('\n').slice(-3).join(' ').slice(0, 400);
        reject(new Error(`${file.split('/').pop()} failed${tail ? `: ${tail}` : `: ${err.message}`}`));
        return;
      }
      resolve({ stdout: stdout as Buffer, stderr: errText });
    });
    if (o.input) child.stdin?.end(o.input);
    else child.stdin?.end();
  });
}
