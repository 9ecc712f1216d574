// One cron run: the pre-run script, the prompt (cron guidance, script output, skills), a fresh
// isolated session (platform/source `cron`, no history, no cronjob/clarify/messaging tools) driven
// to completion under an inactivity watchdog, and the Markdown document saved as the run's output.
import { spawn } from 'node:child_process';
import { makeSandbox } from '../sandbox/index.ts';
import { homedir } from 'node:os';
import { extname, join } from 'node:path';
import type { AgentEvent } from '../agent/types.ts';
import { describeError, resolveRuntime } from '../llm/index.ts';
import { filteredEnv } from '../policy/secrets-env.ts';
import { redactSecrets } from '../policy/redact.ts';
import type { McpManager } from '../mcp/manager.ts';
import { attachMcp, startMcp } from '../mcp/session.ts';
import { resolveInputFrom, Session, type SessionOptions, type SessionStore } from '../session/session.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { openSessionStore } from '../state/store/index.ts';
import { resolveScriptPath, scriptsDir, type CronJob } from './jobs.ts';
import { scriptLinkProblem } from './script-approval.ts';
import { loadSkillText } from './skills.ts';
import { CONTINUITY_REF, continuityBlock, latestOutput, previousReport } from './continuity.ts';
import { fileStamp, formatIso, type Clock } from './time.ts';

export interface RunDeps {
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  tz: string;
  now: Clock;
  log?: (line: string) => void;
  /** Aborts the run (ticker shutdown). */
  signal?: AbortSignal;
  /** Builds the run's session; tests and embedders override it. */
  makeSession?: (o: SessionOptions) => Session;
  /** A skill's content by name (default: HERMES_HOME/skills/…/SKILL.md). */
  loadSkill?: (name: string) => string | null;
  /** Where run sessions are persisted (source `cron`; default: the configured session store). */
  store?: SessionStore;
  /** Names that came from HERMES_HOME/.env (kept out of child processes). */
  dotenvNames?: string[];
}

export interface RunOutcome {
  success: boolean;
  /** The Markdown document saved to cron/output/<job>/<ts>.md. */
  doc: string;
  /** The agent's final answer ('' on failure). */
  finalResponse: string;
  error: string | null;
  sessionId: string;
  /** The run was stopped by shutdown (not by the job itself). */
  aborted: boolean;
  /** A no_agent run: the script's stdout is the message, delivered as it is; empty means nothing to send. */
  verbatim?: boolean;
}

/** Inactivity limit of a run in seconds (HERMES_CRON_TIMEOUT, default 600; 0 = none). */
export function idleLimitSeconds(env: NodeJS.ProcessEnv): number {
  const raw = env.HERMES_CRON_TIMEOUT?.trim();
  const n = raw ? Number(raw) : 600;
  return Number.isFinite(n) && n >= 0 ? n : 600;
}

/** Pre-run script timeout in seconds: HERMES_CRON_SCRIPT_TIMEOUT, cron.script_timeout_seconds, 120. */
export function scriptTimeoutSeconds(env: NodeJS.ProcessEnv, config: HermesConfig): number {
  for (const v of [env.HERMES_CRON_SCRIPT_TIMEOUT, config.cron?.script_timeout_seconds]) {
    const n = Number(v);
    if (v !== undefined && v !== '' && Number.isFinite(n) && n > 0) return n;
  }
  return 120;
}

const MAX_SCRIPT_OUTPUT = 64 * 1024;

/** The program that runs a script file, by extension. */
function interpreterFor(path: string): { cmd: string; args: string[] } {
  const ext = extname(path).toLowerCase();
  if (ext === '.sh' || ext === '.bash') return { cmd: 'bash', args: [path] };
  if (ext === '.py') return { cmd: 'python3', args: [path] };
  if (['.js', '.mjs', '.cjs', '.ts', '.mts'].includes(ext)) return { cmd: process.execPath, args: [path] };
  return { cmd: path, args: [] };
}

export interface ScriptResult {
  ok: boolean;
  output: string;
}

