// Dangerous-command detection over the parsed command. Pure: returns decisions as data.
//
// The command is parsed (shell-parse.ts), words are expanded statically (quote removal, brace
// expansion, ${IFS}, variables assigned earlier in the same command, `$(echo …)`), wrappers are
// unwrapped (sudo, env, nohup, timeout, nice, xargs, find -exec, `--`, …) and shell strings are
// parsed recursively (bash -c, sh -c, eval, su -c, watch, ssh, heredocs, `echo … | sh`).
// Every simple command found is checked against the rules. Hardline findings are never allowed.
import { parseDoubleQuoted, parseShell, ShellParseError, wordLiteral, type Node, type Redirect, type Seg, type Word } from './shell-parse.ts';

export interface Finding {
  /** Stable key, used for session approvals and `command_allowlist` (Hermes uses the description). */
  key: string;
  description: string;
  /** Never allowed, even with --yolo. */
  hardline: boolean;
}

export interface CommandAnalysis {
  findings: Finding[];
  /** Every simple command seen (after unwrapping), as argv; used for deny globs. */
  commands: string[][];
  /** Set when the command could not be parsed (the analysis then fails closed). */
  parseError?: string;
}

export type CommandVerdict =
  | { action: 'allow' }
  | { action: 'ask'; description: string; key: string; findings: Finding[] }
  | { action: 'block'; description: string; findings: Finding[]; rule?: string };

// -------------------------------------------------------------------------------------------
// Static word expansion

/** Text standing in for something only known at run time. */
const DYN = '\u0000';
/** Marks a substitution whose command downloads something (curl, wget, …). */
const DOWNLOAD = '\u0000download';

type Ch = { c: string; kind: 'lit' | 'q' | 'exp' | 'ifs' };

interface Scope {
  vars: Map<string, string>;
  depth: number;
  findings: Finding[];
  commands: string[][];
  functions: Set<string>;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'busybox-sh', 'rbash', 'tcsh', 'csh']);
const INTERPRETERS: Record<string, string[]> = {
  python: ['-c'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  node: ['-e', '--eval', '-p', '--print'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  deno: ['eval'],
  bun: ['-e', '--eval'],
  php: ['-r'],
  lua: ['-e'],
  osascript: ['-e'],
  Rscript: ['-e'],
};
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'nc', 'ncat', 'netcat', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'GET']);
const SQL_CLIENTS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'sqlcmd', 'clickhouse-client', 'duckdb', 'cockroach', 'pgcli', 'mycli', 'litecli']);
const BLOCK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|md\d|dm-\d|loop\d|sr\d|mapper\/)/;
const SYSTEM_DIRS = new Set(['/', '/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/proc', '/root', '/sbin', '/sys', '/usr', '/var', '/home', '/srv', '/mnt', '/media', '/snap', '/System', '/Library', '/Applications', '/Users', '/private']);
const DANGEROUS_NAMES = ['rm', 'dd', 'mkfs', 'chmod', 'chown', 'shred', 'wipefs', 'kill', 'pkill', 'killall', 'systemctl', 'shutdown', 'reboot', 'halt', 'poweroff', 'find', 'xargs', 'sh', 'bash', 'zsh', 'eval', 'sudo', 'curl', 'wget', 'truncate', 'docker', 'crontab', 'iptables'];

const base = (p: string) => {
  const s = p.replace(/^\\+/, '');
  const i = s.lastIndexOf('/');
  return i >= 0 ? s.slice(i + 1) : s;
};

function segChars(seg: Seg, scope: Scope): Ch[] {
  const mk = (s: string, kind: Ch['kind']): Ch[] => [...s].map((c) => ({ c, kind }));
  switch (seg.t) {
    case 'lit':
      return mk(seg.v, seg.q ? 'q' : 'lit');
    case 'var': {
      if (seg.name === 'IFS' && !seg.op) return seg.q ? mk(' ', 'q') : [{ c: ' ', kind: 'ifs' }];
      if (seg.name === 'HOME' && !seg.op) return mk('~', seg.q ? 'q' : 'exp');
      const known = scope.vars.get(seg.name);
      let value: string | undefined = known;
      if (seg.op === '#len') value = known !== undefined ? String(known.length) : undefined;
      else if (seg.op && known === undefined && (seg.op === ':-' || seg.op === '-' || seg.op === ':=' || seg.op === '=')) value = seg.arg ?? '';
      else if (seg.op && seg.op !== ':-' && seg.op !== '-' && seg.op !== ':=' && seg.op !== '=') value = undefined;
      if (value === undefined) return mk(`${DYN}$${seg.name}`, 'q');
      return mk(value, seg.q ? 'q' : 'exp');
    }
    case 'cmd': {
      const before = scope.commands.length;
      analyzeScript(seg.src, scope, 'command substitution');
      const download = scope.commands.slice(before).some((c) => DOWNLOADERS.has(base(c[0] ?? '')));
      const out = staticOutput(seg.src, scope);
      if (out === null) return mk(`${DYN}$(…)${download ? DOWNLOAD : ''}`, 'q');
      return mk(out, seg.q ? 'q' : 'exp');
    }
    case 'proc': {
      const before = scope.commands.length;
      analyzeScript(seg.src, scope, 'process substitution');
      const download = scope.commands.slice(before).some((c) => DOWNLOADERS.has(base(c[0] ?? '')));
      return mk(`/dev/fd/63${download ? DOWNLOAD : ''}`, 'q');
    }
    case 'arith':
      return mk('0', 'q');
  }
}

