// Files arriving where they must not: archives unpacked and downloads saved into protected paths
// (tar/unzip/7z/cpio, curl -o/-O, wget -O/-P, httpie, aria2c), tar's programs (--to-command,
// --checkpoint-action=exec, -I), links to protected files (and links made earlier in the same
// command line, followed by later paths), Hermes's databases written through sqlite3, and
// Hermes's secrets read by any command.
import { posix } from 'node:path';
import { hermesControlPath } from '../protected-paths.ts';
import { canonPath, DYN, type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { parseRunner, runString, type Runner } from './runners.ts';
import { argPaths, checkWriteTarget, isSecretPath, protectedFolder } from './targets.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

/** Unpacking into `dest` (a folder): asks when it is a protected one. */
function unpackInto(dest: string, scope: Scope): void {
  const p = protectedFolder(dest, scope);
  if (p) add(scope, F.extractInto(p));
}

// -------------------------------------------------------------------------------------------
// tar and other archivers

const TAR_SHORT_VALUE = 'bCfFgHIKLNTVX';
const TAR_LONG_VALUE = new Set([
  '--file', '--directory', '--to-command', '--use-compress-program', '--info-script', '--new-volume-script', '--rsh-command', '--checkpoint-action', '--exclude',
  '--exclude-from', '--files-from', '--transform', '--xform', '--owner', '--group', '--mode', '--mtime', '--newer', '--after-date', '--label', '--format',
  '--blocking-factor', '--record-size', '--tape-length', '--starting-file', '--volno-file', '--index-file', '--listed-incremental', '--strip-components', '--suffix',
  '--owner-map', '--group-map', '--atime-preserve', '--sort', '--checkpoint',
]);

export function tar(args: string[], scope: Scope): void {
  let extract = false;
  let create = false;
  let stdout = false;
  let absolute = false;
  const dirs: string[] = [];
  const files: string[] = [];
  const flag = (c: string) => {
    if (c === 'x') extract = true;
    else if ('cruA'.includes(c)) create = true;
    else if (c === 'O') stdout = true;
    else if (c === 'P') absolute = true;
  };
  const value = (o: string, v: string | undefined) => {
    if (v === undefined) return;
    if (o === 'C' || o === '--directory') dirs.push(v);
    else if (o === 'f' || o === '--file') files.push(v);
    else if (o === 'I' || o === '--use-compress-program') runString(v, scope, 'tar --use-compress-program');
    else if (o === 'F' || o === '--info-script' || o === '--new-volume-script') runString(v, scope, 'tar --info-script');
    else if (o === '--to-command') runString(v, scope, 'tar --to-command');
    else if (o === '--rsh-command') runString(v, scope, 'tar --rsh-command');
    else if (o === '--checkpoint-action' && /^exec=/.test(v)) runString(v.slice(5), scope, 'tar --checkpoint-action=exec');
  };
  let i = 0;
  // Old style: the first word is a cluster of letters whose values follow in order.
  if (args[0] && /^[A-Za-z]+$/.test(args[0])) {
    let k = 1;
    for (const c of args[0]) {
      if (TAR_SHORT_VALUE.includes(c)) value(c, args[k++]);
      else flag(c);
    }
    i = k;
  }
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      const v = eq < 0 ? (TAR_LONG_VALUE.has(name) ? args[++i] : undefined) : a.slice(eq + 1);
      if (name === '--extract' || name === '--get') extract = true;
      else if (['--create', '--append', '--update', '--catenate', '--concatenate'].includes(name)) create = true;
      else if (name === '--to-stdout') stdout = true;
      else if (name === '--absolute-names') absolute = true;
      else if (name === '--remove-files') add(scope, F.tarRemove);
      value(name, v);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        const c = a[k];
        if (TAR_SHORT_VALUE.includes(c)) {
          value(c, k < a.length - 1 ? a.slice(k + 1) : args[++i]);
          break;
        }
        flag(c);
      }
    }
  }
  if (extract && !stdout) {
    unpackInto(dirs[dirs.length - 1] ?? '.', scope);
    if (absolute) add(scope, F.extractInto('the absolute paths written in the archive (tar -P)'));
  }
  if (create) for (const f of files) if (f !== '-') checkWriteTarget(f, scope);
}

export function unzip(args: string[], scope: Scope): void {
  const p = parseRunner(args, { v: 'dPx', permute: true });
  if (['-l', '-t', '-v', '-Z', '-p', '-c', '-z'].some((o) => p.opts.has(o))) return;
  unpackInto(p.opts.get('-d')?.pop() ?? '.', scope);
}