/**
 * Runs a job's pre-run script: inside HERMES_HOME/scripts, with Hermes's secrets removed from the
 * environment, killed (with its process group) after the timeout. Output is redacted and capped.
 */
export function runScript(home: string, script: string, o: { cwd?: string; env: NodeJS.ProcessEnv; timeoutS: number; signal?: AbortSignal; dotenvNames?: string[]; config?: { terminal?: unknown } }): Promise<ScriptResult> {
  const path = resolveScriptPath(home, script);
  const outside = scriptLinkProblem(home, script);
  if (outside) return Promise.resolve({ ok: false, output: outside });
  const { cmd, args } = interpreterFor(path);
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    let done = false;
    const finish = (r: ScriptResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve({ ok: r.ok, output: redactSecrets(r.output) });
    };
    let child: ReturnType<typeof spawn>;
    try {
      const cwd = o.cwd ?? scriptsDir(home);
      const env = { ...filteredEnv(o.env, { dotenvNames: o.dotenvNames }), HERMES_HOME: home };
      // The script runs in the OS sandbox of terminal.sandbox (its own folder, scripts/, stays read-only).
      const w = makeSandbox({ config: o.config ?? {}, env, hermesHome: home, cwd }).wrap(cmd, args);
      child = spawn(w.file, w.args, {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (e) {
      resolve({ ok: false, output: `Cannot run the script ${path}: ${(e as Error).message}` });
      return;
    }
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish({ ok: false, output: `Script timed out after ${o.timeoutS}s: ${path}` });
    }, o.timeoutS * 1000);
    const onAbort = () => {
      kill();
      finish({ ok: false, output: `Script interrupted: ${path}` });
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (d: Buffer) => {
      if (out.length < MAX_SCRIPT_OUTPUT) out += d.toString('utf8');
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (err.length < MAX_SCRIPT_OUTPUT) err += d.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      const hint = e.code === 'ENOENT' ? ` (is ${cmd === path ? 'the file there and executable' : `${cmd} installed`}?)` : e.code === 'EACCES' ? ' (make it executable, or give it a .sh/.py/.js extension)' : '';
      finish({ ok: false, output: `Cannot run the script ${path}: ${e.message}${hint}` });
    });
    child.on('close', (code, signal) => {
      const trimmed = out.slice(0, MAX_SCRIPT_OUTPUT).trim();
      if (code === 0) finish({ ok: true, output: trimmed });
      else
        finish({
          ok: false,
          output: `The script ${path} exited with ${signal ? `signal ${signal}` : `code ${code}`}.${trimmed ? `\nstdout:\n${trimmed}` : ''}${err.trim() ? `\nstderr:\n${err.slice(0, MAX_SCRIPT_OUTPUT).trim()}` : ''}`,
        });
    });
  });
}

const CRON_GUIDANCE =
  '[SYSTEM: This is a scheduled cron job running with nobody watching. Your final response is delivered ' +
  'to the user automatically: do not try to send it yourself, just write the report as your final answer. ' +
  'If there is genuinely nothing new worth reporting, answer with exactly "[SILENT]" and nothing else; that ' +
  'suppresses delivery. Never mix [SILENT] with a report.]';

/** Characters of an earlier job's output given as context (context_from). */
const CONTEXT_FROM_CHARS = 8_000;

/**
 * The user message of a run: cron guidance, the outputs of the jobs it takes context from, the
 * script's output, the skills, then the job's prompt.
 */
