// File operations on the machine the terminal runs on, so the file tools (read_file, write_file,
// patch, search_files) follow the execution backend: node:fs for the local backend, shell commands
// through the backend's own exec for everything else (SSH, containers, cloud sandboxes). Remote
// commands run in a subshell so they never change the persistent shell's directory or variables.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, posix, resolve } from 'node:path';
import { realTarget, writeDeniedRemote, type WriteContext } from '../../policy/write-safety.ts';
import { safeRemove, safeWriteFile, WriteRefused } from './safe-write.ts';
import { expandHome } from '../../state/paths.ts';
import { shq, type ExecutionBackend } from './types.ts';

export interface FileStat {
  /** `other`: a FIFO, device, socket … (never read as text). */
  kind: 'file' | 'dir' | 'other';
  size: number;
  mtimeMs: number;
  /** Hard-link count. */
  links?: number;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The time limit stopped it (what it printed until then is in stdout). */
  timedOut?: boolean;
}

/** Bounds for a search run on a remote backend: a time limit and the most output lines kept. */
export interface RunLimits {
  timeoutS?: number;
  maxLines?: number;
}

export interface FileOps {
  /** True when the files live on another machine (or container) than Hermes itself. */
  readonly remote: boolean;
  /** Where the files are, for messages ("local", "ssh deploy@host:22", …). */
  readonly label: string;
  /** The absolute path for a path the model gave (relative to the terminal's directory, `~` = its home). */
  resolve(path: string): Promise<string>;
  /** The home directory on that machine. */
  home(): Promise<string>;
  stat(path: string): Promise<FileStat | null>;
  readFile(path: string): Promise<Buffer>;
  /**
   * Writes the file, creating parent directories; says whether any were created. With `guard` (the
   * agent's writes), the deny-list is applied where the write really lands, without following a
   * link swapped in after the check; a refusal throws WriteRefused.
   */
  writeFile(path: string, data: string | Uint8Array, guard?: WriteContext): Promise<{ dirsCreated: boolean }>;
  /** Where a write to `path` lands on that machine (symlinks followed, missing parts kept). */
  realTarget(path: string): Promise<string>;
  /** Deletes a file (a link itself, not what it points to); `guard` as for writeFile. */
  remove(path: string, guard?: WriteContext): Promise<void>;
  /** Names in a directory (empty when it cannot be read). */
  list(dir: string): Promise<string[]>;
  /**
   * Runs a search program there: argv[0] with arguments, in `cwd`; `fallback` is a shell script used
   * when argv[0] is missing remotely; `limits` stop it after a time and keep only the first lines.
   */
  run(argv: string[], cwd: string, signal: AbortSignal, fallback?: string, limits?: RunLimits): Promise<RunResult>;
}

/** The files on this machine, relative paths against `cwd`. */
export class LocalFileOps implements FileOps {
  readonly remote = false;
  readonly label = 'local';
  private readonly cwd: () => Promise<string> | string;
  private readonly userHome: string;

  constructor(cwd: () => Promise<string> | string, userHome = homedir()) {
    this.cwd = cwd;
    this.userHome = userHome;
  }

  async resolve(p: string): Promise<string> {
    const e = expandHome(p.trim());
    return isAbsolute(e) ? resolve(e) : resolve(await this.cwd(), e);
  }

  async home(): Promise<string> {
    return this.userHome;
  }

  async stat(path: string): Promise<FileStat | null> {
    try {
      const st = statSync(path);
      return { kind: st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other', size: st.size, mtimeMs: st.mtimeMs, links: st.nlink };
    } catch {
      return null;
    }
  }

  async readFile(path: string): Promise<Buffer> {
    return readFileSync(path);
  }

  async realTarget(path: string): Promise<string> {
    return realTarget(path);
  }

  async writeFile(path: string, data: string | Uint8Array, guard?: WriteContext): Promise<{ dirsCreated: boolean }> {
    if (guard) return safeWriteFile(path, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, guard);
    const dir = dirname(path);
    const dirsCreated = !existsSync(dir);
    if (dirsCreated) mkdirSync(dir, { recursive: true });
    writeFileSync(path, data);
    return { dirsCreated };
  }

  async remove(path: string, guard?: WriteContext): Promise<void> {
    if (guard) return safeRemove(path, guard);
    rmSync(path, { force: true });
  }

  async list(dir: string): Promise<string[]> {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  }

  run(argv: string[], cwd: string, signal: AbortSignal): Promise<RunResult> {
    return new Promise((done) => {
      const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const onAbort = () => child.kill('SIGKILL');
      signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (e) => done({ code: 127, stdout, stderr: e.message }));
      child.on('close', (code) => {
        signal.removeEventListener('abort', onAbort);
        done({ code, stdout, stderr });
      });
    });
  }
}

