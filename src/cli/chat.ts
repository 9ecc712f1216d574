// `hermes chat`: one question (-q / --query-file / piped stdin) or the interactive REPL.
import { flushOutbound } from '../plugins/outbound-pending.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseMaxTurns } from '../agent/budget.ts';
import type { AgentEvent, AgentRequest } from '../agent/types.ts';
import { describeError, ResolveError } from '../llm/index.ts';
import { eventLine } from '../session/describe.ts';
import { AnswerOut } from './answer-out.ts';
import type { McpManager } from '../mcp/manager.ts';
import { attachMcp, startCliMcp } from '../mcp/session.ts';
import { runFollowUps } from '../session/inbox.ts';
import { Session, type ExplicitChoices } from '../session/session.ts';
import { expandHome, paths } from '../state/paths.ts';
import { bumpUse } from '../state/skill-usage.ts';
import type { SessionStore } from '../state/store/index.ts';
import { flushPending } from '../state/pending.ts';
import { buildSkillInvocation, discoverSkills, findSkill } from '../state/skills.ts';
import type { Message } from '../llm/types.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import type { ChatOptions } from './commands/chat.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';
import { applyIsolationFlags, reasoningLevel } from './global-flags.ts';
import { standalonePorts } from '../gateway/messaging.ts';
import { openStateDb, openStore } from './store-open.ts';

// (Here too for the chat paths that import them from this module.)
export { openStateDb, openStore };

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function explicitFrom(opts: ChatOptions): ExplicitChoices {
  const e: ExplicitChoices = {};
  if (opts.provider) e.provider = opts.provider;
  if (opts.model) e.model = opts.model;
  if (opts.baseUrl) e.baseUrl = opts.baseUrl;
  if (opts.toolsets) e.toolsets = opts.toolsets.split(',').map((s) => s.trim()).filter(Boolean);
  if (opts.maxTurns !== undefined) {
    const n = Number(opts.maxTurns);
    if (!Number.isFinite(n)) throw new CliError(`--max-turns expects a number, got "${opts.maxTurns}".`, 2);
    e.maxTurns = parseMaxTurns(n);
  }
  if (opts.yolo) e.yolo = true;
  return e;
}

export interface Restored {
  sessionId: string;
  history: Message[];
  systemPrompt?: string;
  title: string | null;
  /** `↪ restored workspace dir: …` (or why it was not), when resuming changed or tried to change folder. */
  cwdNote?: string;
}

/** The session --resume / --continue asks for, or undefined when neither was given. */
export async function findResumeTarget(db: SessionStore, opts: ChatOptions, say?: (line: string) => void): Promise<Restored | undefined> {
  if (opts.resume === undefined && opts.continue === undefined) return undefined;
  if (opts.resume !== undefined && opts.continue !== undefined) throw new CliError('Use either --resume or --continue, not both.', 2);
  const source = opts.source ?? 'cli';
  let id: string | null | undefined;
  let asked: string | undefined;
  if (opts.resume !== undefined) {
    asked = opts.resume;
    id = opts.resume === 'latest' ? (await db.mostRecentSession(source, opts.workspace))?.id : await db.resolveSession(opts.resume);
  } else if (typeof opts.continue === 'string') {
    asked = opts.continue;
    id = await db.resolveSession(opts.continue);
  } else id = (await db.mostRecentSession(source, opts.workspace))?.id;
  if (!id) {
    if (asked === undefined || asked === 'latest')
      throw new CliError(`There is no earlier ${source} session to continue${opts.workspace ? ` in ${opts.workspace}` : ''}. Start one with \`hermes chat\`.`);
    throw new CliError(`No session matches "${asked}". List them with \`hermes sessions list\` (an id, a unique id prefix or a title works).`);
  }
  const row = (await db.getSession(id))!;
  const cwdNote = restoreWorkspaceDir(row.cwd ?? row.git_repo_root ?? null, opts) ?? undefined;
  if (cwdNote) say?.(cwdNote);
  return { sessionId: id, history: await db.getMessages(id), systemPrompt: row.system_prompt ?? undefined, title: row.title, cwdNote };
}

/** Whether resuming may change the working directory: not with --no-restore-cwd, --in or --worktree. */
export function mayRestoreCwd(opts: ChatOptions): boolean {
  return opts.restoreCwd !== false && opts.in === undefined && !opts.worktree;
}

/**
 * Resuming goes back to the folder the session worked in (as Hermes: `↪ restored workspace dir: …`).
 * A folder that is gone is noted and the chat stays where it is. Returns the line to show, if any.
 */
