// `hermes completion bash|zsh|fish`: shell completion scripts generated from the command tree
// itself, so new commands and flags complete without touching this file.
//   bash:  source <(hermes completion bash)        (or save to /etc/bash_completion.d/hermes)
//   zsh:   source <(hermes completion zsh)         (or save as _hermes in a directory on $fpath)
//   fish:  hermes completion fish > ~/.config/fish/completions/hermes.fish

import type { Command, Option } from 'commander';
import { providerIds } from '../llm/catalog.ts';
import { defaultConfig } from '../state/defaults.ts';
import { HERMES_CORE_TOOLSETS, COMPOSITE_TOOLSETS, PLATFORM_TOOLSETS } from '../tools/toolsets.ts';
import { CliError } from './errors.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Node {
  path: string;
  name: string;
  description: string;
  subcommands: Node[];
  options: { flags: string[]; takesValue: boolean; description: string }[];
  /** Values for the first positional argument. */
  positional: string[];
  isDefault: boolean;
}

function dottedKeys(v: unknown, prefix = ''): string[] {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return [];
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('_')) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    out.push(key);
    out.push(...dottedKeys(x, key));
  }
  return out;
}

/** Values an option or positional takes, when they are a known list. */
export function valueWords(): Record<string, string[]> {
  return {
    '--provider': providerIds(),
    '--toolsets': [...new Set([...HERMES_CORE_TOOLSETS, ...Object.keys(COMPOSITE_TOOLSETS), ...Object.keys(PLATFORM_TOOLSETS), 'all'])],
    '--api-mode': ['chat_completions', 'anthropic_messages', 'codex_responses'],
  };
}

function positionalFor(path: string): string[] {
  if (path === 'completion') return [...SHELLS];
  if (['config get', 'config set', 'config unset'].includes(path)) return dottedKeys(defaultConfig());
  return [];
}

function walk(cmd: Command, path: string): Node {
  const opts = (cmd.options as Option[])
    .filter((o) => !(o as Option & { hidden?: boolean }).hidden)
    .map((o) => ({ flags: [o.short, o.long].filter((f): f is string => !!f), takesValue: !!(o.required || o.optional), description: o.description ?? '' }));
  opts.push({ flags: ['-h', '--help'], takesValue: false, description: 'show help' });
  const def = (cmd as Command & { _defaultCommandName?: string })._defaultCommandName;
  const subcommands = cmd.commands.map((c) => {
    const n = walk(c, path ? `${path} ${c.name()}` : c.name());
    n.isDefault = c.name() === def;
    return n;
  });
  return { path, name: cmd.name(), description: cmd.description() ?? '', subcommands, options: opts, positional: positionalFor(path), isDefault: false };
}

function tree(program: Command): Node {
  return walk(program, '');
}

