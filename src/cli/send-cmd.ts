// `hermes send --to <platform[:chat[:thread]]> [message | --file PATH | stdin]`: one message to a
// configured platform without the agent (scripts, CI, cron jobs of your own), through the same
// delivery router and send-only clients as cron deliveries. Exit codes as Hermes: 0 sent,
// 1 delivery or backend error, 2 usage error.
import { readFileSync } from 'node:fs';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { homeChannel } from '../gateway/config.ts';
import { standaloneRouter } from '../gateway/delivery.ts';
import { listPlatforms, platformEnabled } from '../gateway/platforms/registry.ts';
import { SessionIndex, sourceFromDict } from '../gateway/session-store.ts';

const out = (s: string): void => void process.stdout.write(s + '\n');

export interface SendOpts {
  to?: string;
  file?: string;
  subject?: string;
  list?: boolean;
  quiet?: boolean;
  json?: boolean;
}

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of process.stdin) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function body(message: string | undefined, file: string | undefined): Promise<string | null> {
  if (message) return message;
  if (file) {
    if (file === '-') return readStdin();
    let raw: Buffer;
    try {
      raw = readFileSync(file);
    } catch (e) {
      throw new CliError(`send: cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, 2);
    }
    if (raw.includes(0)) throw new CliError(`send: ${file} is not a text file. --file sends a text body; to attach a file put a MEDIA:${file} line in the message, e.g. hermes send --to telegram "MEDIA:${file}"`, 2);
    return raw.toString('utf8').replace(/^\uFEFF/, '');
  }
  return process.stdin.isTTY ? null : readStdin();
}

function listTargets(filter: string | undefined, json: boolean): void {
  const ctx = loadContext();
  const config: Record<string, unknown> = ctx.loaded.config;
  const platforms: Record<string, { configured: boolean; home: string | null; chats: { target: string; name?: string }[] }> = {};
  for (const d of listPlatforms('chat')) {
    if (!platformEnabled(d.name, config, ctx.env)) continue;
    const h = homeChannel(d.name, ctx.env, config);
    platforms[d.name] = { configured: true, home: h ? `${d.name}:${h.chatId}${h.threadId ? `:${h.threadId}` : ''}` : null, chats: [] };
  }
  const seen = new Set<string>();
  for (const e of new SessionIndex(ctx.home).all()) {
    if (!e.origin) continue;
    const s = sourceFromDict(e.origin);
    const target = `${s.platform}:${s.chatId}${s.threadId ? `:${s.threadId}` : ''}`;
    if (seen.has(target) || !s.chatId) continue;
    seen.add(target);
    (platforms[s.platform] ??= { configured: false, home: null, chats: [] }).chats.push({ target, name: s.chatName ?? s.userName });
  }
  const shown = filter ? Object.fromEntries(Object.entries(platforms).filter(([k]) => k === filter.toLowerCase())) : platforms;
  if (filter && !Object.keys(shown).length) throw new CliError(`send: no targets for platform "${filter}". Configured: ${Object.keys(platforms).join(', ') || '(none)'}`);
  if (json) return out(JSON.stringify({ platforms: shown }, null, 2));
  if (!Object.keys(shown).length) return out('No messaging platform is configured. Set one up with `hermes gateway setup`.');
  for (const [name, p] of Object.entries(shown)) {
    out(`${name}${p.home ? `  (home: ${p.home})` : ''}`);
    for (const c of p.chats) out(`  ${c.target}${c.name ? `  ${c.name}` : ''}`);
    if (!p.chats.length) out('  (no chats seen yet)');
  }
}

export async function sendCommand(message: string | undefined, o: SendOpts): Promise<void> {
  if (o.list) return listTargets(message, !!o.json);
  const target = (o.to ?? '').trim();
  if (!target) throw new CliError('send: --to PLATFORM[:chat[:thread]] is required, e.g. `hermes send --to telegram "deploy finished"` (see `hermes send --list`)', 2);
  let text = await body(message, o.file);
  if (!text?.trim()) throw new CliError('send: no message: give it as an argument, with --file PATH, or on stdin', 2);
  if (o.subject) text = `${o.subject}\n\n${text.trimStart()}`;
  const ctx = loadContext();
  const router = standaloneRouter(ctx.env, ctx.loaded.config as never);
  let r;
  try {
    r = await router.send(target, text, { source: 'hermes_send' });
  } finally {
    await router.close();
  }
  if (o.json) out(JSON.stringify(r.ok ? { success: true, platform: r.platform ?? null, chat_id: r.chatId ?? null } : { success: false, error: r.error }, null, 2));
  if (!r.ok) {
    if (o.json) process.exitCode = 1;
    else throw new CliError(`send: ${r.error}`, 1);
    return;
  }
  if (!o.json && !o.quiet) out(r.platform ? `sent to ${r.platform}:${r.chatId}` : 'written to the local log');
}