export function restoreWorkspaceDir(dir: string | null, opts: ChatOptions): string | null {
  if (!dir || !mayRestoreCwd(opts) || resolve(dir) === process.cwd()) return null;
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    process.chdir(dir);
  } catch {
    return `↪ the session's workspace dir ${dir} is gone; staying in ${process.cwd()}`;
  }
  return `↪ restored workspace dir: ${dir}`;
}

/** The -s/--skills skills as the invocation text to put before the first message. */
export function preloadedSkills(ctx: CliContext, opts: ChatOptions): string | undefined {
  if (!opts.skills?.length) return undefined;
  const ext = ctx.loaded.config.skills?.external_dirs;
  const all = discoverSkills(ctx.home, Array.isArray(ext) ? ext : []);
  const chosen = opts.skills.map((n) => {
    const s = findSkill(all, n);
    if (!s) throw new CliError(`No skill named "${n}". See \`hermes skills list\`.`, 2);
    return s;
  });
  for (const s of chosen) bumpUse(ctx.home, s.name);
  return buildSkillInvocation(chosen, '').replace(/\n\nUser instruction: \(none given[^)]*\)$/, '');
}

/** Builds a CLI session, turning resolution failures into one clear line. */
export function createCliSession(
  ctx: CliContext,
  opts: ChatOptions,
  interactive: boolean,
  extra: { store?: SessionStore; restored?: Restored; backgroundTasks?: boolean; mcp?: McpManager | null; onMcpEvent?: (line: string) => void } = {},
): Session {
  let session: Session;
  const mcp = extra.mcp;
  const registry = mcp ? builtinRegistry() : undefined;
  if (mcp && registry) mcp.syncInto(registry);
  const explicit = explicitFrom(opts);
  // `hermes tools` keeps the CLI's toolsets in platform_toolsets.cli, as Hermes does.
  const cliToolsets = (ctx.loaded.config.platform_toolsets ?? {}).cli;
  if (!explicit.toolsets && Array.isArray(cliToolsets) && cliToolsets.length) {
    const list = cliToolsets.map(String);
    // MCP servers stay on unless the list says `no_mcp` (the picker only lists built-in toolsets).
    const servers = Object.keys(ctx.loaded.config.mcp_servers ?? {});
    explicit.toolsets = list.includes('no_mcp') ? list.filter((t) => t !== 'no_mcp') : [...list, ...servers.map((n) => `mcp-${n}`).filter((t) => !list.includes(t))];
  }
  if (opts.reasoning !== undefined) {
    try {
      ctx.loaded.config.agent.reasoning_effort = reasoningLevel(opts.reasoning);
    } catch (e) {
      throw new CliError((e as Error).message, 2);
    }
  }
  if (opts.checkpoints) {
    const c = ctx.loaded.config as { checkpoints?: Record<string, unknown> };
    c.checkpoints = { ...(c.checkpoints ?? {}), enabled: true };
  }
  try {
    session = new Session({
      home: ctx.home,
      config: ctx.loaded.config,
      env: ctx.env,
      cwd: process.cwd(),
      platform: 'cli',
      source: opts.source ?? 'cli',
      interactive,
      explicit,
      dotenvNames: ctx.dotenvNames,
      ports: standalonePorts,
      store: extra.store,
      sessionId: extra.restored?.sessionId,
      history: extra.restored?.history,
      systemPrompt: extra.restored?.systemPrompt,
      ignoreRules: !!opts.ignoreRules,
      passSessionId: !!opts.passSessionId,
      backgroundTasks: extra.backgroundTasks,
      registry,
      promptParts: mcp ? { notes: mcp.notes() } : undefined,
    });
  } catch (e) {
    void mcp?.close();
    if (e instanceof ResolveError) throw Object.assign(new CliError(e.message), { i18n: e.i18n }); // the i18n key lets the message show translated
    if (e instanceof Error && /toolset/i.test(e.message)) throw new CliError(e.message, 2);
    throw e;
  }
  if (mcp) attachMcp(session, mcp, { owned: true, onEvent: extra.onMcpEvent });
  return session;
}

/** Plugins and shell hooks for a CLI run (before its session is built); problems go to stderr. */
export async function loadCliPlugins(ctx: CliContext, opts: ChatOptions, canAsk: boolean): Promise<void> {
  const { loadSurfacePlugins } = await import('../plugins/load.ts');
  const { pluginPorts } = await import('../mcp/plugin-call.ts');
  await loadSurfacePlugins({
    ports: pluginPorts,
    home: ctx.home,
    config: ctx.loaded.config,
    env: ctx.env,
    acceptHooks: !!opts.acceptHooks,
    canAsk: canAsk && !!process.stdin.isTTY,
    warn: opts.quiet ? undefined : (m) => process.stderr.write(`⚠ ${m}\n`),
  });
}

