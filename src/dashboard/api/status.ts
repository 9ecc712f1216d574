// The header and the landing numbers: version, model, gateway, sessions, the slash commands the
// Chat tab's launcher offers, and the plugin tabs.
import type { Hono } from 'hono';
import { gatewayStatus } from '../../gateway/daemon.ts';
import type { DashboardContext } from '../context.ts';
import type { PluginManifest } from '../plugins.ts';
import type { CommandsResponse, StatusResponse } from '../api-types.ts';

export function registerStatus(app: Hono, ctx: DashboardContext, extra: { plugins: () => PluginManifest[]; problems: () => string[]; chats: () => number }): void {
  app.get('/api/status', async (c) => {
    // The runtime loads on first use, so the server starts without it.
    const [{ resolveRuntime }, { resolveInputFrom }] = await Promise.all([import('../../llm/index.ts'), import('../../session/session.ts')]);
    let model: { provider: string; model: string } | null = null;
    let modelProblem: string | null = null;
    let configProblem: string | null = null;
    try {
      const loaded = ctx.config();
      if (loaded.problems.length) configProblem = `${loaded.problems.length} problem(s) in ${loaded.path}: see Config.`;
      const rt = resolveRuntime(resolveInputFrom(loaded.config, ctx.env(), {}, ctx.home));
      model = { provider: rt.provider, model: rt.model };
    } catch (e) {
      if (!configProblem) modelProblem = (e as Error).message;
    }
    const { readProviderHealth, healthJson } = await import('../../session/provider-health.ts');
    const providerHealth = readProviderHealth(ctx.home).map(healthJson);
    const { localModelsJson } = await import('../../state/local-models.ts');
    const localModels = localModelsJson(ctx.home);
    // Today's spend (every process of this home, from the spend ledger) against config.yaml budgets:.
    const [{ budgetLines, readBudgets }, { DayTotals }] = await Promise.all([import('../../session/budgets.ts'), import('../../state/spend-ledger.ts')]);
    const day = new DayTotals(ctx.home).refresh().close();
    const { budgets } = readBudgets(ctx.config().config);
    const spend = { today: { usd: day.usd, tokens: day.tokens, calls: day.calls }, caps: budgets ? { ...budgets.caps, action: budgets.action } : null, lines: budgetLines(budgets, { dayUsd: day.usd, dayTokens: day.tokens }) };
    const db = await ctx.store();
    const gw = gatewayStatus(ctx.home);
    const active = await db.activeSince(Date.now() / 1000 - 300);
    return c.json({
      version: ctx.version,
      home: ctx.home,
      startedAt: ctx.startedAt,
      model,
      modelProblem,
      configProblem,
      sessions: await db.countSessions({ archived: 'include', includeTool: true }),
      activeSessions: active,
      gateway: { running: gw.running, pid: gw.pid ?? null, platforms: Object.fromEntries(Object.entries(gw.platforms).map(([k, v]) => [k, v.state])), ledger: gw.ledger },
      chat: { args: ctx.chatArgs, open: extra.chats() },
      plugins: extra.plugins().map((p) => ({ name: p.name, label: p.label, icon: p.icon, tab: p.tab, entry: `/plugins/${p.name}/${p.entry}`, css: p.css ? `/plugins/${p.name}/${p.css}` : null })),
      problems: extra.problems(),
      providerHealth: providerHealth as StatusResponse['providerHealth'],
      localModels,
      spend,
    } satisfies StatusResponse);
  });

  app.get('/api/commands', async (c) => {
    const { createCommandRegistry } = await import('../../commands/builtin.ts');
    const ext = ctx.config().config.skills?.external_dirs;
    const registry = createCommandRegistry({ home: ctx.home, externalDirs: Array.isArray(ext) ? ext : [] });
    return c.json({
      commands: registry
        .list('cli')
        .map((d) => ({ name: d.name, args: d.args ?? '', description: d.description, category: d.category, aliases: d.aliases ?? [] })),
    } satisfies CommandsResponse);
  });
}
