// Outbound webhooks (Hermes 0.20's `hooks.outbound:` list in config.yaml): on the hook events a target
// names, POST a JSON description of the event to its URL. Deliveries run in the background (a hook
// never waits on the network), are signed when the target names a secret, retried on network errors
// and 5xx answers with backoff (never on 4xx, never following redirects), and every delivery is
// recorded in HERMES_HOME/logs/outbound_webhooks.jsonl (status, attempts, duration, the URL without
// query or credentials; never the body or the secret).
//
// Wire format as Hermes: headers X-Hermes-Event, X-Hermes-Delivery (a fresh id per delivery, the same
// on every retry so receivers can dedupe), X-Hermes-Schema-Version: 1, X-Hermes-Timestamp (Unix
// seconds), X-Hermes-Signature-256 = sha256=<hex HMAC-SHA256(body)> (compatibility) and
// X-Hermes-Signature-V2 = sha256=<hex HMAC-SHA256(timestamp + "." + body)>. Our inbound webhook
// platform verifies the V2 form with a 5-minute window (src/gateway/platforms/webhook.ts).
import { createHmac, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkUrl } from '../policy/ssrf.ts';
import { trackOutbound } from './outbound-pending.ts';
import { VALID_HOOKS, type HookCallback } from './hooks.ts';
import { matchesTool, payloadJson } from './shell-hooks.ts';

export const DEFAULT_TIMEOUT_S = 10;
export const MAX_TIMEOUT_S = 60;
export const MAX_ATTEMPTS = 3;
export const RETRY_BASE_MS = 1000;
const TOOL_EVENTS = new Set(['pre_tool_call', 'post_tool_call']);
const KNOWN = new Set(['url', 'events', 'name', 'secret_ref', 'secret_env', 'matcher', 'timeout']);
export const USER_AGENT = 'Hermes-Agent-Outbound-Webhook/1';

export interface OutboundTarget {
  url: string;
  events: string[];
  name: string;
  /** The resolved secret (from the environment variable secret_ref / secret_env names). */
  secret?: string;
  matcher?: string;
  timeoutS: number;
}

type Warn = (message: string) => void;

