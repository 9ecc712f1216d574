// Gateway tab: running or not, each platform's connection state, pairing requests (approved with
// the code the person got in chat, exactly like `hermes pairing approve`), approved users, and
// start/stop of the background gateway.
import type { Hono } from 'hono';
import { enabledPlatforms } from '../../gateway/config.ts';
import { platformLabel } from '../../gateway/platforms/registry.ts';
import { gatewayStatus, GatewayError, startBackground, stopGateway } from '../../gateway/daemon.ts';
import { PairingStore } from '../../gateway/pairing.ts';
import { body, fail, str, type DashboardContext } from '../context.ts';
import type { GatewayResponse } from '../api-types.ts';

export function registerGateway(app: Hono, ctx: DashboardContext): void {
  app.get('/api/gateway', (c) => {
    const st = gatewayStatus(ctx.home);
    const loaded = ctx.config();
    const enabled = enabledPlatforms(loaded.config as never, ctx.env());
    const pairing = new PairingStore(ctx.home);
    return c.json({
      ...st,
      enabled: enabled.map((p) => ({ id: p, label: platformLabel(p), state: st.platforms[p]?.state ?? (st.running ? 'unknown' : 'stopped'), detail: st.platforms[p] ?? null })),
      pending: pairing.listPending(),
      approved: pairing.listApproved(),
    } satisfies GatewayResponse);
  });

  app.post('/api/gateway/start', async (c) => {
    if (gatewayStatus(ctx.home).running) return fail(c, 409, 'The gateway is already running.');
    try {
      const pid = await startBackground(ctx.home, { ...ctx.baseEnv, HERMES_HOME: ctx.home }, { bin: ctx.bin });
      ctx.log?.write('INFO', 'dashboard.gateway', `started the gateway (pid ${pid})`);
      return c.json({ ok: true, pid });
    } catch (e) {
      if (e instanceof GatewayError) return fail(c, 502, e.message, 'See the gateway log under Logs.');
      throw e;
    }
  });

  app.post('/api/gateway/stop', async (c) => {
    const r = await stopGateway(ctx.home, { timeoutMs: 30_000 });
    if (!r) return fail(c, 409, 'The gateway is not running.');
    ctx.log?.write('INFO', 'dashboard.gateway', `stopped the gateway (pid ${r.pid}${r.killed ? ', killed' : ''})`);
    return c.json({ ok: true, ...r });
  });

  app.post('/api/pairing/approve', async (c) => {
    const b = await body(c);
    const platform = str(b?.platform).toLowerCase();
    const code = str(b?.code).trim();
    if (!/^[a-z0-9_-]+$/.test(platform) || !code) return fail(c, 400, 'Send the platform and the pairing code the person received.');
    const r = new PairingStore(ctx.home).approveCode(platform, code);
    if ('error' in r)
      return r.error === 'locked_out'
        ? fail(c, 429, `Too many wrong codes: approvals on ${platform} are locked for an hour.`)
        : fail(c, 400, `No pending request on ${platform} has that code (wrong, or expired after an hour).`);
    ctx.log?.write('INFO', 'dashboard.pairing', `approved ${r.user_id} on ${platform}`);
    return c.json({ ok: true, ...r });
  });

  app.post('/api/pairing/revoke', async (c) => {
    const b = await body(c);
    const platform = str(b?.platform).toLowerCase();
    const user = str(b?.user_id);
    if (!new PairingStore(ctx.home).revoke(platform, user)) return fail(c, 404, `${user} is not an approved ${platform} user.`);
    return c.json({ ok: true });
  });

  app.post('/api/pairing/clear', async (c) => {
    const b = await body(c);
    return c.json({ ok: true, cleared: new PairingStore(ctx.home).clearPending(str(b?.platform) || undefined) });
  });
}