export function buildJobPrompt(
  job: CronJob,
  script: ScriptResult | null,
  loadSkill: (name: string) => string | null,
  readOutput: (id: string) => string | null = () => null,
  readPrevious: (id: string) => string | null = () => null,
): string {
  let prompt = job.prompt;
  if (script) {
    if (!script.ok)
      prompt = `## Script Error\nThe job's pre-run script failed. Tell the user what went wrong.\n\n\`\`\`\n${script.output}\n\`\`\`\n\n${prompt}`;
    else if (script.output)
      prompt = `## Script Output\nA pre-run script collected this data. Use it as context for the task.\n\n\`\`\`\n${script.output}\n\`\`\`\n\n${prompt}`;
    else prompt = `[The pre-run script ran and printed nothing.]\n\n${prompt}`;
  }
  for (const id of job.context_from ?? []) {
    if (id === CONTINUITY_REF) {
      const report = readPrevious(job.id);
      if (report) prompt = `${continuityBlock(report)}\n\n${prompt}`;
      continue;
    }
    let out = readOutput(id);
    if (!out?.trim()) continue; // that job has not produced anything yet
    if (out.length > CONTEXT_FROM_CHARS) out = `${out.slice(0, CONTEXT_FROM_CHARS)}\n\n[... output truncated ...]`;
    prompt = `## Output from job '${id}'\nThe most recent output of an earlier cron job, given to this one as context for its task.\n\n\`\`\`\n${out.trim()}\n\`\`\`\n\n${prompt}`;
  }
  prompt = `${CRON_GUIDANCE}\n\n${prompt}`;
  if (!job.skills.length) return prompt;
  const parts: string[] = [];
  const missing: string[] = [];
  for (const name of job.skills) {
    const text = loadSkill(name);
    if (text === null) {
      missing.push(name);
      continue;
    }
    if (parts.length) parts.push('');
    parts.push(`[SYSTEM: The "${name}" skill is loaded for this job; follow its instructions. Its full content follows.]`, '', text.trim());
  }
  if (missing.length)
    parts.unshift(
      `[SYSTEM: These skills are attached to the job but could not be found, so they were skipped: ${missing.join(', ')}. ` +
        `Begin your answer with a short notice saying so, e.g. "⚠️ Skill(s) not found: ${missing.join(', ')}".]`,
    );
  parts.push('', `The task for this run: ${prompt}`);
  return parts.join('\n');
}

function outputDoc(job: CronJob, when: string, prompt: string, body: { response?: string; error?: string }): string {
  const head = body.error !== undefined ? `# Cron Job: ${job.name} (FAILED)` : `# Cron Job: ${job.name}`;
  const lines = [head, '', `**Job ID:** ${job.id}`, `**Run Time:** ${when}`, `**Schedule:** ${job.schedule_display}`, ''];
  if (job.no_agent) lines.push(`**Mode:** no_agent (script ${job.script ?? '?'})`, '');
  else lines.push('## Prompt', '', prompt, '');
  if (body.error !== undefined) lines.push('## Error', '', '```', body.error, '```', '');
  else if (job.no_agent) lines.push('## Script Output', '', body.response || '(The script printed nothing; nothing was delivered.)', '');
  else lines.push('## Response', '', body.response || '(No response generated)', '');
  return lines.join('\n');
}

/**
 * The provider and model of a run: the job's own when it names them; for an unpinned job the ones
 * resolved when it was created (provider_snapshot / model_snapshot), so a later change of the
 * default model does not silently move its spend — unless they no longer resolve, then the default.
 */
function inferenceFor(job: CronJob, d: RunDeps, log: (l: string) => void): { provider?: string; model?: string } {
  if (job.model || job.provider) return { provider: job.provider ?? undefined, model: job.model ?? undefined };
  if (!job.provider_snapshot && !job.model_snapshot) return {};
  const want = { provider: job.provider_snapshot ?? undefined, model: job.model_snapshot ?? undefined };
  try {
    resolveRuntime(resolveInputFrom(d.config, d.env, want));
    return want;
  } catch (e) {
    log(`cron: job ${job.id} (${job.name}): its model snapshot ${want.provider ?? '?'}/${want.model ?? '?'} no longer resolves (${(e as Error).message}); running on the default model.`);
    return {};
  }
}

/** Runs one job to completion. Never throws: failures come back as `success: false`. */
/** How long a cron run waits for its MCP servers before starting without the slow ones. */
const MCP_WAIT_MS = 15_000;

