// The docs say what the binary does: every `hermes <command> [subcommand] --flag` written in
// README.md, docs/*.md and the bundled skills' Markdown (skills/**/*.md; code spans and code
// blocks) names a command and flags the real command
// tree has (the tree `hermes --help` prints, built by src/cli/program.ts), every relative link
// resolves, and the EBADENGINE count docs/install.md gives is the lockfile's.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli/program.ts';
import { CONFIG_SCHEMA, configLeaves, schemaAt } from '../../src/state/config-schema.ts';
import { ROOT } from '../helpers/cli.ts';

/** The Markdown of the bundled skills (skills/<category>/<name>/SKILL.md and their reference files). */
const skillPages = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? skillPages(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
  );

const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...skillPages('skills')];

/** Pages other branches are writing at the same time; linked from the index before they land. */
const PENDING_PAGES = new Set(['docs/security.md', 'docs/sandbox.md', 'docs/gateway-delivery.md', 'docs/reliability.md']);

/** Deliberately wrong commands, shown as what a typo gets. */
const SHOWN_AS_TYPOS = new Set(['hermes stauts', 'hermes sessions lst', 'hermes sesions']);

/** The code in a Markdown file: fenced blocks line by line, inline spans (which may wrap lines). */
function codeSnippets(md: string): string[] {
  const out: string[] = [];
  const prose: string[] = [];
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      fence = fence ? null : f[1];
      continue;
    }
    if (fence) out.push(line);
    else prose.push(line);
  }
  for (const m of prose.join('\n').matchAll(/(`+)([^`][\s\S]*?)\1/g)) out.push(m[2].replace(/\s*\n\s*/g, ' '));
  return out;
}