function all(n: Node): Node[] {
  return [n, ...n.subcommands.flatMap(all)];
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/[`$"\\]/g, '').trim();

function wordsFor(n: Node, root: Node): string[] {
  const w = [...n.subcommands.map((c) => c.name), ...n.options.flatMap((o) => o.flags), ...n.positional];
  // The default command's flags also work on the bare program (`hermes -q …`).
  if (n === root) for (const c of n.subcommands.filter((c) => c.isDefault)) w.push(...c.options.flatMap((o) => o.flags));
  return [...new Set(w)];
}

/** Options whose value is a file path. */
const isFileOption = (flag: string) => /file|image|path|key$/.test(flag) && flag !== '--api-key';

function valueOptions(root: Node): string[] {
  return [...new Set(all(root).flatMap((n) => n.options.filter((o) => o.takesValue).flatMap((o) => o.flags)))];
}

export function bashScript(program: Command): string {
  const root = tree(program);
  const nodes = all(root);
  const paths = nodes.filter((n) => n.path).map((n) => n.path);
  const values = valueWords();
  const lines: string[] = [];
  lines.push('# bash completion for hermes. Load with: source <(hermes completion bash)');
  lines.push('_hermes_completion() {');
  lines.push('  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmdpath="" w i');
  lines.push('  for ((i = 1; i < COMP_CWORD; i++)); do');
  lines.push('    w="${COMP_WORDS[i]}"');
  lines.push('    case "$w" in -*) continue ;; esac');
  lines.push('    case "${cmdpath:+$cmdpath }$w" in');
  lines.push(`      ${paths.map((p) => q(p)).join('|')}) cmdpath="\${cmdpath:+$cmdpath }$w" ;;`);
  lines.push('    esac');
  lines.push('  done');
  lines.push('  case "$prev" in');
  for (const [flag, words] of Object.entries(values)) {
    const short = flag === '--toolsets' ? '-t|' : '';
    lines.push(`    ${short}${flag}) COMPREPLY=($(compgen -W ${q(words.join(' '))} -- "$cur")); return 0 ;;`);
  }
  const others = valueOptions(root).filter((f) => !(f in values) && f !== '-t');
  if (others.length) lines.push(`    ${others.join('|')}) COMPREPLY=(); return 0 ;;`);
  lines.push('  esac');
  lines.push('  local words=""');
  lines.push('  case "$cmdpath" in');
  for (const n of nodes) lines.push(`    ${q(n.path)}) words=${q(wordsFor(n, root).join(' '))} ;;`);
  lines.push('  esac');
  lines.push('  COMPREPLY=($(compgen -W "$words" -- "$cur"))');
  lines.push('}');
  lines.push('complete -o default -F _hermes_completion hermes');
  return lines.join('\n') + '\n';
}

export function zshScript(program: Command): string {
  const root = tree(program);
  const nodes = all(root);
  const paths = nodes.filter((n) => n.path).map((n) => n.path);
  const values = valueWords();
  const lines: string[] = [];
  lines.push('#compdef hermes');
  lines.push('# zsh completion for hermes. Load with: source <(hermes completion zsh), or save as _hermes on $fpath.');
  lines.push('_hermes() {');
  lines.push('  local cmdpath="" w i prev="${words[CURRENT-1]}"');
  lines.push('  for ((i = 2; i < CURRENT; i++)); do');
  lines.push('    w="${words[i]}"');
  lines.push('    [[ "$w" == -* ]] && continue');
  lines.push('    case "${cmdpath:+$cmdpath }$w" in');
  lines.push(`      (${paths.map((p) => q(p)).join('|')}) cmdpath="\${cmdpath:+$cmdpath }$w" ;;`);
  lines.push('    esac');
  lines.push('  done');
  lines.push('  case "$prev" in');
  for (const [flag, words] of Object.entries(values)) {
    const short = flag === '--toolsets' ? '-t|' : '';
    lines.push(`    (${short}${flag}) compadd -- ${words.map(q).join(' ')}; return ;;`);
  }
  const others = valueOptions(root).filter((f) => !(f in values) && f !== '-t');
  const fileish = others.filter(isFileOption);
  if (fileish.length) lines.push(`    (${fileish.join('|')}) _files; return ;;`);
  const plain = others.filter((f) => !isFileOption(f));
  if (plain.length) lines.push(`    (${plain.join('|')}) return ;;`);
  lines.push('  esac');
  lines.push('  local -a cmds opts');
  lines.push('  case "$cmdpath" in');
  for (const n of nodes) {
    const cmds = n.subcommands.map((c) => q(`${c.name}:${oneLine(c.description).replace(/:/g, '\\:')}`));
    const opts = wordsFor(n, root).filter((w) => w.startsWith('-'));
    const pos = n.positional;
    lines.push(`    (${q(n.path)})`);
    lines.push(`      cmds=(${cmds.join(' ')})`);
    lines.push(`      opts=(${opts.map(q).join(' ')})`);
    if (pos.length) lines.push(`      compadd -- ${pos.map(q).join(' ')}`);
    lines.push('      ;;');
  }
  lines.push('  esac');
  lines.push('  if [[ "${words[CURRENT]}" == -* ]]; then compadd -- $opts; else (( ${#cmds} )) && _describe -t commands "hermes command" cmds; fi');
  lines.push('}');
  lines.push('if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then _hermes "$@"; else compdef _hermes hermes; fi');
  return lines.join('\n') + '\n';
}

export function fishScript(program: Command): string {
  const root = tree(program);
  const values = valueWords();
  const lines: string[] = ['# fish completion for hermes. Save with: hermes completion fish > ~/.config/fish/completions/hermes.fish', 'complete -c hermes -f'];
  const optLine = (cond: string, o: Node['options'][number]) => {
    const parts = [`complete -c hermes -n ${q(cond)}`];
    for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
    const long = o.flags.find((f) => f.startsWith('--'));
    if (o.takesValue) parts.push(long && values[long] ? `-x -a ${q(values[long].join(' '))}` : long && isFileOption(long) ? '-r -F' : '-x');
    if (o.description) parts.push(`-d ${q(oneLine(o.description))}`);
    return parts.join(' ');
  };
  for (const c of root.subcommands) lines.push(`complete -c hermes -n '__fish_use_subcommand' -a ${q(c.name)} -d ${q(oneLine(c.description))}`);
  for (const o of root.options) lines.push(optLine('__fish_use_subcommand', o));
  for (const c of root.subcommands.filter((x) => x.isDefault)) for (const o of c.options) lines.push(optLine('__fish_use_subcommand', o));
  const visit = (n: Node) => {
    const parts = n.path.split(' ');
    const cond = parts.map((p) => `__fish_seen_subcommand_from ${p}`).join('; and ');
    const subs = n.subcommands.map((c) => c.name);
    for (const c of n.subcommands) lines.push(`complete -c hermes -n ${q(`${cond}; and not __fish_seen_subcommand_from ${subs.join(' ')}`)} -a ${q(c.name)} -d ${q(oneLine(c.description))}`);
    for (const o of n.options) lines.push(optLine(cond, o));
    if (n.positional.length) lines.push(`complete -c hermes -n ${q(cond)} -a ${q(n.positional.join(' '))}`);
    n.subcommands.forEach(visit);
  };
  root.subcommands.forEach(visit);
  return lines.join('\n') + '\n';
}

export async function runCompletion(shell: string | undefined): Promise<void> {
  if (!shell || !(SHELLS as readonly string[]).includes(shell)) {
    throw new CliError(`Which shell? \`hermes completion bash\`, \`hermes completion zsh\` or \`hermes completion fish\`${shell ? ` (got "${shell}")` : ''}.`, 2);
  }
  const { buildProgram } = await import('./program.ts');
  const program = buildProgram();
  const script = shell === 'bash' ? bashScript(program) : shell === 'zsh' ? zshScript(program) : fishScript(program);
  process.stdout.write(script);
}
