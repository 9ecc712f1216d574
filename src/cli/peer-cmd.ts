// `hermes peer add|list|remove|dm` (Hermes 0.21): bot-to-bot messages across machines, over the
// peer gateway's API server (its `/api/sessions` resource API, src/gateway/platforms/api-sessions.ts).
// Peers live in config.yaml `bot_peers: {<name>: {url, note}}`; each one's key is a credential in
// .env as HERMES_PEER_<NAME>_KEY (never in config.yaml, never printed).
//
// `dm <peer>[/<agent>]` finds the peer's canonical "Bot Chat" session by exact title (creating it
// the first time), runs one turn there and prints the reply — the remote twin of
// `hermes -p <bot> chat -q`. The exchange is the peer's transcript like any other.
//
// Loop guard: a DM carries its hop count (X-Hermes-Peer-Hops); the peer's turn hands it on to the
// commands its agent runs (HERMES_PEER_HOPS), so a reply that DMs back counts one more, and past
// MAX_HOPS the DM is refused — two bots cannot ping-pong for ever. Rate limit: at most
// RATE_PER_MINUTE DMs a minute to one peer from this home (peers/rate.json).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { paths } from '../state/paths.ts';
import { setConfigKeys } from '../state/config.ts';
import { updateEnvFile } from '../state/env.ts';
import { writeFileAtomic } from '../state/fsutil.ts';
import { PEER_MAX_HOPS } from '../gateway/platforms/api-sessions.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s = "") => void process.stdout.write(s + "\n");

/** Hops a DM may travel (a DM, the reply's DM back, …) before it is refused (the peer checks it too). */
const MAX_HOPS = PEER_MAX_HOPS;
const RATE_PER_MINUTE = 20;
const BOT_CHAT = 'Bot Chat';
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

export const peerKeyName = (name: string) => `HERMES_PEER_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_KEY`;

interface Peer {
  name: string;
  url: string;
  note?: string;
}

