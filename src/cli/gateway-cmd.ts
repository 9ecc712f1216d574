// `hermes gateway …`, `hermes pairing …`, `hermes webhook …`: the CLI side of the gateway.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { packageRoot } from '../state/paths.ts';
import { numberSetting } from '../gateway/config.ts';
import { enabledPlatforms, platformLabel, platformNames } from '../gateway/platforms/registry.ts';
import { gatewayStatus as readGatewayStatus, GatewayError, startBackground, stopGateway } from '../gateway/control.ts';
import { runningGateway } from '../gateway/pid-file.ts';
import { readJsonObject, writeJson } from '../gateway/json-file.ts';
import { PairingStore } from '../gateway/pairing.ts';
import { installedServiceFile, installService, serviceActive, uninstallService, type ServiceSpec } from '../gateway/service.ts';
import { loadRoutes, signV2, subscriptionsPath, webhookSettings, type WebhookRoute } from '../gateway/platforms/webhook.ts';

const out = (s = '') => process.stdout.write(s + '\n');
const bin = () => join(packageRoot(), 'bin', 'hermes.mjs');

function drainTimeoutS(env: NodeJS.ProcessEnv, config: Record<string, unknown>): number {
  return numberSetting(env.HERMES_RESTART_DRAIN_TIMEOUT ?? (config.agent as { restart_drain_timeout?: number } | undefined)?.restart_drain_timeout, 900);
}

function spec(home: string, env: NodeJS.ProcessEnv, config: Record<string, unknown>): ServiceSpec {
  return { home, nodePath: process.execPath, binPath: bin(), stopTimeoutS: drainTimeoutS(env, config) + 30, env };
}

// ---- gateway -----------------------------------------------------------------------------------

export async function gatewayRun(opts: { platform?: string; quiet?: boolean }): Promise<void> {
  const ctx = loadContext({ strict: true });
  let platforms: string[] | undefined;
  if (opts.platform) {
    const names = opts.platform.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const bad = names.filter((n) => !platformNames().includes(n));
    if (bad.length) throw new CliError(`Unknown platform(s): ${bad.join(', ')}. Known: ${platformNames().join(', ')}.`, 2);
    platforms = names;
  }
  // Loaded here: the gateway itself, which start/stop/status do not need.
  const { runGateway } = await import('../gateway/daemon.ts');
  let gw;
  try {
    gw = await runGateway({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, dotenvNames: ctx.dotenvNames, echo: !opts.quiet, platforms, signals: true });
  } catch (e) {
    if (e instanceof GatewayError) throw new CliError(e.message);
    throw e;
  }
  await gw.closed;
  if (gw.restart) {
    // /restart from a chat: a service manager starts the gateway again on exit 75; otherwise a detached one is started here.
    const { restartGateway } = await import('../gateway/daemon.ts');
    try {
      process.exit(await restartGateway(ctx.home, ctx.env, bin()));
    } catch (e) {
      gw.log(`gateway: restart failed: ${(e as Error).message}`);
      process.exit(1);
    }
  }
  process.exit(0);
}

