// `hermes memory status|setup|off`: pick the one external memory provider (`memory.provider`),
// configure it where Hermes keeps its settings (secrets in HERMES_HOME/.env, the rest in the
// provider's own file or config.yaml), and test the connection.
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { PROVIDER_NAMES, loadProviderFactory } from '../memory/providers/index.ts';
import type { MemoryProviderFactory } from '../memory/types.ts';
import { loadConfig, setConfigKey, writeConfig } from '../state/config.ts';
import { updateEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

async function probe(f: MemoryProviderFactory, home: string, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; text: string }> {
  const { config } = loadConfig(home, env);
  const p = f.create({ home, env, config });
  if (!p.isAvailable()) return { ok: false, text: `not configured (run hermes memory setup ${f.name})` };
  try {
    const text = await Promise.race([
      p.healthCheck(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 15 s')), 15_000).unref()),
    ]);
    return { ok: true, text };
  } catch (e) {
    return { ok: false, text: (e as Error).message };
  } finally {
    await p.shutdown?.();
  }
}

export async function status(): Promise<void> {
  const cli = loadContext();
  const m = cli.loaded.config.memory ?? {};
  out();
  out(`  Built-in memory: ${m.memory_enabled !== false ? 'on' : 'off'} (MEMORY.md), user profile: ${m.user_profile_enabled !== false ? 'on' : 'off'} (USER.md)`);
  const name = String(m.provider ?? '').trim();
  if (!name) {
    out('  External provider: none');
    out(`  Available: ${PROVIDER_NAMES.join(', ')}  — turn one on with: hermes memory setup`);
    out();
    return;
  }
  const f = await loadProviderFactory(name).catch((e: Error) => {
    throw new CliError(`memory.provider is "${name}": ${e.message}`);
  });
  out(`  External provider: ${f.name} — ${f.description}`);
  const p = f.create({ home: cli.home, env: cli.env, config: cli.loaded.config });
  for (const [k, v] of Object.entries(p.describe())) out(`    ${k}: ${v}`);
  const r = await probe(f, cli.home, cli.env);
  out(`  ${r.ok ? '✓' : '✗'} ${r.text}`);
  out();
  if (!r.ok) process.exitCode = 1;
}

/** One line-reader for the whole wizard (several readline interfaces on one TTY lose keystrokes). */
class Prompter {
  private muted = false;
  // Echo goes through a stream that swallows it while a secret is typed.
  private readonly echo = new Writable({
    write: (chunk, _enc, done) => {
      if (!this.muted) process.stdout.write(chunk);
      done();
    },
  });
  private readonly rl = createInterface({ input: process.stdin, output: this.echo, terminal: true });

  ask(q: string): Promise<string> {
    return this.rl.question(q).then((a) => a.trim());
  }

  /** A secret: nothing of it is echoed. */
  async secret(q: string): Promise<string> {
    process.stdout.write(q);
    this.muted = true;
    try {
      return (await this.rl.question('')).trim();
    } finally {
      this.muted = false;
      process.stdout.write('\n');
    }
  }

  close(): void {
    this.rl.close();
  }
}

async function pickProvider(p: Prompter): Promise<string> {
  out();
  out('  Memory providers (one is active beside the built-in memory):');
  const factories = await Promise.all(PROVIDER_NAMES.map((n) => loadProviderFactory(n)));
  factories.forEach((f, i) => out(`    ${i + 1}. ${f.name.padEnd(12)} ${f.description}`));
  const a = await p.ask('  Choose [1-8]: ');
  const n = Number(a);
  const name = Number.isInteger(n) && n >= 1 && n <= factories.length ? factories[n - 1].name : a.toLowerCase();
  if (!PROVIDER_NAMES.includes(name)) throw new CliError(`"${a}" is not one of the choices (1-${factories.length} or a provider name).`);
  return name;
}

export async function setup(provider: string | undefined, opts: { set?: string[] }): Promise<void> {
  const cli = loadContext();
  const tty = !!process.stdin.isTTY && !opts.set?.length;
  if (!provider && !process.stdin.isTTY) throw new CliError(`Name the provider: hermes memory setup <${PROVIDER_NAMES.join('|')}> [--set key=value …]`);
  const prompter = tty ? new Prompter() : null;
  try {
    await configure(cli, provider, opts, prompter);
  } finally {
    prompter?.close();
  }
}

async function configure(cli: ReturnType<typeof loadContext>, provider: string | undefined, opts: { set?: string[] }, prompter: Prompter | null): Promise<void> {
  const name = (provider ?? (await pickProvider(prompter!))).trim().toLowerCase();
  const f = await loadProviderFactory(name).catch((e: Error) => {
    throw new CliError(e.message);
  });
  const given: Record<string, string> = {};
  for (const kv of opts.set ?? []) {
    const at = kv.indexOf('=');
    if (at <= 0) throw new CliError(`--set takes key=value (got "${kv}"). Keys for ${f.name}: ${f.fields.map((x) => x.key).join(', ') || 'none'}.`);
    const key = kv.slice(0, at).trim();
    if (!f.fields.some((x) => x.key === key)) throw new CliError(`${f.name} has no setting "${key}". Its settings: ${f.fields.map((x) => x.key).join(', ') || 'none'}.`);
    given[key] = kv.slice(at + 1);
  }
  if (prompter && f.fields.length) {
    out();
    out(`  Configuring ${f.name}:`);
    for (const field of f.fields) {
      if (field.secret) continue;
      const v = await prompter.ask(`  ${field.description}${field.default ? ` [${field.default}]` : ''}: `);
      if (v) given[field.key] = v;
    }
    for (const field of f.fields.filter((x) => x.secret)) {
      const have = field.env && cli.env[field.env] ? ' (blank keeps the current one)' : '';
      const v = await prompter.secret(`  ${field.description}${have}: `);
      if (v) given[field.key] = v;
    }
  }
  // Secrets and env-backed settings go to .env; the rest where the provider keeps them.
  const envUpdates: Record<string, string> = {};
  const values: Record<string, string> = {};
  for (const field of f.fields) {
    const v = given[field.key];
    if (v === undefined) continue;
    if (field.env && (field.secret || !['host', 'base_url', 'baseUrl', 'api_url'].includes(field.key))) envUpdates[field.env] = v;
    else values[field.key] = v;
  }
  const missing = f.fields.filter((x) => x.required && !given[x.key] && !(x.env && cli.env[x.env]));
  if (missing.length) throw new CliError(`${f.name} needs ${missing.map((x) => `${x.key}${x.env ? ` (${x.env})` : ''}`).join(', ')}: pass --set ${missing[0].key}=… or run hermes memory setup ${f.name} on a terminal.`);
  if (Object.keys(envUpdates).length) {
    updateEnvFile(paths.env(cli.home), envUpdates);
    Object.assign(cli.env, envUpdates);
  }
  if (Object.keys(values).length) {
    const { user } = loadConfig(cli.home, cli.env);
    const cfg = structuredClone(user) as Record<string, unknown>;
    const before = JSON.stringify(cfg);
    f.saveConfig(values, cli.home, cfg as never);
    if (JSON.stringify(cfg) !== before) writeConfig(cli.home, cfg);
  }
  setConfigKey(cli.home, 'memory.provider', f.name);
  out();
  out(`  Memory provider: ${f.name} (saved to config.yaml${Object.keys(envUpdates).length ? '; keys saved to .env' : ''})`);
  const r = await probe(f, cli.home, cli.env);
  out(`  ${r.ok ? '✓ Connection test passed' : '✗ Connection test failed'}: ${r.text}`);
  out(r.ok ? '  Start a new session to use it.' : `  The provider stays selected; fix the setting and run hermes memory status, or hermes memory off.`);
  out();
  if (!r.ok) process.exitCode = 1;
}

export function off(): void {
  const cli = loadContext();
  const name = String(cli.loaded.config.memory?.provider ?? '').trim();
  setConfigKey(cli.home, 'memory.provider', '');
  out(name ? `  Memory provider ${name} turned off; built-in memory stays on. Its settings are kept (hermes memory setup ${name} turns it back on).` : '  No external memory provider was on.');
}