/** What `$( … )` prints, when that is knowable statically (echo/printf/which of literals). */
function staticOutput(src: string, scope: Scope): string | null {
  let ast: Node;
  try {
    ast = parseShell(src, scope.depth + 1);
  } catch {
    return null;
  }
  const node = ast.type === 'list' && ast.items.length === 1 ? ast.items[0].node : null;
  if (!node || node.type !== 'simple' || node.redirects.length) return null;
  const argv = node.words.flatMap((w) => expandWord(w, scope, false));
  if (argv.some((a) => a.includes(DYN))) return null;
  const name = base(argv[0] ?? '');
  if (name === 'echo') return argv.slice(1).filter((a, i) => !(i === 0 && /^-[neE]+$/.test(a))).join(' ');
  if (name === 'printf' && argv[1] !== undefined) {
    const fmt = argv[1].replace(/\\n/g, '\n');
    let k = 2;
    const s = fmt.replace(/%[sdb]/g, () => argv[k++] ?? '');
    return k < argv.length ? s + argv.slice(k).join('') : s;
  }
  if ((name === 'which' || name === 'type') && argv.length >= 2) return `/usr/bin/${base(argv[argv.length - 1])}`;
  if (name === 'command' && argv[1] === '-v' && argv[2]) return `/usr/bin/${base(argv[2])}`;
  if (name === 'basename' && argv[1]) return base(argv[1]);
  return null;
}

/** Bash brace expansion on unquoted braces (`{rm,-rf,/}` → three words), capped. */
function braceExpand(chars: Ch[], budget = { n: 64 }): Ch[][] {
  const isLit = (i: number, c: string) => chars[i]?.kind === 'lit' && chars[i].c === c;
  for (let open = 0; open < chars.length; open++) {
    if (!isLit(open, '{') || (open > 0 && chars[open - 1].c === '$')) continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = open; j < chars.length; j++) {
      if (isLit(j, '{')) depth++;
      else if (isLit(j, '}')) {
        depth--;
        if (depth === 0) {
          close = j;
          break;
        }
      } else if (isLit(j, ',') && depth === 1) commas.push(j);
    }
    if (close < 0) return [chars];
    const pre = chars.slice(0, open);
    const post = chars.slice(close + 1);
    let alts: Ch[][] = [];
    if (commas.length) {
      let from = open + 1;
      for (const c of [...commas, close]) {
        alts.push(chars.slice(from, c));
        from = c + 1;
      }
    } else {
      const inner = chars.slice(open + 1, close).map((x) => x.c).join('');
      const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(inner);
      if (!m) continue;
      const num = /\d/.test(m[1]);
      const a = num ? Number(m[1]) : m[1].charCodeAt(0);
      const b = num ? Number(m[2]) : m[2].charCodeAt(0);
      const step = a <= b ? 1 : -1;
      for (let v = a; alts.length < 16; v += step) {
        alts.push([...(num ? String(v) : String.fromCharCode(v))].map((c) => ({ c, kind: 'lit' as const })));
        if (v === b) break;
      }
    }
    const out: Ch[][] = [];
    for (const alt of alts) {
      if (budget.n-- <= 0) break;
      out.push(...braceExpand([...pre, ...alt, ...post], budget));
    }
    return out;
  }
  return [chars];
}

/** Expands one word into argv entries (brace expansion, then field splitting of expansions). */
function expandWord(w: Word, scope: Scope, braces = true): string[] {
  const chars = w.segs.flatMap((g) => segChars(g, scope));
  const variants = braces ? braceExpand(chars) : [chars];
  const out: string[] = [];
  for (const v of variants) {
    let cur = '';
    let has = false;
    for (const ch of v) {
      const splits = ch.kind === 'ifs' || (ch.kind === 'exp' && /\s/.test(ch.c));
      if (splits) {
        if (has) out.push(cur);
        cur = '';
        has = false;
        continue;
      }
      cur += ch.c;
      has = true;
    }
    // A word made only of quotes ("") is an empty argument; an empty expansion disappears.
    if (has || (v.length === 0 && w.segs.some((g) => g.t === 'lit' && g.q))) out.push(cur);
  }
  return out;
}

function wordText(w: Word, scope: Scope): string {
  return expandWord(w, scope, false).join(' ');
}

// -------------------------------------------------------------------------------------------
// Findings

