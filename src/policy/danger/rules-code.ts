// Code that is not a shell command line: inline interpreter code (python -c, node -e, perl -e, …),
// interpreter heredocs, awk programs, and SQL. Shell strings inside such code (`os.system("…")`,
// `system("…")`, `execSync('…')`, backticks) and deletes (`shutil.rmtree('/')`) are analyzed as
// commands, so a hardline command stays blocked however it is wrapped.
import { hermesControlPath, hermesSecretPath } from '../protected-paths.ts';
import { canonPath, type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { recursiveDelete } from './rules.ts';
import { analyzeScript } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

/** Interpreter families and the options that run code given on the command line. */
const FAMILIES: [RegExp, string, string[], string[]][] = [
  // [name, family, exec flags, options taking a value]
  [/^(py|python|pypy)(\d+(\.\d+)*)?$/, 'python', ['-c'], ['-W', '-X', '--check-hash-based-pycs', '-m']],
  [/^node(js)?\d*$/, 'node', ['-e', '--eval', '-p', '--print'], ['-C', '--conditions', '--import', '--loader', '--require', '-r', '--title']],
  [/^perl\d*(\.\d+)*$/, 'perl', ['-e', '-E'], ['-I', '-M', '-m', '-x', '-F', '-0']],
  [/^ruby[\d.]*$/, 'ruby', ['-e'], ['-C', '-E', '-F', '-I', '-K', '-r']],
  [/^php\d*(\.\d+)*$/, 'php', ['-r'], ['-c', '-d', '-z']],
  [/^bun$/, 'bun', ['-e', '--eval', '-p', '--print'], ['--config', '--cwd', '--env-file', '--preload', '--require']],
  [/^deno$/, 'deno', ['eval', '-e', '--eval'], ['-L', '--log-level']],
  [/^lua(jit|\d[\d.]*)?$/, 'lua', ['-e'], ['-l']],
  [/^(osascript)$/, 'AppleScript', ['-e'], []],
  [/^Rscript$/, 'R', ['-e'], []],
  [/^(tclsh|wish)[\d.]*$/, 'tcl', [], []],
];

const MAYBE_INTERPRETER = /^(py|node|perl|ruby|php|bun|deno|lua|osascript|Rscript|tclsh|wish)/;

export function interpreterFamily(name: string): { family: string; exec: string[]; withValue: string[] } | null {
  if (!MAYBE_INTERPRETER.test(name)) return null;
  for (const [re, family, exec, withValue] of FAMILIES) if (re.test(name)) return { family, exec, withValue };
  return null;
}

/** Inline code that runs commands or deletes files. */
const CODE_DANGER =
  /\b(os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|subprocess|pty\.spawn|shutil\.rmtree|rmtree|os\.remove|os\.unlink|os\.rmdir|os\.removedirs|Path\([^)]*\)\.unlink|\bunlink\b|child_process|execSync|spawnSync|execFileSync|exec\s*\(|system\s*\(|popen|unlinkSync|rmSync|rmdirSync|fs\.rm\b|fs\.promises\.rm|fs\.unlink|File\.delete|FileUtils\.rm\w*|Dir\.rmdir|\bfork\b|__import__|shell_exec|passthru|proc_open|Runtime\.getRuntime|do shell script|Deno\.(run|Command|remove)|Bun\.spawn)/;

const STR = String.raw`(?:[rubf]{0,2})(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)")`;
/** Calls whose string argument is a shell command line. */
const SHELL_CALL = new RegExp(String.raw`(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|\bsystem|\bexec(?:Sync)?|spawnSync|shell_exec|passthru|popen|\bqx|do shell script)\s*\(?\s*` + STR, 'g');
/** Calls whose argument list is argv: `subprocess.run(["rm", "-rf", "/"])`. */
const ARGV_CALL = /(?:subprocess\.\w+|spawn(?:Sync)?|execFile(?:Sync)?|Popen|system)\s*\(\s*\[([^\]]*)\]/g;
/** Calls that delete a directory tree. */
const TREE_DELETE = new RegExp(String.raw`(?:shutil\.rmtree|rmtree|rmSync|rmdirSync|fs\.rm|FileUtils\.rm_r\w*|FileUtils\.remove_dir|Deno\.remove)\s*\(\s*` + STR, 'g');
const BACKTICKS = /`([^`]+)`/g;

const unquote = (m: RegExpMatchArray) => (m[1] ?? m[2] ?? '').replace(/\\(["'\\])/g, '$1').replace(/\\n/g, '\n');

/** Looks inside inline code: shell strings are analyzed as commands, tree deletes as `rm -rf`. */
/** A loop that never ends (`while True:`, `fork while 1`, `loop { }`, `for (;;)`, `iter(int, 1)`). */
const ENDLESS = /\bwhile\s*\(?\s*(1|true|True|fork)\b|\bfork\s*(\(\s*\))?\s*while\b|\bloop\s*(\{|do\b)|\bfor\s*\(\s*;\s*;\s*\)|\biter\s*\(\s*int\s*,\s*1\s*\)|itertools\.(count|repeat)\s*\(|\buntil\s*\(?\s*(0|false)\b/;

export function checkInlineCode(lang: string, code: string, scope: Scope): void {
  if (!code) return;
  // Forking in an endless loop: a fork bomb, whatever the language.
  if (/\bfork\b/.test(code) && ENDLESS.test(code)) add(scope, F.forkBomb);
  const backticks = lang === 'perl' || lang === 'ruby' || lang === 'php';
  if (CODE_DANGER.test(code) || (backticks && /`[^`]+`/.test(code))) add(scope, F.inlineCode(lang));
  for (const m of code.matchAll(SHELL_CALL)) analyzeScript(unquote(m), scope);
  for (const m of code.matchAll(ARGV_CALL)) {
    const argv = [...m[1].matchAll(/'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"/g)].map((x) => `'${(x[1] ?? x[2] ?? '').replace(/'/g, `'\\''`)}'`);
    if (argv.length) analyzeScript(argv.join(' '), scope);
  }
  for (const m of code.matchAll(TREE_DELETE)) recursiveDelete([unquote(m)], scope);
  if (backticks) for (const m of code.matchAll(BACKTICKS)) analyzeScript(m[1], scope);
  // Hermes's own files from inline code: written (`open(os.path.expanduser('~/.hermes/config.yaml'), 'w')`)
  // asks as a change, read (`open('…/.env').read()`) asks when they are its secrets.
  if (/\b(open|read|write|writeFile|appendFile|dump|copy\w*|move|rename|replace|unlink|remove|truncate|cat|load|Path|File)\w*\s*\(/.test(code)) {
    const writes = /\b(write|writeFile|appendFile|dump|copy\w*|move|rename|replace|unlink|remove|truncate)\w*\s*\(|['"][wax]\+?b?['"]|['"]r\+['"]/.test(code);
    for (const m of code.matchAll(/['"]([^'"\n]*(?:\.hermes|HERMES_HOME|config\.yaml|auth\.json|SOUL\.md|\.env)[^'"\n]*)['"]/g)) {
      const c = canonPath(m[1].replace(/^\$HOME|^\$\{HOME\}/, '~').replace(/^\$\{?HERMES_HOME\}?/, scope.ctx.hermesHome || '~/.hermes'), scope);
      if (!c?.startsWith('@H')) continue;
      if (hermesSecretPath(c.slice(2))) add(scope, F.secretRead);
      if (writes && hermesControlPath(c.slice(2))) add(scope, F.selfWrite(hermesControlPath(c.slice(2))!));
    }
    // os.path.join(os.environ['HERMES_HOME'], '.env') and the like.
    if (/HERMES_HOME|\.hermes/.test(code) && /['"](?:\.env|auth\.json|\.anthropic_oauth\.json)['"]/.test(code)) add(scope, F.secretRead);
  }
}

/**
 * An interpreter invocation: code on the command line (-c/-e …) asks, as Hermes does, and is
 * looked into; code fed on stdin by a heredoc asks too; `perl -i`/`ruby -i` edit files in place.
 * Returns the paths edited in place (checked by the caller).
 */
export function interpreter(name: string, args: string[], stdin: string[], scope: Scope): string[] {
  const fam = interpreterFamily(name);
  if (!fam) return [];
  const { family, exec, withValue } = fam;
  const edited: string[] = [];
  let inPlace = false;
  let code: string | null = null;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (family === 'deno' && a === 'eval') {
      code = args[i + 1] ?? '';
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    const opt = a.split('=')[0];
    if (exec.includes(opt)) {
      code = a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[++i] ?? '');
      continue;
    }
    if (withValue.includes(a)) {
      i++;
      continue;
    }
    if (withValue.some((w) => w.length === 2 && !w.startsWith('--') && a.startsWith(w))) continue; // -Wonce, -rjson
    if (!a.startsWith('--')) {
      const letters = a.slice(1);
      if ((family === 'perl' || family === 'ruby') && letters.includes('i')) inPlace = true;
      // A bundle ending in an exec flag takes the next argument as code (`python -Sc`, `perl -pie`).
      const e = exec.find((f) => f.length === 2 && letters.includes(f[1]));
      if (e && !(family === 'perl' && letters.indexOf('i') >= 0 && letters.indexOf('i') < letters.indexOf(e[1]))) {
        const at = letters.indexOf(e[1]);
        code = at === letters.length - 1 ? (args[++i] ?? '') : letters.slice(at + 1);
      }
    }
  }
  if (code !== null) {
    add(scope, F.scriptExec(family));
    checkInlineCode(family, code, scope);
  }
  const rest = args.slice(i).filter((a) => a !== '--');
  // The first operand is the script file when no code was given on the command line.
  if (inPlace) edited.push(...(code === null ? rest.slice(1) : rest));
  // No script file: the code comes from stdin (a heredoc, a here-string).
  if (code === null && (rest.length === 0 || rest[0] === '-') && stdin.length) {
    add(scope, F.scriptHeredoc(family));
    for (const s of stdin) checkInlineCode(family, s, scope);
  }
  return edited;
}

/** awk programs that run commands (`system(…)`, `print | "sh"`, `"cmd" | getline`). */
export function awk(args: string[], scope: Scope): void {
  let program: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-f' || a === '--file') return; // a program file: not visible here
    if (a === '-v' || a === '-F' || a === '--assign' || a === '--field-separator') {
      i++;
      continue;
    }
    if (a === '-e' || a === '--source') {
      program = args[i + 1] ?? '';
      break;
    }
    if (a.startsWith('-') && a !== '-') continue;
    program = a;
    break;
  }
  if (!program) return;
  const runs = /\bsystem\s*\(/.test(program) || /\|\s*"[^"]*"|"[^"]*"\s*\|\s*getline/.test(program);
  if (!runs) return;
  add(scope, F.inlineCode('awk'));
  for (const m of program.matchAll(/\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"/g)) analyzeScript(m[1].replace(/\\(["\\])/g, '$1'), scope);
  for (const m of program.matchAll(/\|\s*"((?:\\.|[^"\\])*)"/g)) analyzeScript(m[1], scope);
  for (const m of program.matchAll(/"((?:\\.|[^"\\])*)"\s*\|\s*getline/g)) analyzeScript(m[1], scope);
}

export const SQL_CLIENTS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'sqlcmd', 'clickhouse-client', 'duckdb', 'cockroach', 'pgcli', 'mycli', 'litecli', 'mongosh']);

/** DROP, TRUNCATE, or DELETE without WHERE in any statement of `text`. */
export function checkSql(text: string, scope: Scope): void {
  if (!/\b(drop|truncate|delete)\b/i.test(text)) return;
  for (const stmt of text.split(';')) {
    const s = stmt.trim();
    if (/\bDROP\s+(TABLE|DATABASE|SCHEMA|INDEX|VIEW|USER|ROLE|COLLECTION)\b/i.test(s) || /\bTRUNCATE(\s+TABLE)?\s+[\w."`[]/i.test(s) || (/\bDELETE\s+FROM\b/i.test(s) && !/\bWHERE\b/i.test(s)) || /\.drop(Database)?\s*\(/.test(s)) {
      add(scope, F.sql);
      return;
    }
  }
}