/** Shell-ish words: quotes kept together, stops at a separator. */
function words(s: string): string[] {
  const out: string[] = [];
  const re = /"[^"]*"|'[^']*'|\S+/g;
  for (const m of s.matchAll(re)) {
    const w = m[0];
    if (/^(\||&&|;|>|>>|<|2>|#|·|→|\))$/.test(w) || w.startsWith('#')) break;
    out.push(w);
  }
  return out;
}

/** Each `hermes …` command line in a snippet, from `hermes` to the end or a shell separator. */
function invocations(snippet: string): string[] {
  const out: string[] = [];
  for (const m of snippet.matchAll(/(?:^|[\s(;|&])hermes(?=\s|$)/g)) {
    const rest = snippet.slice(m.index! + m[0].length);
    // A quoted argument stays one word (its spaces become no-break spaces).
    out.push(['hermes', ...words(rest).map((w) => w.replace(/ /g, '\u00a0'))].join(' '));
  }
  return out;
}

const optionOf = (cmd: Command, flag: string): Option | undefined => {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag || (x.negate && x.long === flag));
    if (o) return o;
  }
  return undefined;
};
const sub = (cmd: Command, name: string) => cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
const isPlaceholder = (w: string) => /[<>{}…]|\.\.\.|^\[|^[A-Z_]+$|^\$/.test(w);

/** Problems with one `hermes …` line: an unknown command word or an unknown flag. */
function check(line: string, program: Command): string[] {
  const toks = line.split(' ').slice(1);
  const problems: string[] = [];
  let cmd = program;
  let positional = false;
  for (let i = 0; i < toks.length; i++) {
    const raw = toks[i];
    const t = raw.replace(/^\[|\]+$|,$/g, '');
    if (!t) continue;
    if (t === '--') break;
    if (raw.startsWith('[') && !raw.startsWith('[-')) {
      positional = true; // `[options]`, `[name]`
      continue;
    }
    if (t.startsWith('-') && t.length > 1 && !/^-\d/.test(t)) {
      const flag = t.split('=')[0];
      let o = optionOf(cmd, flag);
      // `hermes --tui`: an option of the default command (chat), given without naming it.
      const dflt = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
      if (!o && dflt && !positional) {
        const d = sub(cmd, dflt);
        o = d ? optionOf(d, flag) : undefined;
        if (o) cmd = d!;
      }
      if (!o && !['-h', '--help'].includes(flag)) problems.push(`\`${line}\`: ${flag} is not an option of \`${commandPath(cmd)}\``);
      if (o && (o.required || o.optional) && !t.includes('=') && i + 1 < toks.length && !toks[i + 1].startsWith('-')) i++;
      continue;
    }
    if (positional || isPlaceholder(t) || /^["']/.test(t)) {
      positional = true;
      continue;
    }
    // `pause|resume|run` names alternatives at the same level.
    const alts = t.split('|').filter(Boolean);
    const found = alts.map((a) => sub(cmd, a));
    if (found.every(Boolean)) {
      if (alts.length === 1) cmd = found[0]!;
      else positional = true;
      continue;
    }
    if (cmd.commands.length && !cmd.registeredArguments.length && !positional) {
      const bad = alts.filter((a, k) => !found[k] && !isPlaceholder(a));
      if (bad.length) problems.push(`\`${line}\`: \`${commandPath(cmd)} ${bad[0]}\` is not a command`);
    }
    positional = true;
  }
  return problems;
}

const commandPath = (c: Command): string => (c.parent ? `${commandPath(c.parent)} ${c.name()}` : c.name());

describe('the docs', () => {
  it('include the bundled skills', () => {
    assert.ok(FILES.filter((f) => f.endsWith('/SKILL.md')).length >= 30, FILES.join(' '));
  });

  it('name only commands and flags the CLI has', () => {
    const program = buildProgram();
    const problems: string[] = [];
    let checked = 0;
    for (const f of FILES) {
      for (const snippet of codeSnippets(readFileSync(join(ROOT, f), 'utf8'))) {
        for (const line of invocations(snippet)) {
          if ([...SHOWN_AS_TYPOS].some((t) => line === t || line.startsWith(`${t} `))) continue;
          checked++;
          for (const p of check(line, program)) problems.push(`${f}: ${p}`);
        }
      }
    }
    assert.ok(checked > 200, `only ${checked} command lines found: is the extraction broken?`);
    assert.deepEqual(problems, []);
  });

  it('catches a wrong command or flag (the check can fail)', () => {
    const program = buildProgram();
    assert.deepEqual(check('hermes sessions list --workspace x', program), []);
    assert.deepEqual(check('hermes --tui', program), [], 'an option of the default command, chat');
    assert.match(check('hermes --tuii', program).join(), /--tuii is not an option of `hermes`/);
    assert.match(check('hermes sessions lsit', program).join(), /`hermes sessions lsit` is not a command/);
    assert.match(check('hermes cron create --nope 1h x', program).join(), /--nope is not an option of `hermes cron create`/);
    assert.deepEqual(check('hermes cron pause|resume|run <job>', program), []);
    assert.match(check('hermes cron pause|resum <job>', program).join(), /`hermes cron resum` is not a command/);
    assert.deepEqual(invocations('npm ci && hermes -p work chat -q "hi there" | tee x'), ['hermes -p work chat -q "hi\u00a0there"']);
    assert.deepEqual(check(invocations('hermes -z "List the TODOs" --usage-file u.json')[0], program), []);
    assert.deepEqual(invocations('cat ~/.hermes/config.yaml; hermes-tools'), []);
  });

  it('link only to files that exist', () => {
    const missing: string[] = [];
    for (const f of FILES) {
      const md = readFileSync(join(ROOT, f), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of md.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const path = relative(ROOT, resolve(dirname(join(ROOT, f)), decodeURI(target.split('#')[0])));
        if (!existsSync(join(ROOT, path)) && !PENDING_PAGES.has(path)) missing.push(`${f}: ${target}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('list every config.yaml key the schema has (docs/config-keys.md), and name only real keys elsewhere', () => {
    const md = readFileSync(join(ROOT, 'docs', 'config-keys.md'), 'utf8');
    const listed = [...md.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    const accepted = [...(/^Keys Python Hermes reads[\s\S]*$/m.exec(md)?.[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const leaves = configLeaves();
    assert.deepEqual(listed, leaves.filter((l) => !l.hermesOnly).map((l) => l.key), 'docs/config-keys.md lists the settings: run `node scripts/config-gen.mjs`');
    assert.deepEqual(accepted, leaves.filter((l) => l.hermesOnly).map((l) => l.key));
    // A dotted key in a code span under a section the schema closes (`agent.max_turns`) must be a setting.
    const sections = new Set(Object.keys(CONFIG_SCHEMA.properties ?? {}));
    const wrong: string[] = [];
    for (const f of FILES) {
      for (const snippet of codeSnippets(readFileSync(join(ROOT, f), 'utf8'))) {
        for (const m of snippet.matchAll(/(?<![\w./-])([a-z_]+(?:\.[a-z_0-9]+)+)(?![\w/(-])/g)) {
          const keys = m[1].split('.');
          if (!sections.has(keys[0]) || /^(ya?ml|db|json|jsonl|md|ts|toml|env|txt|sh|py|js|mjs|log|lock|sock)$/.test(keys.at(-1)!)) continue;
          if (!schemaAt(keys) && m[1] !== 'agent.max_turn' /* shown as a typo */) wrong.push(`${f}: ${m[1]}`);
        }
      }
    }
    assert.deepEqual([...new Set(wrong)], []);
  });

  it('give the EBADENGINE count npm really prints on Node 20', () => {
    const require = createRequire(import.meta.url);
    const semver = require('semver') as { satisfies(v: string, range: string): boolean };
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
    // npm warns once for the project and once per installed package whose engines.node Node 20 does not meet.
    const n = Object.values(lock.packages).filter((p) => p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies('20.19.0', p.engines.node)).length;
    const doc = readFileSync(join(ROOT, 'docs', 'install.md'), 'utf8');
    const said = /EBADENGINE`? (?:warnings? )?(?:for|about) (\d+) /.exec(doc);
    assert.ok(said, 'docs/install.md says how many EBADENGINE warnings npm prints');
    assert.equal(Number(said[1]), n);
  });
});