const F = {
  rootDelete: (t: string) => ({ key: 'recursive delete of a system directory', description: `recursive delete of ${t}`, hardline: true }),
  recursiveDelete: { key: 'recursive delete', description: 'recursive delete', hardline: false },
  noPreserveRoot: { key: 'rm --no-preserve-root', description: 'rm --no-preserve-root', hardline: true },
  forkBomb: { key: 'fork bomb', description: 'fork bomb', hardline: true },
  formatDevice: { key: 'formatting a block device', description: 'formatting a block device', hardline: true },
  format: { key: 'filesystem format', description: 'filesystem format (mkfs)', hardline: false },
  ddDevice: { key: 'overwriting a block device', description: 'overwriting a block device', hardline: true },
  dd: { key: 'raw disk copy (dd)', description: 'raw disk copy (dd)', hardline: false },
  worldWritable: { key: 'world-writable permissions', description: 'world-writable permissions (chmod 777/666/o+w)', hardline: false },
  chownRoot: { key: 'recursive chown', description: 'recursive chown', hardline: false },
  etcWrite: { key: 'overwriting a file in /etc', description: 'overwriting a file in /etc', hardline: false },
  sensitiveWrite: { key: 'writing a sensitive file', description: 'writing a sensitive file (credentials or shell start-up)', hardline: false },
  service: { key: 'stopping a system service', description: 'stopping or disabling a system service', hardline: false },
  power: { key: 'shutting down the machine', description: 'shutting down or rebooting the machine', hardline: false },
  killAll: { key: 'killing all processes', description: 'killing all processes', hardline: false },
  forceKill: { key: 'force-killing processes by name', description: 'force-killing processes by name (pkill -9 / killall -9)', hardline: false },
  killHermes: { key: 'terminating Hermes', description: 'terminating Hermes itself', hardline: false },
  pipeShell: { key: 'piping a download into a shell', description: 'piping a download into a shell', hardline: false },
  decodeShell: { key: 'running decoded data as a shell script', description: 'running decoded data as a shell script', hardline: false },
  dynamicShell: { key: 'running a shell command built at run time', description: 'running a shell command built at run time', hardline: false },
  xargsRm: { key: 'xargs rm', description: 'deleting files listed on stdin (xargs rm)', hardline: false },
  findDelete: { key: 'find -delete / -exec rm', description: 'deleting files found by find (-delete / -exec rm)', hardline: false },
  sql: { key: 'SQL drop/truncate/delete', description: 'destructive SQL (DROP, TRUNCATE, or DELETE without WHERE)', hardline: false },
  inlineCode: (lang: string) => ({ key: 'inline script that runs commands or deletes files', description: `inline ${lang} code that runs commands or deletes files`, hardline: false }),
  docker: { key: 'stopping or removing containers', description: 'stopping or removing containers', hardline: false },
  dockerRemote: { key: 'redirecting docker to another daemon', description: 'redirecting docker to another daemon (-H / --context / DOCKER_HOST)', hardline: false },
  shred: { key: 'shredding files', description: 'shredding or wiping files', hardline: false },
  wipeDevice: { key: 'wiping a block device', description: 'wiping a block device', hardline: true },
  crontabRemove: { key: 'removing all cron jobs', description: 'removing the crontab (crontab -r)', hardline: false },
  firewall: { key: 'flushing firewall rules', description: 'flushing firewall rules', hardline: false },
  dynamicName: { key: 'running a command whose name is computed at run time', description: 'running a command whose name is computed at run time', hardline: false },
  unparsable: (why: string) => ({ key: 'unparsable command', description: `a command that cannot be parsed safely (${why})`, hardline: false }),
  truncateDevice: { key: 'overwriting a block device', description: 'overwriting a block device', hardline: true },
  moveRoot: (t: string) => ({ key: 'moving a system directory', description: `moving ${t}`, hardline: false }),
};

function add(scope: Scope, f: Finding): void {
  if (!scope.findings.some((x) => x.description === f.description)) scope.findings.push(f);
}

const isRootish = (t: string) => {
  const x = t.replace(/\/+$/, '').replace(/\/\.$/, '') || '/';
  if (x === '/' || t === '/*' || /^\/+\*?$/.test(t) || /^\/\.{1,2}\/?$/.test(t)) return '/';
  if (SYSTEM_DIRS.has(x) || SYSTEM_DIRS.has(x.replace(/\/\*$/, ''))) return x;
  if (t === '~' || t === '~/' || t === '~/*' || t === '$HOME') return '~ (the home directory)';
  return null;
};

const SENSITIVE = [
  /^~\/\.ssh(\/|$)/,
  /^\/root\/\.ssh(\/|$)/,
  /^\/home\/[^/]+\/\.ssh(\/|$)/,
  /^~\/\.aws\//,
  /^~\/\.gnupg\//,
  /^~\/\.kube\/config/,
  /^~\/\.docker\/config\.json/,
  /^~\/\.netrc$/,
  /^~\/\.pgpass$/,
  /^~\/\.(bashrc|zshrc|profile|bash_profile|zprofile|bash_login)$/,
  /(^|\/)\.hermes\/\.env$/,
  /(^|\/)\.hermes\/auth\.json$/,
];

