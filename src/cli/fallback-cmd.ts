// `hermes fallback …`: the fallback chain in config.yaml (`fallback_providers`, tried in order when
// the primary fails), with Hermes's subcommands and output (hermes_cli/fallback_cmd.py): list (default),
// add, remove, clear. Hermes picks with its model picker; here `add` prompts for provider and model on
// a terminal, or takes --provider/--model (scripts), and `remove` takes the entry's number.
import { askLine as ask } from './tty-prompts.ts';
import { findProvider } from '../llm/catalog.ts';
import { ResolveError, resolveFallbackRuntimes } from '../llm/resolve.ts';
import { resolveInputFrom } from '../session/session-client.ts';
import { setConfigKey, unsetConfigKey } from '../state/config.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

interface Entry {
  provider?: string;
  model?: string;
  base_url?: string;
  api_mode?: string;
  [k: string]: unknown;
}

const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** `fallback_providers`, with a legacy `fallback_model` folded in (as Hermes reads them). */
function readChain(cli: CliContext): Entry[] {
  const user = cli.loaded.user as Record<string, unknown>;
  const chain = Array.isArray(user.fallback_providers) ? (user.fallback_providers.filter(obj) as Entry[]).map((e) => ({ ...e })) : [];
  const legacy = user.fallback_model;
  if (obj(legacy) && typeof legacy.provider === 'string' && typeof legacy.model === 'string' && !chain.some((e) => e.provider === legacy.provider && e.model === legacy.model))
    chain.push({ provider: legacy.provider, model: legacy.model });
  return chain;
}

function writeChain(cli: CliContext, chain: Entry[]): void {
  setConfigKey(cli.home, 'fallback_providers', chain);
  unsetConfigKey(cli.home, 'fallback_model');
}

export const formatEntry = (e: Entry): string => `${e.model ?? '?'}  (via ${e.provider ?? '?'})${e.base_url ? `  [${e.base_url}]` : ''}`;
const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

function primaryOf(cli: CliContext): string | null {
  const m = (cli.loaded.user as Record<string, unknown>).model;
  if (obj(m)) return `${String(m.default ?? m.model ?? '?')}  (via ${String(m.provider ?? '?')})`;
  return typeof m === 'string' && m.trim() ? m.trim() : null;
}

function printChain(heading: string, chain: Entry[]): void {
  out(`  ${heading} (${entries(chain.length)}):`);
  chain.forEach((e, i) => out(`    ${i + 1}. ${formatEntry(e)}`));
  out();
}

/** The configuration and its chain; with no chain, Hermes's blank-line-framed note and null. */
function loadChain(emptyNote: string): { cli: CliContext; chain: Entry[] | null } {
  const cli = loadContext();
  const chain = readChain(cli);
  if (chain.length) return { cli, chain };
  out();
  out(`  ${emptyNote}`);
  out();
  return { cli, chain: null };
}

export function list(): void {
  const { cli, chain } = loadChain('No fallback providers configured.');
  if (!chain) {
    out('  Add one with:  hermes fallback add');
    out();
    return;
  }
  out();
  const primary = primaryOf(cli);
  if (primary) {
    out(`  Primary:   ${primary}`);
    out();
  }
  printChain('Fallback chain', chain);
  out('  Tried in order when the primary fails (rate limits, overload, auth or connection errors).');
  out('  Change it with: hermes fallback add | remove | clear');
  out();
}

const sameTarget = (a: Entry, b: Entry) =>
  String(a.provider ?? '').toLowerCase() === String(b.provider ?? '').toLowerCase() &&
  String(a.model ?? '') === String(b.model ?? '') &&
  String(a.base_url ?? '').replace(/\/+$/, '') === String(b.base_url ?? '').replace(/\/+$/, '');