export function sevenZip(args: string[], scope: Scope): void {
  const sub = args.find((a) => !a.startsWith('-'));
  if (sub !== 'x' && sub !== 'e') return;
  const out = args.find((a) => a.startsWith('-o'));
  unpackInto(out ? out.slice(2) : '.', scope);
}

export function cpio(args: string[], scope: Scope): void {
  const p = parseRunner(args, { v: 'DEFHIMORs', lv: ['--directory', '--file', '--format', '--pattern-file', '--owner', '--message', '--rsh-command'] });
  for (const r of p.opts.get('--rsh-command') ?? []) runString(r, scope, 'cpio --rsh-command');
  const extract = [...p.opts.keys()].some((o) => o === '-i' || o === '--extract');
  if (!extract || p.opts.has('-t') || p.opts.has('--list')) return;
  unpackInto([...(p.opts.get('-D') ?? []), ...(p.opts.get('--directory') ?? [])].pop() ?? '.', scope);
}

// -------------------------------------------------------------------------------------------
// Downloads

/** The file name a URL is saved under (`curl -O`, wget without -O). */
function urlName(u: string): string | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(u);
  if (!m) return null;
  const name = (m[1] ?? '').replace(/\/+$/, '').split('/').pop() ?? '';
  return name || null;
}

const CURL: Runner = {
  v: 'oDcAbCdeEFHKmrTuUwxXYyzQPt',
  lv: [
    '--output', '--dump-header', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--output-dir', '--user-agent', '--cookie',
    '--continue-at', '--data', '--data-binary', '--data-raw', '--data-urlencode', '--data-ascii', '--referer', '--cert', '--form', '--form-string', '--header', '--config',
    '--max-time', '--connect-timeout', '--range', '--upload-file', '--user', '--proxy-user', '--write-out', '--proxy', '--request', '--speed-limit', '--speed-time',
    '--time-cond', '--quote', '--ftp-port', '--telnet-option', '--url', '--retry', '--retry-delay', '--retry-max-time', '--resolve', '--cacert', '--capath', '--key',
    '--limit-rate', '--interface', '--local-port', '--netrc-file', '--oauth2-bearer', '--pinnedpubkey', '--proto', '--proto-redir', '--socks5', '--socks5-hostname',
    '--unix-socket', '--abstract-unix-socket', '--variable', '--json', '--aws-sigv4', '--ciphers', '--connect-to', '--create-file-mode', '--dns-servers', '--doh-url',
    '--expect100-timeout', '--hsts', '--alt-svc', '--keepalive-time', '--max-filesize', '--max-redirs', '--noproxy', '--url-query', '--etag-compare', '--preproxy',
  ],
};
const CURL_WRITES = ['-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save'];

export function curl(args: string[], scope: Scope): void {
  const p = parseRunner(args, { ...CURL, permute: true });
  for (const o of CURL_WRITES) for (const f of p.opts.get(o) ?? []) if (f && f !== '-' && f !== '%') checkWriteTarget(f, scope);
  if (p.opts.has('-O') || p.opts.has('--remote-name') || p.opts.has('--remote-name-all')) {
    const dir = p.opts.get('--output-dir')?.pop();
    for (const u of [...p.operands, ...(p.opts.get('--url') ?? [])]) {
      const name = urlName(u);
      if (name) checkWriteTarget(dir ? `${dir.replace(/\/+$/, '')}/${name}` : name, scope);
    }
  }
}

const WGET: Runner = {
  v: 'OoaPeiBtTwQlUDXIAR',
  lv: ['--output-document', '--output-file', '--append-output', '--directory-prefix', '--execute', '--input-file', '--base', '--tries', '--timeout', '--wait', '--quota', '--level', '--user-agent', '--domains', '--exclude-directories', '--include-directories', '--accept', '--reject', '--save-cookies', '--load-cookies', '--header', '--post-data', '--post-file', '--user', '--password', '--http-user', '--http-password', '--ca-certificate', '--certificate', '--private-key', '--bind-address', '--limit-rate'],
  permute: true,
};

