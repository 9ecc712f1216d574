// Dangerous-command detection over the parsed command. Pure: returns decisions as data.
//
// The command is parsed (shell-parse.ts), words are expanded statically (danger/expand.ts),
// wrappers are unwrapped and shell strings parsed recursively (danger/walk.ts), and every simple
// command found is checked against the rules (danger/rules*.ts, danger/targets.ts). Paths are
// compared with home and HERMES_HOME folded in (danger/context.ts). Hardline findings are never
// allowed; the rest ask.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ShellParseError } from './shell-lex.ts';
import { parseShell } from './shell-parse.ts';
import { base, newScope, type PathContext } from './danger/context.ts';
import { addFinding, F, type Finding } from './danger/findings.ts';
import { globToRegExp } from './danger/glob.ts';
import { fallbackRegex, walk } from './danger/walk.ts';

export type { Finding } from './danger/findings.ts';
export { globToRegExp } from './danger/glob.ts';

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

export interface ClassifyOptions {
  /** approvals.deny globs. */
  deny?: string[];
  /** The user's home (default: HOME). */
  home?: string;
  /** HERMES_HOME (default: HERMES_HOME, else ~/.hermes). */
  hermesHome?: string;
  /** The directory the command runs in, when known. */
  cwd?: string;
}

// ANSI CSI/OSC sequences and 8-bit C1 introducers: a terminal shows `rm`, a naive match sees noise.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x9b[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;

/** What the classifier reads: ANSI escapes and NULs gone, fullwidth letters folded (NFKC). */
function normalize(cmdline: string): string {
  if (!/[^\x20-\x7e\t\n]/.test(cmdline)) return cmdline;
  // A CRLF after a backslash is read as a line continuation, as Hermes reads it.
  // Unicode spaces are not word separators to bash: kept as word characters through NFKC.
  return cmdline.replace(ANSI, '').replace(/\u0000/g, '').replace(/\\\r\n/g, '').replace(/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, '_').normalize('NFKC');
}

/** A Windows home (`C:\Users\me`) written with either slash → `~/…` (backslashes would be escapes). */
function foldWindowsHome(text: string, home: string): string {
  if (!/^[A-Za-z]:[\\/]/.test(home) || !text.toLowerCase().includes(home.slice(2).replace(/\\/g, '/').toLowerCase().split('/')[1] ?? '\u0000')) return text;
  const parts = home.split(/[\\/]+/).filter(Boolean).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`${parts.join('[\\\\/]+')}((?:[\\\\/][^\\\\/\\s'"\`;|&<>()]*)*)`, 'gi');
  return text.replace(re, (_m, tail: string) => `~${tail.replace(/\\/g, '/')}`);
}

const METADATA = /(?<![\d.])(?:169\.254\.169\.254|100\.100\.100\.200)(?![\d.])|(?<![\w.-])metadata\.google\.internal(?![\w.-])|fd00:ec2::254/i;
const WINDOWS_SECRETS = /\busers[\\/][^\\/\s]+[\\/]\.ssh\b|\bappdata[\\/](?:local|roaming)[\\/]hermes[^\n]*\.env\b/i;

let lastPaths: { key: string; home: string; hermesHome: string; hermesRoot: string } | null = null;

function pathContext(opts: ClassifyOptions, raw: string): PathContext {
  const homeIn = opts.home ?? process.env.HOME;
  const hermesIn = opts.hermesHome ?? process.env.HERMES_HOME;
  const key = `${homeIn}\0${hermesIn}`;
  if (lastPaths?.key !== key) {
    const home = (homeIn ?? homedir()).replace(/\/+$/, '');
    const hermesRoot = home ? join(home, '.hermes') : '';
    const hermesHome = (hermesIn ?? hermesRoot).replace(/\/+$/, '');
    lastPaths = { key, home: /^[A-Za-z]:[\\/]/.test(home) ? '' : home, hermesHome, hermesRoot };
  }
  return { home: lastPaths.home, hermesHome: lastPaths.hermesHome, hermesRoot: lastPaths.hermesRoot, raw };
}

/** Analyzes a command line: every finding, and every command it would run. */
export function analyzeCommand(cmdline: string, opts: ClassifyOptions = {}): CommandAnalysis {
  const home = opts.home ?? process.env.HOME ?? '';
  const text = foldWindowsHome(normalize(cmdline), home);
  const scope = newScope(pathContext(opts, text), opts.cwd ?? null);
  let parseError: string | undefined;
  try {
    walk(parseShell(text), scope);
  } catch (e) {
    parseError = e instanceof ShellParseError ? e.message : `parse failure: ${(e as Error).message}`;
    fallbackRegex(text, scope);
    addFinding(scope.findings, F.unparsable(parseError));
  }
  // Classes Hermes finds in the text itself, wherever they appear.
  if (METADATA.test(text)) addFinding(scope.findings, F.metadata);
  if (WINDOWS_SECRETS.test(cmdline)) addFinding(scope.findings, F.sensitiveWrite);
  const commands = scope.commands.map((c) => c.map((a) => a.replace(/[\u0000-\u0002]/g, '')));
  return { findings: scope.findings, commands, parseError };
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
export function classifyCommand(cmdline: string, opts: ClassifyOptions = {}): CommandVerdict {
  const a = analyzeCommand(cmdline, opts);
  const hard = a.findings.filter((f) => f.hardline);
  if (hard.length) return { action: 'block', description: hard.map((f) => f.description).join('; '), findings: hard };
  const rule = matchDenyRule(cmdline, a, opts.deny ?? []);
  if (rule) return { action: 'block', description: `matches the approvals.deny rule "${rule}"`, findings: [], rule };
  if (a.findings.length) return { action: 'ask', description: a.findings.map((f) => f.description).join('; '), key: a.findings[0].key, findings: a.findings };
  return { action: 'allow' };
}
