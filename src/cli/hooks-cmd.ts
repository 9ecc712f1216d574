// `hermes hooks list|test|revoke|doctor`: the shell hooks of config.yaml (`hooks:`), their consent
// in shell-hooks-allowlist.json, and the gateway hooks of HERMES_HOME/hooks. `test` runs a hook on a
// sample payload (the same stdin the live hook gets); `doctor` runs only hooks already approved,
// so a freshly pulled config never executes a script before its owner reviewed it.
import { accessSync, constants, readFileSync } from 'node:fs';
import { CliError } from './errors.ts';
import { loadContext } from './context.ts';
import { scanGatewayHooks } from '../gateway/hooks.ts';
import { expandHome } from '../state/paths.ts';
import { profileNameOf } from '../state/profiles.ts';
import { allowlistEntry, commandScript, revokeCommand, scriptMtimeIso, type Approval } from '../plugins/allowlist.ts';
import { closest, FIRED_HOOKS, VALID_HOOKS } from '../plugins/hooks.ts';
import { loggableUrl, parseOutbound } from '../plugins/outbound-webhooks.ts';
import { evaluate, matchesTool, parseHooksBlock, payloadJson, spawnHook, type ShellHookSpec, type SpawnResult } from '../plugins/shell-hooks.ts';
import { parse } from 'yaml';

const out = (s = ""): void => void process.stdout.write(`${s}\n`);

/** Sample payloads shaped like the live fire sites (what `test` and `doctor` send). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  pre_tool_call: { tool_name: 'terminal', args: { command: 'echo hello' }, session_id: 'test-session', task_id: 'test-task', tool_call_id: 'test-call' },
  post_tool_call: { tool_name: 'terminal', args: { command: 'echo hello' }, session_id: 'test-session', task_id: 'test-task', tool_call_id: 'test-call', result: '{"output": "hello"}', duration_ms: 42 },
  pre_llm_call: { session_id: 'test-session', user_message: 'What is the weather?', conversation_history: [], is_first_turn: true, model: 'test-model', platform: 'cli' },
  post_llm_call: { session_id: 'test-session', model: 'test-model', platform: 'cli', assistant_response: 'It is sunny.' },
  on_session_start: { session_id: 'test-session' },
  on_session_end: { session_id: 'test-session', task_id: 'test-task', turn_id: 'test-turn', completed: true, failed: false, interrupted: false, turn_exit_reason: 'completed', model: 'test-model', platform: 'cli' },
  on_session_finalize: { session_id: 'test-session' },
  on_session_reset: { session_id: 'test-session' },
  subagent_stop: { parent_session_id: 'parent-session', child_role: null, child_summary: 'A sample summary', child_status: 'completed', tool_call_history: [{ tool_name: 'write_file' }], duration_ms: 1234 },
};

function configured(): { home: string; env: NodeJS.ProcessEnv; specs: ShellHookSpec[]; warnings: string[]; config: unknown } {
  const ctx = loadContext();
  const warnings: string[] = [];
  const config = ctx.loaded.config as { hooks?: unknown };
  return { home: ctx.home, env: ctx.env, config, specs: parseHooksBlock(config.hooks, (w) => warnings.push(w)), warnings };
}

/** True / false when both mtimes are known and the script changed / did not; null otherwise. */
function drift(spec: ShellHookSpec, entry: Approval): { changed: boolean | null; was?: string | null; now: string | null } {
  const now = scriptMtimeIso(spec.command);
  const was = entry.script_mtime_at_approval;
  if (!now || !was) return { changed: null, was, now };
  return { changed: Date.parse(now) > Date.parse(was) ? true : Date.parse(now) === Date.parse(was) ? false : null, was, now };
}

const matcherPart = (s: ShellHookSpec) => (s.matcher ? ` matcher=${JSON.stringify(s.matcher)}` : '');