export function wget(args: string[], scope: Scope): void {
  const p = parseRunner(args, WGET);
  for (const o of ['-o', '--output-file', '-a', '--append-output', '--save-cookies']) for (const f of p.opts.get(o) ?? []) if (f && f !== '-') checkWriteTarget(f, scope);
  const out = [...(p.opts.get('-O') ?? []), ...(p.opts.get('--output-document') ?? [])].pop();
  if (out !== undefined) {
    if (out !== '-') checkWriteTarget(out, scope);
    return;
  }
  const dir = [...(p.opts.get('-P') ?? []), ...(p.opts.get('--directory-prefix') ?? [])].pop() ?? '.';
  // A recursive or mirroring fetch writes names chosen by the server.
  if (['-r', '--recursive', '-m', '--mirror'].some((o) => p.opts.has(o))) return unpackInto(dir, scope);
  for (const u of p.operands) {
    const name = urlName(u) ?? 'index.html';
    checkWriteTarget(dir === '.' ? name : `${dir.replace(/\/+$/, '')}/${name}`, scope);
  }
}

/** httpie/xh `-o FILE`, aria2c `-d DIR -o NAME`. */
export function otherDownloads(name: string, args: string[], scope: Scope): void {
  if (name === 'aria2c') {
    const p = parseRunner(args, { v: 'doiRx', lv: ['--dir', '--out', '--input-file'], permute: true });
    const dir = [...(p.opts.get('-d') ?? []), ...(p.opts.get('--dir') ?? [])].pop();
    for (const o of [...(p.opts.get('-o') ?? []), ...(p.opts.get('--out') ?? [])]) checkWriteTarget(dir ? `${dir}/${o}` : o, scope);
    if (dir) unpackInto(dir, scope);
    return;
  }
  const p = parseRunner(args, { v: 'oaA', lv: ['--output', '--auth', '--auth-type', '--session', '--session-read-only'], permute: true });
  for (const o of [...(p.opts.get('-o') ?? []), ...(p.opts.get('--output') ?? [])]) checkWriteTarget(o, scope);
}

// -------------------------------------------------------------------------------------------
// Links

/**
 * ln (and cp -s/-l): a link to a protected file asks (a later write through it changes that
 * file); the link is remembered so later paths through it resolve (`ln -s / r && rm -rf r/`).
 */
export function links(args: string[], scope: Scope, symbolic: boolean): void {
  const p = parseRunner(args, { v: 'tS', lv: ['--target-directory', '--suffix', '--backup'] });
  const relative = p.opts.has('-r') || p.opts.has('--relative');
  const dir = [...(p.opts.get('-t') ?? []), ...(p.opts.get('--target-directory') ?? [])].pop();
  const ops = p.operands;
  const targets = dir !== undefined ? ops : ops.length >= 2 ? ops.slice(0, -1) : ops;
  const dest = dir ?? (ops.length >= 2 ? ops[ops.length - 1] : '.');
  for (const t of targets) {
    if (t.includes(DYN)) continue;
    const linkPath = dir !== undefined || ops.length > 2 || dest.endsWith('/') ? `${dest.replace(/\/+$/, '')}/${posix.basename(t)}` : dest;
    // A symlink's relative target is relative to the link's folder (unless ln -r made it so).
    const resolved = symbolic && !relative && !t.startsWith('/') && !t.startsWith('~') ? posix.join(posix.dirname(linkPath), t) : t;
    if (protectedFolder(resolved, scope) || isSecretPath(resolved, scope)) add(scope, F.linkProtected);
    const from = canonPath(linkPath, scope);
    const to = canonPath(resolved, scope);
    if (from !== null && to !== null && from !== to) scope.links.set(from, to);
  }
}

// -------------------------------------------------------------------------------------------
// Hermes's secrets and databases