function checkWriteTarget(t: string, scope: Scope): void {
  if (!t || t.includes(DYN)) return;
  if (BLOCK_DEVICE.test(t)) add(scope, F.ddDevice);
  else if (/^\/etc\//.test(t) || t === '/etc/') add(scope, F.etcWrite);
  else if (SENSITIVE.some((re) => re.test(t))) add(scope, F.sensitiveWrite);
}

const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

function checkRedirects(redirects: Redirect[], scope: Scope): void {
  for (const r of redirects) {
    if (!r.target) continue;
    if (r.heredoc) {
      if (!r.heredoc.quoted) for (const g of parseDoubleQuoted(r.heredoc.body)) segChars(g, scope);
      continue;
    }
    const t = wordText(r.target, scope);
    if (WRITE_REDIRECTS.has(r.op) || (r.op === '>&' && !/^\d+$|^-$/.test(t))) checkWriteTarget(t, scope);
  }
}

/** Inline interpreter code: flagged when it runs commands or deletes files. */
const CODE_DANGER =
  /\b(os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|subprocess|pty\.spawn|shutil\.rmtree|rmtree|os\.remove|os\.unlink|os\.rmdir|os\.removedirs|Path\([^)]*\)\.unlink|\bunlink\b|child_process|execSync|spawnSync|execFileSync|exec\s*\(|system\s*\(|popen|unlinkSync|rmSync|rmdirSync|fs\.rm\b|fs\.promises\.rm|fs\.unlink|File\.delete|FileUtils\.rm\w*|Dir\.rmdir|\bfork\b|__import__|shell_exec|passthru|proc_open|Runtime\.getRuntime|do shell script)/;

function checkInlineCode(lang: string, code: string, scope: Scope): void {
  if (CODE_DANGER.test(code) || /`[^`]+`/.test(code) && (lang === 'perl' || lang === 'ruby' || lang === 'php')) add(scope, F.inlineCode(lang));
}

const SQL_DANGER = /\b(DROP\s+(TABLE|DATABASE|SCHEMA|INDEX|VIEW|USER)|TRUNCATE(\s+TABLE)?\s+\w|DELETE\s+FROM\s+[\w."`[\]]+\s*(;|$|\)|'|"))/i;

function checkSql(text: string, scope: Scope): void {
  if (SQL_DANGER.test(text)) add(scope, F.sql);
}

// -------------------------------------------------------------------------------------------
// Walking the AST

function analyzeScript(src: string, scope: Scope, _where: string): void {
  if (scope.depth > 12) {
    add(scope, F.unparsable('nested too deeply'));
    return;
  }
  let ast: Node;
  try {
    ast = parseShell(src, scope.depth + 1);
  } catch (e) {
    const why = e instanceof ShellParseError ? e.message : 'parse failure';
    fallbackRegex(src, scope);
    add(scope, F.unparsable(why));
    return;
  }
  const inner: Scope = { ...scope, depth: scope.depth + 1 };
  walk(ast, inner);
}

/** Patterns checked on the raw text when parsing failed (quotes stripped): fail closed. */
function fallbackRegex(src: string, scope: Scope): void {
  const t = src.replace(/["'\\]/g, '').replace(/\s+/g, ' ');
  if (/\brm\s+(-\S*\s+)*-\S*[rR]\S*\s+(-\S+\s+)*\/(\s|\*|$)/.test(t) || /--no-preserve-root/.test(t)) add(scope, F.rootDelete('/'));
  if (/(\S+)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&/.test(t)) add(scope, F.forkBomb);
  if (/\bmkfs(\.\w+)?\s+.*\/dev\//.test(t)) add(scope, F.formatDevice);
  if (/\bdd\b.*\bof=\/dev\/(sd|nvme|hd|vd|xvd|mmcblk)/.test(t)) add(scope, F.ddDevice);
}

function walk(node: Node, scope: Scope): void {
  switch (node.type) {
    case 'list':
      for (const it of node.items) walk(it.node, scope);
      return;
    case 'pipeline':
      for (const c of node.cmds) walk(c, scope);
      checkPipeline(node.cmds, scope);
      return;
    case 'group':
      walk(node.body, scope);
      checkRedirects(node.redirects, scope);
      return;
    case 'function':
      scope.functions.add(node.name);
      if (callsItself(node.body, node.name)) add(scope, F.forkBomb);
      walk(node.body, scope);
      return;
    case 'arith':
      return;
    case 'header':
      for (const w of node.words) expandWord(w, scope);
      return;
    case 'simple':
      simple(node, scope);
      return;
  }
}

/** A function whose body runs itself in a pipe or in the background: a fork bomb. */
function callsItself(body: Node, name: string): boolean {
  let hit = false;
  const visit = (n: Node, piped: boolean) => {
    if (hit) return;
    switch (n.type) {
      case 'list':
        for (const it of n.items) visit(it.node, piped || it.op === '&');
        return;
      case 'pipeline':
        for (const c of n.cmds) visit(c, piped || n.cmds.length > 1);
        return;
      case 'group':
        visit(n.body, piped);
        return;
      case 'simple':
        if (piped && n.words[0] && wordLiteral(n.words[0]) === name) hit = true;
        return;
      default:
        return;
    }
  };
  visit(body, false);
  return hit;
}

function simple(node: Extract<Node, { type: 'simple' }>, scope: Scope): void {
  for (const a of node.assigns) {
    const v = expandWord(a.value, scope, false).join(' ');
    if (a.name === 'DOCKER_HOST') add(scope, F.dockerRemote);
    if (!node.words.length) {
      if (v.includes(DYN)) scope.vars.delete(a.name);
      else scope.vars.set(a.name, a.append ? (scope.vars.get(a.name) ?? '') + v : v);
    }
  }
  checkRedirects(node.redirects, scope);
  if (!node.words.length) return;
  const argv = node.words.flatMap((w) => expandWord(w, scope));
  if (!argv.length) return;
  // Assignments made by `export X=…`, `declare X=…`, `local`, `readonly`, `typeset`.
  const n0 = base(argv[0]);
  if (['export', 'declare', 'local', 'readonly', 'typeset'].includes(n0)) {
    for (const a of argv.slice(1)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a);
      if (m) {
        if (m[1] === 'DOCKER_HOST') add(scope, F.dockerRemote);
        if (m[2].includes(DYN)) scope.vars.delete(m[1]);
        else scope.vars.set(m[1], m[2]);
      }
    }
    return;
  }
  const stdinScripts = node.redirects
    .filter((r) => r.op === '<<<' || r.heredoc)
    .map((r) => (r.heredoc ? r.heredoc.body : r.target ? wordText(r.target, scope) : ''));
  command(argv, scope, stdinScripts);
}

/** Resolves the name a glob in command position would hit (`/bin/r?`) to a dangerous command. */
function resolveName(raw: string): string {
  const name = base(raw);
  if (!/[*?[]/.test(name)) return name;
  const re = globToRegExp(name);
  return DANGEROUS_NAMES.find((d) => re.test(d)) ?? name;
}

/** Option parsing for wrappers: skips flags (and their values) and returns the inner argv. */
function skipOptions(args: string[], withValue: Set<string>, opts: { stopAtFirst?: boolean; longWithValue?: Set<string> } = {}): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === '--') return args.slice(i + 1);
    if (!a.startsWith('-') || a === '-') break;
    if (a.startsWith('--')) {
      const name = a.split('=')[0];
      i += opts.longWithValue?.has(name) && !a.includes('=') ? 2 : 1;
      continue;
    }
    // Cluster like -nE or -u root / -uroot
    const flags = a.slice(1);
    let consumed = 1;
    for (let k = 0; k < flags.length; k++) {
      if (withValue.has(flags[k])) {
        if (k === flags.length - 1) consumed = 2;
        break;
      }
    }
    i += consumed;
  }
  return args.slice(i);
}

function shellScriptArg(args: string[]): { script: string | null; rest: string[]; readsStdin: boolean } {
  // bash [opts] -c 'script' [name args] | bash [opts] file | bash -s / bash (stdin)
  let i = 0;
  let hasC = false;
  let readsStdin = false;
  while (i < args.length) {
    const a = args[i];
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (a.startsWith('--')) {
      i++;
      continue;
    }
    if (a.startsWith('-') || a.startsWith('+')) {
      if (a.slice(1).includes('c')) hasC = true;
      if (a.slice(1).includes('s')) readsStdin = true;
      if (/^[-+]o$/.test(a) || a === '-O' || a === '+O') i++;
      i++;
      continue;
    }
    break;
  }
  if (hasC) return { script: args[i] ?? '', rest: args.slice(i + 1), readsStdin: false };
  return { script: null, rest: args.slice(i), readsStdin: readsStdin || i >= args.length };
}

/**
 * Checks one command (argv after expansion). `stdin`: scripts fed to it by heredoc / here-string.
 * Wrappers recurse into the command they run.
 */
function command(argv: string[], scope: Scope, stdin: string[] = []): void {
  if (!argv.length) return;
  scope.commands.push(argv);
  const raw0 = argv[0];
  if (raw0.startsWith(DYN)) {
    if (raw0.includes('$(…)')) add(scope, F.dynamicName);
    return;
  }
  const name = resolveName(raw0);
  const args = argv.slice(1);
  const lname = name.replace(/\.exe$/, '');
  const interp = /^(python|pypy)(\d+(\.\d+)?)?$/.test(lname) ? 'python' : /^(node|nodejs)(\d+)?$/.test(lname) ? 'node' : /^(perl|ruby|php|lua)(\d+(\.\d+)?)?$/.test(lname) ? lname.replace(/[\d.]+$/, '') : lname;

  // --- wrappers -------------------------------------------------------------------------------
  switch (lname) {
    case 'sudo':
    case 'doas':
    case 'run0':
    case 'pkexec': {
      const inner = skipOptions(args, new Set(['u', 'g', 'p', 'C', 'h', 'r', 't', 'U', 'D', 'R', 'T']), { longWithValue: new Set(['--user', '--group', '--prompt', '--close-from', '--host', '--role', '--type', '--other-user', '--chdir', '--chroot', '--command-timeout']) });
      // sudo VAR=value cmd
      const rest = dropAssignments(inner, scope);
      return command(rest, scope, stdin);
    }
    case 'env': {
      const rest = skipOptions(args, new Set(['u', 'C', 'S', 'P']), { longWithValue: new Set(['--unset', '--chdir', '--split-string']) });
      const split = args.findIndex((a) => a === '-S' || a.startsWith('--split-string') || /^-[a-zA-Z]*S/.test(a));
      if (split >= 0) {
        const a = args[split];
        const str = a.includes('=') ? a.slice(a.indexOf('=') + 1) : a.length > 2 && a.startsWith('-S') ? a.slice(2) : (args[split + 1] ?? '');
        analyzeScript(str + ' ' + args.slice(split + 2).map(shellQuote).join(' '), scope, 'env -S');
        return;
      }
      return command(dropAssignments(rest, scope), scope, stdin);
    }
    case 'nohup':
    case 'builtin':
    case 'unbuffer':
    case 'caffeinate':
    case 'torsocks':
    case 'proxychains':
    case 'proxychains4':
    case 'catchsegv':
    case 'fakeroot':
    case 'tsp':
      return command(args[0] === '--' ? args.slice(1) : args, scope, stdin);
    case 'time':
      return command(skipOptions(args, new Set(['f', 'o'])), scope, stdin);
    case 'command':
      if (args[0] === '-v' || args[0] === '-V') return;
      return command(skipOptions(args, new Set()), scope, stdin);
    case 'exec':
      return command(skipOptions(args, new Set(['a'])), scope, stdin);
    case 'nice':
      return command(skipOptions(args.map((a) => (/^-\d+$/.test(a) ? '-n0' : a)), new Set(['n']), { longWithValue: new Set(['--adjustment']) }), scope, stdin);
    case 'ionice':
      return command(skipOptions(args, new Set(['c', 'n', 'p', 'P', 'u']), { longWithValue: new Set(['--class', '--classdata']) }), scope, stdin);
    case 'stdbuf':
      return command(skipOptions(args, new Set(['i', 'o', 'e'])), scope, stdin);
    case 'setsid':
    case 'chronic':
      return command(skipOptions(args, new Set()), scope, stdin);
    case 'timeout':
    case 'gtimeout': {
      const rest = skipOptions(args, new Set(['s', 'k']), { longWithValue: new Set(['--signal', '--kill-after']) });
      return command(rest.slice(1), scope, stdin);
    }
    case 'chrt': {
      const rest = skipOptions(args, new Set(['T', 'P', 'D']));
      return command(rest.slice(1), scope, stdin);
    }
    case 'taskset': {
      const rest = skipOptions(args, new Set());
      return command(rest.slice(1), scope, stdin);
    }
    case 'chroot': {
      const rest = skipOptions(args, new Set(), { longWithValue: new Set(['--userspec', '--groups']) });
      return command(rest.slice(1), scope, stdin);
    }
    case 'flock': {
      const ci = args.findIndex((a) => a === '-c' || a === '--command');
      if (ci >= 0) return analyzeScript(args[ci + 1] ?? '', scope, 'flock -c');
      const rest = skipOptions(args, new Set(['w', 'E']), { longWithValue: new Set(['--timeout', '--conflict-exit-code']) });
      return command(rest.slice(1), scope, stdin);
    }
    case 'strace':
    case 'ltrace':
      return command(skipOptions(args, new Set(['o', 'e', 'p', 's', 'u', 'E', 'a', 'b', 'I', 'O', 'P', 'S', 'X'])), scope, stdin);
    case 'busybox':
    case 'toybox':
      return command(args, scope, stdin);
    case 'xargs': {
      const rest = skipOptions(args, new Set(['I', 'i', 'n', 'P', 'd', 'E', 'e', 'L', 'l', 's', 'a']), {
        longWithValue: new Set(['--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var']),
      });
      const inner = rest.length ? rest : ['echo'];
      const iname = resolveName(inner[0]);
      if (['rm', 'shred', 'unlink', 'rmdir'].includes(iname)) add(scope, F.xargsRm);
      return command(inner, scope);
    }
    case 'watch': {
      const rest = skipOptions(args, new Set(['n', 'd', 'q']), { longWithValue: new Set(['--interval', '--differences']) });
      if (args.includes('-x') || args.includes('--exec')) return command(rest, scope);
      return analyzeScript(rest.join(' '), scope, 'watch');
    }
    case 'su':
    case 'runuser': {
      const ci = args.findIndex((a) => a === '-c' || a === '--command' || a.startsWith('--command='));
      if (ci >= 0) {
        const a = args[ci];
        return analyzeScript(a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[ci + 1] ?? ''), scope, 'su -c');
      }
      const dd = args.indexOf('--');
      if (dd >= 0) return command(args.slice(dd + 1), scope, stdin);
      return;
    }
    case 'script': {
      const ci = args.findIndex((a) => a === '-c' || a === '--command');
      if (ci >= 0) return analyzeScript(args[ci + 1] ?? '', scope, 'script -c');
      return;
    }
    case 'ssh': {
      const rest = skipOptions(args, new Set(['p', 'i', 'l', 'o', 'F', 'J', 'L', 'R', 'D', 'b', 'c', 'E', 'e', 'I', 'm', 'O', 'Q', 'S', 'W', 'w', 'B']));
      if (rest.length > 1) analyzeScript(rest.slice(1).join(' '), scope, 'ssh');
      return;
    }
    case 'eval': {
      const text = args.join(' ');
      checkDynamicScript(text, scope);
      return analyzeScript(text, scope, 'eval');
    }
    case 'source':
    case '.':
      if (args[0]?.includes(DOWNLOAD)) add(scope, F.pipeShell);
      return;
    case 'find':
      return findCommand(args, scope);
    default:
      break;
  }

  if (SHELLS.has(lname)) {
    const { script, readsStdin, rest } = shellScriptArg(args);
    if (script !== null) {
      checkDynamicScript(script, scope);
      return analyzeScript(script, scope, `${lname} -c`);
    }
    if (rest[0]?.includes(DOWNLOAD)) add(scope, F.pipeShell);
    if (readsStdin) for (const s of stdin) analyzeScript(s, scope, `${lname} stdin`);
    return;
  }

  if (INTERPRETERS[interp]) {
    if (interp === 'perl' && args.some((a) => /^-[A-Za-z]*i/.test(a))) for (const t of args.filter((a) => !a.startsWith('-')).slice(1)) checkWriteTarget(t, scope);
    const flags = INTERPRETERS[interp];
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      const f = flags.find((x) => a === x || (x.length === 2 && a.startsWith(x) && a.length > 2 && !a.startsWith('--')));
      if (f) {
        checkInlineCode(interp, a === f ? (args[i + 1] ?? '') : a.slice(f.length), scope);
        break;
      }
      // Combined flags like python -Sc 'code'
      if (interp === 'python' && /^-[A-Za-z]*c$/.test(a)) {
        checkInlineCode(interp, args[i + 1] ?? '', scope);
        break;
      }
    }
    if (!args.some((a) => !a.startsWith('-')) || args.includes('-')) for (const s of stdin) checkInlineCode(interp, s, scope);
    return;
  }

  if (SQL_CLIENTS.has(lname)) {
    checkSql(args.join(' '), scope);
    for (const s of stdin) checkSql(s, scope);
  }

  rules(lname, args, scope);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function dropAssignments(args: string[], scope: Scope): string[] {
  let i = 0;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i])) {
    if (args[i].startsWith('DOCKER_HOST=')) add(scope, F.dockerRemote);
    i++;
  }
  return args.slice(i);
}

