// The gateway daemon: `hermes gateway run` in the foreground, and start/stop/restart/status around
// it. One gateway per HERMES_HOME (gateway.pid); SIGTERM/SIGINT drain it gracefully: stop taking
// messages, let running turns finish (HERMES_RESTART_DRAIN_TIMEOUT, default 900 s; the rest are
// interrupted), disconnect, remove the PID file.
import { flushOutbound } from '../plugins/outbound-pending.ts';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { emptyConfigFile, emptyConfigProblem } from '../state/config.ts';
import { storeChoice } from '../state/store/index.ts';
import type { LlmClient } from '../llm/index.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { allowlistWarnings, envPrefix, hasAnyAllowlist } from './auth.ts';
import { enabledPlatforms, messagingCwd, numberSetting } from './config.ts';
import { getPlatform, platformLabel, registerPlatform, type PlatformDefinition } from './platforms/registry.ts';
import { startCron, type CronTicker } from './cron-link.ts';
import { startKanban, type KanbanLink } from './kanban-link.ts';
import { readJsonObject, writeJson } from './json-file.ts';
import { createGatewayLog, type GatewayLog } from './log.ts';
import { createAdapter, type PlatformDeps } from './platforms/index.ts';
import { GatewayRunner } from './runner.ts';
import { SessionDbTranscripts } from './transcripts.ts';
import { Supervisor } from './supervisor.ts';
import type { PlatformAdapter } from './types.ts';
import { isAlive, pidPath, runningGateway, type PidInfo } from './pid-file.ts';
import { GatewayError, startBackground } from './control.ts';

// (The PID file's helpers and start/stop/status live in pid-file.ts and control.ts, which load none
// of the gateway: `hermes gateway status|stop|start` and `hermes profile …` need only them.)
export { isAlive, pidPath, runningGateway, type PidInfo };
export { GATEWAY_ENV, GATEWAY_NODE_FLAGS, GatewayError, gatewayStatus, startBackground, stopGateway, type GatewayStatus } from './control.ts';
/** Who asked for /restart, told once the gateway is back. */
export const restartNotifyPath = (home: string) => join(home, '.restart_notify.json');

export interface RunOptions {
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  dotenvNames?: string[];
  /** Echo log lines to stderr (foreground). */
  echo?: boolean;
  /** Only these platforms (default: every configured one). */
  platforms?: string[];
  deps?: PlatformDeps;
  llmFactory?: () => LlmClient;
  /** Install SIGTERM/SIGINT handlers (the CLI does; in-process tests do not). */
  signals?: boolean;
  /** Start the cron ticker (default true). */
  cron?: boolean;
  /** Start the kanban service: dispatcher and task notifications (default true). */
  kanban?: boolean;
  /** Reconnect delay per attempt (tests; default 5 s doubling to 5 min). */
  backoff?: (attempt: number) => number;
  /** Titles and background self-review after turns (default true). */
  backgroundTasks?: boolean;
}

export interface RunningGateway {
  runner: GatewayRunner;
  supervisor: Supervisor;
  adapters: PlatformAdapter[];
  log: GatewayLog;
  /** Drains and stops; resolves when everything is closed. */
  shutdown(reason?: string): Promise<void>;
  closed: Promise<void>;
  /** Set by /restart: once closed, the process that runs the gateway starts it again (restartGateway). */
  restart: { platform: string; chatId: string; threadId?: string } | null;
}