export async function list(opts: { json?: boolean }): Promise<void> {
  const { home, env, specs, warnings, config } = configured();
  const gateway = scanGatewayHooks(home, (t) => parse(t));
  const hooksBlock = (config as { hooks?: { outbound?: unknown } }).hooks;
  const outbound = parseOutbound(hooksBlock && typeof hooksBlock === 'object' ? hooksBlock.outbound : undefined, env, (w) => warnings.push(w));
  if (opts.json) {
    const rows = specs.map((s) => ({ event: s.event, command: s.command, matcher: s.matcher ?? null, timeout: s.timeoutS, fail_closed: s.failClosed, approved: !!allowlistEntry(home, s.event, s.command), fired: FIRED_HOOKS.includes(s.event) }));
    out(JSON.stringify({ shell_hooks: rows, gateway_hooks: gateway.map((g) => ({ name: g.name, events: g.events, handler: g.handler ?? null, problem: g.problem ?? null })), outbound_webhooks: outbound.map((t) => ({ name: t.name || null, url: loggableUrl(t.url), events: t.events, matcher: t.matcher ?? null, timeout: t.timeoutS, signed: !!t.secret })), warnings }, null, 2));
    return;
  }
  for (const w of warnings) out(`⚠ ${w}`);
  if (!specs.length) out(`No shell hooks configured in ${home}/config.yaml.`);
  else {
    out(`Configured shell hooks (${specs.length} total):\n`);
    const events = [...new Set(specs.map((s) => s.event))].sort();
    for (const event of events) {
      out(`  [${event}]${FIRED_HOOKS.includes(event) ? '' : '  (accepted, but this build never fires it)'}`);
      for (const s of specs.filter((x) => x.event === event)) {
        const entry = allowlistEntry(home, s.event, s.command);
        out(`    - ${s.command}${matcherPart(s)} (timeout=${s.timeoutS}s${s.failClosed ? ', fail_closed' : ''}, ${entry ? '✓ allowed' : '✗ not allowlisted'})`);
        if (entry?.approved_at) {
          out(`      approved_at: ${entry.approved_at}`);
          const d = drift(s, entry);
          if (d.changed) out(`      ⚠ script modified since approval (was ${d.was}, now ${d.now}) — run \`hermes hooks doctor\` to re-validate`);
        }
      }
      out();
    }
  }
  if (outbound.length) {
    out(`Outbound webhooks (hooks.outbound, ${outbound.length}):`);
    for (const t of outbound) out(`  - ${t.name ? `${t.name} ` : ''}${loggableUrl(t.url)}  [${t.events.join(', ')}]${t.matcher ? ` matcher=${JSON.stringify(t.matcher)}` : ''} (timeout=${t.timeoutS}s, ${t.secret ? 'signed' : 'unsigned'})`);
    out();
  }
  if (gateway.length) {
    out(`Gateway hooks (${home}/hooks):`);
    for (const g of gateway) out(`  ${g.problem ? '✗' : '✓'} ${g.name}  [${g.events.join(', ') || 'no events'}]${g.problem ? `\n      ${g.problem}` : ''}`);
  }
}

function printRun(r: SpawnResult, parsed: Record<string, unknown> | null): void {
  if (r.error) return out(`      ✗ error: ${r.error}`);
  if (r.timedOut) return out(`      ✗ timed out after ${(r.elapsedMs / 1000).toFixed(2)}s`);
  out(`      exit=${r.code}  elapsed=${(r.elapsedMs / 1000).toFixed(2)}s`);
  for (const [name, text] of [['stdout', r.stdout.trim()], ['stderr', r.stderr.trim()]] as const) if (text) out(`      ${name}: ${text.length > 400 ? `${text.slice(0, 397)}...` : text}`);
  out(parsed ? `      parsed (Hermes wire shape): ${JSON.stringify(parsed)}` : '      parsed: <none — the hook contributed nothing>');
}

function samplePayload(event: string, o: { forTool?: string; payloadFile?: string; arg?: string[] }): Record<string, unknown> {
  const payload: Record<string, unknown> = structuredClone(SAMPLES[event] ?? { session_id: 'test-session' });
  if (o.forTool) payload.tool_name = o.forTool;
  if (o.payloadFile) {
    let custom: unknown;
    try {
      custom = JSON.parse(readFileSync(expandHome(o.payloadFile), 'utf8'));
    } catch (e) {
      throw new CliError(`Cannot read the payload file ${o.payloadFile}: ${(e as Error).message}`);
    }
    if (!custom || typeof custom !== 'object' || Array.isArray(custom)) throw new CliError(`${o.payloadFile} must hold a JSON object of payload fields.`);
    Object.assign(payload, custom);
  }
  for (const kv of o.arg ?? []) {
    const i = kv.indexOf('=');
    if (i < 1) throw new CliError(`--arg takes key=value (got "${kv}").`);
    payload.args = { ...((payload.args as object) ?? {}), [kv.slice(0, i)]: kv.slice(i + 1) };
  }
  return payload;
}