function findCommand(args: string[], scope: Scope): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-delete') add(scope, F.findDelete);
    if (a === '-exec' || a === '-execdir' || a === '-ok' || a === '-okdir') {
      let j = i + 1;
      while (j < args.length && args[j] !== ';' && args[j] !== '+') j++;
      const inner = args.slice(i + 1, j).map((x) => (x === '{}' ? 'FOUND_FILE' : x));
      const iname = inner[0] ? resolveName(inner[0]) : '';
      if (['rm', 'shred', 'unlink', 'rmdir'].includes(iname)) add(scope, F.findDelete);
      command(inner, scope);
      i = j;
    }
  }
}

/** A shell string that is (partly) the output of a command: `sh -c "$(curl …)"`, `eval $(…)`. */
function checkDynamicScript(script: string, scope: Scope): void {
  if (script.includes(DOWNLOAD)) add(scope, F.pipeShell);
  else if (script.includes(`${DYN}$(…)`)) add(scope, F.dynamicShell);
}

function checkPipeline(cmds: Node[], scope: Scope): void {
  const stage = (n: Node): string[] | null => {
    if (n.type !== 'simple' || !n.words.length) return null;
    let argv = n.words.flatMap((w) => expandWord(w, { ...scope, findings: [], commands: [] }));
    // unwrap common wrappers for the pipeline view
    for (let k = 0; k < 4 && argv.length; k++) {
      const nm = base(argv[0]);
      if (nm === 'sudo' || nm === 'doas') argv = dropAssignments(skipOptions(argv.slice(1), new Set(['u', 'g', 'p', 'C'])), scope);
      else if (nm === 'env') argv = dropAssignments(skipOptions(argv.slice(1), new Set(['u', 'C'])), scope);
      else if (nm === 'nohup' || nm === 'command' || nm === 'exec' || nm === 'time') argv = argv.slice(1);
      else if (nm === 'timeout') argv = skipOptions(argv.slice(1), new Set(['s', 'k'])).slice(1);
      else break;
    }
    return argv;
  };
  const stages = cmds.map(stage);
  for (let i = 1; i < stages.length; i++) {
    const s = stages[i];
    if (!s?.length) continue;
    const nm = resolveName(s[0]);
    const interp = /^(python|pypy)\d*(\.\d+)?$/.test(nm) || /^(perl|ruby|node|nodejs|php)\d*$/.test(nm);
    const isShell = SHELLS.has(nm);
    if (!isShell && !interp) continue;
    const sargs = s.slice(1);
    const readsStdin = isShell ? shellScriptArg(sargs).script === null && shellScriptArg(sargs).rest.length === 0 : !sargs.some((a) => !a.startsWith('-')) || sargs.includes('-');
    if (!readsStdin) continue;
    for (let j = 0; j < i; j++) {
      const p = stages[j];
      if (!p?.length) continue;
      const pn = resolveName(p[0]);
      if (DOWNLOADERS.has(pn)) add(scope, F.pipeShell);
      if (pn === 'base64' || pn === 'xxd' || pn === 'openssl' || pn === 'gunzip' || pn === 'zcat' || pn === 'rev') add(scope, F.decodeShell);
      if (j === i - 1 && (pn === 'echo' || pn === 'printf')) {
        const text = pn === 'echo' ? p.slice(1).filter((a, k) => !(k === 0 && /^-[neE]+$/.test(a))).join(' ') : p.slice(1).join(' ');
        if (isShell) analyzeScript(text.replace(/\\n/g, '\n'), scope, 'echo | sh');
        else checkInlineCode(nm, text, scope);
      }
    }
  }
}