export async function runGateway(o: RunOptions): Promise<RunningGateway> {
  const other = runningGateway(o.home);
  if (other && other.pid !== process.pid) throw new GatewayError(`The gateway is already running for ${o.home} (pid ${other.pid}). Stop it with \`hermes gateway stop\`, or see \`hermes gateway status\`.`);
  const loggingCfg = (o.config as { logging?: { max_size_mb?: number; backup_count?: number } }).logging ?? {};
  const log = createGatewayLog(o.home, { maxMb: loggingCfg.max_size_mb, backups: loggingCfg.backup_count, echo: o.echo ? (l) => process.stderr.write(l) : undefined });
  // The profile's plugins load first, so platforms they register (ctx.register_platform, a
  // PlatformDefinition) are in the registry when the enabled platforms are chosen.
  const { loadSurfacePlugins } = await import('../plugins/load.ts');
  const { pluginPorts } = await import('../mcp/plugin-call.ts');
  await loadSurfacePlugins({ home: o.home, config: o.config, env: o.env, cwd: messagingCwd(o.env), warn: (m) => log(`plugins: ${m}`), ports: pluginPorts });
  const { pluginExtensions } = await import('../plugins/extensions.ts');
  for (const e of pluginExtensions<Partial<PlatformDefinition>>('platform')) {
    if (getPlatform(e.name)) log(`plugins: ${e.owner}: platform "${e.name}" is built in; the plugin's is ignored`);
    else if (typeof e.value.create !== 'function' || typeof e.value.configured !== 'function') log(`plugins: ${e.owner}: platform "${e.name}" needs create() and configured(); ignored`);
    else registerPlatform({ ...e.value, label: e.value.label ?? e.name, kind: e.value.kind ?? 'chat', maxMessageLength: e.value.maxMessageLength ?? 4000, name: e.name } as PlatformDefinition);
  }
  const names = o.platforms ?? enabledPlatforms(o.config as never, o.env);
  if (!names.length)
    throw new GatewayError('No messaging platform is configured. Run `hermes gateway setup`, or set e.g. TELEGRAM_BOT_TOKEN (Telegram) or API_SERVER_ENABLED=true (OpenAI-compatible API) in ~/.hermes/.env.');
  const info: PidInfo = { pid: process.pid, kind: 'hermes-gateway', started_at: new Date().toISOString(), argv: process.argv.slice(1), home: o.home };
  writeJson(pidPath(o.home), info, 0o644);
  log(`gateway: starting (pid ${process.pid}) with ${names.map((n) => platformLabel(n)).join(', ')}`);
  // An emptied config.yaml: turns cannot choose a provider (session-client.ts); said once, here.
  const emptied = emptyConfigFile(o.config);
  if (emptied && !o.env.HERMES_INFERENCE_PROVIDER?.trim()) {
    const { problem, hint } = emptyConfigProblem(emptied);
    log(`gateway: ${problem}: messages are answered with this error until one is. ${hint}.`);
  }
  for (const n of names) if (getPlatform(n)?.kind === 'chat' && !getPlatform(n)?.trustedSource && !hasAnyAllowlist(n, o.env)) log(`auth: ${n}: no allowlist (${envPrefix(n)}_ALLOWED_USERS / GATEWAY_ALLOWED_USERS); strangers get a pairing code and nobody gets in until you approve one`);
  for (const line of allowlistWarnings(names.filter((n) => getPlatform(n)?.kind === 'chat' && !getPlatform(n)?.trustedSource), o.env)) log(line);

  // Signals that arrive while the platforms connect are held until shutdown can run.
  let onSignal: ((sig: NodeJS.Signals) => void) | null = null;
  const early: NodeJS.Signals[] = [];
  const signalHandler = (sig: NodeJS.Signals) => (onSignal ? onSignal(sig) : early.push(sig));
  const removeSignals = () => {
    process.off('SIGTERM', signalHandler);
    process.off('SIGINT', signalHandler);
  };
  if (o.signals) {
    process.on('SIGTERM', signalHandler);
    process.on('SIGINT', signalHandler);
  }

  // state.backend: postgres → this gateway joins the others on that database (src/gateway/cluster/).
  let cluster: import('./cluster/index.ts').Cluster | null = null;
  let choice;
  try {
    choice = storeChoice(o.config, o.env);
  } catch (e) {
    rmSync(pidPath(o.home), { force: true });
    removeSignals();
    throw new GatewayError((e as Error).message);
  }
  if (choice.backend === 'postgres') {
    const { joinCluster } = await import('./cluster/index.ts');
    try {
      cluster = await joinCluster(choice.url!, {
        home: o.home,
        pollMs: numberSetting(o.env.HERMES_GATEWAY_FAILOVER_POLL_MS, 2000),
        heartbeatMs: numberSetting(o.env.HERMES_GATEWAY_HEARTBEAT_MS, 2000),
        log,
      });
    } catch (e) {
      rmSync(pidPath(o.home), { force: true });
      removeSignals();
      throw new GatewayError((e as Error).message);
    }
  }
  const transcripts = cluster ? new SessionDbTranscripts(cluster.store) : undefined;
  const runner = new GatewayRunner({
    home: o.home,
    config: o.config,
    env: o.env,
    dotenvNames: o.dotenvNames,
    log,
    llmFactory: o.llmFactory,
    backgroundTasks: o.backgroundTasks,
    ledger: cluster?.ledger,
    transcripts,
    routing: cluster?.routing,
  });
  let cron: CronTicker | null = null;
  let kanban: KanbanLink | null = null;
  let supervisor: Supervisor;
  const adapters: PlatformAdapter[] = [];
  try {
    await runner.init();
    const timeoutS = numberSetting(o.env.HERMES_GATEWAY_CONNECT_TIMEOUT, 30);
    supervisor = new Supervisor(runner, { connectTimeoutMs: timeoutS * 1000, backoff: o.backoff });
    for (const n of names) {
      try {
        adapters.push(await createAdapter(n, runner, o.deps));
      } catch (e) {
        supervisor.fail(n, (e as Error).message);
      }
    }
    if (cluster) {
      const sup = supervisor;
      const ledger = cluster.ledger;
      const sweeping = new Set<string>();
      await cluster.lead(
        adapters.map((a) => a.name),
        {
          start: async (name) => {
            runner.forgetPlatform(name);
            await sup.start(adapters.filter((a) => a.name === name));
          },
          lost: (name) => sup.release(name),
          // What a gone owner left is answered once its beat is stale (another machine) or its process gone.
          sweep: (name) => {
            const a = sup.connected().find((x) => x.name === name);
            if (!a || sweeping.has(name)) return;
            sweeping.add(name);
            void ledger
              .recover(runner, a)
              .catch((e: unknown) => log(`gateway: ${name}: could not answer the messages a stopped gateway left: ${(e as Error).message}`))
              .finally(() => sweeping.delete(name));
          },
        },
        log,
      );
    } else {
      await supervisor.start(adapters);
      // Nothing that can ever serve: say why and stop, instead of "running" with nothing to run.
      const failed = supervisor.failed();
      if (failed.length === names.length) {
        await supervisor.disconnectAll();
        await runner.close();
        supervisor.writeState({ stopped_at: new Date().toISOString() });
        throw new GatewayError(
          `No platform can start, so the gateway is not running:\n${failed.map((f) => `  ${f.name}: ${f.reason}`).join('\n')}\nFix the settings (\`hermes gateway setup\`, or ~/.hermes/.env) and start it again.`,
        );
      }
    }
  } catch (e) {
    await cluster?.close();
    rmSync(pidPath(o.home), { force: true });
    removeSignals();
    if (e instanceof GatewayError) log(`gateway: ${e.message.split('\n')[0]}`);
    throw e;
  }
  // The ledger's counts for `hermes gateway status` and the dashboard, refreshed every few seconds.
  const refreshCounts = async () => {
    if (!runner.ledger) return;
    try {
      supervisor.ledger = await runner.ledger.counts();
      supervisor.writeState();
    } catch {
      /* informational */
    }
  };
  const countsTimer = setInterval(() => void refreshCounts(), numberSetting(o.env.HERMES_GATEWAY_STATUS_INTERVAL_MS, 5000));
  countsTimer.unref();
  void refreshCounts();
  const up = supervisor.connected().map((a) => a.name);
  log(`gateway: running; connected: ${up.join(', ') || 'none yet (retrying in the background)'}`);
  void runner.hooks.emit('gateway:startup', { platforms: up });
  // Back from a chat's /restart: that chat hears so (Hermes's .restart_notify.json).
  const notify = readJsonObject<{ platform?: string; chat_id?: string; thread_id?: string }>(restartNotifyPath(o.home));
  if (notify.platform && notify.chat_id) {
    rmSync(restartNotifyPath(o.home), { force: true });
    const target = `${notify.platform}:${notify.chat_id}${notify.thread_id ? `:${notify.thread_id}` : ''}`;
    void runner.router.send(target, '♻ Gateway restarted successfully. Your session continues.', { source: 'restart' }).then((r) => {
      if (!r.ok) log(`gateway: could not tell ${target} the restart is done: ${r.error}`);
    });
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let stopping: Promise<void> | null = null;
  const shutdown = (reason = 'stop') => {
    if (stopping) return stopping;
    stopping = (async () => {
      const drainS = numberSetting(o.env.HERMES_RESTART_DRAIN_TIMEOUT ?? (o.config.agent as { restart_drain_timeout?: number }).restart_drain_timeout, 900);
      log(`gateway: ${reason}: draining (${runner.activeTurns} running turn(s), up to ${drainS}s)`);
      runner.stopAccepting();
      // Nobody can answer an approval once the gateway stops: pending ones are denied (recorded by
      // their turns like any denial), so the drain is not held for a person.
      const denied = runner.requests.denyAllForShutdown();
      if (denied) log(`gateway: ${reason}: ${denied} pending approval request(s) answered as denied (the gateway is stopping)`);
      await supervisor.stopIntake();
      await cron?.stop().catch(() => undefined);
      await kanban?.stop().catch(() => undefined);
      const d = await runner.drain(drainS * 1000);
      if (d.interrupted) log(`gateway: drain timed out; interrupted ${d.interrupted} turn(s)`);
      await supervisor.disconnectAll();
      clearInterval(countsTimer);
      await refreshCounts();
      await runner.close();
      // Outbound webhooks (hooks.outbound) fired by the last turns get a few seconds to be delivered.
      if (!(await flushOutbound(10_000))) log(`gateway: ${reason}: outbound webhook deliveries still under way were dropped`);
      await cluster?.close().catch(() => undefined);
      const mine = runningGateway(o.home);
      if (mine?.pid === process.pid) rmSync(pidPath(o.home), { force: true });
      supervisor.writeState({ stopped_at: new Date().toISOString() });
      removeSignals();
      log('gateway: stopped');
      resolveClosed();
    })();
    return stopping;
  };
  const gw = { restart: null as RunningGateway['restart'] };
  runner.control = {
    restart(by) {
      if (stopping) return false;
      gw.restart = by;
      writeJson(restartNotifyPath(o.home), { platform: by.platform, chat_id: by.chatId, ...(by.threadId ? { thread_id: by.threadId } : {}) }, 0o600);
      log(`gateway: restart requested from ${by.platform}:${by.chatId}`);
      void shutdown('restart');
      return true;
    },
    platforms: () => [...supervisor.status].map(([name, st]) => ({ name, state: st.state, attempts: st.attempts, lastError: st.last_error })),
    pause: (name) => supervisor.pause(name),
    resume: (name) => supervisor.resume(name),
  };
  if (o.signals) {
    let signals = 0;
    onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1 && sig === 'SIGINT') {
        log('gateway: second interrupt, exiting now');
        rmSync(pidPath(o.home), { force: true });
        process.exit(130);
      }
      void shutdown(sig);
    };
    if (early.length) onSignal(early[0]);
  }
  // The services that run beside the platforms; a signal during their start-up has already run
  // shutdown past them, so they are stopped again once started.
  if (o.kanban !== false && !stopping) {
    kanban = await startKanban({ home: o.home, env: o.env, send: (t, text) => runner.router.send(t, text, { source: 'kanban' }), hooks: runner.hooks, log }).catch(
      (e) => (log(`kanban: could not start: ${(e as Error).message}`), null),
    );
    if (stopping) await kanban?.stop().catch(() => undefined);
  }
  if (o.cron !== false && !stopping) {
    cron = await startCron({ home: o.home, deliver: runner.router.deliver, log, env: o.env, store: runner.transcripts.db }).catch((e) => (log(`cron: could not start: ${(e as Error).message}`), null));
    if (stopping) await cron?.stop().catch(() => undefined);
  }
  return Object.assign(gw, { runner, supervisor, adapters, log, shutdown, closed });
}

/** A supervisor that starts the gateway again when it exits non-zero (systemd, launchd, a container). */
export function underServiceManager(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.INVOCATION_ID || env.XPC_SERVICE_NAME?.includes('hermes') || env.HERMES_GATEWAY_SUPERVISED) || existsSync('/.dockerenv') || existsSync('/run/.containerenv');
}

/** Exit code that asks a service manager to start the gateway again (Hermes's: EX_TEMPFAIL). */
export const RESTART_EXIT_CODE = 75;

/**
 * After /restart drained and stopped the gateway: under a service manager, exit 75 so it starts
 * the gateway again; otherwise start a detached `hermes gateway run` (`bin`) and exit 0.
 */
export async function restartGateway(home: string, env: NodeJS.ProcessEnv, bin: string): Promise<number> {
  if (underServiceManager(env)) return RESTART_EXIT_CODE;
  await startBackground(home, env, { bin });
  return 0;
}
