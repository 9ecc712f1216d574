// The menu `hermes auth` opens in a terminal, after the pool status, with Hermes's choices: add a
// credential (API key, or OAuth sign-in where the provider has one), remove one, reset a provider's
// cooldowns, set a provider's rotation strategy. Each choice runs the same code as its subcommand.
import { setConfigKey } from '../state/config.ts';
import { add, menuCredentials, menuProviders, menuStrategy, remove, reset } from './auth-cmd.ts';
import { loadContext } from './context.ts';

type Clack = typeof import('@clack/prompts');

const STRATEGIES: [string, string][] = [
  ['fill_first', 'Use the first key until it is exhausted, then the next'],
  ['round_robin', 'Cycle through the keys evenly'],
  ['least_used', 'Always pick the least-used key'],
  ['random', 'Random selection'],
];

async function pickProvider(c: Clack, message: string, only?: string[]): Promise<string | null> {
  const { known, withCredentials } = menuProviders();
  const ids = only ?? known.map((k) => k.id);
  if (!ids.length) {
    c.log.warn('No provider has credentials yet. Add one first.');
    return null;
  }
  const names = new Map(known.map((k) => [k.id, k.name]));
  const v = await c.autocomplete({
    message,
    options: ids.map((id) => ({ value: id, label: id, hint: [names.get(id), withCredentials.includes(id) ? 'has credentials' : ''].filter(Boolean).join(' · ') })),
    placeholder: 'type to filter',
    maxItems: 8,
  });
  return c.isCancel(v) ? null : String(v);
}

export async function authMenu(): Promise<void> {
  const c = await import('@clack/prompts');
  const action = await c.select({
    message: 'What would you like to do?',
    options: [
      { value: 'add', label: 'Add a credential' },
      { value: 'remove', label: 'Remove a credential' },
      { value: 'reset', label: 'Reset cooldowns for a provider' },
      { value: 'strategy', label: 'Set rotation strategy for a provider' },
      { value: 'exit', label: 'Exit' },
    ],
  });
  if (c.isCancel(action) || action === 'exit') return;

  if (action === 'add') {
    const provider = await pickProvider(c, 'Provider to add a credential for');
    if (!provider) return;
    let type = 'api-key';
    if (menuProviders().known.find((k) => k.id === provider)?.oauth) {
      const claude = provider === 'anthropic';
      const t = await c.select({
        message: `${provider} takes an API key or an OAuth sign-in`,
        options: [
          { value: 'api-key', label: 'API key', hint: claude ? 'recommended: a key from console.anthropic.com' : 'paste a key from the provider dashboard' },
          { value: 'oauth', label: claude ? 'Claude Pro/Max sign-in' : 'OAuth sign-in', hint: claude ? 'against Anthropic’s consumer terms outside Claude Code; you are warned and asked first' : 'authenticate in the browser' },
        ],
      });
      if (c.isCancel(t)) return;
      type = String(t);
    }
    const label = await c.text({ message: 'Label / account name (optional)', placeholder: 'leave empty for the default' });
    if (c.isCancel(label)) return;
    await add(provider, { type, label: String(label ?? '').trim() || undefined });
    return;
  }

  if (action === 'remove') {
    const provider = await pickProvider(c, 'Provider to remove a credential from', menuProviders().withCredentials);
    if (!provider) return;
    const creds = menuCredentials(provider);
    const n = await c.select({ message: 'Credential to remove', options: [...creds.map((x) => ({ value: String(x.n), label: `#${x.n}  ${x.label}` })), { value: '', label: 'Cancel' }] });
    if (c.isCancel(n) || !n) return;
    await remove(provider, String(n));
    return;
  }

  if (action === 'reset') {
    const provider = await pickProvider(c, 'Provider to reset cooldowns for', menuProviders().withCredentials);
    if (provider) await reset(provider, undefined);
    return;
  }

  const provider = await pickProvider(c, 'Provider to set the rotation strategy for');
  if (!provider) return;
  const current = menuStrategy(provider);
  const strategy = await c.select({
    message: `Rotation strategy for ${provider} (now ${current})`,
    options: STRATEGIES.map(([value, hint]) => ({ value, label: value, hint })),
    initialValue: current,
  });
  if (c.isCancel(strategy)) return;
  setConfigKey(loadContext().home, `credential_pool_strategies.${provider}`, strategy);
  process.stdout.write(`Set ${provider} strategy to: ${String(strategy)}\n`);
}