// -------------------------------------------------------------------------------------------
// Rules for one (unwrapped) command

function rules(name: string, args: string[], scope: Scope): void {
  const flagSet = (a: string[]) => a.filter((x) => /^-[A-Za-z]/.test(x)).map((x) => x.slice(1)).join('');
  const positional = args.filter((a) => !a.startsWith('-') || a === '-');
  switch (name) {
    case 'rm': {
      const longs = args.filter((a) => a.startsWith('--'));
      const short = flagSet(args.filter((a) => !a.startsWith('--')));
      const recursive = /[rR]/.test(short) || longs.includes('--recursive');
      if (longs.includes('--no-preserve-root')) add(scope, F.noPreserveRoot);
      if (recursive) {
        const targets = args.filter((a) => !a.startsWith('-'));
        const afterDd = args.indexOf('--');
        if (afterDd >= 0) targets.push(...args.slice(afterDd + 1).filter((a) => a.startsWith('-')));
        const rootish = targets.map(isRootish).find((x) => x && x !== '~ (the home directory)');
        if (rootish) add(scope, F.rootDelete(rootish));
        else add(scope, F.recursiveDelete);
      }
      return;
    }
    case 'rmdir':
    case 'unlink':
      return;
    case 'shred':
    case 'srm':
    case 'wipe':
      if (positional.some((t) => BLOCK_DEVICE.test(t))) add(scope, F.wipeDevice);
      else add(scope, F.shred);
      return;
    case 'wipefs':
    case 'blkdiscard':
    case 'sgdisk':
      if (positional.some((t) => BLOCK_DEVICE.test(t))) add(scope, F.wipeDevice);
      return;
    case 'mv': {
      const t = positional.map(isRootish).find((x) => x && x !== '~ (the home directory)');
      if (t) add(scope, F.moveRoot(t));
      if (positional.length >= 2) checkWriteTarget(positional[positional.length - 1], scope);
      return;
    }
    case 'cp':
    case 'install':
    case 'ln':
    case 'rsync':
      if (positional.length >= 2) checkWriteTarget(positional[positional.length - 1], scope);
      {
        const ti = args.findIndex((a) => a === '-t' || a === '--target-directory');
        if (ti >= 0 && args[ti + 1]) checkWriteTarget(args[ti + 1] + '/', scope);
      }
      return;
    case 'tee':
      for (const t of positional) checkWriteTarget(t, scope);
      return;
    case 'sed':
      if (args.some((a) => /^-[A-Za-z]*i/.test(a) || a.startsWith('--in-place'))) for (const t of positional.slice(1)) checkWriteTarget(t, scope);
      return;
    case 'truncate':
      for (const t of positional) if (BLOCK_DEVICE.test(t)) add(scope, F.truncateDevice);
      for (const t of positional) checkWriteTarget(t, scope);
      return;
    case 'chmod': {
      const mode = positional[0] ?? '';
      // Numeric: the "others" digit has the write bit. Symbolic: a clause for o or a that adds w.
      if (/^[0-7]{3,4}$/.test(mode) && [2, 3, 6, 7].includes(Number(mode[mode.length - 1]))) add(scope, F.worldWritable);
      else if (mode.split(',').some((c) => /^[ugoa]*[oa][ugoa]*[+=][rwxXst]*w/.test(c))) add(scope, F.worldWritable);
      return;
    }
    case 'chown':
    case 'chgrp':
      if (/[R]/.test(flagSet(args)) || args.includes('--recursive')) add(scope, F.chownRoot);
      return;
    case 'dd': {
      const of = args.find((a) => a.startsWith('of='));
      if (of && BLOCK_DEVICE.test(of.slice(3))) add(scope, F.ddDevice);
      else if (args.some((a) => a.startsWith('if='))) add(scope, F.dd);
      if (of) checkWriteTarget(of.slice(3), scope);
      return;
    }
    case 'systemctl': {
      const verb = positional[0];
      if (['stop', 'restart', 'disable', 'mask', 'kill', 'isolate'].includes(verb ?? '')) add(scope, F.service);
      if (['poweroff', 'reboot', 'halt', 'kexec', 'suspend', 'hibernate', 'rescue', 'emergency'].includes(verb ?? '')) add(scope, F.power);
      return;
    }
    case 'service':
      if (['stop', 'restart'].includes(positional[1] ?? '')) add(scope, F.service);
      return;
    case 'shutdown':
    case 'reboot':
    case 'halt':
    case 'poweroff':
      add(scope, F.power);
      return;
    case 'init':
    case 'telinit':
      if (['0', '6'].includes(positional[0] ?? '')) add(scope, F.power);
      return;
    case 'kill': {
      // kill [-s SIG | -n NUM | -SIG] [--] pid…  — a pid of -1 means every process.
      let i = 0;
      if (args[0] === '-s' || args[0] === '-n') i = 2;
      else if (args[0] && args[0].startsWith('-') && args[0] !== '--' && args[0] !== '-l') i = 1;
      if (args[i] === '--') i++;
      if (args.slice(i).includes('-1')) add(scope, F.killAll);
      return;
    }
    case 'pkill':
    case 'killall': {
      const targets = positional.join(' ');
      if (/\bhermes\b|\bgateway\b/.test(targets)) add(scope, F.killHermes);
      if (args.some((a) => /^-(9|KILL|SIGKILL)$/.test(a) || a === '--signal=9' || a === '--signal=KILL')) add(scope, F.forceKill);
      if (args.includes('-s') && ['9', 'KILL', 'SIGKILL'].includes(args[args.indexOf('-s') + 1] ?? '')) add(scope, F.forceKill);
      return;
    }
    case 'mkfs':
    case 'mke2fs':
    case 'mkswap':
    case 'mkdosfs':
    case 'newfs':
      if (positional.some((t) => BLOCK_DEVICE.test(t) || t.startsWith('/dev/'))) add(scope, F.formatDevice);
      else add(scope, F.format);
      return;
    case 'fdisk':
    case 'parted':
    case 'sfdisk':
    case 'cfdisk':
      if (positional.some((t) => BLOCK_DEVICE.test(t)) && !args.includes('-l') && !args.includes('--list')) add(scope, F.format);
      return;
    case 'crontab':
      if (args.includes('-r')) add(scope, F.crontabRemove);
      return;
    case 'iptables':
    case 'ip6tables':
    case 'nft':
      if (args.includes('-F') || args.includes('--flush') || (name === 'nft' && positional[0] === 'flush')) add(scope, F.firewall);
      return;
    case 'docker':
    case 'podman':
    case 'docker-compose':
    case 'nerdctl': {
      if (args.some((a) => a === '-H' || a.startsWith('--host') || a === '--context' || a.startsWith('--context=') || a === '--remote' || a === '--url'))
        add(scope, F.dockerRemote);
      const verbs = positional.filter((a) => !a.includes('/') && !a.includes('='));
      if (verbs[0] === 'context' && verbs[1] === 'use') add(scope, F.dockerRemote);
      const v = verbs[0] === 'compose' || verbs[0] === 'container' ? verbs[1] : verbs[0];
      if (['stop', 'kill', 'restart', 'down', 'rm', 'rmi'].includes(v ?? '') || (verbs.includes('prune') && (verbs[0] === 'system' || verbs[0] === 'volume' || verbs[0] === 'image' || verbs[0] === 'container'))) add(scope, F.docker);
      return;
    }
    default: {
      const mk = /^mkfs\.\w+$/.test(name);
      if (mk) rules('mkfs', args, scope);
      return;
    }
  }
}