export async function test(event: string, o: { forTool?: string; payloadFile?: string; arg?: string[] }): Promise<void> {
  if (!VALID_HOOKS.includes(event)) {
    const near = closest(event, VALID_HOOKS);
    throw new CliError(`Unknown hook event "${event}".${near ? ` Did you mean "${near}"?` : ''} Valid events: ${[...VALID_HOOKS].sort().join(', ')}`);
  }
  const { home, env, specs: all } = configured();
  const payload = samplePayload(event, o);
  let specs = all.filter((s) => s.event === event);
  if (o.forTool) specs = specs.filter((s) => matchesTool(s, o.forTool));
  if (!specs.length) {
    out(`No shell hooks configured for event: ${event}${o.forTool ? ` (with --for-tool ${o.forTool})` : ''}`);
    return;
  }
  out(`Firing ${specs.length} hook(s) for event '${event}':\n`);
  for (const s of specs) {
    out(`  → ${s.command}${allowlistEntry(home, s.event, s.command) ? '' : '  (not approved yet: it does not run in sessions until approved)'}`);
    const r = await spawnHook(s, payloadJson(event, payload, process.cwd(), profileNameOf(home, env)), { ...env, HERMES_HOME: home }, process.cwd());
    printRun(r, evaluate(s, r));
    out();
  }
}

export async function revoke(command: string): Promise<void> {
  const ctx = loadContext();
  const removed = revokeCommand(ctx.home, command);
  if (!removed) {
    out(`No allowlist entry found for command: ${command}`);
    return;
  }
  out(`Removed ${removed} allowlist ${removed === 1 ? 'entry' : 'entries'} for: ${command}`);
  out('Running CLI and gateway processes keep the hooks they registered until they restart.');
}

function executable(command: string): boolean {
  try {
    accessSync(expandHome(commandScript(command)), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function doctor(): Promise<void> {
  const { home, env, specs, warnings } = configured();
  let problems = 0;
  for (const w of warnings) {
    problems++;
    out(`✗ ${w}`);
  }
  const gateway = scanGatewayHooks(home, (t) => parse(t));
  for (const g of gateway) {
    if (!g.problem) continue;
    problems++;
    out(`✗ gateway hook ${g.name}: ${g.problem}`);
  }
  if (!specs.length) out('No shell hooks configured — nothing more to check.');
  else out(`Checking ${specs.length} configured shell hook(s)...\n`);
  for (const s of specs) {
    out(`  [${s.event}] ${s.command}`);
    if (!FIRED_HOOKS.includes(s.event)) out(`      ⚠ this build accepts ${s.event} but never fires it`);
    const runnable = executable(s.command);
    if (runnable) out('      ✓ script exists and is executable');
    else {
      problems++;
      out('      ✗ script missing or not executable (chmod +x the file, or fix the path)');
    }
    const entry = allowlistEntry(home, s.event, s.command);
    if (entry) out(`      ✓ allowlisted (approved ${entry.approved_at ?? '?'})`);
    else {
      problems++;
      out('      ✗ not allowlisted — the hook does NOT run (approve it at the prompt of an interactive `hermes`, or run once with --accept-hooks)');
    }
    if (entry) {
      const d = drift(s, entry);
      if (d.changed) {
        problems++;
        out(`      ⚠ script modified since approval (was ${d.was}, now ${d.now}) — review it, then \`hermes hooks revoke\` and approve again`);
      } else if (d.changed === false) out('      ✓ script unchanged since approval');
    }
    if (!entry) out('      ℹ skipped the sample run — not approved yet');
    else if (runnable) {
      const r = await spawnHook(s, payloadJson(s.event, samplePayload(s.event, {}), process.cwd(), profileNameOf(home, env)), { ...env, HERMES_HOME: home }, process.cwd());
      const secs = (r.elapsedMs / 1000).toFixed(2);
      const stdout = r.stdout.trim();
      if (r.timedOut) {
        problems++;
        out(`      ✗ timed out after ${secs}s on the sample payload (timeout=${s.timeoutS}s)`);
      } else if (r.error) {
        problems++;
        out(`      ✗ execution error: ${r.error}`);
      } else if (!stdout) out(`      ✓ ran clean with empty stdout (exit=${r.code}, ${secs}s) — an observer hook`);
      else {
        try {
          JSON.parse(stdout);
          out(`      ✓ produced valid JSON on the sample payload (exit=${r.code}, ${secs}s)`);
        } catch {
          problems++;
          out(`      ✗ stdout was not valid JSON (exit=${r.code}, ${secs}s): ${stdout.slice(0, 120)}`);
        }
      }
    }
    out();
  }
  out(problems ? `${problems} issue(s) found. Fix them before relying on these hooks.` : 'All hooks look healthy.');
  if (problems) process.exitCode = 1;
}