export async function gatewayStart(): Promise<void> {
  const ctx = loadContext({ strict: true });
  const s = spec(ctx.home, ctx.env, ctx.loaded.config as never);
  const running = runningGateway(ctx.home);
  if (running) {
    out(`The gateway is already running (pid ${running.pid}).`);
    return;
  }
  const unit = installedServiceFile(s);
  if (unit?.kind === 'systemd') {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync('systemctl', ['--user', 'start', unit.name], { encoding: 'utf8' });
    if (r.status === 0) {
      out(`Started ${unit.name} (systemd user service). Logs: ${join(ctx.home, 'logs', 'gateway.log')}`);
      return;
    }
  }
  try {
    const pid = await startBackground(ctx.home, ctx.env, { bin: bin() });
    out(`Gateway started in the background (pid ${pid}). Logs: ${join(ctx.home, 'logs', 'gateway.log')}`);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

export async function gatewayStop(opts: { timeout?: string }): Promise<void> {
  const ctx = loadContext();
  const timeoutS = opts.timeout !== undefined ? Number(opts.timeout) : drainTimeoutS(ctx.env, ctx.loaded.config as never) + 10;
  if (!Number.isFinite(timeoutS) || timeoutS < 0) throw new CliError(`--timeout expects seconds, got "${opts.timeout}".`, 2);
  const r = await stopGateway(ctx.home, { timeoutMs: timeoutS * 1000 });
  if (!r) {
    out('The gateway is not running.');
    return;
  }
  out(r.killed ? `The gateway (pid ${r.pid}) did not finish draining within ${timeoutS}s and was killed.` : `Gateway stopped (pid ${r.pid}).`);
}

export async function gatewayRestart(opts: { timeout?: string }): Promise<void> {
  await gatewayStop(opts);
  await gatewayStart();
}

export async function gatewayStatus(opts: { json?: boolean }): Promise<void> {
  const json = !!opts.json;
  const ctx = loadContext();
  const st = readGatewayStatus(ctx.home);
  const unit = installedServiceFile(spec(ctx.home, ctx.env, ctx.loaded.config as never));
  if (json) {
    const configured = enabledPlatforms(ctx.loaded.config, ctx.env);
    out(JSON.stringify({ ...st, configured, service: unit ? { kind: unit.kind, name: unit.name, path: unit.path } : null }, null, 2));
    return;
  }
  if (!st.running) out('Gateway: not running');
  else out(`Gateway: running (pid ${st.pid}, since ${st.startedAt})`);
  const config: Record<string, unknown> = ctx.loaded.config;
  const configured = enabledPlatforms(config, ctx.env);
  const names = [...new Set([...configured, ...Object.keys(st.platforms)])];
  if (!names.length) out('Platforms: none configured (`hermes gateway setup`)');
  else out('Platforms:');
  for (const name of names) {
    const p = st.platforms[name];
    const label = platformLabel(name);
    if (!p) {
      out(`  ${name.padEnd(15)} ${st.running ? 'not started (configured after the gateway started? restart it)' : 'configured'}  ${label}`);
      continue;
    }
    const extra = p.state === 'connected' ? ` since ${p.since}` : `${p.last_error ? ` — ${p.last_error}` : ''}${p.next_retry_at ? ` (next try ${p.next_retry_at})` : ''}`;
    out(`  ${name.padEnd(15)} ${p.state}${extra}`);
  }
  const l = st.ledger;
  if (l) out(`Messages (7 days): ${l.received} received, ${l.answered} answered, ${l.pending} pending, ${l.replayed} replayed after a restart, ${l.givenUp} given up`);
  out(unit ? `Service: ${unit.kind} ${unit.name} (${unit.path})${serviceActive(spec(ctx.home, ctx.env, ctx.loaded.config as never)) ? ', active' : ''}` : 'Service: not installed (`hermes gateway install`)');
  out(`Log: ${st.logPath}`);
}

export async function gatewayInstall(opts: { start?: boolean; manage?: boolean }): Promise<void> {
  const ctx = loadContext();
  const r = installService(spec(ctx.home, ctx.env, ctx.loaded.config as never), { start: opts.start !== false, manage: opts.manage });
  out(`Wrote ${r.file.kind === 'systemd' ? 'systemd user unit' : 'launchd agent'} ${r.file.path}`);
  if (r.managed) out(r.file.kind === 'systemd' ? `Enabled ${r.file.name}${opts.start !== false ? ' and started it' : ''}.` : `Loaded ${r.file.name}.`);
  for (const n of r.notes) out(n);
}

export async function gatewayUninstall(opts: { manage?: boolean }): Promise<void> {
  const ctx = loadContext();
  const r = uninstallService(spec(ctx.home, ctx.env, ctx.loaded.config as never), { manage: opts.manage });
  out(r.existed ? `Removed ${r.file.path}` : `No gateway service is installed (${r.file.path} does not exist).`);
  for (const n of r.notes) out(n);
}

export async function gatewaySetup(): Promise<void> {
  const ctx = loadContext();
  if (!process.stdin.isTTY) throw new CliError('`hermes gateway setup` is interactive: run it in a terminal, or put the settings in ~/.hermes/.env yourself (see docs/gateway.md).', 2);
  const { runSetupWizard } = await import('../gateway/setup.ts');
  const plan = await runSetupWizard(ctx.home, ctx.env, ctx.loaded.config as never);
  if (!plan) process.exitCode = 1;
}

// ---- pairing -----------------------------------------------------------------------------------

export async function pairingList(opts: { platform?: string; json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const store = new PairingStore(ctx.home);
  const pending = store.listPending(opts.platform);
  const approved = store.listApproved(opts.platform);
  if (opts.json) {
    out(JSON.stringify({ pending, approved }, null, 2));
    return;
  }
  // The user id is who they are; the name is whatever they chose to be called (anyone can pick the owner's).
  if (pending.length || approved.length) out(`  ${'platform'.padEnd(9)} ${'user id'.padEnd(20)} display name (their own choice; not checked)`);
  out(pending.length ? 'Pending requests (approve with `hermes pairing approve <platform> <code>`):' : 'No pending pairing requests.');
  for (const p of pending) out(`  ${p.platform.padEnd(9)} ${p.user_id.padEnd(20)} ${p.user_name || '-'}  (${p.age_minutes} min ago)`);
  out(approved.length ? 'Approved users:' : 'No approved users.');
  for (const a of approved) out(`  ${a.platform.padEnd(9)} ${a.user_id.padEnd(20)} ${a.user_name || '-'}  (since ${new Date(a.approved_at * 1000).toISOString().slice(0, 16).replace('T', ' ')})`);
}

export async function pairingApprove(platform: string, code: string): Promise<void> {
  const ctx = loadContext();
  const p = platform.toLowerCase();
  if (!/^[a-z0-9_-]+$/.test(p)) throw new CliError(`"${platform}" is not a platform name.`, 2);
  const r = new PairingStore(ctx.home).approveCode(p, code);
  if ('error' in r) {
    if (r.error === 'locked_out') throw new CliError(`Too many wrong codes: approvals on ${p} are locked for an hour. Wait, or ask the user to message the bot again after the lockout.`);
    throw new CliError(`No pending request on ${p} has that code (wrong, or expired after 1 hour). Check it with \`hermes pairing list\`.`);
  }
  out(`Approved user id ${r.user_id} on ${p}${r.user_name && r.user_name !== r.user_id ? ` (display name "${r.user_name}", their own choice)` : ''}. They can talk to Hermes now.`);
}

export async function pairingRevoke(platform: string, userId: string): Promise<void> {
  const ctx = loadContext();
  if (!new PairingStore(ctx.home).revoke(platform.toLowerCase(), userId)) throw new CliError(`${userId} is not an approved ${platform} user (see \`hermes pairing list\`).`);
  out(`Revoked ${userId} on ${platform}.`);
}

export async function pairingClearPending(opts: { platform?: string }): Promise<void> {
  const ctx = loadContext();
  const n = new PairingStore(ctx.home).clearPending(opts.platform);
  out(`Cleared ${n} pending request(s).`);
}

// ---- webhooks ----------------------------------------------------------------------------------

interface SubscribeOpts {
  prompt?: string;
  events?: string[];
  skills?: string[];
  deliver?: string;
  deliverChatId?: string;
  secret?: string;
  deliverOnly?: boolean;
  description?: string;
}

export async function webhookSubscribe(name: string, o: SubscribeOpts): Promise<void> {
  const ctx = loadContext();
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new CliError(`"${name}" is not a valid route name (letters, digits, . _ -).`, 2);
  if (o.deliverOnly && (!o.deliver || o.deliver === 'log')) throw new CliError('--deliver-only needs --deliver with a real target (telegram, discord, slack, email or platform:chat_id).', 2);
  const route: WebhookRoute = {
    name,
    secret: o.secret || randomBytes(24).toString('base64url'),
    prompt: o.prompt,
    events: o.events?.length ? o.events : undefined,
    skills: o.skills?.length ? o.skills : undefined,
    deliver: o.deliver ?? 'log',
    deliver_extra: o.deliverChatId ? { chat_id: o.deliverChatId } : undefined,
    deliver_only: o.deliverOnly || undefined,
    description: o.description,
    created_at: new Date().toISOString(),
  };
  const path = subscriptionsPath(ctx.home);
  const subs = readJsonObject<Record<string, WebhookRoute>>(path);
  const replaced = !!subs[name];
  const { name: _n, ...stored } = route;
  subs[name] = stored as WebhookRoute;
  writeJson(path, subs, 0o600);
  const s = webhookSettings(ctx.env, ctx.loaded.config as never);
  const host = s.host === '0.0.0.0' ? 'localhost' : s.host;
  out(`${replaced ? 'Replaced' : 'Created'} webhook route "${name}".`);
  out(`  URL:    http://${host}:${s.port}/webhooks/${name}`);
  out(`  Secret: ${route.secret}`);
  out(`  Deliver: ${route.deliver}${o.deliverChatId ? ` (chat ${o.deliverChatId})` : ''}${route.deliver_only ? ', without the agent' : ''}`);
  out('Sign requests with HMAC-SHA256 of the body (X-Hub-Signature-256: sha256=<hex>, GitHub style) or send the secret as a bearer token.');
  if (!ctx.env.WEBHOOK_ENABLED) out('Note: WEBHOOK_ENABLED is not set, so the gateway does not serve webhooks yet (set WEBHOOK_ENABLED=true in ~/.hermes/.env).');
}

export async function webhookList(opts: { json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const subs = readJsonObject<Record<string, WebhookRoute>>(subscriptionsPath(ctx.home));
  const routes = [...loadRoutes(ctx.home, ctx.loaded.config as never).values()];
  if (opts.json) {
    out(JSON.stringify(routes.map((r) => ({ ...r, secret: r.secret ? '***' : undefined, source: subs[r.name] ? 'subscription' : 'config' })), null, 2));
    return;
  }
  if (!routes.length) {
    out('No webhook routes. Create one with `hermes webhook subscribe <name>`.');
    return;
  }
  for (const r of routes) {
    out(`${r.name}${subs[r.name] ? '' : ' (config.yaml)'}${r.description ? ` — ${r.description}` : ''}`);
    out(`  events: ${r.events?.join(', ') || 'all'} · deliver: ${r.deliver ?? 'log'}${r.deliver_only ? ' (direct)' : ''}${r.prompt ? ` · prompt: ${r.prompt.replace(/\s+/g, ' ').slice(0, 60)}` : ''}`);
  }
}

export async function webhookRemove(name: string): Promise<void> {
  const ctx = loadContext();
  const path = subscriptionsPath(ctx.home);
  const subs = readJsonObject<Record<string, WebhookRoute>>(path);
  if (!subs[name]) {
    const inConfig = loadRoutes(ctx.home, ctx.loaded.config as never).has(name);
    throw new CliError(inConfig ? `"${name}" is defined in config.yaml; remove it there.` : `No webhook subscription named "${name}" (see \`hermes webhook list\`).`);
  }
  delete subs[name];
  writeJson(path, subs, 0o600);
  out(`Removed webhook route "${name}".`);
}

export async function webhookTest(name: string, o: { payload: string }): Promise<void> {
  const ctx = loadContext();
  const route = loadRoutes(ctx.home, ctx.loaded.config as never).get(name);
  if (!route) throw new CliError(`No webhook route named "${name}" (see \`hermes webhook list\`).`);
  try {
    JSON.parse(o.payload);
  } catch {
    throw new CliError('--payload is not valid JSON.', 2);
  }
  const s = webhookSettings(ctx.env, ctx.loaded.config as never);
  const secret = route.secret || s.secret;
  const host = s.host === '0.0.0.0' || s.host === '::' ? '127.0.0.1' : s.host;
  const url = `http://${host}:${s.port}/webhooks/${name}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': `hermes-test-${randomBytes(6).toString('hex')}`, ...(secret ? signV2(secret, o.payload) : {}) }, body: o.payload });
  } catch {
    throw new CliError(`Nothing answered at ${url}. Is the gateway running with WEBHOOK_ENABLED=true? (\`hermes gateway status\`)`);
  }
  const text = await res.text();
  out(`${res.status} ${res.statusText}: ${text}`);
  if (!res.ok) process.exitCode = 1;
}
