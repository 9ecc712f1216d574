// `hermes update`, `hermes uninstall`, `hermes checkpoints` and `hermes prompt-size`.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { estimateTextTokens, estimateToolsTokens } from '../agent/tokens.ts';
import type { LlmClient } from '../llm/client.ts';
import type { ProviderRuntime } from '../llm/index.ts';
import { storeFor } from '../session/checkpointing.ts';
import { checkForUpdate, installInfo } from '../state/install.ts';
import { defaultHermesRoot, packageRoot } from '../state/paths.ts';
import { createQuickSnapshot } from '../state/snapshots.ts';
import { loadContext } from './context.ts';
import { CliError, confirmOrRefuse } from './errors.ts';
import { standalonePorts } from '../gateway/messaging.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

const confirm = (question: string, yes: boolean | undefined, refusal: string) => confirmOrRefuse(question, yes, { refusal });

const fmtMb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;

// ---------------------------------------------------------------------------------------------
// update

export async function update(opts: { check?: boolean; yes?: boolean; backup?: boolean }): Promise<void> {
  const info = installInfo(packageRoot());
  const c = checkForUpdate(info);
  out(`Installed: ${c.current} (${c.method === 'git' ? `git checkout at ${info.root}` : `npm package ${info.name}`})`);
  if (c.available === null) out(`Latest:    unknown. ${c.note ?? ''}`.trimEnd());
  else out(`Latest:    ${c.latest}${c.available ? ' — an update is available' : ' — up to date'}`);
  if (c.note && c.available !== null) out(c.note);
  if (opts.check) {
    out(`\n\`hermes update\` would: ${c.plan.join('; ')}${opts.backup === false ? '' : ', after a snapshot of your state (hermes backup --quick)'}.`);
    return;
  }
  if (c.available === false) return;
  await confirm(`Update now (${c.plan.join('; ')})?`, opts.yes, 'Updating needs --yes when there is no terminal to ask (nothing was changed). `hermes update --check` only looks.');
  const ctx = loadContext();
  if (opts.backup !== false) {
    const id = await createQuickSnapshot(ctx.home, 'pre-update');
    if (id) out(`State snapshot ${id} taken (restore with /snapshot restore ${id}).`);
  }
  const run = (cmd: string, args: string[]) => {
    out(`$ ${cmd} ${args.join(' ')}`);
    const r = spawnSync(cmd, args, { cwd: info.root, stdio: 'inherit' });
    if (r.status !== 0) throw new CliError(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.error?.message}). Your install is as it was before this step.`);
  };
  if (info.method === 'git') {
    run('git', ['pull', '--ff-only']);
    run('npm', ['ci']);
  } else run('npm', ['install', '-g', `${info.name}@latest`]);
  const { runningGateway } = await import('../gateway/pid-file.ts');
  const gw = runningGateway(ctx.home);
  out(`Updated.${gw ? ` The gateway (pid ${gw.pid}) still runs the old version: restart it with \`hermes gateway restart\`.` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// uninstall

export async function uninstall(opts: { keepData?: boolean; removeData?: boolean; yes?: boolean }): Promise<void> {
  if (opts.keepData && opts.removeData) throw new CliError('Use either --keep-data or --remove-data.', 2);
  const info = installInfo(packageRoot());
  const root = defaultHermesRoot();
  let removeData = !!opts.removeData;
  if (!opts.keepData && !opts.removeData && process.stdin.isTTY) {
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const a = (await rl.question(`Also delete your Hermes data in ${root} (config, keys, sessions, memories, skills)? [y/N] `)).trim().toLowerCase();
    rl.close();
    removeData = a === 'y' || a === 'yes';
  }
  const what = [
    info.method === 'npm' ? `the npm package ${info.name}` : `nothing of the git checkout ${info.root} (delete that folder yourself)`,
    'the gateway service, if installed',
    removeData ? `ALL DATA in ${root}` : `not your data in ${root} (kept)`,
  ];
  await confirm(`Uninstall Hermes: removes ${what.join('; ')}. Go ahead?`, opts.yes, 'Uninstalling needs --yes when there is no terminal to ask (nothing was changed).');
  const ctx = loadContext();
  const { runningGateway, stopGateway } = await import('../gateway/control.ts');
  if (runningGateway(ctx.home)) {
    await stopGateway(ctx.home, { timeoutMs: 15_000 });
    out('Stopped the gateway.');
  }
  try {
    const { installedServiceFile } = await import('../gateway/service.ts');
    const file = installedServiceFile({ home: ctx.home, nodePath: process.execPath, binPath: '', stopTimeoutS: 30, env: process.env });
    if (file) out(`A gateway service is installed (${file.path}): remove it with \`hermes gateway uninstall\` before the code goes.`);
  } catch {
    /* no service support on this platform */
  }
  if (removeData && existsSync(root)) {
    rmSync(root, { recursive: true, force: true });
    out(`Deleted ${root}.`);
  } else out(`Kept your data in ${root}.`);
  if (info.method === 'npm') {
    const r = spawnSync('npm', ['uninstall', '-g', info.name], { stdio: 'inherit' });
    if (r.status !== 0) throw new CliError(`npm uninstall -g ${info.name} failed (exit ${r.status}). Run it yourself.`);
    out(`Removed ${info.name}. Goodbye. ⚕`);
  } else out(`This is a git checkout: delete ${info.root} to remove the code. Goodbye. ⚕`);
}

// ---------------------------------------------------------------------------------------------
// checkpoints

const ago = (s: number) => {
  const d = Date.now() / 1000 - s;
  return d < 3600 ? `${Math.max(1, Math.round(d / 60))}m ago` : d < 86400 ? `${Math.round(d / 3600)}h ago` : `${Math.round(d / 86400)}d ago`;
};

export function checkpointsStatus(opts: { limit?: string }): void {
  const ctx = loadContext();
  const store = storeFor(ctx.home, ctx.loaded.config);
  const st = store.status();
  const limit = opts.limit ? Number(opts.limit) : 20;
  out(`Checkpoint base: ${st.base}`);
  out(`Total size:      ${fmtMb(st.storeBytes + st.legacyBytes)}`);
  out(`  store/         ${fmtMb(st.storeBytes)}`);
  if (st.legacy.length) out(`  legacy-*       ${fmtMb(st.legacyBytes)}`);
  out(`Projects:        ${st.projects.length}`);
  if (st.projects.length) {
    out('');
    out(`  ${'WORKDIR'.padEnd(60)} ${'COMMITS'.padStart(7)} ${'LAST TOUCH'.padStart(11)}  STATE`);
    for (const p of st.projects.slice(0, limit)) out(`  ${p.workdir.padEnd(60)} ${String(p.commits).padStart(7)} ${ago(p.last_touch).padStart(11)}  ${p.orphan ? 'orphan' : 'live'}`);
    if (st.projects.length > limit) out(`  … ${st.projects.length - limit} more (--limit)`);
  }
  if (st.legacy.length) {
    out(`\nLegacy archives (${st.legacy.length}):`);
    for (const l of st.legacy) out(`  ${l.name.padEnd(40)} ${fmtMb(l.bytes)}`);
    out('\nClear with: hermes checkpoints clear-legacy');
  }
  const enabled = (ctx.loaded.config as { checkpoints?: { enabled?: boolean } }).checkpoints?.enabled;
  if (!enabled) out('\nCheckpoints are off (turn them on for a run with --checkpoints, or set checkpoints.enabled: true).');
}

export function checkpointsPrune(opts: { retentionDays?: string; maxSizeMb?: string; keepOrphans?: boolean }): void {
  const ctx = loadContext();
  const days = opts.retentionDays !== undefined ? Number(opts.retentionDays) : 7;
  const mb = opts.maxSizeMb !== undefined ? Number(opts.maxSizeMb) : undefined;
  if (!Number.isFinite(days) || days < 0) throw new CliError('--retention-days expects a number of days.', 2);
  if (mb !== undefined && (!Number.isFinite(mb) || mb < 0)) throw new CliError('--max-size-mb expects a number.', 2);
  const r = storeFor(ctx.home, ctx.loaded.config).prune({ retentionDays: days, maxSizeMb: mb, keepOrphans: opts.keepOrphans });
  out(`Pruned ${r.removed.length} project(s)${r.removed.length ? `: ${r.removed.join(', ')}` : ''}.`);
  out(`Store: ${fmtMb(r.beforeBytes)} → ${fmtMb(r.afterBytes)}.`);
}

export async function checkpointsClear(opts: { force?: boolean }): Promise<void> {
  const ctx = loadContext();
  const store = storeFor(ctx.home, ctx.loaded.config);
  await confirm(`Delete every checkpoint in ${ctx.home}/checkpoints (no /rollback afterwards)?`, opts.force, 'Clearing the checkpoints needs -f when there is no terminal to ask (nothing was deleted).');
  out(`Deleted the checkpoint store (${fmtMb(store.clear())}).`);
}

export async function checkpointsClearLegacy(opts: { force?: boolean }): Promise<void> {
  const ctx = loadContext();
  const store = storeFor(ctx.home, ctx.loaded.config);
  if (!store.status().legacy.length) {
    out('No legacy archives.');
    return;
  }
  await confirm('Delete the legacy-* checkpoint archives?', opts.force, 'Needs -f when there is no terminal to ask (nothing was deleted).');
  const r = store.clearLegacy();
  out(`Deleted ${r.removed.length} legacy archive(s) (${fmtMb(r.bytes)}).`);
}

// ---------------------------------------------------------------------------------------------
// prompt-size

/** A client that never calls out: prompt-size runs offline, with or without credentials. */
function offlineClient(model: string, provider: string): LlmClient {
  const active = { model, provider, apiMode: 'chat_completions', baseUrl: '', apiKey: '' } as unknown as ProviderRuntime;
  return {
    active,
    beginTurn() {},
    switchTo() {},
    stream() {
      throw new Error('prompt-size makes no API calls');
    },
  };
}

export async function promptSize(opts: { platform?: string; json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const platform = (opts.platform ?? 'cli').toLowerCase();
  const { Session } = await import('../session/session.ts');
  const { enabledToolsets } = await import('./tools-cmd.ts');
  const toolsets = [...enabledToolsets(ctx.loaded.config, platform)];
  const cfg = ctx.loaded.config;
  const session = new Session({
    home: ctx.home,
    config: cfg,
    env: ctx.env,
    cwd: process.cwd(),
    platform,
    interactive: false,
    explicit: { toolsets },
    llm: offlineClient(cfg.model.default || '(model not set)', cfg.model.provider || 'auto'),
    backgroundTasks: false,
    seedBundledSkills: false,
    ports: standalonePorts,
  });
  const parts = session.promptParts();
  const bytes = (s: string | undefined) => Buffer.byteLength(s ?? '', 'utf8');
  const guidance = (parts.toolGuidance ?? []).join('\n\n');
  const blocks: [string, string | undefined][] = [
    ['identity (SOUL.md or default)', parts.identity],
    ['tool guidance', guidance],
    ['skills index', parts.skillsIndex],
    ['memory (MEMORY.md)', parts.memory],
    ['user profile (USER.md)', parts.userProfile],
    ['memory provider', parts.providerBlock],
    ['context files (AGENTS.md …)', parts.projectContext],
  ];
  const total = session.system;
  const known = blocks.reduce((a, [, v]) => a + bytes(v), 0);
  const schemas = session.tools.map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t.schema), 'utf8'), tokens: estimateToolsTokens([t.schema]) }));
  schemas.sort((a, b) => b.bytes - a.bytes);
  const report = {
    platform,
    system_prompt: { bytes: bytes(total), tokens: estimateTextTokens(total) },
    blocks: Object.fromEntries(blocks.map(([k, v]) => [k, { bytes: bytes(v), tokens: estimateTextTokens(v ?? '') }])),
    other: { bytes: Math.max(0, bytes(total) - known), tokens: Math.max(0, estimateTextTokens(total) - blocks.reduce((a, [, v]) => a + estimateTextTokens(v ?? ''), 0)) },
    tiers: {
      stable: bytes(parts.identity) + bytes(guidance) + bytes(parts.skillsIndex) + bytes(parts.providerBlock),
      context: bytes(parts.memory) + bytes(parts.userProfile) + bytes(parts.projectContext),
      volatile: Math.max(0, bytes(total) - known),
    },
    tools: { count: schemas.length, bytes: schemas.reduce((a, s) => a + s.bytes, 0), tokens: estimateToolsTokens(session.tools.map((t) => t.schema)), by_tool: schemas },
  };
  await session.close('prompt_size').catch(() => {});
  if (opts.json) {
    out(JSON.stringify(report, null, 2));
    return;
  }
  const n = (x: number) => x.toLocaleString('en-US');
  out(`Fixed prompt budget for a new ${platform} session (offline estimate, ~4 characters per token):`);
  out('');
  out(`System prompt        ${n(report.system_prompt.bytes).padStart(9)} bytes  ~${n(report.system_prompt.tokens)} tokens`);
  for (const [k, v] of Object.entries(report.blocks)) if (v.bytes) out(`  ${k.padEnd(30)} ${n(v.bytes).padStart(9)} bytes  ~${n(v.tokens)} tokens`);
  out(`  ${'other (platform, time, notes)'.padEnd(30)} ${n(report.other.bytes).padStart(9)} bytes  ~${n(report.other.tokens)} tokens`);
  out(`Prompt tiers: stable ${n(report.tiers.stable)} · context ${n(report.tiers.context)} · volatile ${n(report.tiers.volatile)} bytes`);
  out('');
  out(`Tool schemas         ${n(report.tools.bytes).padStart(9)} bytes  ~${n(report.tools.tokens)} tokens  (${report.tools.count} tools)`);
  for (const s of schemas.slice(0, 12)) out(`  ${s.name.padEnd(30)} ${n(s.bytes).padStart(9)} bytes  ~${n(s.tokens)} tokens`);
  if (schemas.length > 12) out(`  … ${schemas.length - 12} more`);
  out('');
  out(`Total per request before any conversation: ~${n(report.system_prompt.tokens + report.tools.tokens)} tokens.`);
  out('Smaller: turn off unused toolsets (hermes tools) or skills you do not use (hermes skills uninstall).');
}