function peersOf(config: Record<string, unknown>): Peer[] {
  const raw = config.bot_peers;
  if (!raw || typeof raw !== 'object') return [];
  return Object.entries(raw as Record<string, unknown>)
    .filter(([, v]) => v && typeof v === 'object' && typeof (v as { url?: unknown }).url === 'string')
    .map(([name, v]) => ({ name, url: String((v as { url: string }).url), note: typeof (v as { note?: unknown }).note === 'string' ? (v as { note: string }).note : undefined }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function checkUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CliError(`"${url}" is not a URL. Give the peer's API server, e.g. http://10.0.0.5:8642`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError(`A peer URL must be http:// or https:// (got ${u.protocol}).`);
  return url.replace(/\/+$/, '');
}

export async function add(name: string, o: { url?: string; key?: string; note?: string }): Promise<void> {
  if (!NAME.test(name)) throw new CliError(`"${name}" is not a peer name: use letters, digits, - and _ (starting with a letter).`);
  if (!o.url) throw new CliError('Give the peer API server: hermes peer add <name> --url <url> --key <API_SERVER_KEY of the peer>');
  const url = checkUrl(o.url);
  const ctx = loadContext();
  const key = o.key ?? process.env[peerKeyName(name)];
  if (!key) throw new CliError(`Give the peer's API_SERVER_KEY with --key (it is stored in ~/.hermes/.env as ${peerKeyName(name)}).`);
  setConfigKeys(ctx.home, [[`bot_peers.${name}`, { url, ...(o.note ? { note: o.note } : {}) }]]);
  if (o.key) updateEnvFile(paths.env(ctx.home), { [peerKeyName(name)]: o.key });
  out(`Added peer ${name} → ${url} (key in .env as ${peerKeyName(name)}).`);
  const host = new URL(url).hostname;
  if (url.startsWith('http://') && !/^(localhost|127\.|\[?::1\]?$)/.test(host)) out(`⚠ ${url} is plain HTTP: the key and the messages cross the network unencrypted. Prefer https:// or a private network.`);
}

export async function list(o: { json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const peers = peersOf(ctx.loaded.config as unknown as Record<string, unknown>).map((p) => ({ ...p, key_set: !!ctx.env[peerKeyName(p.name)] }));
  if (o.json) return out(JSON.stringify(peers, null, 2));
  if (!peers.length) return out('No peers. Add one: hermes peer add <name> --url <url> --key <key>');
  for (const p of peers) out(`${p.name}  ${p.url}${p.key_set ? '' : '  (no key: set ' + peerKeyName(p.name) + ')'}${p.note ? `  — ${p.note}` : ''}`);
}

export async function remove(name: string): Promise<void> {
  const ctx = loadContext();
  if (!peersOf(ctx.loaded.config as unknown as Record<string, unknown>).some((p) => p.name === name)) throw new CliError(`No peer named "${name}" (hermes peer list).`);
  setConfigKeys(ctx.home, [[`bot_peers.${name}`, undefined]]);
  updateEnvFile(paths.env(ctx.home), { [peerKeyName(name)]: null });
  out(`Removed peer ${name} and its key.`);
}

/** At most RATE_PER_MINUTE DMs a minute to one peer from this home. */
function takeRate(home: string, peer: string, now = Date.now()): void {
  const dir = join(home, 'peers');
  const file = join(dir, 'rate.json');
  let seen: Record<string, number[]> = {};
  try {
    if (existsSync(file)) seen = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number[]>;
  } catch {
    seen = {};
  }
  const recent = (seen[peer] ?? []).filter((t) => now - t < 60_000);
  if (recent.length >= RATE_PER_MINUTE) throw new CliError(`Too many DMs to ${peer}: ${RATE_PER_MINUTE} a minute at most. Wait a minute and send again.`);
  seen[peer] = [...recent, now];
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(file, JSON.stringify(seen), 0o600);
}

async function call(base: string, key: string, method: string, path: string, hops: number, body?: unknown): Promise<Record<string, any>> {
  let res: Response;
  try {
    res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-hermes-peer-hops': String(hops) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15 * 60_000),
    });
  } catch (e) {
    throw new CliError(`Could not reach the peer at ${base}: ${(e as Error).cause ? String((e as Error & { cause: Error }).cause.message) : (e as Error).message}. Is its gateway running with the API server on?`);
  }
  const text = await res.text();
  let json: Record<string, any> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    /* not JSON */
  }
  if (res.status === 401) throw new CliError('The peer refused the key (401): the stored key does not match its API_SERVER_KEY. Set it again: hermes peer add <name> --url <url> --key <key>.');
  if (!res.ok) throw new CliError(`The peer answered ${res.status}: ${json.error?.message ?? text.slice(0, 300)}`);
  return json;
}

export async function dm(target: string, words: string[], o: { query?: string; queryFile?: string }): Promise<void> {
  const ctx = loadContext();
  const [name, agent] = target.split('/', 2);
  const peer = peersOf(ctx.loaded.config as unknown as Record<string, unknown>).find((p) => p.name === name);
  if (!peer) throw new CliError(`No peer named "${name}". Add it: hermes peer add ${name} --url <url> --key <key>`);
  const key = ctx.env[peerKeyName(peer.name)];
  if (!key) throw new CliError(`No key for peer ${peer.name}: set ${peerKeyName(peer.name)} in ~/.hermes/.env (hermes peer add ${peer.name} --url ${peer.url} --key …).`);
  if (o.query !== undefined && o.queryFile !== undefined) throw new CliError('Give the message once: -q <text> or --query-file <path>, not both.');
  let message = o.query ?? (o.queryFile !== undefined ? readFileSync(o.queryFile === '-' ? 0 : o.queryFile, 'utf8') : words.join(' '));
  if (!message.trim() && o.queryFile === undefined && !process.stdin.isTTY) message = readFileSync(0, 'utf8');
  if (!message.trim()) throw new CliError(`Nothing to send. hermes peer dm ${target} "<message>" (or -q, --query-file, stdin).`);
  const hops = (Number(ctx.env.HERMES_PEER_HOPS) || 0) + 1;
  if (hops > MAX_HOPS) throw new CliError(`Not sent: this conversation has already crossed ${MAX_HOPS - 1} bot-to-bot hops (HERMES_PEER_HOPS). Answer in your own chat instead of messaging the peer again.`);
  takeRate(ctx.home, peer.name);
  // A named agent (profile) on the peer is reached through its /p/<profile>/ mirror, as Hermes does.
  const base = agent ? `${peer.url}/p/${encodeURIComponent(agent)}` : peer.url;
  const found = await call(base, key, 'GET', `/api/sessions?title=${encodeURIComponent(BOT_CHAT)}&include_hidden=1`, hops);
  let id = (found.data as { id: string; title: string }[] | undefined)?.find((s) => s.title === BOT_CHAT)?.id;
  if (!id) id = ((await call(base, key, 'POST', '/api/sessions', hops, { title: BOT_CHAT })).session as { id: string }).id;
  const reply = await call(base, key, 'POST', `/api/sessions/${encodeURIComponent(id)}/chat`, hops, { message });
  out(String(reply.message?.content ?? ''));
}