/** `--in <dir>`: works there, and -c / --resume latest look in that workspace only. */
function enterDir(dir: string): void {
  const target = resolve(expandHome(dir));
  if (!existsSync(target) || !statSync(target).isDirectory()) throw new CliError(`--in ${dir}: no such directory.`, 2);
  process.chdir(target);
}

/** The workspace a directory belongs to: its git repository's top, else the directory itself. */
export function workspaceOf(dir: string): string {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return resolve(dir);
  }
}

export async function runChat(opts: ChatOptions): Promise<void> {
  applyIsolationFlags(opts);
  if (opts.in !== undefined) {
    enterDir(opts.in);
    opts.workspace = workspaceOf(process.cwd());
  }
  if (opts.worktree) {
    const { createWorktree, finishWorktree, WorktreeError } = await import('../state/worktree.ts');
    let wt;
    try {
      wt = createWorktree(process.cwd());
    } catch (e) {
      if (e instanceof WorktreeError) throw new CliError(e.message);
      throw e;
    }
    process.chdir(wt.cwd);
    process.stderr.write(`Working in the worktree ${wt.path} (branch ${wt.branch}).\n`);
    // Every way out (the REPL's exit, one-shot's exit, a signal) ends here; git runs synchronously.
    process.on('exit', () => {
      const line = finishWorktree(wt);
      if (line) process.stderr.write(`${line}\n`);
    });
  }
  if (opts.oneshot !== undefined) {
    const { runScriptedOneShot } = await import('./oneshot-z.ts');
    process.exitCode = await runScriptedOneShot(opts.oneshot, opts);
    await flushAndExit();
  }
  let query = opts.query;
  if (opts.queryFile !== undefined) {
    if (query !== undefined) throw new CliError('Use either -q or --query-file, not both.', 2);
    query = opts.queryFile === '-' ? await readStdin() : readFileSync(opts.queryFile, 'utf8');
  }
  if (query === undefined && !process.stdin.isTTY) query = await readStdin();
  if (query === undefined) {
    const { runRepl } = await import('./repl.ts');
    await runRepl(opts);
    return;
  }
  if (!query.trim()) throw new CliError('The question is empty. Pass it with -q "…" (or on stdin).', 2);
  await runOneShot(query, opts);
  // Done: leave now instead of waiting for idle keep-alive sockets and timers to wind down.
  await flushAndExit();
}

export async function flushAndExit(code = process.exitCode): Promise<never> {
  // auth.json status updates from the credential pool (a benched key) finish first.
  await flushPending();
  // Outbound webhooks (hooks.outbound) still being delivered get a few seconds to finish.
  await flushOutbound(15_000);
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((r) => (s.writableNeedDrain ? s.once('drain', r) : r()))));
  process.exit(typeof code === 'number' ? code : 0);
}

async function oneShotPrompt(req: AgentRequest): Promise<unknown> {
  const { askOnTty } = await import('./tty-prompts.ts');
  return askOnTty(req);
}