// -------------------------------------------------------------------------------------------
// Public API

/** Analyzes a command line: every finding, and every command it would run. */
export function analyzeCommand(cmdline: string): CommandAnalysis {
  const scope: Scope = { vars: new Map(), depth: 0, findings: [], commands: [], functions: new Set() };
  let parseError: string | undefined;
  try {
    walk(parseShell(cmdline), scope);
  } catch (e) {
    parseError = e instanceof ShellParseError ? e.message : `parse failure: ${(e as Error).message}`;
    fallbackRegex(cmdline, scope);
    add(scope, F.unparsable(parseError));
  }
  const commands = scope.commands.map((c) => c.map((a) => a.replace(/\u0000/g, '')));
  return { findings: scope.findings, commands, parseError };
}

/** fnmatch-style glob (`*`, `?`, `[…]`) → RegExp, case-insensitive, whole string. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = glob.indexOf(']', i + 2);
      if (j < 0) re += '\\[';
      else {
        let cls = glob.slice(i + 1, j);
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        re += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = j;
      }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'is');
}

/** The user deny rule (approvals.deny) a command matches, if any. */
export function matchDenyRule(cmdline: string, analysis: CommandAnalysis, rules: string[]): string | null {
  if (!rules.length) return null;
  const variants = new Set<string>([cmdline.trim(), cmdline.replace(/(["'])\1/g, '').replace(/\s+/g, ' ').trim()]);
  for (const argv of analysis.commands) {
    if (!argv.length) continue;
    variants.add(argv.join(' '));
    variants.add([base(argv[0]), ...argv.slice(1)].join(' '));
  }
  for (const rule of rules) {
    const re = globToRegExp(rule.trim());
    for (const v of variants) if (re.test(v)) return rule;
  }
  return null;
}

/**
 * One verdict for a command: `block` for hardline findings and deny rules, `ask` for dangerous
 * findings, `allow` otherwise. Allowlisting and approvals are applied by the caller.
 */
export function classifyCommand(cmdline: string, opts: { deny?: string[] } = {}): CommandVerdict {
  const a = analyzeCommand(cmdline);
  const hard = a.findings.filter((f) => f.hardline);
  if (hard.length) return { action: 'block', description: hard.map((f) => f.description).join('; '), findings: hard };
  const rule = matchDenyRule(cmdline, a, opts.deny ?? []);
  if (rule) return { action: 'block', description: `matches the approvals.deny rule "${rule}"`, findings: [], rule };
  if (a.findings.length) return { action: 'ask', description: a.findings.map((f) => f.description).join('; '), key: a.findings[0].key, findings: a.findings };
  return { action: 'allow' };
}