/** Commands that name a file without reading its contents. */
const NOT_READING = new Set(['ls', 'stat', 'test', '[', '[[', 'chmod', 'chown', 'chgrp', 'touch', 'realpath', 'readlink', 'dirname', 'basename', 'echo', 'printf', 'cd', 'pushd', 'popd', 'du', 'hermes', 'rm', 'unlink', 'rmdir', 'shred', 'mv', 'mkdir', 'which', 'type', 'file', 'lsattr', 'getfacl', 'ln', 'export', 'local', 'declare']);
/** Commands that read a folder's files when given the folder (archivers, copies, recursive searches). */
const FOLDER_READERS = new Set(['tar', 'bsdtar', 'zip', '7z', '7za', '7zr', 'cp', 'rsync', 'scp', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'rclone', 'restic', 'borg', 'duplicity', 'gsutil', 'aws', 'az', 'gcloud']);
const MAYBE_SECRET = /\.env|auth|oauth|[*?[]/;

/**
 * Reading Hermes's secrets (its `.env`, `auth.json`) in any form asks: as an argument
 * (`cat`, `base64`, `cp`, `curl -F f=@…`), through a glob, or the whole Hermes home handed
 * to an archiver, a copy or a recursive search.
 */
export function secretReads(name: string, args: string[], scope: Scope): void {
  if (NOT_READING.has(name)) return;
  let folderReader = FOLDER_READERS.has(name) && !(name === 'rclone' && !args.some((a) => /^(copy|copyto|sync|bisync|move|moveto|cat|serve|mount)$/.test(a)));
  // An archiver reads its operands only when creating; a copy does not read its destination.
  if ((name === 'tar' || name === 'bsdtar') && !args.some((a, k) => (k === 0 && /^[A-Za-z]*[cru]/.test(a) && !a.startsWith('-')) || /^-[A-Za-z]*[cruA]/.test(a) || /^--(create|append|update)$/.test(a))) folderReader = false;
  const ops = args.filter((a) => !a.startsWith('-'));
  const dest = ['cp', 'rsync', 'scp', 'rclone'].includes(name) && ops.length >= 2 ? ops[ops.length - 1] : null;
  for (const a of args) {
    if (MAYBE_SECRET.test(a)) for (const p of argPaths(a)) if (isSecretPath(p, scope)) return add(scope, F.secretRead);
    if (!folderReader || a === dest) continue;
    const c = canonPath(a, scope);
    const hh = scope.ctx.hermesHome;
    if (c === null) continue;
    if (c === '@H' || /^@Hprofiles(\/[^/]+)?$/.test(c)) return add(scope, F.secretRead);
    const abs = c === '~' ? scope.ctx.home : c.startsWith('/') ? c : null;
    if (abs && hh && hh.startsWith(`${abs}/`) && abs !== '/') return add(scope, F.secretRead);
  }
}

const SQL_WRITE = /\b(insert|update|delete|drop|create|alter|replace|attach|vacuum|reindex|truncate)\b|\bpragma\s+\w+\s*=|^\s*\.(restore|import|read|load|recover|clone)\b/im;

/** sqlite3 on Hermes's databases: reading is fine, writing is Hermes's alone; `.shell`/`.system` run commands. */
export function sqlite(args: string[], scope: Scope, stdin: string[], piped: boolean): void {
  const p = parseRunner(args, { v: '', lv: ['-cmd', '-separator', '-newline', '-nullvalue', '-init', '-vfs', '-maxsize', '-mmap', '-lookaside', '-pagecache', '-heap'], permute: true });
  const ops = p.operands;
  const texts = [...ops.slice(1), ...(p.opts.get('-cmd') ?? []), ...stdin];
  for (const t of texts) {
    for (const m of t.matchAll(/^\s*\.(?:shell|system)\s+(.*)$/gm)) runString(m[1], scope, 'sqlite3 .shell');
    for (const m of t.matchAll(/^\s*\.(?:output|once|save|backup)\s+(?:-\S+\s+)*(\S+)/gm)) if (!m[1].startsWith('|')) checkWriteTarget(m[1], scope);
    for (const m of t.matchAll(/^\s*\.(?:output|once)\s+\|(.*)$/gm)) runString(m[1], scope, 'sqlite3 .output |');
  }
  const db = ops[0];
  const c = db ? canonPath(db, scope) : null;
  if (!c?.startsWith('@H') || !hermesControlPath(c.slice(2))) return;
  if (texts.some((t) => SQL_WRITE.test(t)) || (ops.length < 2 && !stdin.length && piped)) add(scope, F.selfWrite('database (state.db / kanban.db)'));
}

/** psql/mysql meta-commands that run a shell command (`\! cmd`, `system cmd`, `\o |cmd`, COPY … PROGRAM). */
export function sqlShellEscapes(text: string, scope: Scope): void {
  if (!/[\\!]|system|program/i.test(text)) return;
  for (const m of text.matchAll(/(?:^|\s|;)\\!\s*([^\n]*)/g)) runString(m[1], scope, 'a SQL client \\!');
  for (const m of text.matchAll(/^\s*system\s+([^\n]*)/gim)) runString(m[1], scope, 'mysql system');
  for (const m of text.matchAll(/\\o\s*\|\s*([^\n]*)/g)) runString(m[1], scope, 'psql \\o |');
  for (const m of text.matchAll(/\bprogram\s+'((?:[^']|'')*)'/gi)) runString(m[1].replace(/''/g, "'"), scope, 'COPY … PROGRAM');
}