export async function runJob(job: CronJob, d: RunDeps): Promise<RunOutcome> {
  const started = d.now();
  const sessionId = `cron_${job.id}_${fileStamp(started, d.tz).replace(/-/g, '')}`;
  const when = formatIso(started, d.tz).replace('T', ' ').slice(0, 19);
  const log = d.log ?? (() => {});
  let prompt = job.prompt;
  const fail = (error: string, aborted = false): RunOutcome => ({
    success: false,
    doc: outputDoc(job, when, prompt, { error }),
    finalResponse: '',
    error,
    sessionId,
    aborted,
  });

  let script: ScriptResult | null = null;
  if (job.script) {
    script = await runScript(d.home, job.script, {
      cwd: job.workdir ?? undefined,
      env: d.env,
      timeoutS: scriptTimeoutSeconds(d.env, d.config),
      signal: d.signal,
      dotenvNames: d.dotenvNames,
      config: d.config,
    });
    if (d.signal?.aborted) return fail('Interrupted by shutdown before the run finished.', true);
    if (!script.ok) log(`cron: job ${job.id} (${job.name}): pre-run script failed: ${script.output.split('\n')[0]}`);
  }
  if (job.no_agent) {
    // The script is the job: its stdout goes out as it is, no model involved.
    if (!script) return fail('This job is no_agent but has no script to run. Give it one (`script`), or turn no_agent off.');
    if (!script.ok) return fail(script.output);
    return { success: true, doc: outputDoc(job, when, prompt, { response: script.output }), finalResponse: script.output, error: null, sessionId, aborted: false, verbatim: true };
  }
  prompt = buildJobPrompt(job, script, d.loadSkill ?? ((n) => loadSkillText(d.home, n, d.config.skills?.external_dirs ?? [])), (id) => latestOutput(d.home, id), (id) => previousReport(d.home, id));

  // Cron sessions never manage cron jobs, ask questions, or send messages themselves.
  const baseDisabled = (d.config.agent as { disabled_toolsets?: string[] }).disabled_toolsets ?? [];
  const config: HermesConfig = {
    ...d.config,
    agent: { ...d.config.agent, disabled_toolsets: [...new Set([...baseDisabled, 'cronjob', 'clarify', 'messaging'])] } as HermesConfig['agent'],
  };
  const platformToolsets = (d.config.platform_toolsets ?? {}).cron;
  // The job's own toolsets (enabled_toolsets) when it names them, else the cron platform's.
  const toolsets = job.enabled_toolsets?.length ? job.enabled_toolsets : Array.isArray(platformToolsets) && platformToolsets.length ? platformToolsets : ['hermes-cron'];
  const pinned = inferenceFor(job, d, log);
  const env = job.workdir ? { ...d.env, TERMINAL_CWD: job.workdir } : d.env;
  // Runs are sessions like any other (source `cron`): searchable, resumable, costed.
  let ownStore: SessionStore | undefined;
  if (!d.store) {
    try {
      ownStore = await openSessionStore(d.home, d.config, d.env);
    } catch (e) {
      log(`cron: job ${job.id}: the session store is unavailable, the run is not saved to the session history: ${(e as Error).message}`);
    }
  }
  // The home's plugins and approved shell hooks run in cron jobs as in the CLI (problems go to the log).
  const { pluginPorts } = await import('../mcp/plugin-call.ts');
  await (await import('../plugins/load.ts')).loadSurfacePlugins({ home: d.home, config: d.config, env, cwd: job.workdir ?? d.home, warn: (m) => log(`cron: plugins: ${m}`), ports: pluginPorts });
  // config.yaml's MCP servers serve cron runs too (their tools are in the hermes-cron toolset).
  let mcp: McpManager | null = null;
  let registry: ToolRegistry | undefined;
  const rawMcp = d.config.mcp_servers;
  if (rawMcp && typeof rawMcp === 'object' && Object.keys(rawMcp).length) {
    try {
      mcp = await startMcp({ home: d.home, env, cwd: job.workdir ?? d.home, raw: rawMcp, waitMs: MCP_WAIT_MS });
    } catch (e) {
      log(`cron: job ${job.id}: MCP servers could not start: ${(e as Error).message}`);
    }
    if (mcp) {
      registry = builtinRegistry();
      mcp.syncInto(registry);
    }
  }
  const opts: SessionOptions = {
    registry,
    promptParts: mcp ? { notes: mcp.notes() } : undefined,
    home: d.home,
    config,
    env,
    cwd: job.workdir ?? (d.env.MESSAGING_CWD?.trim() || homedir()),
    platform: 'cron',
    source: 'cron',
    interactive: false,
    job: { kind: 'cron', id: job.id },
    sessionId,
    explicit: {
      toolsets,
      model: pinned.model,
      provider: pinned.provider,
      baseUrl: job.base_url ?? undefined,
    },
    store: d.store ?? ownStore,
    // Project rules (AGENTS.md, …) load only for jobs that name a workdir, as in Hermes; SOUL.md and
    // memory (MEMORY.md, USER.md, the memory tool) serve every run, as in Hermes 0.21.
    ignoreProjectRules: !job.workdir,
    dotenvNames: d.dotenvNames,
    now: d.now,
  };

  // Titled by the job (`cron: <name>`, `… #2` for later runs), never by the injected guidance text.
  let title: string | undefined;
  try {
    title = (await opts.store?.uniqueTitle(`cron: ${job.name}`)) ?? undefined;
  } catch (e) {
    log(`cron: job ${job.id}: no title for the run's session: ${(e as Error).message}`);
  }

  let session: Session;
  try {
    session = d.makeSession ? d.makeSession(opts) : new Session(opts);
    if (title) session.pendingTitle = title;
    if (mcp) attachMcp(session, mcp, { owned: true, onEvent: (line) => log(`cron: job ${job.id}: ${line}`) });
  } catch (e) {
    void mcp?.close();
    await ownStore?.close();
    return fail(`${(e as Error).name === 'Error' ? '' : `${(e as Error).name}: `}${(e as Error).message}`);
  }

  const limitS = idleLimitSeconds(d.env);
  let lastActivity = performance.now();
  let lastDesc = 'starting';
  let idledOut = false;
  let toolsRunning = 0;
  const off = session.on((e: AgentEvent) => {
    lastActivity = performance.now();
    if (e.type === 'tool_start') {
      toolsRunning++;
      lastDesc = `tool ${e.name}`;
    } else if (e.type === 'api_start') lastDesc = `model call ${e.iteration}`;
    else if (e.type === 'tool_end') {
      toolsRunning = Math.max(0, toolsRunning - 1);
      lastDesc = `tool ${e.name} finished`;
    }
  });
  // A running tool counts as activity (tools have their own timeouts), up to three times the limit.
  const watchdog =
    limitS > 0
      ? setInterval(
          () => {
            if (performance.now() - lastActivity >= limitS * 1000 * (toolsRunning > 0 ? 3 : 1)) {
              idledOut = true;
              session.interrupt();
            }
          },
          Math.max(50, Math.min(5000, (limitS * 1000) / 4)),
        )
      : null;

  try {
    const r = await session.prompt(prompt, { signal: d.signal });
    if (idledOut) {
      const idle = Math.round((performance.now() - lastActivity) / 1000);
      return fail(`Cron job '${job.name}' idle for ${idle}s (limit ${limitS}s) — last activity: ${lastDesc}`);
    }
    if (r.interrupted) return fail('Interrupted by shutdown before the run finished.', !!d.signal?.aborted);
    if (r.failed) {
      const e = r.error;
      const msg = e && 'provider' in e ? describeError(e, session.runtime) : (e?.message ?? 'The run failed.');
      return fail(msg);
    }
    const finalResponse = r.finalText ?? '';
    return { success: true, doc: outputDoc(job, when, prompt, { response: finalResponse }), finalResponse, error: null, sessionId, aborted: false };
  } catch (e) {
    return fail(`${(e as Error).name}: ${(e as Error).message}`);
  } finally {
    if (watchdog) clearInterval(watchdog);
    off();
    await session.close('cron_complete').catch(() => {});
    await ownStore?.close();
  }
}