export async function add(o: { provider?: string; model?: string; baseUrl?: string; apiMode?: string }): Promise<void> {
  const cli = loadContext();
  let provider = (o.provider ?? '').trim();
  let model = (o.model ?? '').trim();
  if (!provider || !model) {
    if (!process.stdin.isTTY) throw new CliError('`hermes fallback add` needs a terminal to pick a provider and model, or --provider and --model.', 2);
    out();
    out('  Adding a fallback provider: name the provider and model to try when the primary fails.');
    out();
    if (!provider) provider = await ask('  Provider (openrouter, anthropic, nous, custom:<name>, …): ');
    if (!model) model = await ask('  Model: ');
    if (!provider || !model) {
      out();
      out('  No fallback added.');
      return;
    }
  }
  const named = obj(cli.loaded.config.providers) ? cli.loaded.config.providers : {};
  const spec = findProvider(provider);
  const namedKey = Object.keys(named).find((k) => k.toLowerCase() === provider.toLowerCase().replace(/^custom:/, ''));
  if (!spec && !namedKey) throw new CliError(`Unknown provider '${provider}': use a provider id (openrouter, anthropic, nous, …) or one configured under providers: in config.yaml.`, 2);
  const entry: Entry = { provider: spec && !namedKey ? spec.id : provider, model };
  const baseUrl = (o.baseUrl ?? '').trim().replace(/\/+$/, '') || (spec && !spec.isCustom && !namedKey ? spec.baseUrl : '');
  if (baseUrl) entry.base_url = baseUrl;
  const apiMode = (o.apiMode ?? '').trim() || (spec && !namedKey ? spec.apiMode : '');
  if (apiMode) entry.api_mode = apiMode;

  const m = (cli.loaded.user as Record<string, unknown>).model;
  if (obj(m) && typeof m.provider === 'string' && sameTarget({ provider: m.provider, model: String(m.default ?? m.model ?? ''), base_url: typeof m.base_url === 'string' ? m.base_url : undefined }, entry)) {
    out();
    out(`  Selected model matches the current primary (${formatEntry(entry)}).`);
    out('  A provider cannot be a fallback for itself — no change.');
    return;
  }
  const chain = readChain(cli);
  if (chain.some((e) => sameTarget(e, entry) || (e.provider === entry.provider && e.model === entry.model))) {
    out();
    out(`  ${formatEntry(entry)} is already in the fallback chain — skipped.`);
    return;
  }
  chain.push(entry);
  writeChain(cli, chain);
  out();
  out(`  Added fallback: ${formatEntry(entry)}`);
  out(`  Chain is now ${entries(chain.length)} long.`);
  out();
  // Say now when the fallback could not be used (no key yet), instead of at the first failure.
  try {
    const { skipped } = resolveFallbackRuntimes([entry], resolveInputFrom(cli.loaded.config, cli.env, {}, cli.home));
    if (skipped.length) out(`  note: it cannot be used yet — ${skipped[0].reason}`);
  } catch (e) {
    if (!(e instanceof ResolveError)) throw e;
  }
  out('  Run `hermes fallback list` to view, or `hermes fallback remove` to delete.');
}

export async function remove(which: string | undefined): Promise<void> {
  const { cli, chain } = loadChain('No fallback providers configured — nothing to remove.');
  if (!chain) return;
  let answer = (which ?? '').trim();
  if (!answer) {
    if (!process.stdin.isTTY) throw new CliError('Name the entry to remove: `hermes fallback remove <number>` (see `hermes fallback list`).', 2);
    out();
    out('  Select a fallback to remove:');
    chain.forEach((e, i) => out(`    ${i + 1}. ${formatEntry(e)}`));
    out(`    ${chain.length + 1}. Cancel`);
    answer = await ask('  Choice: ');
  }
  const n = Number(answer);
  if (!Number.isInteger(n) || n < 1 || n > chain.length) {
    if (which) throw new CliError(`There is no fallback #${which}; the chain has ${entries(chain.length)} (see \`hermes fallback list\`).`, 2);
    out();
    out('  Cancelled — no change.');
    return;
  }
  const [removed] = chain.splice(n - 1, 1);
  writeChain(cli, chain);
  out();
  out(`  Removed fallback: ${formatEntry(removed)}`);
  out(chain.length ? `  Chain is now ${entries(chain.length)} long.` : '  Fallback chain is now empty.');
  out();
}

export async function clear(o: { yes?: boolean }): Promise<void> {
  const { cli, chain } = loadChain('No fallback providers configured — nothing to clear.');
  if (!chain) return;
  out();
  printChain('Current fallback chain', chain);
  if (!o.yes) {
    if (!process.stdin.isTTY) throw new CliError('Clearing the fallback chain needs confirmation: add --yes (nothing was changed).', 2);
    const a = (await ask('  Clear all entries? [y/N]: ')).toLowerCase();
    if (a !== 'y' && a !== 'yes') {
      out('  Cancelled — no change.');
      return;
    }
  }
  writeChain(cli, []);
  out();
  out('  Fallback chain cleared.');
  out();
}