export async function runOneShot(query: string, opts: ChatOptions): Promise<void> {
  const ctx = loadContext({ strict: true });
  const quiet = !!opts.quiet;
  const canAsk = !quiet && !!process.stdin.isTTY && !!process.stderr.isTTY;
  const db = await openStore(ctx);
  // A tool's activity line leaves with the step's request (one wake-up of whoever reads stderr per
  // step, not two); any other output writes what is pending first, so the order stays.
  let pendingLines = '';
  const flushLines = () => {
    if (pendingLines) process.stderr.write(pendingLines);
    pendingLines = '';
  };
  const lineLater = (s: string) => {
    if (!pendingLines) setImmediate(flushLines);
    pendingLines += s + '\n';
  };
  // The answer on stdout: a model call's text that a broken stream withdraws is erased on a
  // terminal, and held back until the call ends anywhere else (answer-out.ts).
  const answer = new AnswerOut((s) => {
    flushLines();
    process.stdout.write(s);
  }, process.stdout.isTTY ? process.stdout : null);
  const err = (s: string) => {
    flushLines();
    answer.interleaved();
    process.stderr.write(s + '\n');
  };
  const out = (s: string) => answer.text(s);
  const restored = await findResumeTarget(db, opts, quiet ? undefined : err);
  const skillText = preloadedSkills(ctx, opts);
  if (skillText) query = `${skillText}\n\nUser instruction: ${query}`;
  await loadCliPlugins(ctx, opts, canAsk);
  const mcp = await startCliMcp(ctx, explicitFrom(opts).toolsets);
  for (const w of mcp?.warnings() ?? []) err(`⚠ ${w}`);
  const session = createCliSession(ctx, opts, canAsk, { store: db, restored, backgroundTasks: false, mcp });
  // Background work reports back before the run exits (see the follow-up turns below).
  session.inbox.listening = true;
  for (const w of session.warnings) err(`⚠ ${w}`);

  const toolArgs = new Map<string, Record<string, unknown>>();
  session.on((e: AgentEvent) => {
    switch (e.type) {
      case 'api_start':
        answer.begin();
        break;
      case 'text_delta':
        if (!quiet) out(e.text);
        break;
      case 'message':
      case 'turn_end':
        answer.settle();
        break;
      case 'error':
        answer.drop();
        break;
      case 'retract': {
        const note = answer.retract();
        if (note && !quiet) err(note);
        break;
      }
      case 'tool_start':
        answer.settle();
        toolArgs.set(e.callId, e.args);
        if (!quiet && answer.streamed && !answer.streamed.endsWith('\n')) out('\n');
        break;
      case 'tool_end': {
        const args = toolArgs.get(e.callId);
        toolArgs.delete(e.callId);
        if (!quiet) lineLater(eventLine(e, { call: { name: e.name, args: args ?? {} } }));
        break;
      }
      case 'retry':
      case 'fallback':
        if (!quiet || opts.verbose) err(eventLine(e));
        break;
      case 'key_rotated':
        if (opts.verbose) err(eventLine(e));
        break;
      case 'warning':
        // A store write that failed ends the run with one line (below), not a warning too.
        if (!quiet && e.message !== session.saveFailure?.warning) err(eventLine(e));
        break;
      case 'notice':
        if (!quiet) err(eventLine(e));
        break;
      case 'request':
        void oneShotPrompt(e.request).then((answer) => session.answer(e.id, answer));
        break;
      default:
        break;
    }
  });

  const ac = new AbortController();
  let sigints = 0;
  const onSigint = () => {
    sigints++;
    flushLines();
    if (sigints > 1) process.exit(130);
    ac.abort();
  };
  process.on('SIGINT', onSigint);
  let finished = false;
  try {
    const result = await session.prompt(query, { signal: ac.signal });
    if (result.interrupted) {
      if (answer.streamed && !answer.streamed.endsWith('\n')) out('\n');
      err('Interrupted.');
      process.exitCode = 130;
      return;
    }
    if (result.failed) {
      if (answer.streamed && !answer.streamed.endsWith('\n')) out('\n');
      const e = result.error;
      const msg = e && 'provider' in e ? describeError(e, session.runtime) : (e?.message ?? 'The turn failed.');
      throw new CliError(msg);
    }
    const printAnswer = (r: typeof result) => {
      if (quiet) out(r.finalText.replace(/\n*$/, '\n'));
      else if (answer.streamed && !answer.streamed.endsWith('\n')) out('\n');
      else if (!answer.streamed && r.finalText) out(r.finalText.replace(/\n*$/, '\n'));
    };
    printAnswer(result);
    // Background work that promised to report (notify_on_complete processes, background subagents):
    // wait for it, bounded, and answer what it reports in follow-up turns, as Hermes does.
    const waitS = Number(ctx.loaded.config.terminal?.oneshot_completion_wait_seconds ?? 600);
    if (session.inbox.working || session.inbox.size) {
      if (!quiet && session.inbox.working) err(`⏳ waiting for ${session.inbox.working} background task(s) to report (at most ${waitS}s; Ctrl+C to stop)`);
      await runFollowUps(session.inbox, {
        deadlineMs: Date.now() + Math.max(0, Number.isFinite(waitS) ? waitS : 600) * 1000,
        signal: ac.signal,
        run: async (text, notes) => {
          if (!quiet) err(notes.map((n) => `🔔 ${n.title}`).join('\n'));
          answer.streamed = '';
          const r = await session.prompt(text, { signal: ac.signal });
          if (r.interrupted || r.failed) {
            if (answer.streamed && !answer.streamed.endsWith('\n')) out('\n');
            if (r.failed) err(`⚠ the follow-up turn failed: ${r.error && 'provider' in r.error ? describeError(r.error, session.runtime) : (r.error?.message ?? 'unknown error')}`);
            return { stop: true };
          }
          printAnswer(r);
          return { stop: false };
        },
      });
    }
    finished = true;
  } finally {
    flushLines();
    process.off('SIGINT', onSigint);
    await session.close('oneshot');
    await db.close();
    // A run that ends another way (failed, interrupted) still says its turn was not saved.
    if (!finished && session.saveFailure && !quiet) err(`⚠ ${session.saveFailure.warning}`);
  }
  // The answer was shown, but it is not (all) in the history: one line and a non-zero exit.
  if (session.saveFailure) throw new CliError(`This turn was not saved: ${session.saveFailure.message}`);
}
