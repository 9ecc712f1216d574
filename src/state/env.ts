// HERMES_HOME/.env: secrets and API keys, KEY=VALUE lines, file mode 0600.
import { existsSync, readFileSync, chmodSync, statSync } from 'node:fs';
import { writeFileAtomic } from './fsutil.ts';

export type EnvMap = Map<string, string>;

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)?\s*$/;

/** Parses dotenv text: comments, `export`, single/double quotes, `\n` escapes in double quotes. */
export function parseDotenv(text: string): EnvMap {
  const out: EnvMap = new Map();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    let value = (m[2] ?? '').trim();
    const q = value[0];
    if (q === '"' || q === "'") {
      // A quoted value may span lines until its closing quote.
      let body = value.slice(1);
      while (!endsWithQuote(body, q) && i + 1 < lines.length) body += '\n' + lines[++i];
      body = endsWithQuote(body, q) ? body.slice(0, body.lastIndexOf(q)) : body;
      value = q === '"' ? body.replace(/\\n/g, '\n').replace(/\\r/g, '\r').replace(/\\t/g, '\t').replace(/\\"/g, '"').replace(/\\\\/g, '\\') : body;
    } else {
      const hash = value.search(/\s#/);
      if (hash >= 0) value = value.slice(0, hash).trimEnd();
    }
    out.set(m[1], value);
  }
  return out;
}

function endsWithQuote(body: string, q: string): boolean {
  const idx = body.lastIndexOf(q);
  if (idx < 0) return false;
  let backslashes = 0;
  for (let j = idx - 1; j >= 0 && body[j] === '\\'; j--) backslashes++;
  return backslashes % 2 === 0 && body.slice(idx + 1).trim().replace(/^#.*/, '') === '';
}

export function readEnvFile(path: string): EnvMap {
  if (!existsSync(path)) return new Map();
  return parseDotenv(readFileSync(path, 'utf8'));
}

/**
 * Loads HERMES_HOME/.env into `target`. Values in the file win over the inherited environment,
 * so a key saved with `hermes config set` takes effect even when a stale export is in the shell.
 */
export function loadEnvFile(path: string, target: NodeJS.ProcessEnv = process.env): EnvMap {
  const vars = readEnvFile(path);
  for (const [k, v] of vars) target[k] = v;
  return vars;
}

/** Names that must never be written through `hermes config set` (they would hijack processes). */
const DENIED = [/^LD_/, /^DYLD_/, /^PYTHON/, /^NODE_/, /^PATH$/, /^EDITOR$/, /^VISUAL$/, /^SHELL$/, /^HOME$/, /^HERMES_HOME$/, /^HERMES_YOLO_MODE$/, /^BASH_ENV$/, /^ENV$/];

export function isDeniedEnvName(name: string): boolean {
  return DENIED.some((re) => re.test(name));
}

function quote(value: string): string {
  if (/^[A-Za-z0-9_./:@+,=-]*$/.test(value)) return value;
  return '"' + value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') + '"';
}

/**
 * Sets (or with `value === null` removes) keys in a .env file, keeping other lines and comments,
 * writing atomically with mode 0600.
 */
export function updateEnvFile(path: string, updates: Record<string, string | null>): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const lines = text ? text.replace(/\n$/, '').split(/\n/) : [];
  const pending = new Map(Object.entries(updates));
  const out: string[] = [];
  for (const line of lines) {
    const m = LINE.exec(line);
    if (m && !line.trimStart().startsWith('#') && pending.has(m[1])) {
      const v = pending.get(m[1]);
      pending.delete(m[1]);
      if (v !== null && v !== undefined) out.push(`${m[1]}=${quote(v)}`);
      continue;
    }
    out.push(line);
  }
  for (const [k, v] of pending) if (v !== null) out.push(`${k}=${quote(v)}`);
  writeFileAtomic(path, out.length ? out.join('\n') + '\n' : '', 0o600);
}

/** Makes sure an existing .env is not readable by others. Returns true when it had to fix it. */
export function secureEnvFile(path: string): boolean {
  if (!existsSync(path)) return false;
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    chmodSync(path, 0o600);
    return true;
  }
  return false;
}