/** Parses `hooks.outbound`; a malformed entry is reported and disabled (never sent unsigned by mistake). */
export function parseOutbound(block: unknown, env: NodeJS.ProcessEnv, warn: Warn = () => {}): OutboundTarget[] {
  if (block === undefined || block === null) return [];
  if (!Array.isArray(block)) {
    warn('hooks.outbound must be a list of webhook targets (- url: …, events: […]); ignored');
    return [];
  }
  const out: OutboundTarget[] = [];
  block.forEach((raw, i) => {
    const at = `hooks.outbound[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return warn(`${at} must be a mapping with "url" and "events"; skipped`);
    const r = raw as Record<string, unknown>;
    if ('secret' in r) return warn(`${at}.secret: inline secrets are not accepted; put the value in the environment (or HERMES_HOME/.env) and name it with secret_ref. Target disabled.`);
    const unknown = Object.keys(r).filter((k) => !KNOWN.has(k));
    if (unknown.length) return warn(`${at} has unknown field(s) ${unknown.join(', ')} (known: ${[...KNOWN].join(', ')}); target disabled`);
    const url = typeof r.url === 'string' ? r.url.trim() : '';
    if (!/^https?:\/\//i.test(url)) return warn(`${at}.url must be an http(s) URL; skipped`);
    if (!Array.isArray(r.events) || !r.events.length) return warn(`${at} needs a non-empty "events" list; skipped`);
    const events = r.events.filter((e): e is string => typeof e === 'string' && VALID_HOOKS.includes(e));
    for (const e of r.events) if (!events.includes(e as string)) warn(`${at}: unknown event ${JSON.stringify(e)} ignored`);
    if (!events.length) return warn(`${at} has no valid events; skipped`);
    const refs = ['secret_ref', 'secret_env'].filter((k) => k in r);
    if (refs.length > 1) return warn(`${at} sets both secret_ref and secret_env; set one. Target disabled.`);
    let secret: string | undefined;
    if (refs.length) {
      const name = r[refs[0]];
      if (typeof name !== 'string' || !name.trim()) return warn(`${at}.${refs[0]} must name an environment variable; target disabled (it is not sent unsigned)`);
      secret = env[name.trim()];
      if (!secret) return warn(`${at}.${refs[0]}: ${name.trim()} is not set; target disabled (it is not sent unsigned)`);
    }
    let matcher = typeof r.matcher === 'string' && r.matcher.trim() ? r.matcher.trim() : undefined;
    if (matcher && !events.some((e) => TOOL_EVENTS.has(e))) {
      warn(`${at}.matcher only applies to pre_tool_call / post_tool_call; ignored`);
      matcher = undefined;
    }
    let timeoutS = r.timeout === undefined ? DEFAULT_TIMEOUT_S : Math.trunc(Number(r.timeout));
    if (!Number.isFinite(timeoutS)) timeoutS = DEFAULT_TIMEOUT_S;
    timeoutS = Math.max(1, Math.min(MAX_TIMEOUT_S, timeoutS));
    out.push({ url, events, name: typeof r.name === 'string' ? r.name.trim() : '', secret, matcher, timeoutS });
  });
  return out;
}

/** The signature headers for `body` sent at `timestampS`. */
export function signHeaders(secret: string, body: string, timestampS: number): Record<string, string> {
  const ts = String(timestampS);
  return {
    'X-Hermes-Timestamp': ts,
    'X-Hermes-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    'X-Hermes-Signature-V2': `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`,
  };
}

/** A URL as the log may show it: no credentials, query or fragment. */
export function loggableUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

export interface DeliveryRecord {
  ts: string;
  delivery_id: string;
  event: string;
  target: string;
  url: string;
  ok: boolean;
  status: number | null;
  attempts: number;
  duration_ms: number;
  error?: string;
}

export interface DeliverOptions {
  home: string;
  /** Base of the backoff (attempt n waits base·2^(n-1)); tests shorten it. */
  retryBaseMs?: number;
  now?: () => number;
}

export const deliveryLogPath = (home: string) => join(home, 'logs', 'outbound_webhooks.jsonl');

/** Sends one event to one target (with retries) and records the outcome. */
export async function deliver(target: OutboundTarget, event: string, payload: Record<string, unknown>, o: DeliverOptions): Promise<DeliveryRecord> {
  const started = Date.now();
  const deliveryId = randomUUID();
  const body = JSON.stringify({ schema_version: 1, ...payload, delivery_id: deliveryId, timestamp: new Date(started).toISOString().replace(/\.\d{3}Z$/, 'Z') });
  const base = o.retryBaseMs ?? RETRY_BASE_MS;
  let status: number | null = null;
  let error: string | undefined;
  let attempts = 0;
  let ok = false;
  // The user put this URL in config.yaml themselves, so private addresses are fine; the metadata floor
  // and the no-credentials rule hold anyway.
  const verdict = await checkUrl(target.url, { allowPrivate: true, lookup: async () => [] });
  if (!verdict.ok) error = verdict.reason;
  else {
    while (attempts < MAX_ATTEMPTS) {
      attempts++;
      const nowS = Math.floor((o.now?.() ?? Date.now()) / 1000);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Hermes-Event': event,
        'X-Hermes-Delivery': deliveryId,
        'X-Hermes-Schema-Version': '1',
        ...(target.secret ? signHeaders(target.secret, body, nowS) : { 'X-Hermes-Timestamp': String(nowS) }),
      };
      let retry = false;
      try {
        const res = await fetch(target.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(target.timeoutS * 1000) });
        status = res.status;
        await res.arrayBuffer().catch(() => undefined);
        if (res.status >= 200 && res.status < 300) {
          ok = true;
          error = undefined;
          break;
        }
        error = res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`;
        retry = res.status >= 500;
      } catch (e) {
        status = null;
        error = (e as Error).name === 'TimeoutError' ? `timed out after ${target.timeoutS}s` : `network error: ${(e as Error).message}`;
        retry = true;
      }
      if (!retry || attempts >= MAX_ATTEMPTS) break;
      await new Promise((r) => setTimeout(r, base * 2 ** (attempts - 1)));
    }
  }
  const rec: DeliveryRecord = { ts: new Date().toISOString(), delivery_id: deliveryId, event, target: target.name || loggableUrl(target.url), url: loggableUrl(target.url), ok, status, attempts, duration_ms: Date.now() - started, ...(error ? { error } : {}) };
  try {
    mkdirSync(join(o.home, 'logs'), { recursive: true });
    appendFileSync(deliveryLogPath(o.home), `${JSON.stringify(rec)}\n`, { mode: 0o600 });
  } catch {
    // the log is best effort; the delivery already happened
  }
  return rec;
}

/** The hook callback of one (event, target): builds the payload, queues the delivery, returns at once. */
export function outboundCallback(event: string, target: OutboundTarget, ctx: { home: string; cwd: () => string; profile: string; retryBaseMs?: number }): HookCallback {
  return (payload) => {
    if (TOOL_EVENTS.has(event) && !matchesTool({ event, command: '', matcher: target.matcher, timeoutS: 0, failClosed: false }, payload.tool_name)) return undefined;
    const body = JSON.parse(payloadJson(event, payload, ctx.cwd(), ctx.profile)) as Record<string, unknown>;
    const p = deliver(target, event, body, { home: ctx.home, retryBaseMs: ctx.retryBaseMs }).catch(() => undefined);
    trackOutbound(p);
    return undefined;
  };
}