const STAT_MARK = '__HERMES_STAT__';
const OUT_MARK = '__HERMES_OUT__';
/** Files larger than this are not pulled through a shell (read_file would refuse them anyway). */
export const REMOTE_READ_MAX = 64 * 1024 * 1024;

/** The files on a backend's machine, through shell commands on that backend. */
export class ShellFileOps implements FileOps {
  readonly remote = true;
  readonly label: string;
  private readonly backend: ExecutionBackend;
  private homeDir: Promise<string> | null = null;

  constructor(backend: ExecutionBackend) {
    this.backend = backend;
    this.label = backend.label;
  }

  /** Runs `script` in a subshell on the backend; stdout after the marker, the exit code. */
  private async sh(script: string, o: { stdin?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ out: string; code: number | null }> {
    const r = await this.backend.exec(`( printf '%s\\n' ${OUT_MARK}; ${script} )`, {
      timeoutMs: o.timeoutMs ?? 60_000,
      signal: o.signal ?? new AbortController().signal,
      stdin: o.stdin,
    });
    if (r.timedOut) throw new Error(`the file operation timed out on ${this.label}`);
    const at = r.output.indexOf(`${OUT_MARK}\n`);
    if (at < 0) throw new Error(`no answer from ${this.label}: ${r.output.trim().slice(-300) || 'empty output'}`);
    return { out: r.output.slice(at + OUT_MARK.length + 1), code: r.exitCode };
  }

  home(): Promise<string> {
    this.homeDir ??= this.sh('printf %s "$HOME"').then(
      (r) => r.out.trim() || '/',
      (e) => {
        this.homeDir = null;
        throw e;
      },
    );
    return this.homeDir;
  }

  async resolve(p: string): Promise<string> {
    const t = p.trim();
    if (t === '~' || t.startsWith('~/')) return posix.normalize(posix.join(await this.home(), t.slice(1)));
    if (t.startsWith('/')) return posix.normalize(t);
    return posix.normalize(posix.join(await this.backend.currentCwd(), t));
  }

  async stat(path: string): Promise<FileStat | null> {
    // GNU/BusyBox stat first, BSD stat second. %F: "regular file", "directory", …
    const r = await this.sh(
      `p=${shq(path)}; [ -e "$p" ] || exit 3; s=$(stat -L -c '%F|%s|%Y|%h' -- "$p" 2>/dev/null || stat -L -f '%HT|%z|%m|%l' -- "$p" 2>/dev/null); printf '${STAT_MARK}%s\\n' "$s"`,
    );
    if (r.code === 3) return null;
    const m = new RegExp(`${STAT_MARK}([^|\\n]*)\\|(\\d+)\\|(\\d+)(?:\\|(\\d+))?`).exec(r.out);
    if (!m) throw new Error(`could not stat ${path} on ${this.label}: ${r.out.trim().slice(0, 200)}`);
    const type = m[1].toLowerCase();
    return { kind: type.includes('regular') ? 'file' : type.includes('directory') ? 'dir' : 'other', size: Number(m[2]), mtimeMs: Number(m[3]) * 1000, links: m[4] ? Number(m[4]) : undefined };
  }

  async readFile(path: string): Promise<Buffer> {
    const r = await this.sh(`base64 < ${shq(path)} 2>/dev/null || { echo 'cannot read' >&2; exit 4; }`, { timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`Could not read ${path} on ${this.label}.`);
    return Buffer.from(r.out.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  }

  async realTarget(path: string): Promise<string> {
    // GNU readlink -m: every link followed, missing components allowed (a write through a dangling link
    // creates its target). Without GNU tools (BSD, macOS): realpath of an existing file, else the
    // folder's physical path (cd -P) with the name, else the path as given.
    const p = shq(path);
    const r = await this.sh(
      `readlink -m -- ${p} 2>/dev/null || realpath -m -- ${p} 2>/dev/null || realpath -- ${p} 2>/dev/null || ` +
        `{ d=$(dirname -- ${p}); b=$(basename -- ${p}); if [ -d "$d" ]; then (cd -P -- "$d" && printf '%s/%s\\n' "$(pwd -P)" "$b"); else printf '%s\\n' ${p}; fi; }`,
    );
    const out = r.out.trim().split('\n')[0];
    return out ? posix.normalize(out) : path;
  }

  async writeFile(path: string, data: string | Uint8Array, guard?: WriteContext): Promise<{ dirsCreated: boolean }> {
    const b64 = (typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data)).toString('base64').replace(/.{76}/g, '$&\n');
    if (!guard) {
      const dir = posix.dirname(path);
      const r = await this.sh(
        `d=${shq(dir)}; c=0; [ -d "$d" ] || { mkdir -p -- "$d" || exit 5; c=1; }; base64 -d > ${shq(path)} || exit 6; printf 'created=%s\\n' "$c"`,
        { stdin: b64, timeoutMs: 120_000 },
      );
      if (r.code === 5) throw new Error(`Could not create the directory ${dir} on ${this.label}.`);
      if (r.code !== 0) throw new Error(`Could not write ${path} on ${this.label}: ${r.out.trim().slice(0, 200) || `exit ${r.code}`}`);
      return { dirsCreated: /created=1/.test(r.out) };
    }
    // The agent's write: check where it lands there, then write exactly that file. The shell enters
    // the directory physically and verifies its real path (so the name is resolved inside the
    // checked directory, like openat), and opens the name without following a link when dd can
    // (GNU/BusyBox oflag=nofollow; otherwise a link found there is refused just before writing).
    const target = await this.realTarget(path);
    const st = await this.stat(target).catch(() => null);
    const why = writeDeniedRemote(path, target, guard, { hardLinks: st?.links });
    if (why) throw new WriteRefused(why);
    const dir = posix.dirname(target);
    const name = posix.basename(target);
    const r = await this.sh(
      `d=${shq(dir)}; n=${shq(name)}; c=0; [ -d "$d" ] || { mkdir -p -- "$d" || exit 5; c=1; }; cd -P -- "$d" || exit 5; [ "$(pwd -P)" = "$d" ] || exit 8; ` +
        `[ -L "./$n" ] && exit 7; if dd if=/dev/null of=/dev/null oflag=nofollow 2>/dev/null; then base64 -d | dd of="./$n" oflag=nofollow bs=65536 2>/dev/null || exit 6; else base64 -d > "./$n" || exit 6; fi; printf 'created=%s\\n' "$c"`,
      { stdin: b64, timeoutMs: 120_000 },
    );
    if (r.code === 5) throw new Error(`Could not create the directory ${dir} on ${this.label}.`);
    if (r.code === 7 || r.code === 8) throw new WriteRefused(`${path} changed while it was being written on ${this.label} (a link or directory was swapped). Nothing was written; check what points where and try again.`);
    if (r.code !== 0) throw new Error(`Could not write ${path} on ${this.label}: ${r.out.trim().slice(0, 200) || `exit ${r.code}`}`);
    return { dirsCreated: /created=1/.test(r.out) };
  }

  async remove(path: string, guard?: WriteContext): Promise<void> {
    if (guard) {
      const [target, st] = await Promise.all([this.realTarget(path), this.stat(path).catch(() => null)]);
      const why = writeDeniedRemote(path, target, guard, { hardLinks: st?.links });
      if (why) throw new WriteRefused(why);
    }
    const r = await this.sh(`rm -f -- ${shq(path)}`);
    if (r.code !== 0) throw new Error(`Could not delete ${path} on ${this.label}.`);
  }

  async list(dir: string): Promise<string[]> {
    const r = await this.sh(`ls -1A -- ${shq(dir)} 2>/dev/null`).catch(() => null);
    return r && r.code === 0 ? r.out.split('\n').filter(Boolean) : [];
  }

  async run(argv: string[], cwd: string, signal: AbortSignal, fallback?: string, limits: RunLimits = {}): Promise<RunResult> {
    // The time limit is enforced there by timeout(1) when it exists (the output so far is kept), and
    // only the first lines travel back (head), so a search over / neither runs on nor floods.
    const secs = limits.timeoutS ? Math.max(1, Math.ceil(limits.timeoutS)) : 0;
    const t = secs ? `T=; command -v timeout >/dev/null 2>&1 && T="timeout -s KILL ${secs}"; ` : 'T=; ';
    const cmd = `$T ${argv.map(shq).join(' ')}`;
    const fb = fallback ? `$T sh -c ${shq(fallback)}` : '';
    const body = fallback ? `if command -v ${shq(argv[0])} >/dev/null 2>&1; then ${cmd}; else ${fb}; fi` : cmd;
    const head = limits.maxLines ? ` | head -n ${Math.floor(limits.maxLines)}` : '';
    // stderr goes to a file so it does not mix into the results (the persistent shell merges them).
    const script =
      `cd -- ${shq(cwd)} || exit 2; e=$(mktemp 2>/dev/null || echo /tmp/.hermes-search-$$); r=$(mktemp 2>/dev/null || echo /tmp/.hermes-search-rc-$$); ${t}` +
      `{ ${body} 2>"$e"; echo $? > "$r"; }${head}; rc=$(cat "$r" 2>/dev/null); printf '\\n__HERMES_ERR__'; cat "$e" 2>/dev/null; rm -f "$e" "$r"; exit \${rc:-0}`;
    const r = await this.sh(script, { signal, timeoutMs: secs ? secs * 1000 + 30_000 : 120_000 });
    const cut = r.out.lastIndexOf('\n__HERMES_ERR__');
    const timedOut = secs > 0 && (r.code === 137 || r.code === 124);
    return cut < 0 ? { code: r.code, stdout: r.out, stderr: '', timedOut } : { code: r.code, stdout: r.out.slice(0, cut + 1), stderr: r.out.slice(cut + 16), timedOut };
  }
}
